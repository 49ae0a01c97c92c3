using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Net;
using System.Net.Sockets;
using System.Text;
using System.Threading;
using FixEngine.Codec;
using FixEngine.Config;
using FixEngine.Session;

namespace FixEngine.Tests.Engine;

internal static class EngineTestSupport
{
    public static readonly TimeSpan Wait = TimeSpan.FromSeconds(30);

    // Tests bind acceptors to port 0 (the system picks) and read the port back (FixEngineHost.AcceptorPorts, or a child
    // process's "listening on port(s) P" line); nothing probes a port and binds it later. HeldPort is for a listener that
    // must be bound on a port known before it starts, or again on the same port after it was killed or stopped (a
    // restarted child acceptor, a standby taking over the primary's port, a session added on a second port).

    /// <summary>A port the system picked, held by the returned socket (bound with SO_REUSEADDR, never listening) for as
    /// long as it lives: an acceptor with SocketReuseAddress=Y (the default) can bind it, as often as it restarts, while
    /// no other program or test can take it meanwhile; a connect there is refused while no acceptor listens.</summary>
    public static Socket HeldPort(out int port)
    {
        var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        socket.SetSocketOption(SocketOptionLevel.Socket, SocketOptionName.ReuseAddress, true);
        socket.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        port = ((IPEndPoint)socket.LocalEndPoint!).Port;
        return socket;
    }

    /// <summary>A loopback port nothing listens on while the returned socket lives: the socket holds it bound without
    /// listening, so a connect there is refused and no other test can take it.</summary>
    public static Socket ClosedPort(out int port)
    {
        var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        socket.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        port = ((IPEndPoint)socket.LocalEndPoint!).Port;
        return socket;
    }

    /// <summary>The one port a started host's acceptors listen on (SocketAcceptPort=0 in the tests: the system picked it).</summary>
    public static int PortOf(global::FixEngine.Engine.FixEngineHost host) => Assert.Single(host.AcceptorPorts);

    /// <summary>Initiator settings pointed at <paramref name="port"/> (read from a started acceptor).</summary>
    public static IReadOnlyList<SessionSettings> WithConnectPort(IReadOnlyList<SessionSettings> initiator, int port)
    {
        var list = new List<SessionSettings>(initiator.Count);
        foreach (SessionSettings s in initiator) list.Add(s with { SocketConnectPort = port });
        return list;
    }

    /// <summary>The port in a sample acceptor's "[acceptor] listening on port(s) P" line (it ran with port 0), or null.</summary>
    public static int? ListeningPort(string? line)
    {
        const string Marker = "listening on port(s) ";
        int at = line?.IndexOf(Marker, StringComparison.Ordinal) ?? -1;
        if (at < 0) return null;
        int start = at + Marker.Length, end = start;
        while (end < line!.Length && char.IsAsciiDigit(line[end])) end++;
        return end > start ? int.Parse(line.AsSpan(start, end - start), CultureInfo.InvariantCulture) : null;
    }

    /// <summary>Watches a child's standard output (before BeginOutputReadLine) for the port it reports.</summary>
    public static System.Threading.Tasks.Task<int> ReportedPort(Process child)
    {
        var port = new System.Threading.Tasks.TaskCompletionSource<int>(System.Threading.Tasks.TaskCreationOptions.RunContinuationsAsynchronously);
        child.OutputDataReceived += (_, e) =>
        {
            if (ListeningPort(e.Data) is int p) port.TrySetResult(p);
        };
        return port.Task;
    }

    /// <summary>Waits (bounded) for the port a child reported.</summary>
    public static int AwaitPort(System.Threading.Tasks.Task<int> reported, Process child)
    {
        Assert.True(reported.Wait(Wait) || child.HasExited && reported.IsCompleted, "the child did not report its listening port" + (child.HasExited ? $" (exited {child.ExitCode})" : ""));
        return reported.Result;
    }

