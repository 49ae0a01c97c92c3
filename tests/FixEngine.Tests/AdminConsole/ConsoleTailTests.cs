using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Net;
using System.Net.Http;
using System.Text.Json;
using System.Threading;
using System.Threading.Tasks;
using FixEngine.AspNetCore;
using FixEngine.DependencyInjection;
using FixEngine.Session;
using FixEngine.Tests.Engine;
using FixEngine.Tests.Infrastructure;
using FixLogLevel = FixEngine.Logging.LogLevel;

namespace FixEngine.Tests.AdminConsole;

/// <summary>The console's live tail is the sessions' own structured events: each line carries the event's EventId, its
/// name and its properties, named as the ILogger bridge names them.</summary>
public sealed class ConsoleTailTests
{
    [Fact]
    public async Task TheTailShowsTheSessionsEventsWithIdNameAndProperties()
    {
        await using ConsoleFixture f = await ConsoleFixture.StartAsync();
        Assert.True(f.ClientApp.LoggedOn.Wait(EngineTestSupport.Wait), "the initiator logged on");
        await using var tail = await TailReader.OpenAsync(f.Http, "fix-admin/api/events");

        (HttpStatusCode status, string body) = await f.PostActionAsync("fix-admin", "disconnect", ConsoleFixture.ClientId);
        Assert.True(status == HttpStatusCode.OK, body);
        JsonElement disconnected = await tail.WaitForAsync(e => e.GetProperty("eventName").GetString() == "Disconnected");
        JsonElement action = await tail.WaitForAsync(e => e.GetProperty("eventName").GetString() == "AdminAction");
        Assert.Equal(3, disconnected.GetProperty("eventId").GetInt32());
        Assert.Equal(ConsoleFixture.ClientId, disconnected.GetProperty("session").GetString());
        Assert.Contains("disconnected by an operator (anonymous@127.0.0.1)", disconnected.GetProperty("properties").GetProperty("Reason").GetString());
        Assert.Equal(15, action.GetProperty("eventId").GetInt32());
        JsonElement who = action.GetProperty("properties");
        Assert.Equal("disconnect", who.GetProperty("Action").GetString());
        Assert.Equal("anonymous@127.0.0.1", who.GetProperty("Actor").GetString());
        Assert.Equal("disconnected without a Logout", who.GetProperty("Detail").GetString());
        Assert.Equal("Warning", action.GetProperty("level").GetString());
        Assert.StartsWith("Operator anonymous@127.0.0.1: disconnect", action.GetProperty("text").GetString());
        // In the order the session raised them: what happened, then who asked for it.
        Assert.True(disconnected.GetProperty("id").GetInt64() < action.GetProperty("id").GetInt64());

        // Log on again (the initiator may already be reconnecting after its ReconnectInterval): Connected, then Logon once
        // the exchange is complete (our Logon sent, the acceptor's accepted and numbered), with the numbers as properties.
        (status, body) = await f.PostActionAsync("fix-admin", "logon", ConsoleFixture.ClientId);
        Assert.True(status == HttpStatusCode.OK, body);
        // Only events after the disconnect: the console was mapped after the initiator started, so the tail may hold the
        // first connection's Logon without its Connected (raised before the console subscribed). Not after the action
        // event: the initiator may reconnect (ReconnectInterval) before the action's event is raised.
        long after = disconnected.GetProperty("id").GetInt64();
        JsonElement connected = await tail.WaitForAsync(e => e.GetProperty("eventName").GetString() == "Connected" && e.GetProperty("id").GetInt64() > after);
        JsonElement logon = await tail.WaitForAsync(e => e.GetProperty("eventName").GetString() == "Logon" && e.GetProperty("id").GetInt64() > after);
        Assert.Equal(2, connected.GetProperty("eventId").GetInt32());
        Assert.Equal(4, logon.GetProperty("eventId").GetInt32());
        JsonElement p = logon.GetProperty("properties");
        // The counterparty's Logon is numbered when the event is raised: the next target is past it.
        Assert.Equal(p.GetProperty("ReceivedMsgSeqNum").GetInt32() + 1, p.GetProperty("NextTargetMsgSeqNum").GetInt32());
        Assert.True(p.GetProperty("NextSenderMsgSeqNum").GetInt32() >= 2, "our Logon was sent: " + logon.GetRawText());
        Assert.Equal("Information", logon.GetProperty("level").GetString());
        Assert.True(connected.GetProperty("id").GetInt64() < logon.GetProperty("id").GetInt64());

        // A page opened later gets the recent events first.
        await using var later = await TailReader.OpenAsync(f.Http, "fix-admin/api/events");
        await later.WaitForAsync(e => e.GetProperty("id").GetInt64() == logon.GetProperty("id").GetInt64());
    }

