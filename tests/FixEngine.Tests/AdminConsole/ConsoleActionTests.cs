using System;
using System.Linq;
using System.Net;
using System.Text.Json;
using System.Threading;
using System.Threading.Tasks;
using FixEngine.Engine;
using FixEngine.Tests.Engine;

namespace FixEngine.Tests.AdminConsole;

/// <summary>The actions that change whether and how a session logs on, done for real against a live counterparty: the
/// next target number set higher or lower than the counterparty sends (docs/console.md: higher and we log out on its
/// Logon, lower and we ask for a resend of the difference), and disable/enable on each side. Each action is written to
/// the session's event log with who asked.</summary>
public sealed class ConsoleActionTests
{
    private const string Operator = "Operator anonymous@127.0.0.1: ";

    [Fact]
    public async Task ATargetSetHigherThanTheCounterpartySendsRefusesItsLogonUntilTheDeskSetsItRight()
    {
        await using ConsoleFixture f = await ConsoleFixture.StartAsync(logInitiator: true);
        Assert.True(f.ClientApp.LoggedOn.Wait(EngineTestSupport.Wait), "the initiator logged on");
        // The target number is set while the session is down (logged on, only a higher sender number is allowed).
        await DownAsync(f);
        Assert.Equal((3, 3), await NumbersAsync(f, "fix-admin"));

        (HttpStatusCode status, string body) = await f.PostActionAsync("fix-admin", "seqnum", ConsoleFixture.ClientId, "&target=1000");
        Assert.True(status == HttpStatusCode.OK, body);
        Assert.Equal("next sender 3 -> 3, next target 3 -> 1000; takes effect at the next Logon", Result(body));
        Assert.Equal((3, 1000), await NumbersAsync(f, "fix-admin"));
        Assert.True(EngineTestSupport.WaitFor(() => f.LogHasLine(true, Operator + "seqnum: sender unchanged, target 1000; next sender 3 -> 3, next target 3 -> 1000")),
            "the initiator's event log has the action with who asked");

        // Log on: the counterparty's Logon carries 3 where we expect 1000. FIX: a MsgSeqNum lower than expected without
        // PossDupFlag is answered with a Logout naming both numbers, and the connection is closed; nothing is logged on.
        (status, body) = await f.PostActionAsync("fix-admin", "logon", ConsoleFixture.ClientId);
        Assert.True(status == HttpStatusCode.OK, body);
        const string refusal = "MsgSeqNum too low, expecting 1000 but received 3";
        Assert.True(EngineTestSupport.WaitFor(() => f.Initiator.Sessions[0].LastLogonRefusal is not null), "the counterparty's Logon was refused");
        // The initiator tries again every ReconnectInterval: a later refusal names the counterparty's later number.
        Assert.StartsWith("MsgSeqNum too low, expecting 1000 but received ", f.Initiator.Sessions[0].LastLogonRefusal);
        // The health check calls the session unhealthy, with the reason.
        (Microsoft.Extensions.Diagnostics.HealthChecks.HealthStatus health, string reason) =
            FixEngine.DependencyInjection.FixEngineHealthCheck.CheckSession(f.Initiator.Sessions[0], f.Initiator.Runtime.EpochNow());
        Assert.Equal(Microsoft.Extensions.Diagnostics.HealthChecks.HealthStatus.Unhealthy, health);
        Assert.StartsWith("logon refused: MsgSeqNum too low, expecting 1000 but received ", reason);
        // On the wire: the counterparty received our Logout with that text (its message log, through its console).
        string exec = Uri.EscapeDataString(ConsoleFixture.ExecId);
        JsonElement found = default;
        Assert.True(await ConsoleApiTests.WaitForAsync(async () =>
        {
            found = await f.GetJsonAsync($"exec-admin/api/search?id={exec}&tag=58&value={Uri.EscapeDataString(refusal)}");
            return found.EnumerateArray().Any(m => m.GetProperty("direction").GetString() == "in");
        }), "the counterparty's log has our Logout with 58=" + refusal + ": " + found);
        JsonElement logout = found.EnumerateArray().First(m => m.GetProperty("direction").GetString() == "in");
        Assert.Equal("5", logout.GetProperty("fields").EnumerateArray().Single(x => x.GetProperty("tag").GetInt32() == 35).GetProperty("value").GetString());
        Assert.Equal(1, f.ClientApp.Logons);

        // The desk puts it right: down again, the target set to the number the counterparty sends next, log on.
        (status, body) = await f.PostActionAsync("fix-admin", "disable", ConsoleFixture.ClientId);
        Assert.True(status == HttpStatusCode.OK, body);
        Assert.True(await ConsoleApiTests.WaitForAsync(async () => await StateAsync(f, "fix-admin") == "Disconnected"), "the initiator is down");
        Assert.True(await ConsoleApiTests.WaitForAsync(async () => await StateAsync(f, "exec-admin") == "Disconnected"), "the acceptor is down");
        int theirs = (await NumbersAsync(f, "exec-admin")).Sender;
        (status, body) = await f.PostActionAsync("fix-admin", "seqnum", ConsoleFixture.ClientId, "&target=" + theirs);
        Assert.True(status == HttpStatusCode.OK, body);
        (status, body) = await f.PostActionAsync("fix-admin", "logon", ConsoleFixture.ClientId);
        Assert.True(status == HttpStatusCode.OK, body);
        Assert.True(EngineTestSupport.WaitFor(() => f.ClientApp.Logons == 2), "logged on with the number set right");
        Assert.Null(f.Initiator.Sessions[0].LastLogonRefusal);
        // Exactly the number it sent: no gap, nothing to resend.
        Assert.Equal(0, f.Initiator.Sessions[0].ResendRequestsSent);
        EngineTestSupport.SendOrder(f.ClientApp.Session!, 0);
        Assert.True(EngineTestSupport.WaitFor(() => Interlocked.Read(ref f.ClientApp.Fills) == 1), "trading goes on");
    }