    public static bool WaitFor(Func<bool> condition, TimeSpan? timeout = null)
    {
        var sw = Stopwatch.StartNew();
        TimeSpan limit = timeout ?? Wait;
        while (sw.Elapsed < limit)
        {
            if (condition()) return true;
            Thread.Sleep(5);
        }
        return condition();
    }

    /// <summary>Settings for the FIX.4.4 EXEC (acceptor on <paramref name="port"/>; 0: the initiator gets placeholder port 1, to be
    /// replaced with WithConnectPort once the acceptor is bound) ↔ CLIENT (initiator) pair used by the
    /// engine tests, each on top of the shared <paramref name="defaults"/> (a <c>[DEFAULT]</c> section).</summary>
    public static (IReadOnlyList<SessionSettings> Acceptor, IReadOnlyList<SessionSettings> Initiator) ExecClientPair(string defaults, int port) =>
    (
        SettingsFile.Parse(defaults + $"\nConnectionType=acceptor\nSocketAcceptPort={port}\n[SESSION]\nBeginString=FIX.4.4\nSenderCompID=EXEC\nTargetCompID=CLIENT\n", "acceptor"),
        SettingsFile.Parse(defaults + $"\nConnectionType=initiator\nSocketConnectHost=127.0.0.1\nSocketConnectPort={(port == 0 ? 1 : port)}\nReconnectInterval=1\n[SESSION]\nBeginString=FIX.4.4\nSenderCompID=CLIENT\nTargetCompID=EXEC\n", "initiator")
    );

    public static string TempDirectory(string prefix) => Path.Combine(Path.GetTempPath(), prefix + Guid.NewGuid().ToString("N"));

    public static void DeleteDirectory(string path)
    {
        try
        {
            if (Directory.Exists(path)) Directory.Delete(path, true);
        }
        catch (IOException)
        {
        }
        catch (UnauthorizedAccessException)
        {
        }
    }

    /// <summary>Sends one NewOrderSingle with ClOrdID = <paramref name="id"/> through the session's cross-thread outbox (spins while full).</summary>
    public static void SendOrder(FixSession session, long id)
    {
        while (!session.TrySendFromAnyThread(MsgTypes.NewOrderSingle, id, static (ref FixWriter w, scoped in long clOrdId) =>
        {
            w.Write(FixTags.ClOrdID, clOrdId);
            w.Write(FixTags.Symbol, "EURUSD"u8);
            w.Write(FixTags.Side, '1');
            w.Write(FixTags.TransactTime, "20260105-12:00:00.000"u8);
            w.Write(FixTags.OrderQty, 100);
            w.Write(FixTags.OrdType, '1');
        }))
        {
            Thread.Yield();
        }
    }
}

/// <summary>
/// Records what one session receives: every inbound MsgSeqNum in arrival order (admin and application), the MsgTypes,
/// logons/logouts, and whether two callbacks of the session ever overlapped (they must not: one thread at a time).
/// </summary>
internal class RecordingApp : IApplication
{
    private readonly object _sync = new();
    private int _inCallback;
    private int _lastSeq;

    public FixSession? Session;
    public readonly ManualResetEventSlim LoggedOn = new(false);
    public int Logons;
    public int Logouts;
    public int Overlaps;
    public int SeqErrors;
    public readonly List<string> AdminTypes = [];
    public readonly List<string> Problems = [];
    public long AppMessages;
    public int HeartbeatsWithTestReqId;
    public int HeartbeatsWithoutTestReqId;

    public virtual void OnLogon(FixSession session)
    {
        Session = session;
        Interlocked.Increment(ref Logons);
        LoggedOn.Set();
    }

    public void OnLogout(FixSession session) => Interlocked.Increment(ref Logouts);

