using System;
using System.Linq;
using System.Net;
using System.Text.Json;
using System.Threading.Tasks;
using FixEngine.Session;
using FixEngine.Tests.Engine;

namespace FixEngine.Tests.AdminConsole;

/// <summary>The admin API over a real Kestrel: the session list, actions that reach the session on its own thread and
/// are logged with who asked, stored messages and the search by tag value.</summary>
public sealed class ConsoleApiTests
{
    [Fact]
    public async Task TheSessionListShowsStateNumbersAndCounters()
    {
        await using ConsoleFixture f = await ConsoleFixture.StartAsync();
        Assert.True(f.ClientApp.LoggedOn.Wait(EngineTestSupport.Wait), "the initiator logged on");
        for (int i = 0; i < 3; i++) EngineTestSupport.SendOrder(f.ClientApp.Session!, i);
        Assert.True(EngineTestSupport.WaitFor(() => System.Threading.Interlocked.Read(ref f.ClientApp.Fills) == 3));
        // The list reads what the session publishes: the last fill's number is counted once its FromApp returned.
        Assert.True(await WaitForAsync(async () => await Numbers(f, "fix-admin") == (5, 5)), "the initiator's numbers after the fills");

        JsonElement list = await f.GetJsonAsync("fix-admin/api/sessions");
        JsonElement client = Assert.Single(list.EnumerateArray());
        Assert.Equal(ConsoleFixture.ClientId, client.GetProperty("id").GetString());
        Assert.Equal("initiator", client.GetProperty("role").GetString());
        Assert.Equal("LoggedOn", client.GetProperty("state").GetString());
        Assert.True(client.GetProperty("enabled").GetBoolean());
        Assert.Equal("127.0.0.1:" + f.Acceptor.AcceptorPorts[0], client.GetProperty("endpoint").GetString());
        // Logon + 3 orders sent, Logon + 3 fills received.
        Assert.Equal(5, client.GetProperty("nextSender").GetInt32());
        Assert.Equal(5, client.GetProperty("nextTarget").GetInt32());
        Assert.Equal("ok", client.GetProperty("storeHealth").GetString());
        Assert.NotNull(client.GetProperty("lastReceived").GetString());
        Assert.NotNull(client.GetProperty("lastSent").GetString());
        // The schedule as configured (StartTime = EndTime: always open) and whether it is open now.
        Assert.False(string.IsNullOrEmpty(client.GetProperty("schedule").GetString()));
        Assert.True(client.GetProperty("inSchedule").GetBoolean());
        // The counters: at least the Logon and the 3 orders each way (a Heartbeat may add one), one logon, no gap.
        Assert.InRange(client.GetProperty("messagesSent").GetInt64(), 4, 6);
        Assert.InRange(client.GetProperty("messagesReceived").GetInt64(), 4, 6);
        Assert.Equal(1, client.GetProperty("logons").GetInt64());
        Assert.Equal(0, client.GetProperty("gaps").GetInt64());

        JsonElement exec = Assert.Single((await f.GetJsonAsync("exec-admin/api/sessions")).EnumerateArray());
        Assert.Equal("acceptor", exec.GetProperty("role").GetString());
        Assert.Contains("127.0.0.1", exec.GetProperty("peer").GetString());
    }