    [Fact]
    public async Task ATargetSetLowerThanTheCounterpartySendsAsksItToResendTheDifference()
    {
        await using ConsoleFixture f = await ConsoleFixture.StartAsync(logInitiator: true);
        Assert.True(f.ClientApp.LoggedOn.Wait(EngineTestSupport.Wait), "the initiator logged on");
        for (int i = 0; i < 3; i++) EngineTestSupport.SendOrder(f.ClientApp.Session!, i);
        Assert.True(EngineTestSupport.WaitFor(() => Interlocked.Read(ref f.ClientApp.Fills) == 3));
        await DownAsync(f);
        // Logon, 3 fills (2-4) and the Logout (5) received.
        Assert.Equal((6, 6), await NumbersAsync(f, "fix-admin"));
        Assert.Equal((6, 6), await NumbersAsync(f, "exec-admin"));

        // "We expected 3": the fills 3 and 4 are to come again.
        (HttpStatusCode status, string body) = await f.PostActionAsync("fix-admin", "seqnum", ConsoleFixture.ClientId, "&target=3");
        Assert.True(status == HttpStatusCode.OK, body);
        Assert.Equal("next sender 6 -> 6, next target 6 -> 3; takes effect at the next Logon", Result(body));
        Assert.True(EngineTestSupport.WaitFor(() => f.LogHasLine(true, Operator + "seqnum: sender unchanged, target 3; next sender 6 -> 6, next target 6 -> 3")),
            "the initiator's event log has the action with who asked");
        long before = Interlocked.Read(ref f.ClientApp.AppMessages);

        // The counterparty's Logon carries 6: we ask for a resend from 3 with a ResendRequest; it resends the two fills it
        // stored there (PossDupFlag(43)=Y) and fills the gap over its admin messages with SequenceReset-GapFill.
        (status, body) = await f.PostActionAsync("fix-admin", "logon", ConsoleFixture.ClientId);
        Assert.True(status == HttpStatusCode.OK, body);
        Assert.True(EngineTestSupport.WaitFor(() => f.ClientApp.Logons == 2), "logged on again");
        Assert.True(EngineTestSupport.WaitFor(() => Interlocked.Read(ref f.ClientApp.AppMessages) == before + 2), "the two fills came again");
        // Caught up: the counterparty's Logon (6) counted once the gap before it was filled; each side expects what the
        // other sends next.
        Assert.True(await ConsoleApiTests.WaitForAsync(async () => (await NumbersAsync(f, "fix-admin")).Target == 7), "caught up to the counterparty's Logon");
        (int ourSender, int ourTarget) = await NumbersAsync(f, "fix-admin");
        Assert.True(await ConsoleApiTests.WaitForAsync(async () => await NumbersAsync(f, "exec-admin") == (ourTarget, ourSender)), "the counterparty's numbers mirror ours");
        Assert.Equal(1, f.Initiator.Sessions[0].ResendRequestsSent);
        Assert.Equal(1, f.Acceptor.Sessions[0].ResendRequestsReceived);

        // The counterparty's message log: our ResendRequest from 3 in, the fills out again with PossDupFlag=Y.
        string exec = Uri.EscapeDataString(ConsoleFixture.ExecId);
        JsonElement resent = default;
        Assert.True(await ConsoleApiTests.WaitForAsync(async () =>
        {
            resent = await f.GetJsonAsync($"exec-admin/api/search?id={exec}&tag=43&value=Y");
            return resent.EnumerateArray().Count(m => Field(m, 35) == "8") == 2;
        }), "two fills resent with 43=Y: " + resent);
        Assert.Equal(["3", "4"], resent.EnumerateArray().Where(m => Field(m, 35) == "8").Select(m => Field(m, 34)));
        JsonElement requests = await f.GetJsonAsync($"exec-admin/api/search?id={exec}&tag=35&value=2");
        JsonElement request = Assert.Single(requests.EnumerateArray(), m => m.GetProperty("direction").GetString() == "in");
        Assert.Equal("3", Field(request, 7));
    }

