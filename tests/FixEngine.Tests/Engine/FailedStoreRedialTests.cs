using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Net;
using System.Net.Sockets;
using System.Threading;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Store;
using FixEngine.Tests.Session;

namespace FixEngine.Tests.Engine;

/// <summary>Issue 34 item 6: an initiator whose store failed does not redial every ReconnectInterval (each attempt would
/// connect and drop before the Logon); it stops and says so once.</summary>
public sealed class FailedStoreRedialTests
{
    /// <summary>A memory store whose every write fails, as a full disk would.</summary>
    private sealed class FailingStore : IMessageStore
    {
        private readonly MemoryMessageStore _inner = new(1, 1 << 16);

        private static MessageStoreException Fail() => new("No space left on device (test store)", "test-store", MessageStoreOperation.Append);

        public int NextSenderMsgSeqNum => _inner.NextSenderMsgSeqNum;
        public int NextTargetMsgSeqNum => _inner.NextTargetMsgSeqNum;
        public long CreationTimeEpochNs => _inner.CreationTimeEpochNs;
        public int LastProcessedInboundSeqNum => _inner.LastProcessedInboundSeqNum;
        public StoreRecoveryReport? LastRecoveryReport => null;
        public void SetNextSenderMsgSeqNum(int value) => throw Fail();
        public void SetNextTargetMsgSeqNum(int value) => throw Fail();
        public void IncrNextSenderMsgSeqNum() => throw Fail();
        public void IncrNextTargetMsgSeqNum() => throw Fail();
        public void SetLastProcessedInboundSeqNum(int value) => throw Fail();
        public void Append(int seqNum, ReadOnlySpan<byte> message) => throw Fail();
        public void AppendAndIncrement(int seqNum, ReadOnlySpan<byte> message) => throw Fail();
        public void AppendAndIncrement(int seqNum, ReadOnlySpan<byte> message, int processedInboundSeqNum) => throw Fail();
        public int ReadRange<THandler>(int beginSeqNo, int endSeqNo, ref THandler handler) where THandler : struct, IStoredMessageHandler => _inner.ReadRange(beginSeqNo, endSeqNo, ref handler);
        public void Reset(long nowEpochNs) => throw Fail();
        public void Flush() => _inner.Flush();
        public void Refresh() => _inner.Refresh();
        public void Dispose() => _inner.Dispose();
    }

    private sealed class FailingStoreFactory : IMessageStoreFactory
    {
        public IMessageStore Create(SessionSettings settings, long epochNs) => new FailingStore();
    }

    [Fact]
    public void AnInitiatorWhoseStoreFailedStopsRedialingAndSaysSoOnce()
    {
        // The counterparty: a plain listener on port 0, counting connections.
        using var listener = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        listener.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        listener.Listen(16);
        int port = ((IPEndPoint)listener.LocalEndPoint!).Port;
        int accepted = 0;
        var held = new List<Socket>();
        var acceptLoop = new Thread(() =>
        {
            try
            {
                while (true)
                {
                    Socket s = listener.Accept();
                    Interlocked.Increment(ref accepted);
                    lock (held) held.Add(s);
                }
            }
            catch (SocketException) { }
            catch (ObjectDisposedException) { }
        }) { IsBackground = true };
        acceptLoop.Start();

        IReadOnlyList<SessionSettings> settings = SettingsFile.Parse(
            $"[DEFAULT]\nConnectionType=initiator\nSocketConnectHost=127.0.0.1\nSocketConnectPort={port}\nHeartBtInt=30\nReconnectInterval=1\n"
            + "NonStopSession=Y\nUseDataDictionary=N\n[SESSION]\nBeginString=FIX.4.4\nSenderCompID=CLIENT\nTargetCompID=EXEC\n", "initiator.cfg");
        var lines = new ConcurrentQueue<string>();
        using (var engine = new FixEngineHost(settings, new EchoApp(), new EngineOptions { MessageStoreFactory = new FailingStoreFactory(), Console = lines.Enqueue }))
        {
            engine.Start();
            Assert.True(EngineTestSupport.WaitFor(() => lines.ToArray() is string[] all && Array.Exists(all, l => l.StartsWith("Not reconnecting", StringComparison.Ordinal))),
                "the engine said it stops reconnecting");
            int afterStop = Volatile.Read(ref accepted);
            // Three reconnect intervals: no further attempt (the engine is idle, so this only gets more certain under load).
            Thread.Sleep(3_000);
            Assert.Equal(afterStop, Volatile.Read(ref accepted));
            Assert.True(afterStop <= 1, $"{afterStop} connections");
            Assert.Single(lines, l => l.StartsWith("Not reconnecting", StringComparison.Ordinal) && l.Contains("message store failed", StringComparison.Ordinal));
            engine.Stop(TimeSpan.FromSeconds(1));
        }
        listener.Close();
        lock (held) foreach (Socket s in held) s.Dispose();
    }
}
