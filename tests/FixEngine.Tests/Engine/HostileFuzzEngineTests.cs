using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Net;
using System.Net.Sockets;
using System.Text;
using System.Threading;
using FixEngine.Codec;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Session;
using FixEngine.Tests.Infrastructure;
using static FixEngine.Tests.Engine.EngineTestSupport;
using static FixEngine.Tests.Engine.RawPeerMessages;

namespace FixEngine.Tests.Engine;

/// <summary>
/// Mutated frames against a running acceptor (UseDataDictionary=N) over real TCP, bounded and seeded (see
/// <see cref="FrameMutator"/>): garbled frames are ignored and the session goes on; orders with an invalid tag get a
/// Reject 373=0 and never reach FromApp; arbitrary mutations may end the connection, always with a logged reason and
/// never through an exception; and afterwards a good client logs on and trades.
/// </summary>
public sealed class HostileFuzzEngineTests
{
    private static string Defaults(string logPath) => $"""
        [DEFAULT]
        NonStopSession=Y
        UseDataDictionary=N
        ResetOnLogon=Y
        HeartBtInt=30
        IdleStrategy=Yielding
        FileLogPath={logPath}
        """;

    [Fact]
    public void MutatedFramesNeitherReachTheApplicationNorStopAGoodClientFromTrading()
    {
        int seed = FrameMutator.SeedOr(1411);
        var mutator = new FrameMutator(seed);
        string logPath = TempDirectory("fixengine-fuzz-");
        int port = 0;
        (IReadOnlyList<SessionSettings> acceptorSettings, IReadOnlyList<SessionSettings> initiatorSettings) = ExecClientPair(Defaults(logPath), port);
        var guard = new GuardApp();
        try
        {
            using (var acceptor = new FixEngineHost(acceptorSettings, guard))
            {
                acceptor.Start();
                port = EngineTestSupport.PortOf(acceptor);
                initiatorSettings = EngineTestSupport.WithConnectPort(initiatorSettings, port);
                int closedByAcceptor;
                using (var attacker = new RawClient(port))
                {
                    // 1. Garbled frames (the framer refuses each one whole): ignored, the connection stays, no MsgSeqNum is used.
                    attacker.LogOn();
                    int garbled = 0;
                    while (garbled < FrameMutator.Iterations(150))
                    {
                        byte[] order = Order(attacker.NextSeq, "G" + garbled);
                        byte[] frame = mutator.Mutate(order, [order], repair: false, out _);
                        if (!IsGarbledWhole(frame)) continue;
                        attacker.Send(frame);
                        garbled++;
                        // The transport drops a connection after 16 consecutive frame errors without a valid message (its
                        // garbage bound); a Heartbeat every 10 keeps this phase about ignoring garbled frames.
                        if (garbled % 10 == 0) attacker.Send(Message(attacker.NextSeq++, "35=0|112=KEEP"));
                    }
                    attacker.SendOrderAndExpectFill("after-garbled");
                    Assert.Equal(0, attacker.Closes);

                    // 2. Orders with an invalid tag: a Reject 373=0 each, nothing for the application, the session goes on.
                    int invalid = 0;
                    while (invalid < FrameMutator.Iterations(60))
                    {
                        byte[] frame = InvalidTagOrder(mutator.Random, attacker.NextSeq, "T" + invalid, out string bad);
                        attacker.Send(frame);
                        FixFields reject = attacker.Expect("3", $"the order with '{bad}' (seed {seed})");
                        Assert.Equal("0", reject[373]);
                        Assert.Equal(attacker.NextSeq.ToString(System.Globalization.CultureInfo.InvariantCulture), reject[45]);
                        attacker.NextSeq++;
                        invalid++;
                    }
                    attacker.SendOrderAndExpectFill("after-invalid-tags");
                    Assert.Equal(0, attacker.Closes);

                    // 3. Anything: mutated orders, half of them repaired so they pass the framer. The acceptor may log out
                    // and disconnect (wrong MsgSeqNum, CompID, BeginString, ...): the attacker logs on again and goes on.
                    byte[][] corpus = [Order(2, "C"), Message(2, "35=0|112=X"), Message(2, "35=1|112=T"), Message(2, "35=2|7=1|16=0"), Message(2, "35=4|123=Y|36=9")];
                    int frames = FrameMutator.Iterations(400);
                    for (int i = 0; i < frames; i++)
                    {
                        if (!attacker.IsOpen) attacker.Reconnect();
                        byte[] seedFrame = i % 3 == 0 ? corpus[mutator.Random.Next(corpus.Length)] : Order(attacker.NextSeq, "R" + i);
                        byte[] frame = mutator.Mutate(seedFrame, corpus, repair: mutator.Random.Next(2) == 0, out _);
                        attacker.Send(frame);
                        attacker.NextSeq++;
                        if (i % 25 == 24) attacker.DrainReplies();
                    }
                    attacker.DrainReplies();
                    closedByAcceptor = attacker.Closes;
                }

                // 4. A good client, on the engine's own initiator, logs on and trades.
                var client = new ClientApp();
                using (var initiator = new FixEngineHost(initiatorSettings, client))
                {
                    initiator.Start();
                    Assert.True(WaitFor(() => client.Session is { IsLoggedOn: true }), "the good client did not log on after the attack");
                    for (long id = 0; id < 100; id++) SendOrder(client.Session!, id);
                    Assert.True(WaitFor(() => Volatile.Read(ref client.Fills) == 100), $"{Volatile.Read(ref client.Fills)} of 100 fills");
                    client.AssertClean();
                    initiator.Stop(TimeSpan.FromSeconds(5));
                }

                // (RecordingApp's own checks, e.g. contiguous inbound MsgSeqNums, do not apply to an attacker.)
                Assert.Empty(guard.InvalidMessages);
                Assert.True(guard.Fills > 0);
                acceptor.Stop(TimeSpan.FromSeconds(5));

                string log = string.Join("\n", Directory.GetFiles(logPath).Select(File.ReadAllText));
                int disconnects = log.Split('\n').Count(l => l.Contains("] Disconnected: ", StringComparison.Ordinal));
                Assert.True(disconnects >= closedByAcceptor, $"{closedByAcceptor} connections closed by the acceptor but {disconnects} logged disconnects");
                Assert.DoesNotContain("Exception", log, StringComparison.Ordinal);
                Assert.DoesNotContain("HandlerError", log, StringComparison.Ordinal);
                Assert.Contains("Invalid tag number: ", log, StringComparison.Ordinal);
            }
        }
        catch (Exception ex) when (ex is not OutOfMemoryException && Directory.Exists(logPath))
        {
            string[] lines = Directory.GetFiles(logPath).SelectMany(File.ReadAllLines).ToArray();
            throw new Xunit.Sdk.XunitException($"{ex} (seed {seed})\nlast lines of the acceptor's log:\n" + string.Join("\n", lines.TakeLast(15)));
        }
        finally
        {
            DeleteDirectory(logPath);
        }
    }