    [Fact]
    public async Task ADisabledAcceptorRefusesEveryLogonUntilEnabled()
    {
        await using ConsoleFixture f = await ConsoleFixture.StartAsync();
        Assert.True(f.ClientApp.LoggedOn.Wait(EngineTestSupport.Wait), "the initiator logged on");
        (HttpStatusCode status, string body) = await f.PostActionAsync("exec-admin", "disable", ConsoleFixture.ExecId, "&text=venue%20closed");
        Assert.True(status == HttpStatusCode.OK, body);
        Assert.StartsWith("disabled; Logout sent", Result(body));
        // The answer is readable as it stands (curl): the session ID keeps its '>'.
        Assert.Contains("\"session\":\"" + ConsoleFixture.ExecId + "\"", body, StringComparison.Ordinal);
        Assert.True(EngineTestSupport.WaitFor(() => f.ClientApp.Logouts == 1), "logged out");

        // The initiator comes back every ReconnectInterval (1 s); the disabled acceptor closes each connection at its
        // Logon. Two refused connections after the Logout's disconnect, and no Logon on either side.
        Assert.True(EngineTestSupport.WaitFor(() => f.Initiator.Sessions[0].DisconnectCount >= 3), "the initiator tried again and was refused");
        Assert.Equal(1, f.ClientApp.Logons);
        Assert.Equal(1, f.ExecApp.Logons);
        JsonElement s = await f.GetJsonAsync("exec-admin/api/session?id=" + Uri.EscapeDataString(ConsoleFixture.ExecId));
        Assert.False(s.GetProperty("enabled").GetBoolean());

        (status, body) = await f.PostActionAsync("exec-admin", "enable", ConsoleFixture.ExecId);
        Assert.True(status == HttpStatusCode.OK, body);
        Assert.Equal("enabled", Result(body));
        Assert.True(EngineTestSupport.WaitFor(() => f.ClientApp.Logons == 2), "the initiator's next try logs on");
        s = await f.GetJsonAsync("exec-admin/api/session?id=" + Uri.EscapeDataString(ConsoleFixture.ExecId));
        Assert.True(s.GetProperty("enabled").GetBoolean());
        EngineTestSupport.SendOrder(f.ClientApp.Session!, 0);
        Assert.True(EngineTestSupport.WaitFor(() => Interlocked.Read(ref f.ClientApp.Fills) == 1), "trading goes on");

        Assert.True(EngineTestSupport.WaitFor(() => f.LogHasLine(false, Operator + "disable: \"venue closed\"; disabled; Logout sent")),
            "the acceptor's event log has the disable with who asked");
        Assert.True(EngineTestSupport.WaitFor(() => f.LogHasLine(false, Operator + "enable: enabled")), "and the enable");
    }

