using System;
using System.Collections.Generic;
using System.IO;
using System.Net;
using System.Net.Sockets;
using System.Text;
using System.Threading;
using FixEngine.Codec;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Session;
using FixEngine.Tests.Transport;
using FixEngine.Timing;
using FixEngine.Transport;
using Xunit.Abstractions;

namespace FixEngine.Tests.Engine;

/// <summary>Issue 35: a completion-mode acceptor whose reading threads fall behind (socket completions queued behind busy
/// workers, as at 10,000 sessions on two cores; on Linux the reactor thread held by another connection's callback) must not send TestRequests to, or disconnect, a counterparty that keeps
/// sending. The engine agent (its own thread) runs the heartbeat timers; the peer's heartbeats wait unread in the socket
/// until a worker gets round to them. Before the fix the agent took that silence for the peer's: a TestRequest at
/// 1.2 x HeartBtInt, a disconnect at 2.4 x.</summary>
/// <remarks>In a process of its own (<see cref="IsolatedProcess"/>): the test stalls the whole thread pool for 5 s, which
/// would stall every other test of this process. The peer is a raw socket on two dedicated threads (it needs no pool).</remarks>
public sealed class HeartbeatBehindEngineTests(ITestOutputHelper output)
{
    internal const string Probe = "heartbeat-behind";
    private const int HeartBtInt = 2;
    private const int StallMs = 5_000;
    private const int PeerHeartbeatEveryMs = 400;

    [Fact]
    public void AStalledThreadPoolMakesNoTestRequestOrDisconnectWhileThePeerKeepsSending()
    {
        // A hang bound: about 9 s of scenario, minutes beside a CPU hog.
        (int exitCode, string report) = IsolatedProcess.Run(Probe, TimeSpan.FromMinutes(5));
        output.WriteLine(report);
        Assert.True(exitCode == 0, $"exit code {exitCode}: {report}");
        Assert.Contains("no TestRequest, still logged on", report, StringComparison.Ordinal);
    }

