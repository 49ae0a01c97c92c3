using System;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Net;
using System.Net.Sockets;
using System.Threading;
using FixEngine.Codec;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Session;
using FixEngine.Store;
using FixEngine.Timing;
using FixEngine.Transport;

namespace FixEngine.Benchmarks.Store;

/// <summary>The <c>store --resend-stall</c> harness: one acceptor engine (this process) with two file-store sessions;
/// session A's journal holds a long history, and its counterparty asks for all of it with one ResendRequest while
/// session B's counterparty keeps probing the engine with TestRequests. It reports the resend's rate (messages and
/// bytes per second as the counterparty receives them) and B's TestRequest round trips before and during the resend,
/// so a resend that stalls other sessions shows as B's round trips growing.</summary>
/// <remarks>
/// <code>
/// dotnet run -c Release --project benchmarks/FixEngine.Benchmarks -- store --resend-stall --dir /work/tmp/rs
///     [--messages 100000] [--size 230] [--mode Dedicated|Completion|BusyPoll] [--baseline-ms 2000] [--receiver fix|count]
/// </code>
/// Both counterparties are plain sockets (one thread each, no engine): A reads as fast as the socket delivers, B sends
/// a TestRequest, waits for the Heartbeat that answers it, sleeps about 1 ms and repeats. With <c>--receiver fix</c>
/// (the default) A runs in this process and frames and indexes every message it receives, as a FIX client would; with
/// <c>--receiver count</c> A runs in a child process (this harness again, <c>store --count-reader</c>) that after its
/// Logon only counts the bytes and the CheckSum fields (<c>SOH 10=</c>) it receives, so what is measured is the
/// engine's side of the resend, not the reader's parsing, and not in this process's GC or JIT. The
/// history is written straight into A's journal before the engine starts (FileStoreSync=OS, ~230-byte
/// ExecutionReports, as the <c>store</c> harness writes them).
/// </remarks>
internal static class ResendStallCommand
{
    private const string Acceptor = "BROKER01";

    public static int Run(string dir, int messages, int size, ReceiveMode mode, int baselineMs, bool countReceiver = false)
    {
        string storeDir = Path.Combine(dir, "resend-stall");
        if (Directory.Exists(storeDir)) Directory.Delete(storeDir, recursive: true);
        Directory.CreateDirectory(storeDir);
        try
        {
            return RunIn(storeDir, messages, size, mode, baselineMs, countReceiver);
        }
        finally
        {
            Directory.Delete(storeDir, recursive: true);
        }
    }

