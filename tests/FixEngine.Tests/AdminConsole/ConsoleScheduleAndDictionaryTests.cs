using System;
using System.Buffers;
using System.Collections.Generic;
using System.Linq;
using System.Text.Json;
using FixEngine.AspNetCore;
using FixEngine.Codec;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Session;
using FixEngine.Store;
using FixEngine.Tests.Session;
using FixEngine.Transport;

namespace FixEngine.Tests.AdminConsole;

/// <summary>Things the console states that must be true: whether a session may log on now (its logon window, not only
/// its schedule), the dictionary a FIXT.1.1 message is named from (the one its application version selects), and a
/// list of many sessions written whole.</summary>
public sealed class ConsoleScheduleAndDictionaryTests
{
    private static long At(int hour, int minute) =>
        new DateTimeOffset(2026, 1, 5, hour, minute, 0, TimeSpan.Zero).ToUnixTimeMilliseconds() * 1_000_000L;

    private static JsonElement Snapshot(SessionSnapshot snapshots, SessionSlot slot, long epochNs)
    {
        var buffer = new ArrayBufferWriter<byte>(4096);
        using (var w = new Utf8JsonWriter(buffer)) snapshots.Write(w, slot, epochNs);
        return JsonDocument.Parse(buffer.WrittenMemory).RootElement.Clone();
    }

    [Fact]
    public void TheSessionListTellsTheLogonWindowFromTheSchedule()
    {
        IReadOnlyList<SessionSettings> settings = SettingsFile.Parse("""
            [DEFAULT]
            ConnectionType=acceptor
            SocketAcceptPort=0
            SenderCompID=EXEC
            BeginString=FIX.4.4
            UseDataDictionary=N
            StartTime=08:00:00
            EndTime=17:00:00
            [SESSION]
            TargetCompID=WINDOWED
            LogonTime=09:30:00
            LogoutTime=16:00:00
            [SESSION]
            TargetCompID=PLAIN
            """, "venue.cfg");
        using var host = new FixEngineHost(settings, new EchoApp());
        EngineRuntime engine = host.Runtime;
        Assert.True(engine.TryGetSlot(host.Sessions.Single(s => s.Id.TargetCompID == "WINDOWED").Id, out SessionSlot? windowed));
        Assert.True(engine.TryGetSlot(host.Sessions.Single(s => s.Id.TargetCompID == "PLAIN").Id, out SessionSlot? plain));
        var snapshots = new SessionSnapshot();

        // 09:00: the session time is open, the logon window not yet: no Logon now.
        JsonElement early = Snapshot(snapshots, windowed, At(9, 0));
        Assert.True(early.GetProperty("inSchedule").GetBoolean());
        Assert.False(early.GetProperty("inLogonWindow").GetBoolean());
        Assert.Equal("LogonTime 09:30:00 - LogoutTime 16:00:00 UTC", early.GetProperty("logonWindow").GetString());
        // The same instant for a session without LogonTime/LogoutTime: its window is its schedule.
        JsonElement plainEarly = Snapshot(snapshots, plain, At(9, 0));
        Assert.True(plainEarly.GetProperty("inSchedule").GetBoolean());
        Assert.True(plainEarly.GetProperty("inLogonWindow").GetBoolean());
        Assert.Equal(JsonValueKind.Null, plainEarly.GetProperty("logonWindow").ValueKind);

        JsonElement inside = Snapshot(snapshots, windowed, At(10, 0));
        Assert.True(inside.GetProperty("inSchedule").GetBoolean());
        Assert.True(inside.GetProperty("inLogonWindow").GetBoolean());
        // 16:30: after LogoutTime, before EndTime.
        JsonElement late = Snapshot(snapshots, windowed, At(16, 30));
        Assert.True(late.GetProperty("inSchedule").GetBoolean());
        Assert.False(late.GetProperty("inLogonWindow").GetBoolean());
        // 18:00: both closed.
        JsonElement closed = Snapshot(snapshots, plain, At(18, 0));
        Assert.False(closed.GetProperty("inSchedule").GetBoolean());
        Assert.False(closed.GetProperty("inLogonWindow").GetBoolean());
    }

    [Fact]
    public async System.Threading.Tasks.Task AListOfManySessionsIsWrittenWholeAndInOrder()
    {
        // 400 sessions, about 700 B each: the list is written into the response in many pieces (every 16 KB).
        const int count = 400;
        var text = new System.Text.StringBuilder("[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=0\nSenderCompID=EXEC\nBeginString=FIX.4.4\nUseDataDictionary=N\nStartTime=00:00:00\nEndTime=00:00:00\n");
        for (int i = 0; i < count; i++) text.Append("[SESSION]\nTargetCompID=C").Append(i.ToString("D4", System.Globalization.CultureInfo.InvariantCulture)).Append('\n');
        using var host = new FixEngineHost(SettingsFile.Parse(text.ToString(), "venue.cfg"), new EchoApp());
        (Microsoft.AspNetCore.Builder.WebApplication app, Uri address) = await ConsoleWebApp.StartAsync(System.Net.IPAddress.Loopback, 0, null, web => web.MapFixEngineAdmin(host));
        await using (app)
        {
            using var http = new System.Net.Http.HttpClient { BaseAddress = address, Timeout = TimeSpan.FromSeconds(30) };
            using System.Net.Http.HttpResponseMessage r = await http.GetAsync("fix-admin/api/sessions");
            byte[] body = await r.Content.ReadAsByteArrayAsync();
            Assert.True(r.IsSuccessStatusCode, $"{(int)r.StatusCode}");
            Assert.Equal("application/json; charset=utf-8", r.Content.Headers.ContentType?.ToString());
            Assert.True(body.Length > 4 * 16 * 1024, $"{body.Length} B: the list should span many flushes");
            JsonElement list = JsonDocument.Parse(body).RootElement;
            Assert.Equal(count, list.GetArrayLength());
            string[] ids = [.. list.EnumerateArray().Select(e => e.GetProperty("id").GetString()!)];
            Assert.Equal(host.Sessions.Select(s => s.Id.ToString()), ids);
        }
    }

