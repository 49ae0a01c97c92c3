using System;
using System.Collections.Concurrent;
using System.IO;
using System.Net;
using System.Threading;
using FixEngine.Transport;
using FixEngine.Tests.Infrastructure;
using Xunit.Abstractions;

namespace FixEngine.Tests.Transport;

/// <summary>Steady-state send and receive allocate nothing. Runs alone so process-wide counters are not polluted by other tests.</summary>
[Collection(nameof(AllocationMeasurement))]
public class TcpAllocationTests
{
    private readonly ITestOutputHelper _output;

    public TcpAllocationTests(ITestOutputHelper output) => _output = output;

    private const int Warmup = 20_000;
    private const int Measured = 100_000;

    private static (TcpAcceptor Acceptor, TcpConnection Client, TcpConnection Server) Connect(TcpConnectionOptions options, IConnectionHandler serverHandler)
    {
        var accepted = new BlockingCollection<TcpConnection>();
        var acceptor = new TcpAcceptor(new IPEndPoint(IPAddress.Loopback, 0), options, c =>
        {
            accepted.Add(c);
            return serverHandler;
        });
        acceptor.Start();
        TcpConnection client = TcpConnector.Connect(acceptor.LocalEndPoint, TimeSpan.FromSeconds(5), options, new RecordingHandler());
        Assert.True(accepted.TryTake(out TcpConnection? server, Loopback.Wait));
        return (acceptor, client, server!);
    }

    [Fact]
    public void BusyPollSendAndReceiveAllocateNothingOnTheOwningThread()
    {
        var options = new TcpConnectionOptions { ReceiveMode = ReceiveMode.BusyPoll };
        var checker = new SequenceCheckingHandler();
        var (acceptor, client, server) = Connect(options, checker);
        using (acceptor)
        {
            client.Prewarm();
            server.Prewarm();
            // One thread owns and polls both ends: everything measured happens on it.
            long seq = 0;
            void Run(int count)
            {
                long end = seq + count;
                while (seq < end)
                {
                    int length = FixMessages.WriteNumbered(client.GetSendSpan(128), seq);
                    while (client.Commit(length) == SendResult.Backpressure)
                    {
                        client.Poll(0);
                        server.Poll(0);
                    }
                    seq++;
                    if ((seq & 63) == 0) server.Poll(0);
                }
                while (Volatile.Read(ref checker.Expected) < end)
                {
                    client.Poll(0);
                    server.Poll(0);
                }
            }
            Run(Warmup);
            int windows = 0;
            long best = Allocations.BestWindow(prepare: () => windows++, window: () => Run(Measured));
            Assert.Equal(Warmup + windows * (long)Measured, checker.Expected);
            Assert.Equal(0, checker.OutOfOrder);
            Assert.Equal(0, best);
            client.Close();
            server.Close();
        }
    }

    internal const string CompletionModeProbe = "tcp-completion-allocation";

    [Fact]
    public void CompletionModeSendAndReceiveAllocateNothingOnAnyThread()
    {
        // Every thread of a process counts, so the measurement runs in a process of its own (see IsolatedProcess):
        // the test host's own threads allocate while a test runs.
        // A hang bound: seconds idle, minutes beside a CPU hog.
        (int exitCode, string report) = IsolatedProcess.Run(CompletionModeProbe, TimeSpan.FromMinutes(10));
        _output.WriteLine(report);
        Assert.True(exitCode == 0, $"exit code {exitCode}: {report}");
        Assert.Contains(": 0 B all threads", report);
        // On Linux completion mode receives through the engine's reactor thread (ConnectionReactor) by default.
        if (OperatingSystem.IsLinux() && ConnectionReactor.IsEnabled) Assert.Contains("reactor True", report);
    }

    internal const string CompletionSaeaProbe = "tcp-completion-saea-allocation";

    [Fact]
    public void CompletionModeWithoutTheReactorAllocatesNothingOnAnyThread()
    {
        // The SocketAsyncEventArgs path completion mode keeps off Linux, and with FIXENGINE_COMPLETION_REACTOR=0.
        (int exitCode, string report) = IsolatedProcess.Run(CompletionSaeaProbe, TimeSpan.FromMinutes(10));
        _output.WriteLine(report);
        Assert.True(exitCode == 0, $"exit code {exitCode}: {report}");
        Assert.Contains(": 0 B all threads", report);
        Assert.Contains("reactor False", report);
    }

    internal const string DedicatedModeProbe = "tcp-dedicated-allocation";