    private static int RunIn(string storeDir, int messages, int size, ReceiveMode mode, int baselineMs, bool countReceiver)
    {
        var sw = Stopwatch.StartNew();
        long journalBytes = WriteHistory(storeDir, "FIX.4.4:" + Acceptor + "->CLIENTA", messages, size);
        Console.Error.WriteLine($"store: wrote {messages:N0} messages ({journalBytes:N0} journal bytes) in {sw.Elapsed.TotalSeconds:F1} s");

        int port;
        using (var probe = new TcpListener(IPAddress.Loopback, 0))
        {
            probe.Start();
            port = ((IPEndPoint)probe.LocalEndpoint).Port;
        }
        string settings = $"""
            [DEFAULT]
            ConnectionType=acceptor
            SocketAcceptPort={port}
            HeartBtInt=30
            StartTime=00:00:00
            EndTime=00:00:00
            UseDataDictionary=N
            ResetOnLogon=N
            SocketNodelay=Y
            ReceiveMode={mode}
            FileStorePath={storeDir}
            FileStoreSync=OS
            [SESSION]
            BeginString=FIX.4.4
            SenderCompID={Acceptor}
            TargetCompID=CLIENTA
            [SESSION]
            BeginString=FIX.4.4
            SenderCompID={Acceptor}
            TargetCompID=CLIENTB
            """;
        using var host = new FixEngineHost(SettingsFile.Parse(settings, "<resend-stall acceptor>"), new NoApplication(), new EngineOptions());
        host.Start();

        using var a = countReceiver ? null : new RawClient("CLIENTA", port);
        using var child = countReceiver ? StartCountReader(port, messages) : null;
        using var b = new RawClient("CLIENTB", port);
        a?.Logon();
        b.Logon();

        // B probes from its own thread for the whole run; it stops when `stop` is set.
        var probes = new ProbeLog(2_000_000);
        var stop = new ManualResetEventSlim();
        var prober = new Thread(() => b.Probe(probes, stop)) { Name = "probe-B", IsBackground = true };
        prober.Start();
        Thread.Sleep(baselineMs);

        // A asks for everything: its first expected number is 1, the acceptor's Logon said messages + 1.
        long resendStart;
        long resendEnd;
        int resent;
        int gapFilled;
        long bytes;
        long firstAt;
        if (child is null)
        {
            resendStart = Stopwatch.GetTimestamp();
            a!.SendResendRequest(1, 0);
            (resent, gapFilled, bytes, firstAt) = a.ReadResend(messages);
            resendEnd = Stopwatch.GetTimestamp();
        }
        else
        {
            // The child sends the ResendRequest on "go" and answers with its own Stopwatch timestamps (the same monotonic
            // clock in both processes) and what it counted: every message it received is a resent one here (the history
            // holds only ExecutionReports), and gap fills are not told apart.
            child.StandardInput.WriteLine("go");
            child.StandardInput.Flush();
            string line = child.StandardOutput.ReadLine() ?? throw new InvalidOperationException("count reader: no result (it exited)");
            string[] f = line.Split(' ');
            if (f.Length != 6 || f[0] != "done") throw new InvalidOperationException("count reader: unexpected line '" + line + "'");
            resendStart = long.Parse(f[1], CultureInfo.InvariantCulture);
            firstAt = long.Parse(f[2], CultureInfo.InvariantCulture);
            resendEnd = long.Parse(f[3], CultureInfo.InvariantCulture);
            // f[4]: CheckSum fields counted, the resent messages and any message the session sent of its own between
            // the Logon and the end (a Heartbeat): the reader stopped at MsgSeqNum `messages`, so all were resent.
            Console.Error.WriteLine($"count reader: {f[4]} messages counted by their CheckSum");
            resent = messages;
            gapFilled = 0;
            bytes = long.Parse(f[5], CultureInfo.InvariantCulture);
        }
        Thread.Sleep(baselineMs / 2);
        stop.Set();
        prober.Join();

        double seconds = Stopwatch.GetElapsedTime(resendStart, resendEnd).TotalSeconds;
        double firstMs = Stopwatch.GetElapsedTime(resendStart, firstAt).TotalMilliseconds;
        Console.WriteLine($"resend-stall: mode {mode}, receiver {(countReceiver ? "count (child process)" : "fix (this process)")}, {messages} stored messages of ~{size} bytes, journal {journalBytes} bytes");
        Console.WriteLine($"resend: {resent} messages resent (PossDupFlag=Y), {gapFilled} gap-filled, {bytes} bytes in {seconds:F3} s = {resent / seconds:F0} msg/s, {bytes / seconds / 1e6:F1} MB/s; first message after {firstMs:F2} ms");
        Console.WriteLine("probe B " + probes.Summary("before", 0, resendStart));
        Console.WriteLine("probe B " + probes.Summary("during", resendStart, resendEnd));
        Console.WriteLine("probe B " + probes.Summary("after", resendEnd, long.MaxValue));
        if (child is not null)
        {
            child.StandardInput.Close();
            if (!child.WaitForExit(10_000)) child.Kill();
        }
        return resent + gapFilled == messages ? 0 : 1;
    }

