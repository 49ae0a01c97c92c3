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

    private const int Warmup = 20_000;
    private const int Measured = 100_000;
    private const int MaxRounds = 10;

    [Fact]
    public void TlsSendAndReceiveAllocateNothingOnAnyThread()
    {
        // Every thread of a process counts, so the measurement runs in a process of its own (see IsolatedProcess).
        (int exitCode, string report) = IsolatedProcess.Run(Probe, TimeSpan.FromSeconds(120));
        _output.WriteLine(report);
        Assert.True(exitCode == 0, $"exit code {exitCode}: {report}");
        Assert.Contains("client->server: 0 B all threads", report);
        Assert.Contains("server->client: 0 B all threads", report);
        Assert.Contains("echo: 0 B all threads", report);
    }

    /// <summary>The measurement behind <see cref="TlsSendAndReceiveAllocateNothingOnAnyThread"/>, run in a child process.</summary>
    /// <returns>0 when, in each phase, a window of 100,000 messages allocated exactly 0 bytes on every thread and the
    /// sending thread never allocated.</returns>
    internal static int MeasureAllocation(TextWriter output)
    {
        // GC.GetTotalAllocatedBytes(precise: true) around a window covers every thread: the sending thread (which also
        // encrypts and writes when no write is in flight), the thread-pool threads that complete SslStream's reads
        // (decrypt, frame, dispatch, issue the next read) and its pending writes, and the socket engine's epoll thread.
        // Three phases, each warmed up and then measured in windows of 100,000 ~100-byte messages: client->server,
        // server->client, and echo (the server sends each message back from inside its receive callback, so both
        // SslStreams read and write at once).
        //
        // Before (a StreamPipeReader over the SslStream and a Pipe with an async send loop): 47-66 B per message in
        // every window, each way, nearly all on the sending thread (the send pipe's segments rented from
        // ArrayPool.Shared on the sender and returned on the send loop's thread, BufferSegments, one ArrayPoolMemoryPool
        // lease per receive segment). Now every phase has windows of exactly 0 B. What is left is the runtime's and the
        // BCL's own, transient and never per message (seen with the allocation-tick trace): when the thread pool injects
        // a worker (its Thread object and queues, about 12 KB per thread), and when SslStream's internal buffers (its
        // 16 KiB + frame-overhead read buffer and its per-write encryption buffer, both from ArrayPool<byte>.Shared's
        // 32 KiB bucket: 32,792-byte arrays) miss the shared pool on a thread and core that has none cached yet. Both
        // stop once the pool's threads and per-core caches are populated, so up to MaxRounds windows are measured per
        // phase and the last must read exactly 0; an allocation per message, or per 1,000 messages (2,400 B a window),
        // shows in every window and fails (checked by making the handler allocate once per 1,000 messages).
        using AllocationTickListener? ticks = Environment.GetEnvironmentVariable(TraceVariable) == "1" ? new AllocationTickListener() : null;
        var pool = new LeakTrackingArrayPool<byte>();
        var options = new TcpConnectionOptions { BufferPool = pool };
        var serverHandler = new CountingHandler();
        var clientHandler = new CountingHandler();
        var accepted = new BlockingCollection<TlsConnection>();
        using var acceptor = new TlsAcceptor(new IPEndPoint(IPAddress.Loopback, 0), options, new TlsOptions { ServerCertificate = TlsCertificates.Localhost }, c =>
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
            return 2;
        }
        bool ok = true;
        ok &= MeasurePhase("client->server", client, serverHandler, output, ticks);
        ok &= MeasurePhase("server->client", server, clientHandler, output, ticks);
        // Nothing is in flight between phases: the echo phase numbers from 0 again at both ends.
        serverHandler.Reset();
        clientHandler.Reset();
        serverHandler.Echo = true;
        ok &= MeasurePhase("echo", client, clientHandler, output, ticks);
        client.Close();
        if (!SpinWait.SpinUntil(() => server.IsClosed && client.IsClosed && pool.Outstanding == 0, TimeSpan.FromSeconds(10)))
        {
            output.WriteLine($"not torn down: server closed {server.IsClosed}, client closed {client.IsClosed}, {pool.Outstanding} arrays outstanding");
            ok = false;
        }
        return ok ? 0 : 1;
    }

    /// <summary>Sends from <paramref name="sender"/> until <paramref name="receiver"/> has counted every message: a warm-up, then windows until one reads 0.</summary>
    private static bool MeasurePhase(string name, TlsConnection sender, CountingHandler receiver, TextWriter output, AllocationTickListener? ticks)
    {
        long seq = 0;
        void Run(int count)
        {
            SendNumbered(sender, seq, count);
            seq += count;
            while (Volatile.Read(ref receiver.Expected) != seq && receiver.Problem is null) Thread.Yield();
        }
        Run(Warmup);
        var lines = new List<string>();
        long last = -1;
        long senderTotal = 0;
        for (int round = 0; round < MaxRounds && last != 0 && receiver.Problem is null; round++)
        {
            int threadsBefore = ThreadPool.ThreadCount;
            ticks?.Reset();
            long totalBefore = GC.GetTotalAllocatedBytes(precise: true);
            long senderBefore = GC.GetAllocatedBytesForCurrentThread();
            Run(Measured);
            long senderBytes = GC.GetAllocatedBytesForCurrentThread() - senderBefore;
            last = GC.GetTotalAllocatedBytes(precise: true) - totalBefore;
            senderTotal += senderBytes;
            lines.Add($"{name}: {last} B all threads ({(double)last / Measured:0.###} B/msg), {senderBytes} B sender, window {round} of {Measured} messages, pool threads {threadsBefore}->{ThreadPool.ThreadCount}");
            if (ticks is not null) lines.Add("  ticks: " + ticks.Describe());
        }
        foreach (string line in lines) output.WriteLine(line);
        output.WriteLine($"{name}: {seq} messages, problem: {receiver.Problem ?? "none"}");
        return receiver.Problem is null && last == 0 && senderTotal == 0;
    }

    /// <summary>Sends numbered messages encoded in place, yielding while the send queue is full.</summary>
    internal static void SendNumbered(TransportConnection sender, long from, long count)
    {
        for (long seq = from; seq < from + count; seq++)
        {
            int length = FixMessages.WriteNumbered(sender.GetSendSpan(128), seq);
            SendResult result;
            while ((result = sender.Commit(length)) == SendResult.Backpressure) Thread.Yield();
            if (result is not (SendResult.Sent or SendResult.Queued)) throw new InvalidOperationException($"send {seq}: {result}");
        }
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
            if (seq % 1000 == 0 && Environment.GetEnvironmentVariable("TLS_PROBE_SELFCHECK") == "1") s_sink = new byte[1];
        }
        private static object? s_sink;

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