    [Fact]
    public void DedicatedModeSendAndReceiveAllocateNothingOnAnyThread()
    {
        // The receive thread of each connection frames and dispatches; a refused send remainder is drained by the next
        // send, the receive thread or the drain timer. Measured over every thread, in a process of its own, as for
        // completion mode.
        // A hang bound: seconds idle, minutes beside a CPU hog.
        (int exitCode, string report) = IsolatedProcess.Run(DedicatedModeProbe, TimeSpan.FromMinutes(10));
        _output.WriteLine(report);
        Assert.True(exitCode == 0, $"exit code {exitCode}: {report}");
        Assert.Contains(": 0 B all threads", report);
    }

    /// <summary>The measurement behind <see cref="CompletionModeSendAndReceiveAllocateNothingOnAnyThread"/>, run in a child process.</summary>
    /// <returns>0 when a window of 100,000 messages allocated exactly 0 bytes on every thread of the process and the sender never allocated.</returns>
    internal static int MeasureCompletionModeAllocation(TextWriter output) => MeasureAllocation(output, ReceiveMode.Completion);

    /// <summary>The measurement behind <see cref="CompletionModeWithoutTheReactorAllocatesNothingOnAnyThread"/>, run in a child process.</summary>
    internal static int MeasureCompletionSaeaAllocation(TextWriter output) => MeasureAllocation(output, ReceiveMode.Completion, reactor: false);

    /// <summary>The measurement behind <see cref="DedicatedModeSendAndReceiveAllocateNothingOnAnyThread"/>, run in a child process.</summary>
    internal static int MeasureDedicatedModeAllocation(TextWriter output) => MeasureAllocation(output, ReceiveMode.Dedicated);

    private static int MeasureAllocation(TextWriter output, ReceiveMode mode, bool? reactor = null)
    {
        // GC.GetTotalAllocatedBytes(precise: true) around the window covers every thread: the sending thread, the
        // socket engine's epoll thread and the thread-pool threads that run the SAEA receive completions (framing,
        // dispatch, re-posting the receive) and send completions.
        //
        // What is left in completion mode is the runtime's own, once: when the thread pool injects a worker thread
        // (hill climbing, or starvation detection on a loaded machine), creating and starting it allocates its Thread
        // object and thread-local queues (about 12 KB per thread), and the first windows may see a runtime queue grow
        // once. Seen in the first 1-2 windows and whenever the pool grows, never in the others: it is per thread, not per
        // message. So up to MaxRounds windows of 100,000 messages are measured and one of them must read exactly 0 bytes
        // on every thread; an allocation per message (or per 1,000 messages: 2,400 B) shows in every window (checked by
        // making SequenceCheckingHandler allocate once per 1,000 messages: every window then read 2,400 B or more).
        // Measured in a child process, not in the test host, whose own threads allocate (timers, result reporting).
        const int MaxRounds = 10;
        var options = new TcpConnectionOptions { ReceiveMode = mode };
        if (reactor is bool useReactor) options.CompletionReactor = useReactor;
        var checker = new SequenceCheckingHandler();
        var (acceptor, client, server) = Connect(options, checker);
        using (acceptor)
        {
            client.Prewarm();
            server.Start();
            client.Start();
            long seq = 0;
            void Run(int count)
            {
                TcpStressTests.SendNumbered(client, seq, count);
                seq += count;
                while (Volatile.Read(ref checker.Expected) != seq) Thread.Yield();
            }
            Run(Warmup);
            long[] total = new long[MaxRounds];
            long[] sender = new long[MaxRounds];
            int[] threadsBefore = new int[MaxRounds];
            int[] threadsAfter = new int[MaxRounds];
            int rounds = 0;
            while (rounds < MaxRounds)
            {
                threadsBefore[rounds] = ThreadPool.ThreadCount;
                long totalBefore = GC.GetTotalAllocatedBytes(precise: true);
                long senderBefore = GC.GetAllocatedBytesForCurrentThread();
                Run(Measured);
                sender[rounds] = GC.GetAllocatedBytesForCurrentThread() - senderBefore;
                total[rounds] = GC.GetTotalAllocatedBytes(precise: true) - totalBefore;
                threadsAfter[rounds] = ThreadPool.ThreadCount;
                rounds++;
                if (total[rounds - 1] == 0) break;
            }
            for (int r = 0; r < rounds; r++)
            {
                output.WriteLine($"window {r} ({Measured} messages): {total[r]} B all threads, {sender[r]} B sender, pool threads {threadsBefore[r]}->{threadsAfter[r]}");
            }
            bool ok = checker.OutOfOrder == 0 && checker.FrameErrors == 0 && total[rounds - 1] == 0;
            output.WriteLine($"{mode}: {seq} messages, {checker.OutOfOrder} out of order, {checker.FrameErrors} frame errors, reactor {server.UsesReactor}");
            client.Close();
            server.Close();
            return ok ? 0 : 1;
        }
    }
}