    // This harness again as a child process in count-reader mode; returns once its Logon was answered ("ready").
    private static Process StartCountReader(int port, int messages)
    {
        string host = Environment.ProcessPath ?? throw new InvalidOperationException("count reader: no process path");
        var psi = new ProcessStartInfo(host)
        {
            RedirectStandardInput = true,
            RedirectStandardOutput = true,
            UseShellExecute = false,
        };
        // Under `dotnet FixEngine.Benchmarks.dll` the host is dotnet and needs the assembly; the apphost needs nothing.
        if (Path.GetFileNameWithoutExtension(host) == "dotnet") psi.ArgumentList.Add(typeof(ResendStallCommand).Assembly.Location);
        foreach (string arg in new[] { "store", "--count-reader", "--port", port.ToString(CultureInfo.InvariantCulture), "--messages", messages.ToString(CultureInfo.InvariantCulture) })
        {
            psi.ArgumentList.Add(arg);
        }
        Process child = Process.Start(psi) ?? throw new InvalidOperationException("count reader: could not start " + host);
        string? ready = child.StandardOutput.ReadLine();
        if (ready != "ready")
        {
            child.Kill();
            throw new InvalidOperationException("count reader: expected 'ready', got '" + ready + "'");
        }
        return child;
    }

    /// <summary>The child side of <c>--receiver count</c>: logs on as CLIENTA, prints <c>ready</c>, waits for a line on
    /// stdin, sends the ResendRequest for everything and counts what arrives until <paramref name="messages"/> CheckSum
    /// fields were seen; prints <c>done start firstAt end messages bytes</c> (Stopwatch timestamps).</summary>
    public static int RunCountReader(int port, int messages)
    {
        if (port <= 0 || messages <= 0)
        {
            Console.Error.WriteLine("store --count-reader: --port and --messages are required");
            return 2;
        }
        using var a = new RawClient("CLIENTA", port);
        a.Logon();
        Console.Out.WriteLine("ready");
        Console.Out.Flush();
        if (Console.In.ReadLine() is null) return 1;
        long start = Stopwatch.GetTimestamp();
        a.SendResendRequest(1, 0);
        (long count, long bytes, long firstAt) = a.CountResend(messages);
        long end = Stopwatch.GetTimestamp();
        Console.Out.WriteLine(string.Create(CultureInfo.InvariantCulture, $"done {start} {firstAt} {end} {count} {bytes}"));
        Console.Out.Flush();
        Console.In.ReadLine(); // stay connected until the parent is done (its stdin closes)
        return 0;
    }

    // A history of `count` ExecutionReports as the acceptor would have sent them (34 = 1..count, 49/56 of session A),
    // written through the store itself: the journal is exactly what the engine's own sends leave.
    private static long WriteHistory(string storeDir, string sessionId, int count, int size)
    {
        var options = new FileMessageStoreOptions { SyncPolicy = FileStoreSyncPolicy.OS };
        long epochNs = EpochClock.Shared.EpochNs;
        byte[] buffer = new byte[size + 512];
        string text = new('x', Math.Max(1, size - 200));
        using var store = new FileMessageStore(storeDir, sessionId, epochNs, options);
        store.Reset(epochNs);
        for (int seq = 1; seq <= count; seq++)
        {
            var w = new FixWriter(buffer);
            w.Begin(BeginStrings.Fix44, MsgTypes.ExecutionReport);
            w.Write(FixTags.MsgSeqNum, seq);
            w.Write(FixTags.SenderCompID, Acceptor);
            w.WriteTimestamp(FixTags.SendingTime, epochNs, TimestampPrecision.Micros);
            w.Write(FixTags.TargetCompID, "CLIENTA");
            w.Write(FixTags.OrderID, "ORD-0000001");
            w.Write(FixTags.ClOrdID, "CL-0000001");
            w.Write(FixTags.ExecID, seq);
            w.Write(FixTags.ExecType, 'F');
            w.Write(FixTags.OrdStatus, '1');
            w.Write(FixTags.Symbol, "MSFT");
            w.Write(FixTags.Side, '1');
            w.Write(FixTags.OrderQty, 1000L);
            w.Write(FixTags.LastQty, 100L);
            w.Write(FixTags.LastPx, new FixDecimal(41525, 2));
            w.Write(FixTags.LeavesQty, 900L);
            w.Write(FixTags.CumQty, 100L);
            w.Write(FixTags.AvgPx, new FixDecimal(41525, 2));
            w.Write(FixTags.Text, text);
            int length = w.Finish();
            store.AppendAndIncrement(seq, buffer.AsSpan(0, length));
        }
        return store.JournalLengthInBytes;
    }