    [Fact]
    public async Task TheSessionListAnswersWhileAnApplicationCallbackHoldsTheSession()
    {
        await using ConsoleFixture f = await ConsoleFixture.StartAsync();
        Assert.True(f.ClientApp.LoggedOn.Wait(EngineTestSupport.Wait), "the initiator logged on");
        using var inside = new System.Threading.ManualResetEventSlim();
        using var release = new System.Threading.ManualResetEventSlim();
        f.ClientApp.HoldFills = new FillHold(inside, release);
        try
        {
            EngineTestSupport.SendOrder(f.ClientApp.Session!, 0);
            Assert.True(inside.Wait(EngineTestSupport.Wait), "the fill reached FromApp");
            // The receiving thread is inside the session (it holds the session's gate) until FromApp returns. The list
            // and the one-session view read what the session publishes instead of entering it: they answer now (a
            // snapshot taken inside the session would wait for the gate, and answer 504 after 10 s).
            JsonElement client = Assert.Single((await f.GetJsonAsync("fix-admin/api/sessions")).EnumerateArray());
            Assert.Equal("LoggedOn", client.GetProperty("state").GetString());
            // Logon and the fill counted as they arrived; the fill's number is taken once FromApp returns.
            Assert.Equal(2, client.GetProperty("messagesReceived").GetInt64());
            Assert.Equal(2, client.GetProperty("nextTarget").GetInt32());
            JsonElement one = await f.GetJsonAsync("fix-admin/api/session?id=" + Uri.EscapeDataString(ConsoleFixture.ClientId));
            Assert.Equal(ConsoleFixture.ClientId, one.GetProperty("id").GetString());
            Assert.Equal(0, System.Threading.Interlocked.Read(ref f.ClientApp.Fills));
        }
        finally
        {
            f.ClientApp.HoldFills = null;
            release.Set();
        }
        Assert.True(EngineTestSupport.WaitFor(() => System.Threading.Interlocked.Read(ref f.ClientApp.Fills) == 1), "the fill went on");
        Assert.True(await WaitForAsync(async () => await Numbers(f, "fix-admin") == (3, 3)), "then counted");
    }

    [Fact]
    public async Task AResetWhileLoggedOnIsAcceptedByTheCounterpartyAndLoggedWithWhoAsked()
    {
        await using ConsoleFixture f = await ConsoleFixture.StartAsync();
        Assert.True(f.ClientApp.LoggedOn.Wait(EngineTestSupport.Wait), "the initiator logged on");
        for (int i = 0; i < 3; i++) EngineTestSupport.SendOrder(f.ClientApp.Session!, i);
        Assert.True(EngineTestSupport.WaitFor(() => System.Threading.Interlocked.Read(ref f.ClientApp.Fills) == 3));

        (HttpStatusCode status, string body) = await f.PostActionAsync("fix-admin", "reset", ConsoleFixture.ClientId);
        Assert.True(status == HttpStatusCode.OK, body);
        Assert.Contains("ResetSeqNumFlag(141)=Y sent", body);
        // Our Logon(141=Y) was 1 on both sides, the counterparty's answer too: both engines are at 2/2, still logged on.
        FixSession exec = f.Acceptor.Sessions[0];
        Assert.True(await WaitForAsync(async () => await Numbers(f, "fix-admin") == (2, 2)), "the initiator's numbers after the reset");
        Assert.True(await WaitForAsync(async () => await Numbers(f, "exec-admin") == (2, 2)), "the acceptor's numbers after the reset");
        Assert.Equal(1, f.ClientApp.Logons);
        // Trading goes on in the new sequence, in order.
        EngineTestSupport.SendOrder(f.ClientApp.Session!, 3);
        Assert.True(EngineTestSupport.WaitFor(() => System.Threading.Interlocked.Read(ref f.ClientApp.Fills) == 4));
        // The list reads what the session publishes: the fill's number is counted as the receiving thread finishes it.
        Assert.True(await WaitForAsync(async () => await Numbers(f, "fix-admin") == (3, 3)), "the initiator's numbers after the next fill");
        // The one break in the numbering the client's application saw: fills 2-4, the reset, the next fill is 2.
        Assert.Equal("MsgSeqNum 2 after 4", Assert.Single(f.ClientApp.Problems));
        Assert.Equal(1L, exec.LogonCount);
    }