    /// <summary>An order (MsgSeqNum <paramref name="seq"/>) whose framing is valid but one body field has no valid tag number.</summary>
    private static byte[] InvalidTagOrder(Random random, int seq, string clOrdId, out string bad)
    {
        string[] hostile = ["0=1", "-1=1", "99999999999=1", "=1", "ABC=1", "38", "1234567890=5", "54:1", "0000=x"];
        bad = hostile[random.Next(hostile.Length)];
        var fields = new List<string> { "11=" + clOrdId, "55=EURUSD", "54=1", "38=100", "40=1", "60=" + RawPeerMessages.Now() };
        fields.Insert(random.Next(fields.Count + 1), bad);
        byte[] frame = Message(seq, "35=D|" + string.Join("|", fields));
        var index = new FixMessageIndex();
        Assert.True(FixFramer.Frame(frame, 1 << 20).IsComplete);
        index.Parse(frame);
        Assert.True(index.Defect.IsInvalidTagNumber, bad);
        return frame;
    }

    private static byte[] Order(int seq, string clOrdId) => Message(seq, $"35=D|11={clOrdId}|55=EURUSD|54=1|38=100|40=1|60={RawPeerMessages.Now()}");

    /// <summary>True when the framer discards the whole of <paramref name="frame"/> as errors (no complete frame, nothing left waiting).</summary>
    private static bool IsGarbledWhole(byte[] frame)
    {
        int at = 0;
        bool any = false;
        while (at < frame.Length)
        {
            FrameResult r = FixFramer.Frame(frame.AsSpan(at), 1 << 20);
            if (r.Status == FrameStatus.NeedMoreData || r.IsComplete) return false;
            any = true;
            at += r.Length;
        }
        return any;
    }

    /// <summary>Fills every NewOrderSingle; any application message with an index defect is a problem.</summary>
    private sealed class GuardApp : RecordingApp
    {
        public readonly List<string> InvalidMessages = [];
        public long Fills;