    private sealed class NoApplication : IApplication
    {
        public FromAppResult FromApp(FixSession session, FixMessage message) => FromAppResult.Accepted;
    }

    /// <summary>B's TestRequest round trips: when each was sent and how long its Heartbeat took.</summary>
    private sealed class ProbeLog(int capacity)
    {
        private readonly long[] _sentAt = new long[capacity];
        private readonly long[] _rttTicks = new long[capacity];
        public int Count;

        public void Add(long sentAt, long rttTicks)
        {
            if (Count == _sentAt.Length) return;
            _sentAt[Count] = sentAt;
            _rttTicks[Count] = rttTicks;
            Count++;
        }

        // Round trips of the probes sent in [from, to), plus probes sent before `from` still unanswered at `from`.
        public string Summary(string name, long from, long to)
        {
            var rtts = new System.Collections.Generic.List<double>();
            for (int i = 0; i < Count; i++)
            {
                bool inside = _sentAt[i] >= from && _sentAt[i] < to;
                bool straddles = _sentAt[i] < from && _sentAt[i] + _rttTicks[i] > from;
                if (inside || straddles) rtts.Add(_rttTicks[i] * 1e6 / Stopwatch.Frequency);
            }
            if (rtts.Count == 0) return $"{name}: no probes";
            rtts.Sort();
            double P(double q) => rtts[Math.Min(rtts.Count - 1, (int)Math.Ceiling(q * rtts.Count) - 1)];
            int over1ms = rtts.FindAll(r => r > 1000).Count;
            return string.Create(CultureInfo.InvariantCulture,
                $"{name}: {rtts.Count} TestRequest round trips, p50 {P(0.50):F0} us, p99 {P(0.99):F0} us, max {rtts[^1]:F0} us, {over1ms} over 1 ms");
        }
    }

    /// <summary>A counterparty as a plain blocking socket: writes its messages with <see cref="FixWriter"/> and frames
    /// what it receives with <see cref="FixFramer"/>.</summary>
    private sealed class RawClient : IDisposable
    {
        private readonly Socket _socket;
        private readonly string _sender;
        private readonly byte[] _in = new byte[1 << 20];
        private readonly byte[] _out = new byte[1024];
        private readonly FixMessageIndex _index = new();
        private int _start;
        private int _end;
        private int _nextSeq = 1;

        public RawClient(string sender, int port)
        {
            _sender = sender;
            _socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
            _socket.Connect(IPAddress.Loopback, port);
        }

        public void Logon()
        {
            var w = Start(MsgTypes.Logon);
            w.Write(FixTags.EncryptMethod, 0);
            w.Write(FixTags.HeartBtInt, 30);
            Send(ref w);
            while (true)
            {
                FixMessage m = Next();
                if (m.MsgType.SequenceEqual(MsgTypes.Logon)) return;
            }
        }

        public void SendResendRequest(int begin, int end)
        {
            var w = Start(MsgTypes.ResendRequest);
            w.Write(FixTags.BeginSeqNo, begin);
            w.Write(FixTags.EndSeqNo, end);
            Send(ref w);
        }