    public void FromAdmin(FixSession session, FixMessage message)
    {
        Enter();
        try
        {
            string type = Encoding.ASCII.GetString(message.MsgType);
            lock (_sync) AdminTypes.Add(type);
            // A Logon starts a new count: at 1 after a reset, where the peer's store is otherwise.
            if (type == "A" && message.TryGetInt(FixTags.MsgSeqNum, out int logonSeq) == FixValueStatus.Ok) _lastSeq = logonSeq - 1;
            if (type == "0")
            {
                if (message.Contains(FixTags.TestReqID)) Interlocked.Increment(ref HeartbeatsWithTestReqId);
                else Interlocked.Increment(ref HeartbeatsWithoutTestReqId);
            }
            CheckSeq(message);
            OnAdmin(session, message, type);
        }
        finally
        {
            Exit();
        }
    }

    public FromAppResult FromApp(FixSession session, FixMessage message)
    {
        Enter();
        try
        {
            CheckSeq(message);
            Interlocked.Increment(ref AppMessages);
            return OnApp(session, message);
        }
        finally
        {
            Exit();
        }
    }

    protected void Problem(string text)
    {
        lock (_sync) Problems.Add(text);
    }

    protected virtual void OnAdmin(FixSession session, FixMessage message, string type)
    {
    }

    protected virtual FromAppResult OnApp(FixSession session, FixMessage message) => FromAppResult.Accepted;

    public int CountAdmin(string type)
    {
        lock (_sync) return AdminTypes.FindAll(t => t == type).Count;
    }

    public void AssertClean()
    {
        Assert.Equal(0, Volatile.Read(ref Overlaps));
        Assert.Equal(0, Volatile.Read(ref SeqErrors));
        lock (_sync)
        {
            Assert.Empty(Problems);
            foreach (string t in AdminTypes) Assert.True(t is "A" or "0" or "1" or "5", "unexpected admin message " + t + " in " + string.Join(",", AdminTypes));
        }
    }

    // Inbound sequence numbers, as the application sees them, must be 1, 2, 3 ... with nothing skipped or repeated.
    private void CheckSeq(FixMessage message)
    {
        if (message.TryGetInt(FixTags.MsgSeqNum, out int seq) != FixValueStatus.Ok || seq != _lastSeq + 1)
        {
            Interlocked.Increment(ref SeqErrors);
            Problem($"MsgSeqNum {seq} after {_lastSeq}");
        }
        _lastSeq = seq;
    }

    private void Enter()
    {
        if (Interlocked.Increment(ref _inCallback) != 1) Interlocked.Increment(ref Overlaps);
    }

    private void Exit() => Interlocked.Decrement(ref _inCallback);
}

/// <summary>Acceptor side: answers every NewOrderSingle with an ExecutionReport carrying its ClOrdID; checks orders arrive in order.</summary>
internal sealed class FillerApp : RecordingApp
{
    public long Orders;

    protected override FromAppResult OnApp(FixSession session, FixMessage message)
    {
        if (!message.MsgType.SequenceEqual(MsgTypes.NewOrderSingle)) return FromAppResult.UnsupportedMessageType;
        message.TryGetLong(FixTags.ClOrdID, out long id);
        if (id != Orders)
        {
            Problem($"order {id} arrived when {Orders} was expected");
        }
        Orders = id + 1;
        session.Send(MsgTypes.ExecutionReport, message, static (ref FixWriter w, scoped in FixMessage o) =>
        {
            o.TryGetSpan(FixTags.ClOrdID, out ReadOnlySpan<byte> clOrdId);
            w.Write(FixTags.ClOrdID, clOrdId);
            w.Write(FixTags.ExecType, 'F');
            w.Write(FixTags.OrdStatus, '2');
        });
        return FromAppResult.Accepted;
    }
}

/// <summary>What <see cref="ClientApp.HoldFills"/> signals and waits for.</summary>
internal sealed record FillHold(ManualResetEventSlim Inside, ManualResetEventSlim Release);

/// <summary>Initiator side: counts ExecutionReports, checks their ClOrdIDs come back in order; counts News by Headline order.</summary>
internal sealed class ClientApp : RecordingApp
{
    public long Fills;
    public long News;

