using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading;
using FixEngine.Codec;
using FixEngine.Session;
using FixEngine.Store;
using FixEngine.Tests.Store;
using Microsoft.Win32.SafeHandles;

namespace FixEngine.Tests.Session;

/// <summary>Records the durability callbacks; answers NewOrderSingle with an ExecutionReport (owner thread).</summary>
public sealed class DurableApp : IApplication
{
    public readonly ConcurrentQueue<(long Token, int Seq)> Stored = new();
    public readonly ConcurrentQueue<(long Token, SendNotStoredReason Reason)> NotStored = new();
    public readonly List<(string ClOrdId, bool Redelivery)> Delivered = [];
    public readonly List<MessageStoreException> StoreFailures = [];
    public Exception? SendError;

    public void OnSendStored(FixSession session, long token, int msgSeqNum) => Stored.Enqueue((token, msgSeqNum));

    public void OnSendNotStored(FixSession session, long token, SendNotStoredReason reason) => NotStored.Enqueue((token, reason));

    public void OnStoreFailure(FixSession session, MessageStoreException error) => StoreFailures.Add(error);

    public readonly List<MessageStoreException> Held = [];
    public int Resumed;
    public readonly List<StoreRecoveryReport> Recovered = [];

    public void OnStoreHeld(FixSession session, MessageStoreException error) => Held.Add(error);

    public void OnStoreResumed(FixSession session) => Resumed++;

    public void OnStoreRecovered(FixSession session, StoreRecoveryReport report) => Recovered.Add(report);

    public FromAppResult FromApp(FixSession session, FixMessage message)
    {
        message.TryGetSpan(FixTags.ClOrdID, out ReadOnlySpan<byte> id);
        Delivered.Add((System.Text.Encoding.ASCII.GetString(id), session.IsPossibleRedelivery));
        try
        {
            session.Send(MsgTypes.ExecutionReport, 0, static (ref FixWriter w, scoped in int _) =>
            {
                w.Write(FixTags.ExecType, 'F');
                w.Write(FixTags.OrdStatus, '2');
            });
        }
        catch (Exception e)
        {
            SendError = e;
            throw;
        }
        return FromAppResult.Accepted;
    }
}

public sealed class DurableSendTests
{
    private static SessionHarness LoggedOn(DurableApp app, IMessageStore? store = null)
    {
        var h = new SessionHarness("FIX.4.4", s => s with { ResetOnLogon = false }, store, application: app);
        h.Receive("35=A|34=1|98=0|108=30");
        h.Expect("A");
        return h;
    }

    private static void SendOrder(FixSession session, long token) =>
        Assert.True(session.TrySendFromAnyThread(MsgTypes.NewOrderSingle, token, token, static (ref FixWriter w, scoped in long id) =>
        {
            w.Write(FixTags.ClOrdID, id);
            w.Write(FixTags.Symbol, "EURUSD"u8);
        }));

    [Fact]
    public void FourThreadsSendingAtOnceLoseNothingAndEachTokenComesBackWithItsSequenceNumber()
    {
        var app = new DurableApp();
        using SessionHarness h = LoggedOn(app);
        h.Connection.CaptureEnabled = true;
        const int perThread = 5_000;
        var threads = new Thread[4];
        for (int t = 0; t < threads.Length; t++)
        {
            int first = t * perThread;
            threads[t] = new Thread(() =>
            {
                for (int i = 0; i < perThread; i++)
                {
                    long token = first + i;
                    while (!h.Session.TrySendFromAnyThread(MsgTypes.NewOrderSingle, token, token, static (ref FixWriter w, scoped in long id) =>
                    {
                        w.Write(FixTags.ClOrdID, id);
                        w.Write(FixTags.Symbol, "EURUSD"u8);
                    }))
                    {
                        Thread.Yield();
                    }
                }
            });
        }
        foreach (Thread t in threads) t.Start();
        // The test thread is the session's owner: it drains while the producers write.
        while (threads.Any(t => t.IsAlive) || app.Stored.Count < threads.Length * perThread)
        {
            h.Session.Poll(h.Now);
        }
        foreach (Thread t in threads) t.Join();

        (long Token, int Seq)[] stored = app.Stored.ToArray();
        Assert.Equal(threads.Length * perThread, stored.Length);
        Assert.Equal(Enumerable.Range(0, threads.Length * perThread).Select(i => (long)i), stored.Select(s => s.Token).Order());
        // Numbered in hand-over order, consecutively after the Logon (34=1).
        Assert.Equal(Enumerable.Range(2, stored.Length), stored.Select(s => s.Seq));
        // Each thread's own messages keep their order.
        for (int t = 0; t < threads.Length; t++)
        {
            long[] mine = stored.Where(s => s.Token / perThread == t).Select(s => s.Token).ToArray();
            Assert.Equal(mine.Order(), mine);
        }
        // What was sent is what the callbacks said: token i went out as ClOrdID i under the reported MsgSeqNum.
        var sent = h.Connection.Sent.Skip(1).Select(b => new Sent(b)).ToArray();
        Assert.Equal(stored.Length, sent.Length);
        for (int i = 0; i < sent.Length; i++)
        {
            Assert.Equal(stored[i].Seq.ToString(System.Globalization.CultureInfo.InvariantCulture), sent[i][34]);
            Assert.Equal(stored[i].Token.ToString(System.Globalization.CultureInfo.InvariantCulture), sent[i][11]);
        }
        Assert.Empty(app.NotStored);
    }