    [Fact]
    public async Task ADisabledInitiatorStaysDownAndEnableLetsItReconnect()
    {
        await using ConsoleFixture f = await ConsoleFixture.StartAsync(logInitiator: true);
        Assert.True(f.ClientApp.LoggedOn.Wait(EngineTestSupport.Wait), "the initiator logged on");
        await DownAsync(f);
        // ReconnectInterval=1: two reconnect times pass without a new connection (the acceptor saw one, the first).
        Assert.True(f.Initiator.Runtime.TryGetSlot(f.ClientApp.Session!.Id, out SessionSlot? slot));
        long withheld = slot.Initiator!.WithheldAttempts;
        Assert.True(EngineTestSupport.WaitFor(() => slot.Initiator.WithheldAttempts >= withheld + 2), "two reconnect times passed while disabled");
        Assert.Equal(1, f.ClientApp.Logons);
        Assert.Equal(1, f.ExecApp.Logons);
        Assert.Equal("Disconnected", await StateAsync(f, "fix-admin"));

        // Enable only (not Log on): the initiator connects at its next ReconnectInterval.
        (HttpStatusCode status, string body) = await f.PostActionAsync("fix-admin", "enable", ConsoleFixture.ClientId);
        Assert.True(status == HttpStatusCode.OK, body);
        Assert.True(EngineTestSupport.WaitFor(() => f.ClientApp.Logons == 2), "logged on again");
        JsonElement s = await f.GetJsonAsync("fix-admin/api/session?id=" + Uri.EscapeDataString(ConsoleFixture.ClientId));
        Assert.True(s.GetProperty("enabled").GetBoolean());
        Assert.True(EngineTestSupport.WaitFor(() => f.LogHasLine(true, Operator + "disable: disabled; Logout sent")), "the disable in the event log");
        Assert.True(EngineTestSupport.WaitFor(() => f.LogHasLine(true, Operator + "enable: enabled")), "the enable in the event log");
    }

    // Disables the initiator (a Logout, answered) and waits until both sides are down.
    private static async Task DownAsync(ConsoleFixture f)
    {
        (HttpStatusCode status, string body) = await f.PostActionAsync("fix-admin", "disable", ConsoleFixture.ClientId);
        Assert.True(status == HttpStatusCode.OK, body);
        Assert.True(EngineTestSupport.WaitFor(() => f.ClientApp.Logouts >= 1), "logged out");
        Assert.True(await ConsoleApiTests.WaitForAsync(async () => await StateAsync(f, "fix-admin") == "Disconnected"), "the initiator is down");
        Assert.True(await ConsoleApiTests.WaitForAsync(async () => await StateAsync(f, "exec-admin") == "Disconnected"), "the acceptor is down");
    }

    // What the action did, as the operator is told (the answer's "result").
    private static string? Result(string body) => JsonDocument.Parse(body).RootElement.GetProperty("result").GetString();

    private static string? Field(JsonElement message, int tag) =>
        message.GetProperty("fields").EnumerateArray().FirstOrDefault(x => x.GetProperty("tag").GetInt32() == tag) is { ValueKind: JsonValueKind.Object } f
            ? f.GetProperty("value").GetString()
            : null;

    private static async Task<JsonElement> SessionAsync(ConsoleFixture f, string console)
    {
        string id = console == "fix-admin" ? ConsoleFixture.ClientId : ConsoleFixture.ExecId;
        return await f.GetJsonAsync(console + "/api/session?id=" + Uri.EscapeDataString(id));
    }

    private static async Task<string?> StateAsync(ConsoleFixture f, string console) =>
        (await SessionAsync(f, console)).GetProperty("state").GetString();

    private static async Task<(int Sender, int Target)> NumbersAsync(ConsoleFixture f, string console)
    {
        JsonElement s = await SessionAsync(f, console);
        return (s.GetProperty("nextSender").GetInt32(), s.GetProperty("nextTarget").GetInt32());
    }
}