    public static TheoryData<string> Kinds()
    {
        var kinds = new TheoryData<string>();
        foreach (string name in Enum.GetNames<SessionEventKind>()) kinds.Add(name);
        return kinds;
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public void EachKindHasTheLoggersEventIdNameAndProperties(string kindName)
    {
        SessionEventKind kind = Enum.Parse<SessionEventKind>(kindName);
        foreach (SessionEvent e in Samples(kind))
        {
            var logs = new CapturingLoggerProvider();
            var log = new LoggerSessionLog(logs.CreateLogger("FixEngine.Session.X"), null);
            log.OnEvent(in e, 0);
            var record = Assert.Single(logs.Records);

            (int id, string name) = SessionEventIds.Of(in e);
            Assert.Equal(record.Id.Id, id);
            Assert.Equal(record.Id.Name, name);
            // The core's one table (which the tail shows) and the logger's templates: the same names, values and order.
            List<KeyValuePair<string, object?>> logged = record.Properties.Where(x => x.Key != "{OriginalFormat}").ToList();
            Assert.Equal(logged, SessionEventProperties.Values(in e));
        }
    }

    private static IEnumerable<SessionEvent> Samples(SessionEventKind kind)
    {
        var plain = new SessionEvent(kind, FixLogLevel.Warning, "why", 7, 9);
        yield return kind switch
        {
            SessionEventKind.Logon => plain with { Received = 8 },
            SessionEventKind.LogonRefused => plain with { Expected = 5, Received = 3 },
            SessionEventKind.SequenceGap => plain with { Expected = 5, Received = 30 },
            SessionEventKind.ResendRequest => plain with { ByCounterparty = true, BeginSeqNo = 4, EndSeqNo = 0 },
            SessionEventKind.RejectSent => plain with { RefSeqNum = 4, RefTagId = 36, RejectReason = 1 },
            SessionEventKind.AdminAction => plain with { Action = "reset", Actor = "alice@10.1.2.3" },
            _ => plain,
        };
        if (kind == SessionEventKind.SequenceReset) yield return new SessionEvent(kind, FixLogLevel.Warning, null, 7, 9) { Expected = 5, Received = 12 };
        if (kind == SessionEventKind.Logout) yield return plain with { ByCounterparty = true };
        if (kind == SessionEventKind.LogonRefused) yield return plain with { ByCounterparty = true };
    }

    /// <summary>Reads a server-sent event stream in the background; each <c>data:</c> line is one event.</summary>
    private sealed class TailReader : IAsyncDisposable
    {
        private readonly HttpResponseMessage _response;
        private readonly CancellationTokenSource _stop = new();
        private readonly List<JsonElement> _events = [];
        private readonly Task _reading;

        private TailReader(HttpResponseMessage response)
        {
            _response = response;
            _reading = Task.Run(ReadAsync);
        }

        public static async Task<TailReader> OpenAsync(HttpClient http, string path)
        {
            HttpResponseMessage r = await http.GetAsync(path, HttpCompletionOption.ResponseHeadersRead);
            Assert.Equal(HttpStatusCode.OK, r.StatusCode);
            Assert.Equal("text/event-stream", r.Content.Headers.ContentType?.MediaType);
            return new TailReader(r);
        }

        private async Task ReadAsync()
        {
            try
            {
                using var reader = new StreamReader(await _response.Content.ReadAsStreamAsync(_stop.Token));
                while (await reader.ReadLineAsync(_stop.Token) is string line)
                {
                    if (!line.StartsWith("data: ", StringComparison.Ordinal)) continue;
                    JsonElement e = JsonDocument.Parse(line["data: ".Length..]).RootElement.Clone();
                    lock (_events) _events.Add(e);
                }
            }
            catch (Exception e) when (e is OperationCanceledException or IOException or HttpRequestException)
            {
                // Closed.
            }
        }

        public async Task<JsonElement> WaitForAsync(Func<JsonElement, bool> match)
        {
            DateTime until = DateTime.UtcNow + EngineTestSupport.Wait;
            while (true)
            {
                lock (_events)
                {
                    foreach (JsonElement e in _events)
                    {
                        if (match(e)) return e;
                    }
                    if (DateTime.UtcNow > until)
                    {
                        throw new Xunit.Sdk.XunitException("no such event in the tail; it has: " + string.Join(" | ", _events.Select(x => x.GetRawText())));
                    }
                }
                await Task.Delay(20);
            }
        }

        public async ValueTask DisposeAsync()
        {
            await _stop.CancelAsync();
            _response.Dispose();
            await _reading;
            _stop.Dispose();
        }
    }
}