    /// <summary>The scenario, in the child process; 0 when the acceptor sent no TestRequest, stayed logged on, and the
    /// stall really delayed its processing of the peer's heartbeats past the TestRequest threshold.</summary>
    internal static int Measure(TextWriter output)
    {
        // At most as many workers as cores, so blocked workers stall every socket completion (no thread injection).
        ThreadPool.GetMinThreads(out int minWorkers, out int minIo);
        int workers = Math.Max(minWorkers, Environment.ProcessorCount);
        if (!ThreadPool.SetMaxThreads(workers, Math.Max(minIo, workers)))
        {
            output.WriteLine($"could not cap the thread pool at {workers} workers");
            return 3;
        }
        string text = $"""
            [DEFAULT]
            ConnectionType=acceptor
            SocketAcceptPort=0
            NonStopSession=Y
            HeartBtInt={HeartBtInt}
            UseDataDictionary=N
            ResetOnLogon=Y
            ReceiveMode=Completion
            BeginString=FIX.4.4
            SenderCompID=EXEC

            [SESSION]
            TargetCompID=CLIENT

            """;
        var app = new HeartbeatClock();
        using var host = new FixEngineHost(SettingsFile.Parse(text, "behind.cfg"), app);
        host.Start();
        using var blockers = new Loopback(ReceiveMode.Completion);
        var reactorBlockers = new List<(TcpConnection Client, StallingHandler Handler)>();
        if (new TcpConnectionOptions().CompletionReactor)
        {
            // One connection per reactor thread (they are assigned round robin), each with a handler that holds its
            // reactor thread once the stall begins.
            for (int i = 0; i < ConnectionReactor.Count; i++)
            {
                var handler = new StallingHandler();
                blockers.ServerHandlerFactory = () => handler;
                var (client, _) = ConnectBlocker(blockers);
                reactorBlockers.Add((client, handler));
            }
        }
        using var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { ReceiveTimeout = 60_000, NoDelay = true };
        var peer = new PeerReader(socket);
        try
        {
            socket.Connect(IPAddress.Loopback, Assert.Single(host.AcceptorPorts));
            socket.Send(RawPeerMessages.Message(1, $"35=A|98=0|108={HeartBtInt}|141=Y"));
            peer.Start();
            if (!SpinWait.SpinUntil(() => Volatile.Read(ref app.Logons) == 1, TimeSpan.FromSeconds(60)))
            {
                output.WriteLine("no Logon: " + peer.Describe());
                return 2;
            }
            FixSession session = host.Sessions[0];

            // The peer heartbeats every 0.4 s throughout; after 1 s every worker is blocked for 5 s.
            int seq = 2;
            long endNs = HighResTime.NowNs() + (1_000 + StallMs + 2_500) * 1_000_000L;
            long stallAtNs = HighResTime.NowNs() + 1_000 * 1_000_000L;
            bool stalled = false;
            long stallEndNs = 0;
            while (HighResTime.NowNs() < endNs)
            {
                if (!stalled && HighResTime.NowNs() >= stallAtNs)
                {
                    stalled = true;
                    stallEndNs = HighResTime.NowNs() + StallMs * 1_000_000L;
                    long until = stallEndNs;
                    // On Linux completion mode reads through the engine's reactor threads, not the pool: stall those too
                    // (a slow application callback of another connection on the same reactor does the same).
                    foreach (var (client, blocker) in reactorBlockers)
                    {
                        blocker.Until = until;
                        client.TrySend(global::FixEngine.Tests.Transport.FixMessages.Numbered(0));
                    }
                    for (int i = 0; i < 4 * workers; i++)
                    {
                        ThreadPool.UnsafeQueueUserWorkItem(_ =>
                        {
                            long left;
                            while ((left = until - HighResTime.NowNs()) > 0) Thread.Sleep((int)Math.Max(1, left / 1_000_000));
                        }, null);
                    }
                }
                try
                {
                    socket.Send(RawPeerMessages.Message(seq, "35=0"));
                }
                catch (SocketException e)
                {
                    output.WriteLine($"the acceptor closed the connection ({e.SocketErrorCode}): {peer.Describe()}");
                    return 1;
                }
                seq++;
                Thread.Sleep(PeerHeartbeatEveryMs);
            }
            // Everything the peer sent is processed once the pool is free again (bounded by progress: minutes).
            int expected = seq;
            if (!SpinWait.SpinUntil(() => session.NextTargetMsgSeqNum == expected || !session.IsLoggedOn, TimeSpan.FromMinutes(2)))
            {
                output.WriteLine($"the acceptor processed up to {session.NextTargetMsgSeqNum - 1} of {expected - 1}");
                return 2;
            }
            long gapMs = app.LongestGapNs() / 1_000_000;
            int testRequests = peer.Count("1");
            bool loggedOn = session.IsLoggedOn && !peer.Closed;
            output.WriteLine($"peer sent heartbeats 2..{expected - 1}; longest gap between two processed by the acceptor {gapMs} ms "
                + $"(TestRequest threshold {HeartBtInt * 1200} ms); acceptor sent {testRequests} TestRequest(s), {peer.Count("5")} Logout(s); "
                + $"connection {(loggedOn ? "open" : "closed: " + peer.Describe())}; heartbeat checks behind {session.HeartbeatChecksBehindCount}");
            if (gapMs < HeartBtInt * 1_500)
            {
                output.WriteLine("the stall did not delay the acceptor's processing past the TestRequest threshold: the scenario proves nothing");
                return 4;
            }
            if (testRequests != 0 || !loggedOn || session.HeartbeatChecksBehindCount == 0) return 1;
            output.WriteLine("no TestRequest, still logged on");
            return 0;
        }
        finally
        {
            host.Stop(TimeSpan.FromSeconds(5));
            socket.Dispose();
            peer.Join();
        }
    }

    private static (TcpConnection Client, TcpConnection Server) ConnectBlocker(Loopback loop)
    {
        TcpConnection client = TcpConnector.Connect(loop.EndPoint, TimeSpan.FromSeconds(5), loop.Options, new RecordingHandler(keepMessages: false));
        client.Start();
        return (client, loop.TakeAccepted());
    }

