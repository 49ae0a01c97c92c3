using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Diagnostics.Tracing;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Net;
using System.Threading;
using FixEngine.Codec;
using FixEngine.Tests.Infrastructure;
using FixEngine.Transport;
using Xunit.Abstractions;

namespace FixEngine.Tests.Transport;

/// <summary>Steady-state TLS send and receive allocate nothing, measured on every thread of a process of its own
/// (SslStream's own work included).</summary>
/// <remarks>
/// Run by hand (after a Release build of the tests), with the allocation-tick trace that names what allocated:
/// <c>FIXENGINE_TLS_TRACE_ALLOCATIONS=1 DOTNET_STARTUP_HOOKS=$PWD/tests/FixEngine.Tests/bin/Release/net10.0/FixEngine.Tests.dll
/// FIXENGINE_TESTS_ISOLATED_PROBE=tls-allocation dotnet exec tests/FixEngine.Tests/bin/Release/net10.0/FixEngine.Tests.dll</c>.
/// </remarks>
[Collection(nameof(AllocationMeasurement))]
public class TlsAllocationTests
{
    private readonly ITestOutputHelper _output;

    public TlsAllocationTests(ITestOutputHelper output) => _output = output;

    internal const string Probe = "tls-allocation";

    /// <summary>Set to 1 in the child's environment to print the types and sizes the GC's allocation ticks name (diagnosis
    /// only: the listener allocates about 2 KB per window itself, so no window reads 0 then).</summary>
    internal const string TraceVariable = "FIXENGINE_TLS_TRACE_ALLOCATIONS";

    private const int Warmup = 10_000;
    private const int Measured = 100_000;
    private const int MaxRounds = 10;

    // The throttled phase restarts the receive loop on a thread-pool thread at every resume (20 per window), so a pending
    // SslStream read often starts on a thread, and core, whose PoolingAsyncValueTaskMethodBuilder caches hold no box: it
    // then allocates two (EnsureFullTlsFrameAsync's and ReadAsyncInternal's state-machine boxes, named by an allocation trace). Those caches
    // are one box per thread and one per core, so under CPU load (threads moving between cores) many windows in a row can
    // miss; unloaded, an early window reads 0. Hence more windows here, still requiring one of exactly 0 B.
    private const int ThrottledMaxRounds = 40;

    [Fact]
    public void TlsSendAndReceiveAllocateNothingOnAnyThread()
    {
        // Every thread of a process counts, so the measurement runs in a process of its own (see IsolatedProcess).
        // A hang bound: seconds idle, minutes beside a CPU hog.
        (int exitCode, string report) = IsolatedProcess.Run(Probe, TimeSpan.FromMinutes(10));
        _output.WriteLine(report);
        Assert.True(exitCode == 0, $"exit code {exitCode}: {report}");
        Assert.Contains("client->server: 0 B all threads", report);
        Assert.Contains("server->client: 0 B all threads", report);
        Assert.Contains("echo: 0 B all threads", report);
        Assert.Contains("throttled: 0 B all threads", report);
    }

