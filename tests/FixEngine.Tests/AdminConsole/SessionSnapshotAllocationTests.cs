using System;
using System.Buffers;
using System.Text.Json;
using System.Threading.Tasks;
using FixEngine.AspNetCore;
using FixEngine.Engine;
using FixEngine.Tests.Engine;
using FixEngine.Tests.Infrastructure;

namespace FixEngine.Tests.AdminConsole;

/// <summary>A console poll's work on the engine's side: writing a session's snapshot reads what the session publishes and
/// allocates nothing (the HTTP response around it is ASP.NET Core's).</summary>
[Collection(nameof(AllocationMeasurement))]
public sealed class SessionSnapshotAllocationTests
{
    [Fact]
    public async Task WritingALoggedOnSessionsSnapshotAllocatesNothing()
    {
        await using ConsoleFixture f = await ConsoleFixture.StartAsync();
        Assert.True(f.ClientApp.LoggedOn.Wait(EngineTestSupport.Wait), "the initiator logged on");
        EngineTestSupport.SendOrder(f.ClientApp.Session!, 0);
        Assert.True(EngineTestSupport.WaitFor(() => System.Threading.Interlocked.Read(ref f.ClientApp.Fills) == 1));
        EngineRuntime engine = f.Initiator.Runtime;
        Assert.True(engine.TryGetSlot(f.Initiator.Sessions[0].Id, out SessionSlot? slot));

        var snapshots = new SessionSnapshot();
        var buffer = new ArrayBufferWriter<byte>(16 * 1024);
        using var w = new Utf8JsonWriter(buffer);
        void WriteOne()
        {
            buffer.ResetWrittenCount();
            w.Reset(buffer);
            snapshots.Write(w, slot, engine.EpochNow());
            w.Flush();
        }
        void WriteAll()
        {
            buffer.ResetWrittenCount();
            w.Reset(buffer);
            snapshots.WriteAll(w, engine, engine.EpochNow());
            w.Flush();
        }

        WriteOne();
        // What was written: the connected, logged-on session with its peer and times (the paths that format or cache).
        JsonElement s = JsonDocument.Parse(buffer.WrittenMemory).RootElement;
        Assert.Equal(ConsoleFixture.ClientId, s.GetProperty("id").GetString());
        Assert.Equal("LoggedOn", s.GetProperty("state").GetString());
        Assert.Contains("127.0.0.1", s.GetProperty("peer").GetString());
        Assert.Matches(@"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$", s.GetProperty("lastReceived").GetString());
        Assert.Equal("MemoryMessageStore", s.GetProperty("store").GetString());

        Assert.Equal(0, Allocations.Measure(WriteOne, warmup: 100, iterations: 1_000));
        Assert.Equal(0, Allocations.Measure(WriteAll, warmup: 100, iterations: 1_000));
        JsonElement all = JsonDocument.Parse(buffer.WrittenMemory).RootElement;
        Assert.Equal(ConsoleFixture.ClientId, Assert.Single(all.EnumerateArray()).GetProperty("id").GetString());

        // A page of a filtered list (state, enabled, a text ignoring case): matching and counting allocate nothing
        // either, for a session written and for one left out.
        SessionQuery query = null!;
        void WritePage()
        {
            buffer.ResetWrittenCount();
            w.Reset(buffer);
            snapshots.WriteAll(w, engine, engine.EpochNow(), query);
            w.Flush();
        }
        query = new SessionQuery { Offset = 0, Limit = 10, Paged = true, States = 1u << (int)FixEngine.Session.SessionState.LoggedOn, Enabled = true, Text = "client->" };
        Assert.Equal(0, Allocations.Measure(WritePage, warmup: 100, iterations: 1_000));
        JsonElement page = JsonDocument.Parse(buffer.WrittenMemory).RootElement;
        Assert.Equal(ConsoleFixture.ClientId, Assert.Single(page.GetProperty("sessions").EnumerateArray()).GetProperty("id").GetString());
        Assert.Equal(1, page.GetProperty("total").GetInt32());
        query = new SessionQuery { Offset = 0, Limit = 10, Paged = true, Text = "nobody" };
        Assert.Equal(0, Allocations.Measure(WritePage, warmup: 100, iterations: 1_000));
        Assert.Equal(0, JsonDocument.Parse(buffer.WrittenMemory).RootElement.GetProperty("total").GetInt32());
    }
}
