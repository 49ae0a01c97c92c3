using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Diagnostics.Tracing;
using System.IO;
using System.Linq;
using System.Net;
using System.Threading;
using FixEngine.Tests.Infrastructure;
using FixEngine.Transport;
using Xunit.Abstractions;

namespace FixEngine.Tests.Transport;

/// <summary>Steady-state TLS send and receive allocation, measured on every thread of a process of its own.</summary>
[Collection(nameof(AllocationMeasurement))]
public class TlsAllocationTests
{
    private readonly ITestOutputHelper _output;

    public TlsAllocationTests(ITestOutputHelper output) => _output = output;

    internal const string Probe = "tls-allocation";

    /// <summary>Set to 1 in the child's environment to print the types the GC's allocation ticks name (diagnosis only).</summary>
    internal const string TraceVariable = "FIXENGINE_TLS_TRACE_ALLOCATIONS";

    private const int Warmup = 20_000;
    private const int Measured = 100_000;
    private const int MaxRounds = 10;

    [Fact]
    public void TlsSendAndReceiveAllocateNothingOnAnyThread()
    {
        (int exitCode, string report) = IsolatedProcess.Run(Probe, TimeSpan.FromSeconds(120));
        _output.WriteLine(report);
        Assert.True(exitCode == 0, $"exit code {exitCode}: {report}");
        Assert.Contains("client->server: 0 B all threads", report);
        Assert.Contains("server->client: 0 B all threads", report);
    }

    /// <summary>The measurement behind <see cref="TlsSendAndReceiveAllocateNothingOnAnyThread"/>, run in a child process.</summary>
    /// <returns>0 when, in each direction, a window of 100,000 messages allocated exactly 0 bytes on every thread.</returns>
    internal static int MeasureAllocation(TextWriter output)
    {
        using AllocationTickListener? ticks = Environment.GetEnvironmentVariable(TraceVariable) == "1" ? new AllocationTickListener() : null;
        var pool = new LeakTrackingArrayPool<byte>();
        var options = new TcpConnectionOptions { BufferPool = pool };
        var serverChecker = new SequenceCheckingHandler();
        var clientChecker = new SequenceCheckingHandler();
        var accepted = new BlockingCollection<TlsConnection>();
        using var acceptor = new TlsAcceptor(new IPEndPoint(IPAddress.Loopback, 0), options, new TlsOptions { ServerCertificate = TlsCertificates.Localhost }, c =>
        {
            c.Prewarm();
            c.Start();
            accepted.Add(c);
            return serverChecker;
        });
        acceptor.Start();
        TlsConnection client = TlsConnection.ConnectAsync(acceptor.LocalEndPoint, TimeSpan.FromSeconds(5), options,
            new TlsOptions { TargetHost = "localhost", RemoteCertificateValidation = TlsCertificates.Pinned(TlsCertificates.Localhost) },
            clientChecker).GetAwaiter().GetResult();
        client.Prewarm();
        client.Start();
        if (!accepted.TryTake(out TlsConnection? server, TimeSpan.FromSeconds(10)))
        {
            output.WriteLine("no connection accepted");
            return 2;
        }
        bool ok = true;
        ok &= MeasureDirection("client->server", client, serverChecker, output, ticks);
        ok &= MeasureDirection("server->client", server, clientChecker, output, ticks);
        client.Close();
        if (!SpinWait.SpinUntil(() => server.IsClosed && client.IsClosed && pool.Outstanding == 0, TimeSpan.FromSeconds(10)))
        {
            output.WriteLine($"not torn down: server closed {server.IsClosed}, client closed {client.IsClosed}, {pool.Outstanding} arrays outstanding");
            ok = false;
        }
        return ok ? 0 : 1;
    }

    private static bool MeasureDirection(string name, TlsConnection sender, SequenceCheckingHandler receiver, TextWriter output, AllocationTickListener? ticks)
    {
        long seq = 0;
        void Run(int count)
        {
            SendNumbered(sender, seq, count);
            seq += count;
            while (Volatile.Read(ref receiver.Expected) != seq) Thread.Yield();
        }
        Run(Warmup);
        var lines = new List<string>();
        long last = -1;
        for (int round = 0; round < MaxRounds && last != 0; round++)
        {
            int threadsBefore = ThreadPool.ThreadCount;
            ticks?.Reset();
            long totalBefore = GC.GetTotalAllocatedBytes(precise: true);
            long senderBefore = GC.GetAllocatedBytesForCurrentThread();
            Run(Measured);
            long senderBytes = GC.GetAllocatedBytesForCurrentThread() - senderBefore;
            last = GC.GetTotalAllocatedBytes(precise: true) - totalBefore;
            lines.Add($"{name}: {last} B all threads ({(double)last / Measured:0.###} B/msg), {senderBytes} B sender, window {round} of {Measured} messages, pool threads {threadsBefore}->{ThreadPool.ThreadCount}");
            if (ticks is not null) lines.Add("  ticks: " + ticks.Describe());
        }
        foreach (string line in lines) output.WriteLine(line);
        output.WriteLine($"{name}: {seq} messages, {receiver.OutOfOrder} out of order, {receiver.FrameErrors} frame errors");
        return receiver.OutOfOrder == 0 && receiver.FrameErrors == 0 && last == 0;
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

    /// <summary>Counts the GC's allocation-tick events (one per ~100 KB allocated) by type: names the allocation sources.</summary>
    private sealed class AllocationTickListener : EventListener
    {
        private readonly ConcurrentDictionary<string, long> _bytes = new();

        public void Reset() => _bytes.Clear();

        public string Describe() => string.Join(", ", _bytes.OrderByDescending(p => p.Value).Select(p => $"{p.Key} {p.Value}"));

        protected override void OnEventSourceCreated(EventSource source)
        {
            if (source.Name == "Microsoft-Windows-DotNETRuntime")
            {
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
            int amount = e.PayloadNames.IndexOf("AllocationAmount64");
            string key = type >= 0 ? e.Payload[type]?.ToString() ?? "?" : "?";
            long bytes = amount >= 0 ? Convert.ToInt64(e.Payload[amount], System.Globalization.CultureInfo.InvariantCulture) : 0;
            _bytes.AddOrUpdate(key, bytes, (_, b) => b + bytes);
        }
    }
}