    /// <summary>The measurement behind <see cref="TlsSendAndReceiveAllocateNothingOnAnyThread"/>, run in a child process.</summary>
    /// <returns>0 when, in each phase, a window allocated exactly 0 bytes on every thread (and, throttled, sends pended).</returns>
    internal static int MeasureAllocation(TextWriter output)
    {
        // GC.GetTotalAllocatedBytes(precise: true) around a window covers every thread: the sending thread (which also
        // encrypts and writes when no write is in flight), the thread-pool threads that complete SslStream's reads
        // (decrypt, frame, dispatch, issue the next read) and its pending writes, and the socket engine's epoll thread.
        // Three phases, each warmed up and then measured in windows of 100,000 ~100-byte messages: client->server,
        // server->client, and echo (50,000 round trips: the server sends each message back from inside its receive
        // callback, so both SslStreams read and write at once); then a throttled phase on a connection of its own, where
        // the socket's send buffer fills and sends pend (MeasureThrottled).
        //
        // Every phase must have a window of exactly 0 B (a pipe-based design, a StreamPipeReader over the SslStream and
        // a Pipe with an async send loop, allocated per message: pooled segments rented on one thread and returned on
        // another, one memory-pool lease per receive segment). What is left is the
        // runtime's and the BCL's own, transient and never per message (seen with the allocation-tick trace): when the
        // thread pool injects a worker (its Thread object and queues, about 12 KB per thread), and when SslStream's
        // internal buffers (its read buffer and its per-write encryption buffers, from ArrayPool<byte>.Shared: mostly
        // 32,792-byte arrays of the 32 KiB bucket, some of 16 and 64 KiB) miss the shared pool on a thread and core that
        // has none cached yet. Both
        // stop once the pool's threads and per-core caches are populated, so up to MaxRounds windows are measured per
        // phase and the last must read exactly 0; an allocation per message, or per 1,000 messages, shows in every window
        // and fails (checked by making the handler allocate 56 B once per 1,000 messages: every window of every phase then
        // read 5,600 B or more, and the probe failed).
        using AllocationTickListener? ticks = Environment.GetEnvironmentVariable(TraceVariable) == "1" ? new AllocationTickListener() : null;
        var pool = new LeakTrackingArrayPool<byte>();
        Pair? pair = Pair.Open(new TcpConnectionOptions { BufferPool = pool }, output);
        if (pair is null) return 2;
        bool ok = true;
        ok &= MeasurePhase("client->server", pair.Client, pair.ServerHandler, output, ticks);
        ok &= MeasurePhase("server->client", pair.Server, pair.ClientHandler, output, ticks);
        // Nothing is in flight between phases: the echo phase numbers from 0 again at both ends.
        pair.ServerHandler.Reset();
        pair.ClientHandler.Reset();
        pair.ServerHandler.Echo = true;
        // At most 10,000 messages (~1 MB) unanswered, so the echoes keep up with the orders; windows of 50,000 round trips
        // (each is two messages, four SslStream operations) keep the test short.
        ok &= MeasurePhase("echo", pair.Client, pair.ClientHandler, output, ticks, window: Measured / 2, maxInFlight: 10_000);
        ok &= pair.Close(output);

        // Throttled: a connection whose receiver keeps pausing, so the sender's SslStream writes pend (small socket
        // buffers and send queue keep each cycle short).
        pair = Pair.Open(new TcpConnectionOptions { BufferPool = pool, SendQueueBytes = 64 * 1024, SendBufferSize = 32 * 1024, ReceiveBufferSize = 32 * 1024 }, output);
        if (pair is null) return 2;
        ok &= MeasureThrottled(pair, output, ticks);
        ok &= pair.Close(output);
        if (!SpinWait.SpinUntil(() => pool.Outstanding == 0, TimeSpan.FromSeconds(10)))
        {
            output.WriteLine($"{pool.Outstanding} arrays outstanding after teardown");
            ok = false;
        }
        return ok ? 0 : 1;
    }

    /// <summary>
    /// The receiver pauses; the sender writes until its send queue is full (the socket buffers fill, the ciphertext send
    /// pends, later sends queue); the receiver resumes and takes everything; repeated 20 times a window.
    /// </summary>
    /// <remarks>
    /// Over a NetworkStream, SslStream's write path (async ValueTask methods with the default builder; its read path uses
    /// the pooling builder) allocated two state-machine boxes whenever a write could not complete synchronously, on the
    /// thread that called WriteAsync: WriteAsyncInternal's (136 B) and WriteSingleChunk's CompleteWriteAsync's (152 B),
    /// 288 B per pending write (.NET 10, x64; named by the allocation-tick trace over windows of 600 cycles and 615
    /// pending writes; clean windows of 20 cycles read exactly 288 B times the pending writes, about one per cycle of ~800
    /// messages). TlsConnection now runs SslStream over TlsSocketStream, whose writes never pend, and sends the
    /// ciphertext itself: a window passes when it allocated exactly 0 B although sends did pend.
    /// </remarks>
    private static bool MeasureThrottled(Pair pair, TextWriter output, AllocationTickListener? ticks)
    {
        const int CyclesPerWindow = 20;
        TlsConnection sender = pair.Client;
        TlsConnection receiver = pair.Server;
        CountingHandler counter = pair.ServerHandler;
        int capacity = sender.Options.SendQueueBytes;
        var watch = System.Diagnostics.Stopwatch.StartNew();
        long seq = 0;
        void Cycle()
        {
            receiver.PauseReceive();
            while (true)
            {
                int length = FixMessages.WriteNumbered(sender.GetSendSpan(128), seq);
                SendResult result = sender.Commit(length);
                if (result == SendResult.Backpressure)
                {
                    if (sender.QueuedSendBytes > capacity - 256) break;
                    Thread.Yield();
                    continue;
                }
                if (result != SendResult.Queued) throw new InvalidOperationException($"send {seq}: {result}");
                seq++;
            }
            receiver.ResumeReceive();
            while (Volatile.Read(ref counter.Expected) != seq && counter.Problem is null) Thread.Yield();
        }
        for (int i = 0; i < CyclesPerWindow; i++) Cycle();
        var lines = new List<string>();
        bool passed = false;
        for (int round = 0; round < ThrottledMaxRounds && !passed && counter.Problem is null; round++)
        {
            int threadsBefore = ThreadPool.ThreadCount;
            ticks?.Reset();
            long seqBefore = seq;
            long pendingBefore = sender.PendingSendCount;
            long totalBefore = GC.GetTotalAllocatedBytes(precise: true);
            for (int i = 0; i < CyclesPerWindow; i++) Cycle();
            long total = GC.GetTotalAllocatedBytes(precise: true) - totalBefore;
            long pending = sender.PendingSendCount - pendingBefore;
            long messages = seq - seqBefore;
            passed = pending > 0 && total == 0;
            lines.Add($"throttled: {total} B all threads ({(double)total / messages:0.###} B/msg), {pending} pending sends, " +
                $"window {round} of {messages} messages, pool threads {threadsBefore}->{ThreadPool.ThreadCount}");
            if (ticks is not null) lines.Add("  ticks: " + ticks.Describe());
        }
        foreach (string line in lines) output.WriteLine(line);
        output.WriteLine($"throttled: {seq} messages in {watch.ElapsedMilliseconds} ms, problem: {counter.Problem ?? "none"}");
        return passed && counter.Problem is null;
    }