        protected override FromAppResult OnApp(FixSession session, FixMessage message)
        {
            if (message.Index.Defect.IsInvalidTagNumber)
            {
                lock (InvalidMessages) InvalidMessages.Add("a message with an invalid tag reached FromApp: " + message.Index.Defect.Describe());
            }
            if (!message.MsgType.SequenceEqual(MsgTypes.NewOrderSingle)) return FromAppResult.UnsupportedMessageType;
            Interlocked.Increment(ref Fills);
            session.Send(MsgTypes.ExecutionReport, message, static (ref FixWriter w, scoped in FixMessage o) =>
            {
                o.TryGetSpan(FixTags.ClOrdID, out ReadOnlySpan<byte> clOrdId);
                w.Write(FixTags.ClOrdID, clOrdId.IsEmpty ? "?"u8 : clOrdId);
                w.Write(FixTags.ExecType, 'F');
                w.Write(FixTags.OrdStatus, '2');
            });
            return FromAppResult.Accepted;
        }
    }

    /// <summary>Fields of one message, first occurrence of each tag.</summary>
    private sealed class FixFields(string text)
    {
        public string Text { get; } = text;

        public string? this[int tag]
        {
            get
            {
                string prefix = tag.ToString(System.Globalization.CultureInfo.InvariantCulture) + "=";
                foreach (string f in Text.Split('|'))
                {
                    if (f.StartsWith(prefix, StringComparison.Ordinal)) return f[prefix.Length..];
                }
                return null;
            }
        }
    }

    /// <summary>A raw FIX client (CLIENT to EXEC, FIX.4.4) on a blocking socket with a receive timeout.</summary>
    private sealed class RawClient : IDisposable
    {
        private readonly int _port;
        private readonly byte[] _in = new byte[1 << 20];
        private Socket _socket = null!;
        private int _length;

        public RawClient(int port)
        {
            _port = port;
            Open();
        }

        public int NextSeq { get; set; }

        public int Closes { get; private set; }

        public bool IsOpen { get; private set; }

        public void LogOn()
        {
            NextSeq = 1;
            Send(Message(NextSeq++, "35=A|98=0|108=30|141=Y"));
            Expect("A", "the Logon answer");
        }

        public void Reconnect()
        {
            _socket.Dispose();
            Open();
            LogOn();
        }

        public void Send(byte[] bytes)
        {
            try
            {
                _socket.Send(bytes);
            }
            catch (SocketException)
            {
                Closed();
            }
        }

        public void SendOrderAndExpectFill(string clOrdId)
        {
            Send(Order(NextSeq++, clOrdId));
            while (true)
            {
                FixFields m = Expect(null, "the fill of " + clOrdId);
                if (m[35] == "8" && m[11] == clOrdId) return;
            }
        }

        /// <summary>Reads until a message of <paramref name="msgType"/> (any type when null) arrives; fails if the connection closes or nothing comes.</summary>
        public FixFields Expect(string? msgType, string what)
        {
            while (true)
            {
                FixFields? m = ReadOne(TimeSpan.FromSeconds(30));
                Assert.True(m is not null, $"no message while waiting for {what}; connection open {IsOpen}");
                if (msgType is null || m![35] == msgType) return m!;
                Assert.True(m[35] is "0" or "1" or "3" or "8" or "j" or "2" or "4", $"unexpected {m.Text} while waiting for {what}");
            }
        }

        /// <summary>Reads whatever has arrived without waiting long; notes a close by the acceptor.</summary>
        public void DrainReplies()
        {
            while (IsOpen && ReadOne(TimeSpan.FromMilliseconds(50)) is not null)
            {
            }
        }

        public void Dispose() => _socket.Dispose();

        private void Open()
        {
            _socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
            _socket.Connect(new IPEndPoint(IPAddress.Loopback, _port));
            _length = 0;
            IsOpen = true;
        }

        private void Closed()
        {
            if (!IsOpen) return;
            IsOpen = false;
            Closes++;
        }

        private FixFields? ReadOne(TimeSpan timeout)
        {
            while (true)
            {
                FrameResult r = FixFramer.Frame(_in.AsSpan(0, _length), 1 << 20);
                if (r.IsComplete)
                {
                    string text = Encoding.Latin1.GetString(_in, 0, r.Length).Replace('\u0001', '|');
                    Consume(r.Length);
                    return new FixFields(text);
                }
                Assert.False(r.IsError, "the acceptor sent a bad frame: " + r.Describe());
                if (!IsOpen) return null;
                _socket.ReceiveTimeout = (int)timeout.TotalMilliseconds;
                try
                {
                    int n = _socket.Receive(_in, _length, _in.Length - _length, SocketFlags.None);
                    if (n == 0)
                    {
                        Closed();
                        return null;
                    }
                    _length += n;
                }
                catch (SocketException e) when (e.SocketErrorCode == SocketError.TimedOut)
                {
                    return null;
                }
                catch (SocketException)
                {
                    Closed();
                    return null;
                }
            }
        }

        private void Consume(int count)
        {
            Buffer.BlockCopy(_in, count, _in, 0, _length - count);
            _length -= count;
        }
    }
}