    // TimeInForce(59)=8 (GOOD_THROUGH_CROSSING) is in FIX.5.0SP2's dictionary, not in FIX.4.4's: the enum meaning shows
    // which dictionary named the field.
    private static string? MeaningOf59(RenderedMessage m) => m.Fields.Single(f => f.Tag == 59).Meaning;

    private static SessionHarness Fixt() =>
        new("FIXT.1.1", appVersions: ApplicationVersionDictionaryTests.Fix44AndFix50Sp2());

    [Fact]
    public void AStoredFixtMessageIsNamedFromTheDictionaryItsApplVerIdSelects()
    {
        using SessionHarness h = Fixt();
        h.Logon(); // the counterparty's DefaultApplVerID 9 (FIX.5.0SP2), ours FIX.5.0SP2
        // Two orders sent with TimeInForce 8: one for FIX.4.4 (ApplVerID 6), one without ApplVerID (our default).
        Assert.Equal(SendResult.Sent, h.Session.Send("D"u8, 0, static (ref FixWriter w, scoped in int _) =>
        {
            w.Write(1128, "6"u8);
            w.Write(11, "V44"u8);
            w.Write(59, "8"u8);
        }));
        Assert.Equal(SendResult.Sent, h.Session.Send("D"u8, 0, static (ref FixWriter w, scoped in int _) =>
        {
            w.Write(11, "DEFAULT"u8);
            w.Write(59, "8"u8);
        }));
        var stored = new List<byte[]>();
        var collect = new Collect(stored);
        h.Session.Store.ReadRange(2, 3, ref collect);
        Assert.Equal(2, stored.Count);
        MessageRenderer renderer = MessageRenderer.For(h.Session);

        RenderedMessage v44 = renderer.Render("store", "out", stored[0]);
        Assert.Equal("V44", v44.Fields.Single(f => f.Tag == 11).Value);
        Assert.Equal("TimeInForce", v44.Fields.Single(f => f.Tag == 59).Name);
        Assert.Null(MeaningOf59(v44));
        Assert.Equal("ApplVerID", v44.Fields.Single(f => f.Tag == 1128).Name);

        RenderedMessage byDefault = renderer.Render("store", "out", stored[1]);
        Assert.Equal("DEFAULT", byDefault.Fields.Single(f => f.Tag == 11).Value);
        Assert.Equal("GOOD_THROUGH_CROSSING", MeaningOf59(byDefault));
    }

    [Fact]
    public void AReceivedFixtMessageWithoutApplVerIdIsNamedFromTheCounterpartysDefaultApplVerId()
    {
        using SessionHarness h = Fixt();
        // The counterparty's Logon says its messages are FIX.4.4 unless they name another version.
        h.Receive("35=A|34=1|98=0|108=30|1137=6");
        h.Expect("A");
        MessageRenderer renderer = MessageRenderer.For(h.Session);
        byte[] order = h.Build("35=D|34=2|11=IN|55=INTC|54=1|38=100|40=1|59=8");
        Assert.Null(MeaningOf59(renderer.Render("log", "in", order)));
        // The same bytes as a message we sent: our DefaultApplVerID (FIX.5.0SP2).
        Assert.Equal("GOOD_THROUGH_CROSSING", MeaningOf59(renderer.Render("log", "out", order)));
        // ApplVerID(1128) overrides the counterparty's default.
        byte[] named = h.Build("35=D|34=3|1128=9|11=IN2|55=INTC|54=1|38=100|40=1|59=8");
        Assert.Equal("GOOD_THROUGH_CROSSING", MeaningOf59(renderer.Render("log", "in", named)));
    }

    [Fact]
    public void AFix44MessageIsNamedFromTheSessionsDictionaryWithEnumMeanings()
    {
        using var h = new SessionHarness("FIX.4.4");
        MessageRenderer renderer = MessageRenderer.For(h.Session);
        RenderedMessage m = renderer.Render("store", "out", h.Build("35=D|34=2|11=A1|55=INTC|54=1|38=100|40=2|44=10|59=3|21=1"));
        // Names the built-in table does not have, from FIX44.xml, with the enum values' descriptions.
        (int Tag, string? Name, string Value, string? Meaning) handlInst = m.Fields.Single(f => f.Tag == 21);
        Assert.Equal(("HandlInst", "AUTOMATED_EXECUTION_NO_INTERVENTION"), (handlInst.Name, handlInst.Meaning));
        Assert.Equal("IMMEDIATE_OR_CANCEL", MeaningOf59(m));
        Assert.Equal("LIMIT", m.Fields.Single(f => f.Tag == 40).Meaning);
    }

    private readonly struct Collect(List<byte[]> into) : IStoredMessageHandler
    {
        public bool OnMessage(int seqNum, ReadOnlySpan<byte> message)
        {
            into.Add(message.ToArray());
            return true;
        }
    }
}