    /// <summary>A loopback TLS client and the server connection it produced, both prewarmed and started, with counting handlers.</summary>
    private sealed class Pair
    {
        private readonly TlsAcceptor _acceptor;

        private Pair(TlsAcceptor acceptor, TlsConnection client, TlsConnection server, CountingHandler clientHandler, CountingHandler serverHandler)
        {
            _acceptor = acceptor;
            Client = client;
            Server = server;
            ClientHandler = clientHandler;
            ServerHandler = serverHandler;
        }

        public TlsConnection Client { get; }
        public TlsConnection Server { get; }
        public CountingHandler ClientHandler { get; }
        public CountingHandler ServerHandler { get; }

        public static Pair? Open(TcpConnectionOptions options, TextWriter output)
        {
            var serverHandler = new CountingHandler();
            var clientHandler = new CountingHandler();
            var accepted = new BlockingCollection<TlsConnection>();
            var acceptor = new TlsAcceptor(new IPEndPoint(IPAddress.Loopback, 0), options, new TlsOptions { ServerCertificate = TlsCertificates.Localhost }, c =>
            {
                c.Prewarm();
                c.Start();
                accepted.Add(c);
                return serverHandler;
            });
            acceptor.Start();
            TlsConnection client = TlsConnection.ConnectAsync(acceptor.LocalEndPoint, TimeSpan.FromSeconds(5), options,
                new TlsOptions { TargetHost = "localhost", RemoteCertificateValidation = TlsCertificates.Pinned(TlsCertificates.Localhost) },
                clientHandler).GetAwaiter().GetResult();
            client.Prewarm();
            client.Start();
            if (!accepted.TryTake(out TlsConnection? server, TimeSpan.FromSeconds(10)))
            {
                output.WriteLine("no connection accepted");
                acceptor.Dispose();
                return null;
            }
            return new Pair(acceptor, client, server, clientHandler, serverHandler);
        }

        /// <summary>Closes both ends and the acceptor; false (reported) when they do not tear down.</summary>
        public bool Close(TextWriter output)
        {
            Client.Close();
            _acceptor.Dispose();
            if (SpinWait.SpinUntil(() => Server.IsClosed && Client.IsClosed, TimeSpan.FromSeconds(10))) return true;
            output.WriteLine($"not torn down: server closed {Server.IsClosed}, client closed {Client.IsClosed}");
            return false;
        }
    }

