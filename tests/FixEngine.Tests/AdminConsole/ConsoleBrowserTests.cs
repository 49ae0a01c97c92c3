using System;
using System.IO;
using System.Linq;
using System.Threading.Tasks;
using FixEngine.Tests.Engine;
using OpenQA.Selenium;
using OpenQA.Selenium.Chrome;
using OpenQA.Selenium.Support.UI;
using Xunit.Abstractions;

namespace FixEngine.Tests.AdminConsole;

/// <summary>A fact that drives a real headless browser (Debian's chromium and chromium-driver): skipped with the reason
/// when chromedriver is absent, outside CI; under CI=true it runs and fails without them (.ci/run installs them).</summary>
public sealed class BrowserFactAttribute : FactAttribute
{
    public BrowserFactAttribute()
    {
        if (Browser.SkipReason is string reason) Skip = reason;
    }
}

internal static class Browser
{
    public static string? Driver => new[] { Environment.GetEnvironmentVariable("CHROMEDRIVER"), "/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver" }
        .FirstOrDefault(p => !string.IsNullOrEmpty(p) && File.Exists(p));

    public static string? SkipReason =>
        Driver is not null || string.Equals(Environment.GetEnvironmentVariable("CI"), "true", StringComparison.OrdinalIgnoreCase)
            ? null
            : "needs chromium and chromedriver (apt-get install -y chromium chromium-driver; .ci/run installs them)";

    /// <summary>Where the screenshots go: TestResults/console-screenshots under the repository.</summary>
    public static string ScreenshotDirectory
    {
        get
        {
            string dir = Path.Combine(Infrastructure.SharedPaths.Repository, "TestResults", "console-screenshots");
            Directory.CreateDirectory(dir);
            return dir;
        }
    }

    public static ChromeDriver Start()
    {
        string driver = Driver ?? throw new InvalidOperationException("chromedriver not found (/usr/bin/chromedriver, or set CHROMEDRIVER): apt-get install -y chromium chromium-driver");
        var service = ChromeDriverService.CreateDefaultService(Path.GetDirectoryName(driver)!, Path.GetFileName(driver));
        service.HideCommandPromptWindow = true;
        service.SuppressInitialDiagnosticInformation = true;
        var options = new ChromeOptions();
        if (File.Exists("/usr/bin/chromium")) options.BinaryLocation = "/usr/bin/chromium";
        options.AddArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1600,1000");
        return new ChromeDriver(service, options, TimeSpan.FromSeconds(60));
    }
}

/// <summary>The console as the support desk uses it, in a real headless browser: the session list, a sequence reset the
/// counterparty accepts, an order found by its ClOrdID. A screenshot of each page is kept under
/// TestResults/console-screenshots (the path is printed in the test output).</summary>
public sealed class ConsoleBrowserTests(ITestOutputHelper output)
{
    private static readonly TimeSpan s_wait = TimeSpan.FromSeconds(20);