    [Fact]
    public void SendFromAnotherThreadThrowsNamingTheRule()
    {
        var app = new DurableApp();
        using SessionHarness h = LoggedOn(app);
        Exception? error = null;
        var other = new Thread(() =>
        {
            try
            {
                h.Session.Send(MsgTypes.NewOrderSingle, 0, static (ref FixWriter w, scoped in int _) => w.Write(FixTags.ClOrdID, 1));
            }
            catch (Exception e)
            {
                error = e;
            }
        });
        other.Start();
        other.Join();
        InvalidOperationException ioe = Assert.IsType<InvalidOperationException>(error);
        Assert.Contains("TrySendFromAnyThread", ioe.Message);
        Assert.Contains("owned by thread", ioe.Message);
        // Nothing was numbered or stored by the refused call.
        Assert.Equal(2, h.Session.NextSenderMsgSeqNum);
        // The owner thread still sends.
        h.Session.Send(MsgTypes.NewOrderSingle, 0, static (ref FixWriter w, scoped in int _) => w.Write(FixTags.ClOrdID, 1));
        Assert.Equal(3, h.Session.NextSenderMsgSeqNum);
    }

    [Fact]
    public void LogoutStoresAndSendsEverythingHandedOverBeforeTheLogout()
    {
        var app = new DurableApp();
        using SessionHarness h = LoggedOn(app);
        for (int i = 0; i < 50; i++) SendOrder(h.Session, 100 + i);
        h.Session.Logout("bye", h.Now);
        for (int i = 0; i < 50; i++)
        {
            Sent m = h.Expect("D");
            Assert.Equal((100 + i).ToString(System.Globalization.CultureInfo.InvariantCulture), m[11]);
        }
        h.Expect("5");
        Assert.Equal(50, app.Stored.Count);
    }

    [Fact]
    public void StopStoresWhatWasHandedOverWhileDisconnectedAndReportsWhatCameAfter()
    {
        var app = new DurableApp();
        using var h = new SessionHarness("FIX.4.4", s => s with { ResetOnLogon = false }, connect: false, application: app);
        for (int i = 0; i < 10; i++) SendOrder(h.Session, i);
        h.Session.Poll(h.Now);
        Assert.Empty(app.Stored); // not logged on: they wait

        Assert.Equal(10, h.Session.StoreHandedOverForStop(h.Now));
        Assert.Equal(Enumerable.Range(0, 10).Select(i => ((long)i, i + 1)), app.Stored);
        Assert.Equal(11, h.Store.NextSenderMsgSeqNum);
        // The hand-off is closed: nothing more is accepted (so nothing can be dropped silently).
        Assert.False(h.Session.TrySendFromAnyThread(MsgTypes.NewOrderSingle, 99, 0, static (ref FixWriter w, scoped in int _) => w.Write(FixTags.ClOrdID, 1)));
        Assert.Equal(0, h.Session.AbandonHandedOver(h.Now));
        Assert.Equal(0, h.Session.HandedOverNotStoredCount);
    }

    [Fact]
    public void MessagesStillHandedOverWhenTheEngineCloseAreReportedOneByOne()
    {
        var app = new DurableApp();
        using var h = new SessionHarness("FIX.4.4", s => s with { ResetOnLogon = false }, connect: false, application: app);
        for (int i = 0; i < 7; i++) SendOrder(h.Session, 500 + i);
        // The engine closed without a Stop drain (its Stop timed out).
        Assert.Equal(7, h.Session.AbandonHandedOver(h.Now));
        Assert.Equal(Enumerable.Range(500, 7).Select(i => ((long)i, SendNotStoredReason.EngineStopped)), app.NotStored);
        Assert.Equal(7, h.Session.HandedOverNotStoredCount);
        Assert.Equal(1, h.Store.NextSenderMsgSeqNum);
    }