    /// <summary>Sends from <paramref name="sender"/> until <paramref name="receiver"/> has counted every message: a warm-up,
    /// then windows of <paramref name="window"/> messages until one reads 0. With <paramref name="maxInFlight"/>, the sender
    /// waits while that many messages have not come back yet.</summary>
    private static bool MeasurePhase(string name, TlsConnection sender, CountingHandler receiver, TextWriter output, AllocationTickListener? ticks,
        int window = Measured, long maxInFlight = long.MaxValue)
    {
        var watch = System.Diagnostics.Stopwatch.StartNew();
        long seq = 0;
        void Run(int count)
        {
            long end = seq + count;
            for (; seq < end; seq++)
            {
                while (seq - Volatile.Read(ref receiver.Expected) >= maxInFlight && receiver.Problem is null) Thread.Yield();
                int length = FixMessages.WriteNumbered(sender.GetSendSpan(128), seq);
                SendResult result;
                while ((result = sender.Commit(length)) == SendResult.Backpressure) Thread.Yield();
                if (result != SendResult.Queued) throw new InvalidOperationException($"send {seq}: {result}");
            }
            while (Volatile.Read(ref receiver.Expected) != seq && receiver.Problem is null) Thread.Yield();
        }
        Run(Warmup);
        var lines = new List<string>();
        long last = -1;
        for (int round = 0; round < MaxRounds && last != 0 && receiver.Problem is null; round++)
        {
            int threadsBefore = ThreadPool.ThreadCount;
            ticks?.Reset();
            long totalBefore = GC.GetTotalAllocatedBytes(precise: true);
            long senderBefore = GC.GetAllocatedBytesForCurrentThread();
            Run(window);
            long senderBytes = GC.GetAllocatedBytesForCurrentThread() - senderBefore;
            last = GC.GetTotalAllocatedBytes(precise: true) - totalBefore;
            lines.Add($"{name}: {last} B all threads ({(double)last / window:0.###} B/msg), {senderBytes} B sender, window {round} of {window} messages, pool threads {threadsBefore}->{ThreadPool.ThreadCount}");
            if (ticks is not null) lines.Add("  ticks: " + ticks.Describe());
        }
        foreach (string line in lines) output.WriteLine(line);
        output.WriteLine($"{name}: {seq} messages in {watch.ElapsedMilliseconds} ms, problem: {receiver.Problem ?? "none"}");
        return receiver.Problem is null && last == 0;
    }

    /// <summary>Checks that numbered messages arrive in order; with <see cref="Echo"/> it sends each one back from the callback.</summary>
    private sealed class CountingHandler : IConnectionHandler
    {
        public long Expected;
        public volatile bool Echo;
        public volatile string? Problem;

        public void Reset() => Volatile.Write(ref Expected, 0);

        public void OnMessage(TransportConnection connection, ReadOnlySpan<byte> message)
        {
            long seq = FixMessages.ReadSeq(message);
            if (seq != Expected) Problem ??= $"message {seq} when {Expected} was expected";
            if (Echo)
            {
                SendResult result;
                while ((result = connection.TrySend(message)) == SendResult.Backpressure) Thread.Yield();
                if (result != SendResult.Queued) Problem ??= $"echo of {seq}: {result}";
            }
            Volatile.Write(ref Expected, seq + 1);
        }

        public void OnFrameError(TransportConnection connection, in FrameResult error, ReadOnlySpan<byte> skipped) => Problem ??= $"frame error {error.Status}";

        public void OnDisconnected(TransportConnection connection, DisconnectReason reason, string? detail)
        {
        }
    }

    /// <summary>Counts the GC's allocation-tick events (one per ~100 KB allocated) by type and object size: names the allocation sources.</summary>
    private sealed class AllocationTickListener : EventListener
    {
        private readonly ConcurrentDictionary<string, long> _bytes = new();

        public void Reset() => _bytes.Clear();

        public string Describe() => string.Join(", ", _bytes.OrderByDescending(p => p.Value).Select(p => $"{p.Key} {p.Value}"));

        protected override void OnEventSourceCreated(EventSource source)
        {
            if (source.Name == "Microsoft-Windows-DotNETRuntime")
            {
                // Keyword 0x1: GC events, among them GCAllocationTick at Verbose.
                EnableEvents(source, EventLevel.Verbose, (EventKeywords)0x1);
            }
        }

        protected override void OnEventWritten(EventWrittenEventArgs e)
        {
            if (e.EventName is null || !e.EventName.StartsWith("GCAllocationTick", StringComparison.Ordinal) || e.Payload is null || e.PayloadNames is null)
            {
                return;
            }
            int type = e.PayloadNames.IndexOf("TypeName");
            int size = e.PayloadNames.IndexOf("ObjectSize");
            int amount = e.PayloadNames.IndexOf("AllocationAmount64");
            string key = (type >= 0 ? e.Payload[type]?.ToString() ?? "?" : "?") + (size >= 0 ? $" ({e.Payload[size]} B object)" : "");
            long bytes = amount >= 0 ? Convert.ToInt64(e.Payload[amount], CultureInfo.InvariantCulture) : 0;
            _bytes.AddOrUpdate(key, bytes, (_, b) => b + bytes);
        }
    }
}