    [Fact]
    public async Task ActionsNeedTheHeaderAndRefuseWhatTheStateDoesNotAllow()
    {
        await using ConsoleFixture f = await ConsoleFixture.StartAsync();
        Assert.True(f.ClientApp.LoggedOn.Wait(EngineTestSupport.Wait), "the initiator logged on");
        (HttpStatusCode status, string body) = await f.PostActionAsync("fix-admin", "disconnect", ConsoleFixture.ClientId, header: false);
        Assert.Equal(HttpStatusCode.BadRequest, status);
        Assert.Contains("X-FixEngine-Admin", body);
        Assert.True(f.Initiator.Sessions[0].IsLoggedOn || EngineTestSupport.WaitFor(() => f.Initiator.Sessions[0].IsConnected));

        (status, body) = await f.PostActionAsync("fix-admin", "seqnum", ConsoleFixture.ClientId, "&target=7");
        Assert.Equal(HttpStatusCode.Conflict, status);
        Assert.Contains("log it out first", body);
        (status, body) = await f.PostActionAsync("fix-admin", "seqnum", ConsoleFixture.ClientId, "&sender=0");
        Assert.Equal(HttpStatusCode.BadRequest, status);
        (status, body) = await f.PostActionAsync("fix-admin", "frobnicate", ConsoleFixture.ClientId);
        Assert.Equal(HttpStatusCode.NotFound, status);
        (status, _) = await f.PostActionAsync("fix-admin", "logout", "FIX.4.4:NOBODY->EXEC");
        Assert.Equal(HttpStatusCode.NotFound, status);
    }

    [Fact]
    public async Task DisableLogsOutAndKeepsTheInitiatorFromReconnectingUntilLogon()
    {
        await using ConsoleFixture f = await ConsoleFixture.StartAsync();
        Assert.True(f.ClientApp.LoggedOn.Wait(EngineTestSupport.Wait), "the initiator logged on");
        (HttpStatusCode status, string body) = await f.PostActionAsync("fix-admin", "disable", ConsoleFixture.ClientId, "&text=end%20of%20day");
        Assert.True(status == HttpStatusCode.OK, body);
        Assert.True(EngineTestSupport.WaitFor(() => f.ClientApp.Logouts == 1), "logged out");
        // ReconnectInterval=1: two seconds without a new Logon.
        await Task.Delay(2_500);
        Assert.Equal(1, f.ClientApp.Logons);
        JsonElement s = await f.GetJsonAsync("fix-admin/api/session?id=" + Uri.EscapeDataString(ConsoleFixture.ClientId));
        Assert.False(s.GetProperty("enabled").GetBoolean());
        Assert.Equal("Disconnected", s.GetProperty("state").GetString());

        // Set the numbers while disconnected (takes effect at the Logon), then log on: the acceptor sees a higher
        // sequence number than it expects and catches up through a ResendRequest answered with a gap fill.
        (status, body) = await f.PostActionAsync("fix-admin", "seqnum", ConsoleFixture.ClientId, "&sender=20");
        Assert.True(status == HttpStatusCode.OK, body);
        (status, body) = await f.PostActionAsync("fix-admin", "logon", ConsoleFixture.ClientId);
        Assert.True(status == HttpStatusCode.OK, body);
        Assert.True(EngineTestSupport.WaitFor(() => f.ClientApp.Logons == 2), "logged on again");
        Assert.True(EngineTestSupport.WaitFor(() => f.Acceptor.Sessions[0].ResendRequestsSent >= 1), "the acceptor asked for the gap");
        EngineTestSupport.SendOrder(f.ClientApp.Session!, 0);
        Assert.True(EngineTestSupport.WaitFor(() => System.Threading.Interlocked.Read(ref f.ClientApp.Fills) == 1), "trading goes on after the gap fill");
    }

