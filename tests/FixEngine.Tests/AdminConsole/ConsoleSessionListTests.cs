using System;
using System.Linq;
using System.Net;
using System.Net.Http;
using System.Text;
using System.Text.Json;
using System.Threading.Tasks;
using FixEngine.AspNetCore;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Tests.Engine;
using FixEngine.Tests.Session;
using Microsoft.AspNetCore.Builder;

namespace FixEngine.Tests.AdminConsole;

/// <summary><c>api/sessions</c> for a desk with many sessions: a page (<c>offset</c>, <c>limit</c>) of the sessions that
/// match a filter (<c>state</c>, <c>enabled</c>, a text <c>q</c> in the session id), and a 400 naming the parameter for a
/// bad value.</summary>
public sealed class ConsoleSessionListTests
{
    private const int Count = 250;

    // 250 acceptor sessions EXEC->C0000 .. EXEC->C0249 (not started: all Disconnected) and the console over them.
    private static async Task<(FixEngineHost Host, WebApplication App, HttpClient Http)> ManySessionsAsync()
    {
        var text = new StringBuilder("[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=0\nSenderCompID=EXEC\nBeginString=FIX.4.4\nUseDataDictionary=N\nStartTime=00:00:00\nEndTime=00:00:00\n");
        for (int i = 0; i < Count; i++) text.Append("[SESSION]\nTargetCompID=C").Append(i.ToString("D4", System.Globalization.CultureInfo.InvariantCulture)).Append('\n');
        var host = new FixEngineHost(SettingsFile.Parse(text.ToString(), "venue.cfg"), new EchoApp());
        (WebApplication app, Uri address) = await ConsoleWebApp.StartAsync(IPAddress.Loopback, 0, null, web => web.MapFixEngineAdmin(host));
        return (host, app, new HttpClient { BaseAddress = address, Timeout = TimeSpan.FromSeconds(30) });
    }

    private static string Id(int i) => "FIX.4.4:EXEC->C" + i.ToString("D4", System.Globalization.CultureInfo.InvariantCulture);

    private static async Task<JsonElement> GetAsync(HttpClient http, string query)
    {
        using HttpResponseMessage r = await http.GetAsync("fix-admin/api/sessions" + query);
        string body = await r.Content.ReadAsStringAsync();
        Assert.True(r.IsSuccessStatusCode, $"{query}: {(int)r.StatusCode} {body}");
        return JsonDocument.Parse(body).RootElement.Clone();
    }

    private static string[] Ids(JsonElement list) => [.. list.EnumerateArray().Select(s => s.GetProperty("id").GetString()!)];

    private static string[] Range(int from, int count) => [.. Enumerable.Range(from, count).Select(Id)];

    [Fact]
    public async Task AListIsPagedAndFilteredByTextAndEnabled()
    {
        (FixEngineHost host, WebApplication app, HttpClient http) = await ManySessionsAsync();
        using (host)
        using (http)
        await using (app)
        {
            // Without parameters: every session, a plain array (as before paging).
            Assert.Equal(Range(0, Count), Ids(await GetAsync(http, "")));

            // A page: the sessions in the engine's order, with the counts.
            JsonElement page = await GetAsync(http, "?offset=100&limit=50");
            Assert.Equal(100, page.GetProperty("offset").GetInt32());
            Assert.Equal(50, page.GetProperty("limit").GetInt32());
            Assert.Equal(Count, page.GetProperty("total").GetInt32());
            Assert.Equal(Count, page.GetProperty("sessionCount").GetInt32());
            Assert.Equal(Range(100, 50), Ids(page.GetProperty("sessions")));
            // The last, short page; a page past the end is empty and still counts; a page without limit has 100.
            Assert.Equal(Range(240, 10), Ids((await GetAsync(http, "?offset=240&limit=50")).GetProperty("sessions")));
            Assert.Empty(Ids((await GetAsync(http, "?offset=300&limit=10")).GetProperty("sessions")));
            Assert.Equal(Count, (await GetAsync(http, "?offset=300&limit=10")).GetProperty("total").GetInt32());
            JsonElement first = await GetAsync(http, "?offset=0");
            Assert.Equal((100, 100), (first.GetProperty("limit").GetInt32(), first.GetProperty("sessions").GetArrayLength()));

            // A text in the session id, ignoring case: C0100-C0199 match "c01".
            JsonElement text = await GetAsync(http, "?q=c01&offset=90&limit=20");
            Assert.Equal(100, text.GetProperty("total").GetInt32());
            Assert.Equal(Count, text.GetProperty("sessionCount").GetInt32());
            Assert.Equal(Range(190, 10), Ids(text.GetProperty("sessions")));
            // A filter without paging: an array of every match; the id's parts match too.
            Assert.Equal(Range(240, 10), Ids(await GetAsync(http, "?q=" + Uri.EscapeDataString("exec->C024"))));
            Assert.Empty(Ids(await GetAsync(http, "?q=nobody")));

            // Disabled sessions (an operator's action) and enabled ones.
            foreach (int i in new[] { 7, 5 })
            {
                using var request = new HttpRequestMessage(HttpMethod.Post, "fix-admin/api/action/disable?id=" + Uri.EscapeDataString(Id(i)));
                request.Headers.Add(FixEngineAdminEndpoints.ActionHeader, "1");
                using HttpResponseMessage r = await http.SendAsync(request);
                Assert.True(r.IsSuccessStatusCode, await r.Content.ReadAsStringAsync());
            }
            Assert.Equal([Id(5), Id(7)], Ids(await GetAsync(http, "?enabled=false")));
            JsonElement disabled = await GetAsync(http, "?enabled=false&limit=1");
            Assert.Equal(2, disabled.GetProperty("total").GetInt32());
            Assert.Equal([Id(5)], Ids(disabled.GetProperty("sessions")));
            Assert.Equal(Count - 2, (await GetAsync(http, "?enabled=true&limit=1")).GetProperty("total").GetInt32());
            // Filters combine: disabled and "C000".
            Assert.Equal([Id(5), Id(7)], Ids(await GetAsync(http, "?enabled=false&q=C000")));
            Assert.Empty(Ids(await GetAsync(http, "?enabled=false&q=C01")));

            // By state: none is logged on (the engine is not started); names ignore case, several are comma-separated.
            Assert.Equal(0, (await GetAsync(http, "?state=LoggedOn&limit=10")).GetProperty("total").GetInt32());
            Assert.Equal(Count, (await GetAsync(http, "?state=loggedon,DISCONNECTED&limit=10")).GetProperty("total").GetInt32());
        }
    }

