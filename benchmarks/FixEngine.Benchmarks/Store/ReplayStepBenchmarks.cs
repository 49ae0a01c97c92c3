using System;
using System.Globalization;
using System.IO;
using System.Text;
using BenchmarkDotNet.Attributes;
using FixEngine.Config;
using FixEngine.Session;
using FixEngine.Store;
using FixEngine.Transport;

namespace FixEngine.Benchmarks.Store;

/// <summary>Cost per message of a resend served from a file store (issue 35: a ResendRequest served at disk speed): an
/// acceptor session whose <see cref="FileMessageStore"/> holds <see cref="Messages"/> ExecutionReports of about 230
/// bytes is asked for all of them; one invocation is the ResendRequest and the replay steps run from Poll until every
/// message has gone to the connection. Per message that is the store's read (journal window, record head and payload
/// CRCs), the header read, the re-encode (PossDupFlag, SendingTime, OrigSendingTime, the body copied, CheckSum), ToApp
/// and the copy into the step's batch. The connection takes every batch and only counts it: no socket.</summary>
/// <remarks>
/// <para>The journal (a few MB) stays in the page cache, so a window read is a copy from it. BenchmarkDotNet runs the
/// code warm (tier 1, or AggressiveOptimization where marked): this is the steady state, not a first resend's.</para>
/// <para>Run: <c>dotnet benchmarks/FixEngine.Benchmarks/bin/Release/net10.0/FixEngine.Benchmarks.dll --filter '*ReplayStepBenchmarks*' --job short</c>.
/// Results: docs/benchmarks/2026-12-06-long-history.md, "2026-12-07 (evening)".</para>
/// </remarks>
[MemoryDiagnoser]
public class ReplayStepBenchmarks
{
    /// <summary>Stored messages resent per invocation.</summary>
    public const int Messages = 10_000;

    private static readonly long EpochNs = new DateTimeOffset(2026, 12, 7, 12, 0, 0, TimeSpan.Zero).ToUnixTimeMilliseconds() * 1_000_000L;

    private string _directory = "";
    private FixSession _session = null!;
    private CountingConnection _connection = null!;
    private int _peerSeq = 1;

    [GlobalSetup]
    public void Setup()
    {
        _directory = Path.Combine(Path.GetTempPath(), "fixengine-replay-" + Guid.NewGuid().ToString("N"));
        Directory.CreateDirectory(_directory);
        var store = new FileMessageStore(_directory, "replay", EpochNs, new FileMessageStoreOptions { SyncPolicy = FileStoreSyncPolicy.OS });
        string time = Time(EpochNs);
        for (int seq = 1; seq <= Messages; seq++)
        {
            store.AppendAndIncrement(seq, Message("8", "EXEC", "CLIENT", seq, time,
                $"37=O{seq}\u000111=C{seq}\u000117=E{seq}\u0001150=0\u000139=0\u000155=EURUSD\u000154=1\u000138=1000000\u000144=1.10125\u0001151=1000000\u000114=0\u00016=0\u000160={time}\u000158=replay benchmark order {seq:D8}\u0001"));
        }
        _session = new FixSession(new SessionSettings
        {
            ConnectionType = ConnectionType.Acceptor, BeginString = "FIX.4.4", SenderCompID = "EXEC", TargetCompID = "CLIENT",
            SocketAcceptPort = 7001, NonStopSession = true, UseDataDictionary = false, ResetOnLogon = false, HeartBtInt = 3600,
        }, new NullApplication(), store);
        _connection = new CountingConnection();
        _session.OnConnected(_connection, EpochNs);
        _session.OnMessage(Message("A", "CLIENT", "EXEC", _peerSeq, time, "98=0\u0001108=3600\u0001"), EpochNs);
        if (!_session.IsLoggedOn) throw new InvalidOperationException("the session did not log on");
        // Our side sent a Logon with MsgSeqNum Messages + 1; the peer expects 1: each invocation asks for 1..Messages.
    }

    /// <summary>One ResendRequest for every stored message, served to the end.</summary>
    [Benchmark(OperationsPerInvoke = Messages)]
    public long Resend()
    {
        long sentBefore = _session.MessagesSent;
        _peerSeq++;
        _session.OnMessage(Message("2", "CLIENT", "EXEC", _peerSeq, Time(EpochNs), "7=1\u000116=0\u0001"), EpochNs);
        while (_session.MessagesSent - sentBefore < Messages)
        {
            _session.Poll(EpochNs);
        }
        return _connection.Bytes;
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        _session.Dispose();
        Directory.Delete(_directory, recursive: true);
    }

    private static string Time(long epochNs) =>
        DateTime.UnixEpoch.AddTicks(epochNs / 100).ToString("yyyyMMdd-HH:mm:ss.fff", CultureInfo.InvariantCulture);

    private static byte[] Message(string msgType, string sender, string target, int seq, string time, string fields)
    {
        string body = $"35={msgType}\u000134={seq}\u000149={sender}\u000152={time}\u000156={target}\u0001{fields}";
        string head = $"8=FIX.4.4\u00019={body.Length}\u0001";
        int sum = 0;
        foreach (char ch in head + body) sum += ch;
        return Encoding.ASCII.GetBytes(head + body + "10=" + (sum % 256).ToString("D3", CultureInfo.InvariantCulture) + "\u0001");
    }

    private sealed class NullApplication : IApplication
    {
        public FromAppResult FromApp(FixSession session, FixEngine.Codec.FixMessage message) => FromAppResult.Accepted;
    }

    /// <summary>Takes every write whole and counts its bytes.</summary>
    private sealed class CountingConnection : ISessionConnection
    {
        public long Bytes;

        public SendResult Send(ReadOnlySpan<byte> message)
        {
            Bytes += message.Length;
            return SendResult.Sent;
        }

        public void Disconnect(string reason) => throw new InvalidOperationException("the session disconnected: " + reason);
    }
}