    [Fact]
    public void AfterARestartAnInboundMessageWhoseAnswerWasStoredIsNotHandedOverAgain()
    {
        using var dir = new TempDirectory();
        string journal = System.IO.Path.Combine(dir.Path, "s.journal");
        var app = new DurableApp();
        var h = LoggedOn(app, new FileMessageStore(journal, 1));
        h.Receive("35=D|34=2|11=A|55=X|54=1|38=1|40=1|60=" + h.Time());
        Assert.Equal(2, h.Store.LastProcessedInboundSeqNum);
        Assert.Equal(3, h.Store.NextTargetMsgSeqNum);
        // The crash instant of issue 13: the answer (with the mark) is on disk, the inbound number is not.
        h.Store.SetNextTargetMsgSeqNum(2);
        h.Dispose();

        var app2 = new DurableApp();
        // The peer logs on with 3 (it sent 2 before): we ask for 2 again, and it resends 2 flagged PossDup.
        using SessionHarness r = LoggedOnAgain(app2, new FileMessageStore(journal, 1), 3);
        r.Receive("35=D|34=2|43=Y|122=" + r.Time() + "|11=A|55=X|54=1|38=1|40=1|60=" + r.Time());
        Assert.Empty(app2.Delivered);
        Assert.Equal(4, r.Store.NextTargetMsgSeqNum);
        r.ExpectNothing(); // no second answer
        r.Receive("35=D|34=4|43=Y|122=" + r.Time() + "|11=B|55=X|54=1|38=1|40=1|60=" + r.Time());
        r.Receive("35=D|34=5|11=C|55=X|54=1|38=1|40=1|60=" + r.Time());
        Assert.Equal([("B", true), ("C", false)], app2.Delivered);
        Assert.Equal(5, r.Store.LastProcessedInboundSeqNum);
    }

    [Fact]
    public void TheMessageInFlightWhenTheStoreWasOpenedIsFlagged()
    {
        using var dir = new TempDirectory();
        string journal = System.IO.Path.Combine(dir.Path, "s.journal");
        var app = new DurableApp();
        var h = LoggedOn(app, new FileMessageStore(journal, 1));
        h.Dispose();
        // Next expected inbound is 2: it may have been in FromApp when the process stopped.
        var app2 = new DurableApp();
        using SessionHarness r = LoggedOnAgain(app2, new FileMessageStore(journal, 1), 3);
        // Even resent without PossDupFlag, 2 may have been in FromApp when the process stopped.
        r.Receive("35=D|34=2|11=A|55=X|54=1|38=1|40=1|60=" + r.Time());
        r.Receive("35=D|34=4|11=B|55=X|54=1|38=1|40=1|60=" + r.Time());
        Assert.Equal([("A", true), ("B", false)], app2.Delivered);
    }

    private static SessionHarness LoggedOnAgain(DurableApp app, IMessageStore store, int logonSeq)
    {
        var h = new SessionHarness("FIX.4.4", s => s with { ResetOnLogon = false }, store, application: app);
        h.Receive("35=A|34=" + logonSeq + "|98=0|108=30");
        h.Expect("A");
        Sent resend = h.Expect("2");
        Assert.Equal("2", resend[7]);
        return h;
    }

    [Fact]
    public void AStoreWriteFailureIsADisconnectWithoutALogoutACallbackAndRefusedSends()
    {
        var app = new DurableApp();
        var store = new FailingStore();
        using SessionHarness h = LoggedOn(app, store);
        SendOrder(h.Session, 1);
        store.Fail = true;
        h.Receive("35=D|34=2|11=A|55=X|54=1|38=1|40=1|60=" + h.Time());

        Assert.IsType<MessageStoreException>(app.SendError);
        // No Logout: its sequence number could not be stored, and an unstored one puts the peer ahead of the store.
        h.ExpectNothing();
        Assert.True(h.Connection.Disconnected);
        Assert.Contains("message store failure", h.Connection.Reason);
        Assert.Single(app.StoreFailures);
        Assert.Same(app.StoreFailures[0], h.Session.StoreFailure);
        // The order handed over before is reported, not dropped silently.
        Assert.Equal([(1L, SendNotStoredReason.StoreFailed)], app.NotStored);
        InvalidOperationException refused = Assert.Throws<InvalidOperationException>(() =>
            h.Session.Send(MsgTypes.NewOrderSingle, 0, static (ref FixWriter w, scoped in int _) => w.Write(FixTags.ClOrdID, 1)));
        Assert.Contains("message store failed", refused.Message);
        Assert.Throws<InvalidOperationException>(() => SendOrder(h.Session, 2));
        // A new connection is refused too.
        var again = new FakeConnection();
        h.Session.OnConnected(again, h.Now);
        Assert.True(again.Disconnected);
        Assert.Empty(again.Sent);
    }