    [Fact]
    public async Task StoredMessagesAndASearchByClOrdIdAreRenderedWithFieldNames()
    {
        await using ConsoleFixture f = await ConsoleFixture.StartAsync();
        Assert.True(f.ClientApp.LoggedOn.Wait(EngineTestSupport.Wait), "the initiator logged on");
        for (int i = 0; i < 5; i++) EngineTestSupport.SendOrder(f.ClientApp.Session!, i);
        Assert.True(EngineTestSupport.WaitFor(() => System.Threading.Interlocked.Read(ref f.ClientApp.Fills) == 5));
        string id = Uri.EscapeDataString(ConsoleFixture.ExecId);

        JsonElement range = await f.GetJsonAsync($"exec-admin/api/messages?id={id}&from=2&to=3");
        Assert.Equal([2, 3], range.EnumerateArray().Select(m => m.GetProperty("seqNum").GetInt32()));

        // ClOrdID 3: the fill in the store (out) and, from the message log, the order (in) and the fill (out).
        JsonElement found = default;
        Assert.True(await WaitForAsync(async () =>
        {
            found = await f.GetJsonAsync($"exec-admin/api/search?id={id}&tag=11&value=3");
            return found.GetArrayLength() == 3;
        }), "three messages with 11=3: " + found);
        Assert.Equal(["store:out", "log fixengine.log:in", "log fixengine.log:out"],
            found.EnumerateArray().Select(m => m.GetProperty("source").GetString() + ":" + m.GetProperty("direction").GetString()));
        JsonElement clOrdId = found[0].GetProperty("fields").EnumerateArray().Single(x => x.GetProperty("tag").GetInt32() == 11);
        Assert.Equal("ClOrdID", clOrdId.GetProperty("name").GetString());
        Assert.Equal("3", clOrdId.GetProperty("value").GetString());
        // 11=3 only: not 11=30, not a tag ending in 11.
        Assert.Empty((await f.GetJsonAsync($"exec-admin/api/search?id={id}&tag=11&value=33")).EnumerateArray());
    }

    [Fact]
    public async Task ASearchByClOrdIdOnASessionWithADictionaryNamesFieldsAndValuesFromIt()
    {
        // The acceptor validates with FIX44.xml: the orders carry every field the dictionary requires.
        await using ConsoleFixture f = await ConsoleFixture.StartAsync(acceptorDictionary: Infrastructure.SharedPaths.Dictionary("FIX44.xml"));
        Assert.True(f.ClientApp.LoggedOn.Wait(EngineTestSupport.Wait), "the initiator logged on");
        for (int i = 0; i < 3; i++) SendCompleteOrder(f.ClientApp.Session!, i);
        Assert.True(EngineTestSupport.WaitFor(() => System.Threading.Interlocked.Read(ref f.ClientApp.Fills) == 3), "filled");
        Assert.Equal(0, f.Acceptor.Sessions[0].RejectsSent);
        string id = Uri.EscapeDataString(ConsoleFixture.ExecId);

        // ClOrdID 2: the fill in the store, the order and the fill in the message log.
        JsonElement found = default;
        Assert.True(await WaitForAsync(async () =>
        {
            found = await f.GetJsonAsync($"exec-admin/api/search?id={id}&tag=11&value=2");
            return found.GetArrayLength() == 3;
        }), "three messages with 11=2: " + found);
        Assert.Equal(["store:out", "log fixengine.log:in", "log fixengine.log:out"],
            found.EnumerateArray().Select(m => m.GetProperty("source").GetString() + ":" + m.GetProperty("direction").GetString()));

        // The order, from the message log only: names and enum meanings from FIX44.xml, including a field the names
        // built in for sessions without a dictionary do not have (HandlInst).
        JsonElement order = found[1];
        // The log line's time (the store keeps none).
        Assert.Matches(@"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z$", order.GetProperty("time").GetString());
        Assert.Equal(JsonValueKind.Null, found[0].GetProperty("time").ValueKind);
        Assert.Equal(("MsgType", "D", "NEW_ORDER_SINGLE"), Named(order, 35));
        Assert.Equal(("HandlInst", "1", "AUTOMATED_EXECUTION_NO_INTERVENTION"), Named(order, 21));
        Assert.Equal(("Side", "1", "BUY"), Named(order, 54));
        Assert.Equal(("OrdType", "1", "MARKET"), Named(order, 40));
        Assert.Equal(("ClOrdID", "2", null), Named(order, 11));
        // The fill, from the store and from the log: the same dictionary.
        foreach (JsonElement fill in new[] { found[0], found[2] })
        {
            Assert.Equal(("MsgType", "8", "EXECUTION_REPORT"), Named(fill, 35));
            Assert.Equal(("ExecType", "F", "TRADE"), Named(fill, 150));
            Assert.Equal(("OrdStatus", "2", "FILLED"), Named(fill, 39));
        }
        // Stored messages by range are named the same way.
        JsonElement range = await f.GetJsonAsync($"exec-admin/api/messages?id={id}&from=2&to=2");
        Assert.Equal(("MsgType", "8", "EXECUTION_REPORT"), Named(Assert.Single(range.EnumerateArray()), 35));
    }