    /// <summary>Holds the thread that delivers a message to it until <see cref="Until"/> (monotonic ns).</summary>
    private sealed class StallingHandler : IConnectionHandler
    {
        public long Until;

        public void OnMessage(FixEngine.Transport.TransportConnection connection, ReadOnlySpan<byte> message)
        {
            long left;
            while ((left = Volatile.Read(ref Until) - HighResTime.NowNs()) > 0) Thread.Sleep((int)Math.Max(1, left / 1_000_000));
        }

        public void OnFrameError(FixEngine.Transport.TransportConnection connection, in FrameResult error, ReadOnlySpan<byte> skipped)
        {
        }

        public void OnDisconnected(FixEngine.Transport.TransportConnection connection, FixEngine.Transport.DisconnectReason reason, string? detail)
        {
        }
    }

    /// <summary>When the acceptor processed each of the peer's heartbeats (FromAdmin runs when the session processes it).</summary>
    private sealed class HeartbeatClock : IApplication
    {
        public int Logons;
        private readonly List<long> _heartbeatsNs = [];

        public long LongestGapNs()
        {
            lock (_heartbeatsNs)
            {
                long longest = 0;
                for (int i = 1; i < _heartbeatsNs.Count; i++) longest = Math.Max(longest, _heartbeatsNs[i] - _heartbeatsNs[i - 1]);
                return longest;
            }
        }

        public void OnLogon(FixSession session) => Interlocked.Increment(ref Logons);

        public void OnLogout(FixSession session)
        {
        }

        public void ToAdmin(FixSession session, ReadOnlySpan<byte> msgType, ref FixWriter body)
        {
        }

        public void FromAdmin(FixSession session, FixMessage message)
        {
            if (message.MsgType.SequenceEqual(MsgTypes.Heartbeat)) lock (_heartbeatsNs) _heartbeatsNs.Add(HighResTime.NowNs());
        }

        public FromAppResult FromApp(FixSession session, FixMessage message) => FromAppResult.Accepted;
    }

    /// <summary>Reads everything the acceptor sends, on a thread of its own, and counts the message types.</summary>
    private sealed class PeerReader(Socket socket)
    {
        private readonly Dictionary<string, int> _types = [];
        private readonly StringBuilder _text = new();
        private Thread? _thread;
        private volatile bool _closed;

        public bool Closed => _closed;

        public void Start()
        {
            _thread = new Thread(Run) { IsBackground = true, Name = "behind-peer-reader" };
            _thread.Start();
        }

        public void Join() => _thread?.Join(TimeSpan.FromSeconds(30));

        public int Count(string msgType)
        {
            lock (_types) return _types.GetValueOrDefault(msgType);
        }

        public string Describe()
        {
            lock (_types) return _text.ToString();
        }

        private void Run()
        {
            var buffer = new byte[65536];
            int length = 0;
            try
            {
                while (true)
                {
                    int n = socket.Receive(buffer, length, buffer.Length - length, SocketFlags.None);
                    if (n == 0) break;
                    length += n;
                    int at = 0;
                    while (true)
                    {
                        FrameResult frame = FixFramer.Frame(buffer.AsSpan(at, length - at), 1 << 16);
                        if (!frame.IsComplete) break;
                        string message = Encoding.ASCII.GetString(buffer, at, frame.Length);
                        int type = message.IndexOf("\u000135=", StringComparison.Ordinal) + 4;
                        string msgType = message[type..message.IndexOf('\u0001', type)];
                        lock (_types)
                        {
                            _types[msgType] = _types.GetValueOrDefault(msgType) + 1;
                            if (msgType is not "0") _text.Append(message.Replace('\u0001', '|')).Append('\n');
                        }
                        at += frame.Length;
                    }
                    Buffer.BlockCopy(buffer, at, buffer, 0, length - at);
                    length -= at;
                }
            }
            catch (SocketException)
            {
            }
            catch (ObjectDisposedException)
            {
            }
            _closed = true;
        }
    }
}