    [Fact]
    public void ARealDiskFullIsADisconnectACallbackAndRefusedSendsAndTheRestartedStoreNumbersOnFromWhatThePeerSaw()
    {
        if (OperatingSystem.IsWindows() || !File.Exists("/dev/full")) return;
        using var dir = new TempDirectory();
        var store = new FileMessageStore(System.IO.Path.Combine(dir.Path, "s.journal"), 1,
            new FileMessageStoreOptions { SyncPolicy = FileStoreSyncPolicy.OS });
        var app = new DurableApp();
        using SessionHarness h = LoggedOn(app, store);
        using SafeFileHandle full = File.OpenHandle("/dev/full", FileMode.Open, FileAccess.ReadWrite);
        SafeFileHandle journal = store.SwapHandleForTesting(full);
        try
        {
            SendOrder(h.Session, 7);
            h.Session.Poll(h.Now);
            h.ExpectNothing();
            Assert.True(h.Connection.Disconnected);
            MessageStoreException error = Assert.Single(app.StoreFailures);
            Assert.Equal(MessageStoreOperation.Append, error.Operation);
            Assert.Equal([(7L, SendNotStoredReason.StoreFailed)], app.NotStored);
            Assert.Throws<InvalidOperationException>(() => SendOrder(h.Session, 8));
        }
        finally
        {
            store.SwapHandleForTesting(journal).Dispose();
        }
        // The medium is back and the engine restarts: the journal's next sender number follows the highest number the
        // peer received, so the next Logon is neither "too low" for the peer nor leaves a gap.
        int highestSent = h.Connection.Sent.Max(m => int.Parse(new Sent(m)[34]!));
        h.Dispose();
        using var reopened = new FileMessageStore(System.IO.Path.Combine(dir.Path, "s.journal"), 1);
        Assert.Equal(highestSent + 1, reopened.NextSenderMsgSeqNum);
    }

    /// <summary>A memory store whose writes throw <see cref="MessageStoreException"/> once armed.</summary>
    private sealed class FailingStore : IMessageStore
    {
        private readonly MemoryMessageStore _inner = new(1, 1 << 20);

        public bool Fail { get; set; }

        public int NextSenderMsgSeqNum => _inner.NextSenderMsgSeqNum;

        public int NextTargetMsgSeqNum => _inner.NextTargetMsgSeqNum;

        public long CreationTimeEpochNs => _inner.CreationTimeEpochNs;

        public int LastProcessedInboundSeqNum => _inner.LastProcessedInboundSeqNum;

        public StoreRecoveryReport? LastRecoveryReport => null;

        public void SetNextSenderMsgSeqNum(int value)
        {
            Check();
            _inner.SetNextSenderMsgSeqNum(value);
        }

        public void SetNextTargetMsgSeqNum(int value)
        {
            Check();
            _inner.SetNextTargetMsgSeqNum(value);
        }

        public void IncrNextSenderMsgSeqNum()
        {
            Check();
            _inner.IncrNextSenderMsgSeqNum();
        }

        public void IncrNextTargetMsgSeqNum()
        {
            Check();
            _inner.IncrNextTargetMsgSeqNum();
        }

        public void SetLastProcessedInboundSeqNum(int value)
        {
            Check();
            _inner.SetLastProcessedInboundSeqNum(value);
        }

        public void Append(int seqNum, ReadOnlySpan<byte> message)
        {
            Check();
            _inner.Append(seqNum, message);
        }

        public void AppendAndIncrement(int seqNum, ReadOnlySpan<byte> message)
        {
            Check();
            _inner.AppendAndIncrement(seqNum, message);
        }

        public void AppendAndIncrement(int seqNum, ReadOnlySpan<byte> message, int processedInboundSeqNum)
        {
            Check();
            _inner.AppendAndIncrement(seqNum, message, processedInboundSeqNum);
        }

        public int ReadRange<THandler>(int beginSeqNo, int endSeqNo, ref THandler handler) where THandler : struct, IStoredMessageHandler =>
            _inner.ReadRange(beginSeqNo, endSeqNo, ref handler);

        public void Reset(long nowEpochNs)
        {
            Check();
            _inner.Reset(nowEpochNs);
        }

        public void Flush() => Check();

        public void Refresh()
        {
        }

        public void Dispose() => _inner.Dispose();

        private void Check()
        {
            if (Fail) throw new MessageStoreException("test store: disk full", "test-store", MessageStoreOperation.Append, new IOException("No space left on device"));
        }
    }
}