    /// <summary>When set, FromApp of each ExecutionReport signals <c>Inside</c> and blocks (at most 60 s) until
    /// <c>Release</c> is set: the receiving thread holds the session meanwhile.</summary>
    public volatile FillHold? HoldFills;

    protected override FromAppResult OnApp(FixSession session, FixMessage message)
    {
        if (message.MsgType.SequenceEqual(MsgTypes.ExecutionReport))
        {
            if (HoldFills is FillHold hold)
            {
                hold.Inside.Set();
                hold.Release.Wait(TimeSpan.FromSeconds(60));
            }
            message.TryGetLong(FixTags.ClOrdID, out long id);
            if (id != Volatile.Read(ref Fills))
            {
                Problem($"fill {id} arrived when {Fills} was expected");
            }
            Volatile.Write(ref Fills, id + 1);
        }
        else if (message.MsgType.SequenceEqual(MsgTypes.News))
        {
            message.TryGetLong(FixTags.Headline, out long n);
            if (n != Volatile.Read(ref News))
            {
                Problem($"news {n} arrived when {News} was expected");
            }
            Volatile.Write(ref News, n + 1);
        }
        return FromAppResult.Accepted;
    }
}

/// <summary>Messages a raw-socket peer (CLIENT to EXEC, FIX.4.4) writes in the engine back-pressure tests.</summary>
internal static class RawPeerMessages
{
    /// <summary>Order <paramref name="id"/> (ClOrdID = id) with MsgSeqNum id + 2 (after the Logon).</summary>
    public static byte[] Order(int id) => Message(id + 2, $"35=D|11={id}|55=EURUSD|54=1|38=100|40=1|60={Now()}");

    public static string Now() => DateTime.UtcNow.ToString("yyyyMMdd-HH:mm:ss.fff", CultureInfo.InvariantCulture);

    /// <summary>A message from <paramref name="fields"/> ('|' for SOH, MsgType first, e.g. "35=0" alone) with the standard
    /// header inserted.</summary>
    public static byte[] Message(int seq, string fields)
    {
        int bar = fields.IndexOf('|');
        string type = bar < 0 ? fields : fields[..bar];
        string rest = bar < 0 ? "" : fields[(bar + 1)..] + "|";
        return Transport.FixMessages.Build("FIX.4.4", $"{type}|34={seq}|49=CLIENT|56=EXEC|52={Now()}|{rest}");
    }
}

/// <summary>Frames what the peer read and checks the ExecutionReports' ClOrdIDs (0, 1, 2, ...) and the MsgSeqNums (contiguous after the Logon).</summary>
internal sealed class ExecutionReportChecker
{
    private int _lastSeq;

    public long Reports;
    public readonly List<string> Problems = [];

    /// <summary>Checks every complete frame in the first <paramref name="length"/> bytes and moves the rest to the front; returns its length.</summary>
    public int Consume(byte[] buffer, int length)
    {
        int at = 0;
        while (true)
        {
            ReadOnlySpan<byte> rest = buffer.AsSpan(at, length - at);
            FrameResult frame = FixFramer.Frame(rest, 1 << 20);
            if (!frame.IsComplete) break;
            Check(rest.Slice(0, frame.Length));
            at += frame.Length;
        }
        Buffer.BlockCopy(buffer, at, buffer, 0, length - at);
        return length - at;
    }

    private void Check(ReadOnlySpan<byte> frame)
    {
        var index = new FixMessageIndex(64);
        index.Parse(frame);
        FixMessage m = index.Bind(frame);
        m.TryGetInt(FixTags.MsgSeqNum, out int seq);
        if (seq != _lastSeq + 1) Problems.Add($"MsgSeqNum {seq} after {_lastSeq}");
        _lastSeq = seq;
        if (!m.MsgType.SequenceEqual(MsgTypes.ExecutionReport)) return;
        m.TryGetLong(FixTags.ClOrdID, out long id);
        if (id != Reports) Problems.Add($"report {id} when {Reports} was expected");
        Reports = id + 1;
    }
}