        // Reads until message `last` (or a GapFill past it) arrived; returns what came and when the first one did.
        public (int Resent, int GapFilled, long Bytes, long FirstAt) ReadResend(int last)
        {
            int resent = 0;
            int gapFilled = 0;
            long bytes = 0;
            long firstAt = 0;
            while (true)
            {
                FixMessage m = Next();
                if (firstAt == 0) firstAt = Stopwatch.GetTimestamp();
                bytes += _index.MessageLength;
                if (m.TryGetInt(FixTags.MsgSeqNum, out int seq) != FixValueStatus.Ok) throw new InvalidOperationException("CLIENTA: a message without MsgSeqNum");
                if (m.MsgType.SequenceEqual(MsgTypes.SequenceReset))
                {
                    if (m.TryGetInt(FixTags.NewSeqNo, out int newSeq) != FixValueStatus.Ok) throw new InvalidOperationException("CLIENTA: a SequenceReset without NewSeqNo");
                    gapFilled += newSeq - seq;
                    if (newSeq > last) return (resent, gapFilled, bytes, firstAt);
                    continue;
                }
                if (m.TryGetSpan(FixTags.PossDupFlag, out ReadOnlySpan<byte> dup) && dup.SequenceEqual("Y"u8)) resent++;
                if (seq >= last) return (resent, gapFilled, bytes, firstAt);
            }
        }

        // Counts messages by their CheckSum field (SOH "10="; no other tag starts with 10 then '=') and bytes, without
        // framing or parsing, until the message with MsgSeqNum `last` ("SOH 34=last SOH", which only the last resent
        // message holds: the session's own messages are numbered above it) and a CheckSum after it arrived. A match split
        // across two reads is found by searching the few bytes either side of the boundary.
        public (long Messages, long Bytes, long FirstAt) CountResend(int last)
        {
            ReadOnlySpan<byte> trailer = "\u000110="u8;
            byte[] lastField = System.Text.Encoding.ASCII.GetBytes("\u000134=" + last.ToString(CultureInfo.InvariantCulture) + "\u0001");
            byte[] stitch = new byte[2 * lastField.Length];
            byte[] tail = new byte[lastField.Length];
            int tailLength = 0;
            long count = 0;
            long bytes = 0;
            long firstAt = 0;
            bool seenLast = false;
            // Whatever the framer had already read past the Logon comes first.
            int have = _end - _start;
            if (have > 0) _in.AsSpan(_start, have).CopyTo(_in);
            _start = _end = 0;
            while (true)
            {
                if (have == 0)
                {
                    have = _socket.Receive(_in);
                    if (have == 0) throw new InvalidOperationException($"{_sender}: the acceptor closed the connection");
                }
                if (firstAt == 0) firstAt = Stopwatch.GetTimestamp();
                bytes += have;
                ReadOnlySpan<byte> chunk = _in.AsSpan(0, have);
                have = 0;
                long trailersBefore = count;
                count += Spanning(tail, tailLength, chunk, trailer, stitch) + Occurrences(chunk, trailer);
                if (!seenLast)
                {
                    if (Spanning(tail, tailLength, chunk, lastField, stitch) > 0)
                    {
                        seenLast = true;
                    }
                    else
                    {
                        int at = chunk.IndexOf(lastField);
                        if (at >= 0)
                        {
                            seenLast = true;
                            trailersBefore = count - Occurrences(chunk.Slice(at), trailer);
                        }
                    }
                    if (seenLast && count > trailersBefore) return (count, bytes, firstAt);
                }
                else if (count > trailersBefore)
                {
                    return (count, bytes, firstAt);
                }
                // The stream's last bytes, for the next read's boundary.
                int keep = Math.Min(tail.Length, chunk.Length);
                if (keep == tail.Length)
                {
                    chunk.Slice(chunk.Length - keep).CopyTo(tail);
                    tailLength = keep;
                }
                else
                {
                    int fromOld = Math.Min(tailLength, tail.Length - keep);
                    tail.AsSpan(tailLength - fromOld, fromOld).CopyTo(tail);
                    chunk.CopyTo(tail.AsSpan(fromOld));
                    tailLength = fromOld + keep;
                }
            }
        }