    [BrowserFact]
    public async Task TheDeskOpensTheListResetsASessionAndFindsAnOrderByClOrdId()
    {
        await using ConsoleFixture f = await ConsoleFixture.StartAsync();
        Assert.True(f.ClientApp.LoggedOn.Wait(EngineTestSupport.Wait), "the initiator logged on");
        for (int i = 0; i < 5; i++) EngineTestSupport.SendOrder(f.ClientApp.Session!, i);
        Assert.True(EngineTestSupport.WaitFor(() => System.Threading.Interlocked.Read(ref f.ClientApp.Fills) == 5));

        using ChromeDriver browser = Browser.Start();
        var wait = new WebDriverWait(browser, s_wait);
        // The page re-renders the session table on every refresh: an element found a moment ago may be gone (stale) by the
        // time it is read or clicked, more often on a busy machine. Waits find it again; CellText reads it afresh.
        wait.IgnoreExceptionTypes(typeof(StaleElementReferenceException));

        // 1. The session list.
        browser.Navigate().GoToUrl(new Uri(f.BaseAddress, "fix-admin/"));
        wait.Until(d => d.FindElements(By.CssSelector($"tr[data-session='{ConsoleFixture.ClientId}']")).FirstOrDefault());
        wait.Until(_ => CellText(browser, "state") == "LoggedOn");
        // Logon + 5 orders sent, Logon + 5 fills received.
        wait.Until(_ => CellText(browser, "next-sender") == "7" && CellText(browser, "next-target") == "7");
        Screenshot(browser, "1-session-list");

        // 2. Reset the sequence numbers; the counterparty answers with its own Logon(141=Y): both sides at 2.
        wait.Until(d =>
        {
            d.FindElement(By.CssSelector($"tr[data-session='{ConsoleFixture.ClientId}']")).Click();
            return true;
        });
        wait.Until(d => d.FindElement(By.Id("detail")).Displayed);
        browser.FindElement(By.CssSelector("button[data-action='reset']")).Click();
        wait.Until(ExpectedAlert).Accept();
        wait.Until(d => d.FindElement(By.Id("action-result")).Text.Contains("ResetSeqNumFlag(141)=Y sent", StringComparison.Ordinal));
        wait.Until(_ => CellText(browser, "next-sender") == "2" && CellText(browser, "next-target") == "2");
        wait.Until(d => d.FindElement(By.Id("tail")).Text.Contains("Operator anonymous@127.0.0.1: reset", StringComparison.Ordinal));
        wait.Until(_ => CellText(browser, "state") == "LoggedOn");
        Assert.True(EngineTestSupport.WaitFor(() => f.Acceptor.Sessions[0].NextTargetMsgSeqNum == 2), "the counterparty reset too");
        Screenshot(browser, "2-after-reset");

        // 3. Orders in the new sequence; find one by ClOrdID on the counterparty's console: the fill it stored, and the
        // order and the fill in its message log (the log's drain thread may need a moment: the desk clicks Find again).
        for (int i = 5; i < 8; i++) EngineTestSupport.SendOrder(f.ClientApp.Session!, i);
        Assert.True(EngineTestSupport.WaitFor(() => System.Threading.Interlocked.Read(ref f.ClientApp.Fills) == 8));
        browser.Navigate().GoToUrl(new Uri(f.BaseAddress, "exec-admin/"));
        wait.Until(d =>
        {
            // Found and clicked in one step: the live tail re-renders the list, so a row found a moment ago may be stale.
            d.FindElement(By.CssSelector($"tr[data-session='{ConsoleFixture.ExecId}']")).Click();
            return true;
        });
        wait.Until(d => d.FindElement(By.Id("detail")).Displayed);
        browser.FindElement(By.Id("search-value")).SendKeys("6");
        var quick = new WebDriverWait(browser, TimeSpan.FromSeconds(2));
        bool found = false;
        for (int attempt = 0; attempt < 10 && !found; attempt++)
        {
            browser.FindElement(By.Id("search-button")).Click();
            try
            {
                found = quick.Until(d => d.FindElement(By.Id("messages-status")).Text.StartsWith("3 message(s) with 11=6", StringComparison.Ordinal));
            }
            catch (WebDriverTimeoutException)
            {
                output.WriteLine("search: " + browser.FindElement(By.Id("messages-status")).Text);
            }
        }
        Assert.True(found, "the search found the order and its fill: " + browser.FindElement(By.Id("messages-status")).Text);
        var messages = browser.FindElements(By.CssSelector("#messages .message"));
        Assert.Equal(3, messages.Count);
        Assert.Contains("ClOrdID", messages[0].Text);
        Assert.Contains(messages, m => m.Text.Contains("← in", StringComparison.Ordinal) && m.Text.Contains("35=D", StringComparison.Ordinal));
        Screenshot(browser, "3-search-clordid");

        // 4. The list is filtered on the server (api/sessions?q=...): a text no session id contains empties it, and
        // clearing it brings the session back.
        wait.Until(d => d.FindElement(By.Id("page-status")).Text == "1–1 of 1 session");
        browser.FindElement(By.Id("filter-text")).SendKeys("nobody");
        wait.Until(d => d.FindElement(By.Id("page-status")).Text == "0–0 of 0 matching (1 session)"
            && d.FindElements(By.CssSelector("#sessions tbody tr")).Count == 0);
        Screenshot(browser, "4-filtered-list");
        browser.FindElement(By.Id("filter-text")).SendKeys(Keys.Control + "a" + Keys.Backspace);
        wait.Until(d => d.FindElement(By.Id("page-status")).Text == "1–1 of 1 session"
            && d.FindElements(By.CssSelector($"tr[data-session='{ConsoleFixture.ExecId}']")).Count == 1);
    }

    private static IAlert? ExpectedAlert(IWebDriver d)
    {
        try
        {
            return d.SwitchTo().Alert();
        }
        catch (NoAlertPresentException)
        {
            return null;
        }
    }

    /// <summary>The text of a cell of the initiator's row, found afresh (at most 50 tries while the table is re-rendered
    /// under the read).</summary>
    private static string CellText(IWebDriver d, string cls)
    {
        for (int attempt = 1; ; attempt++)
        {
            try
            {
                return d.FindElement(By.CssSelector($"tr[data-session='{ConsoleFixture.ClientId}'] td.{cls}")).Text;
            }
            catch (StaleElementReferenceException) when (attempt < 50)
            {
                System.Threading.Thread.Sleep(20);
            }
        }
    }

    private void Screenshot(ChromeDriver browser, string name)
    {
        string path = Path.Combine(Browser.ScreenshotDirectory, name + ".png");
        browser.GetScreenshot().SaveAsFile(path);
        output.WriteLine("screenshot: " + path);
    }
}