    private static (string? Name, string? Value, string? Meaning) Named(JsonElement message, int tag)
    {
        JsonElement field = message.GetProperty("fields").EnumerateArray().Single(x => x.GetProperty("tag").GetInt32() == tag);
        return (field.GetProperty("name").GetString(), field.GetProperty("value").GetString(), field.GetProperty("meaning").GetString());
    }

    // A NewOrderSingle with what FIX.4.4's dictionary requires (ClOrdID, Symbol, Side, TransactTime, OrdType) and HandlInst.
    private static void SendCompleteOrder(FixSession session, long id)
    {
        while (!session.TrySendFromAnyThread(FixEngine.Codec.MsgTypes.NewOrderSingle, id, static (ref FixEngine.Codec.FixWriter w, scoped in long clOrdId) =>
        {
            w.Write(FixEngine.Codec.FixTags.ClOrdID, clOrdId);
            w.Write(FixEngine.Codec.FixTags.HandlInst, '1');
            w.Write(FixEngine.Codec.FixTags.Symbol, "EURUSD"u8);
            w.Write(FixEngine.Codec.FixTags.Side, '1');
            w.Write(FixEngine.Codec.FixTags.TransactTime, "20261206-12:00:00.000"u8);
            w.Write(FixEngine.Codec.FixTags.OrderQty, 100);
            w.Write(FixEngine.Codec.FixTags.OrdType, '1');
        }))
        {
            System.Threading.Thread.Yield();
        }
    }

    [Fact]
    public async Task ALogoutCarriesTheOperatorsTextToTheCounterparty()
    {
        await using ConsoleFixture f = await ConsoleFixture.StartAsync();
        Assert.True(f.ClientApp.LoggedOn.Wait(EngineTestSupport.Wait), "the initiator logged on");
        (HttpStatusCode status, string body) = await f.PostActionAsync("fix-admin", "logout", ConsoleFixture.ClientId, "&text=end%20of%20day");
        Assert.True(status == HttpStatusCode.OK, body);
        Assert.True(EngineTestSupport.WaitFor(() => f.ClientApp.Logouts == 1), "logged out");

        // The counterparty got our Logout with the operator's text in Text(58): its message log says so.
        string id = Uri.EscapeDataString(ConsoleFixture.ExecId);
        JsonElement found = default;
        Assert.True(await WaitForAsync(async () =>
        {
            found = await f.GetJsonAsync($"exec-admin/api/search?id={id}&tag=58&value=end%20of%20day");
            return found.EnumerateArray().Any(m => m.GetProperty("direction").GetString() == "in");
        }), "the counterparty's log has the Logout with 58=end of day: " + found);
        JsonElement logout = found.EnumerateArray().First(m => m.GetProperty("direction").GetString() == "in");
        JsonElement msgType = logout.GetProperty("fields").EnumerateArray().Single(x => x.GetProperty("tag").GetInt32() == 35);
        Assert.Equal("5", msgType.GetProperty("value").GetString());
    }

    internal static async Task<bool> WaitForAsync(Func<Task<bool>> condition)
    {
        DateTime until = DateTime.UtcNow + EngineTestSupport.Wait;
        while (DateTime.UtcNow < until)
        {
            if (await condition()) return true;
            await Task.Delay(20);
        }
        return await condition();
    }

    private static async Task<(int Sender, int Target)> Numbers(ConsoleFixture f, string console)
    {
        string id = console == "fix-admin" ? ConsoleFixture.ClientId : ConsoleFixture.ExecId;
        JsonElement s = await f.GetJsonAsync(console + "/api/session?id=" + Uri.EscapeDataString(id));
        return (s.GetProperty("nextSender").GetInt32(), s.GetProperty("nextTarget").GetInt32());
    }
}