        private static int Occurrences(ReadOnlySpan<byte> span, ReadOnlySpan<byte> pattern)
        {
            int n = 0;
            int at;
            while ((at = span.IndexOf(pattern)) >= 0)
            {
                n++;
                span = span.Slice(at + pattern.Length);
            }
            return n;
        }

        // Matches of `pattern` that start in the stream's previous bytes and end in `chunk`: found in the pattern's length
        // less one of each side, where no whole match fits on one side.
        private static int Spanning(byte[] tail, int tailLength, ReadOnlySpan<byte> chunk, ReadOnlySpan<byte> pattern, byte[] stitch)
        {
            int left = Math.Min(tailLength, pattern.Length - 1);
            int right = Math.Min(chunk.Length, pattern.Length - 1);
            if (left == 0 || right == 0) return 0;
            tail.AsSpan(tailLength - left, left).CopyTo(stitch);
            chunk.Slice(0, right).CopyTo(stitch.AsSpan(left));
            return Occurrences(stitch.AsSpan(0, left + right), pattern);
        }

        // TestRequest, wait for its Heartbeat, ~1 ms pause; until `stop`.
        public void Probe(ProbeLog log, ManualResetEventSlim stop)
        {
            long id = 0;
            while (!stop.IsSet)
            {
                id++;
                var w = Start(MsgTypes.TestRequest);
                w.Write(FixTags.TestReqID, id);
                long sent = Stopwatch.GetTimestamp();
                Send(ref w);
                while (true)
                {
                    FixMessage m = Next();
                    if (m.MsgType.SequenceEqual(MsgTypes.Heartbeat) && m.TryGetInt(FixTags.TestReqID, out int answered) == FixValueStatus.Ok && answered == id) break;
                }
                log.Add(sent, Stopwatch.GetTimestamp() - sent);
                Thread.Sleep(1);
            }
        }

        private FixWriter Start(ReadOnlySpan<byte> msgType)
        {
            var w = new FixWriter(_out);
            w.Begin(BeginStrings.Fix44, msgType);
            w.Write(FixTags.MsgSeqNum, _nextSeq++);
            w.Write(FixTags.SenderCompID, _sender);
            w.WriteTimestamp(FixTags.SendingTime, EpochClock.Shared.EpochNs, TimestampPrecision.Millis);
            w.Write(FixTags.TargetCompID, Acceptor);
            return w;
        }

        private void Send(ref FixWriter w)
        {
            int length = w.Finish();
            _socket.Send(_out.AsSpan(0, length));
        }

        // The next complete message (valid until the next call).
        private FixMessage Next()
        {
            while (true)
            {
                if (_start < _end)
                {
                    FrameResult frame = FixFramer.Frame(_in.AsSpan(_start, _end - _start), _in.Length);
                    if (frame.IsComplete)
                    {
                        ReadOnlySpan<byte> bytes = _in.AsSpan(_start, frame.Length);
                        _start += frame.Length;
                        _index.Parse(bytes);
                        return _index.Bind(bytes);
                    }
                    if (frame.IsError) throw new InvalidOperationException($"{_sender}: bad frame from the acceptor: {frame.Describe()}");
                }
                if (_start == _end)
                {
                    _start = 0;
                    _end = 0;
                }
                else if (_end == _in.Length)
                {
                    _in.AsSpan(_start, _end - _start).CopyTo(_in);
                    _end -= _start;
                    _start = 0;
                }
                int n = _socket.Receive(_in.AsSpan(_end));
                if (n == 0) throw new InvalidOperationException($"{_sender}: the acceptor closed the connection");
                _end += n;
            }
        }

        public void Dispose() => _socket.Dispose();
    }
}