    [Fact]
    public async Task AStateFilterFindsTheLoggedOnSession()
    {
        await using ConsoleFixture f = await ConsoleFixture.StartAsync();
        Assert.True(f.ClientApp.LoggedOn.Wait(EngineTestSupport.Wait), "the initiator logged on");
        Assert.Equal([ConsoleFixture.ClientId], Ids(await f.GetJsonAsync("fix-admin/api/sessions?state=LoggedOn")));
        Assert.Empty(Ids(await f.GetJsonAsync("fix-admin/api/sessions?state=Disconnected,LogonSent,AwaitingLogon,LogoutSent")));

        (HttpStatusCode status, string body) = await f.PostActionAsync("fix-admin", "disable", ConsoleFixture.ClientId);
        Assert.True(status == HttpStatusCode.OK, body);
        Assert.True(await ConsoleApiTests.WaitForAsync(async () =>
            Ids(await f.GetJsonAsync("fix-admin/api/sessions?state=Disconnected&enabled=false")).Length == 1), "down and disabled");
        JsonElement page = await f.GetJsonAsync("fix-admin/api/sessions?state=LoggedOn&offset=0&limit=10");
        Assert.Equal((0, 1), (page.GetProperty("total").GetInt32(), page.GetProperty("sessionCount").GetInt32()));
    }

    [Fact]
    public async Task ABadParameterIsA400NamingIt()
    {
        using var host = new FixEngineHost(SettingsFile.Parse(
            "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=0\nSenderCompID=EXEC\nBeginString=FIX.4.4\nUseDataDictionary=N\nStartTime=00:00:00\nEndTime=00:00:00\n[SESSION]\nTargetCompID=C\n", "venue.cfg"), new EchoApp());
        (WebApplication app, Uri address) = await ConsoleWebApp.StartAsync(IPAddress.Loopback, 0, null, web => web.MapFixEngineAdmin(host));
        await using (app)
        {
            using var http = new HttpClient { BaseAddress = address, Timeout = TimeSpan.FromSeconds(30) };
            (string Query, string Says)[] cases =
            [
                ("offset=-1", "offset: '-1' is not a whole number of 0 or more"),
                ("offset=ten", "offset: 'ten' is not a whole number of 0 or more"),
                ("limit=0", "limit: '0' is not a whole number from 1 to 1000"),
                ("limit=1001", "limit: '1001' is not a whole number from 1 to 1000"),
                ("limit=5&limit=6", "limit: given 2 times; give it once"),
                ("state=Trading", "state: 'Trading' is not a session state (Disconnected, AwaitingLogon, LogonSent, LoggedOn, LogoutSent; several separated by commas)"),
                ("state=3", "state: '3' is not a session state"),
                ("state=LoggedOn,", "state: '' is not a session state"),
                ("enabled=maybe", "enabled: 'maybe' is not true or false"),
                ("stat=LoggedOn", "stat: unknown parameter (api/sessions takes offset, limit, state, enabled, q)"),
                ("q=" + new string('x', 201), "q: 201 characters; at most 200"),
            ];
            // The message and search answers take the same limit, and say so rather than clamping it.
            string id = Uri.EscapeDataString(host.Sessions[0].Id.ToString());
            (string Query, string Says)[] messageCases =
            [
                ("messages?id=" + id + "&limit=0", "limit: '0' is not a whole number from 1 to 1000"),
                ("messages?id=" + id + "&limit=5000", "limit: '5000' is not a whole number from 1 to 1000"),
                ("search?id=" + id + "&tag=11&value=A&limit=-3", "limit: '-3' is not a whole number from 1 to 1000"),
                ("search?id=" + id + "&tag=11&value=A&limit=1001", "limit: '1001' is not a whole number from 1 to 1000"),
                ("messages?id=" + id + "&limit=many", "limit: 'many' is not a whole number"),
            ];
            foreach ((string query, string says) in messageCases)
            {
                using HttpResponseMessage r = await http.GetAsync("fix-admin/api/" + query);
                string body = await r.Content.ReadAsStringAsync();
                Assert.True(r.StatusCode == HttpStatusCode.BadRequest, $"{query}: {(int)r.StatusCode} {body}");
                Assert.StartsWith(says, body);
            }
            using (HttpResponseMessage r = await http.GetAsync("fix-admin/api/messages?id=" + id + "&limit=1000"))
            {
                Assert.True(r.IsSuccessStatusCode, await r.Content.ReadAsStringAsync());
            }
            foreach ((string query, string says) in cases)
            {
                using HttpResponseMessage r = await http.GetAsync("fix-admin/api/sessions?" + query);
                string body = await r.Content.ReadAsStringAsync();
                Assert.True(r.StatusCode == HttpStatusCode.BadRequest, $"{query}: {(int)r.StatusCode} {body}");
                Assert.StartsWith(says, body);
                Assert.Equal("text/plain; charset=utf-8", r.Content.Headers.ContentType?.ToString());
            }
        }
    }
}
