using System;
using System.Collections.Concurrent;
using System.Diagnostics;
using System.IO;
using System.Net;
using System.Net.Sockets;
using System.Threading;
using FixEngine.Tests.Infrastructure;
using FixEngine.Transport;
using Xunit.Abstractions;

namespace FixEngine.Tests.Transport;

/// <summary>A dedicated-mode connection costs no thread-pool work per inbound message: neither the connect nor draining
/// a send remainder registers the socket with the runtime's socket engine.</summary>
/// <remarks>
/// A socket that ran one asynchronous operation (the runtime's <c>Socket.ConnectAsync</c> included) stays in the socket
/// engine's epoll set for life; every inbound segment then wakes the engine's thread, which queues a thread-pool work
/// item that finds nothing to do, although the dedicated receive thread reads the socket itself. On a 2-core machine that
/// was two extra thread wake-ups per reply an initiator received. The probe runs in a process of its own (the test host's
/// own timers and result reporting queue thread-pool work) and counts <see cref="ThreadPool.CompletedWorkItemCount"/>
/// over messages sent one at a time (each its own segment) from the accepted end to the connecting end, after the
/// connecting end had a send remainder queued and drained (the accepted end's receive paused, then resumed). A control
/// connection made through the runtime's async connect must show the cost, so the count is known to see it. The second
/// of two back-pressure episodes before that is measured as well: draining the queue (the drain thread) queues no
/// thread-pool work and allocates nothing process-wide.
/// </remarks>
[Collection(nameof(AllocationMeasurement))]
public sealed class ConnectWakeupTests(ITestOutputHelper output)
{
    internal const string Probe = "tcp-connect-wakeups";
    private const int Messages = 1_000;

    [Fact]
    public void ADedicatedConnectionQueuesNoThreadPoolWorkPerInboundMessageAfterConnectAndBackpressure()
    {
        // A hang bound: seconds idle, minutes beside a CPU hog.
        (int exitCode, string report) = IsolatedProcess.Run(Probe, TimeSpan.FromMinutes(10));
        output.WriteLine(report);
        Assert.True(exitCode == 0, $"exit code {exitCode}: {report}");
    }

    /// <summary>The probe (child process): 0 when both engine connect paths queue fewer than one work item per 20
    /// inbound messages and none while a send remainder drains (allocating nothing), and the control (runtime async
    /// connect) queues at least one per two inbound messages.</summary>
    internal static int Measure(TextWriter report)
    {
        var options = new TcpConnectionOptions { ReceiveMode = ReceiveMode.Dedicated };
        long engineAsync = WorkItemsPerWindow(report, "TcpConnector.ConnectAsync (the engine's initiator)", options,
            (ep, handler) => TcpConnector.ConnectAsync(ep, TimeSpan.FromSeconds(5), options, handler).GetAwaiter().GetResult(), out var asyncDrain);
        long blocking = WorkItemsPerWindow(report, "TcpConnector.Connect", options,
            (ep, handler) => TcpConnector.Connect(ep, TimeSpan.FromSeconds(5), options, handler), out var blockingDrain);
        long control = WorkItemsPerWindow(report, "control: the runtime's Socket.ConnectAsync", options, (ep, handler) =>
        {
            var socket = new Socket(ep.AddressFamily, SocketType.Stream, ProtocolType.Tcp);
            socket.ConnectAsync(ep).GetAwaiter().GetResult();
            return new TcpConnection(socket, options, handler);
        });
        // A drain episode of an engine connection: no thread-pool work and no allocation (a timer-driven drain ran on a
        // thread-pool worker, and a freshly started worker allocates its thread-locals).
        bool drainsClean = asyncDrain == (0, 0) && blockingDrain == (0, 0);
        bool ok = engineAsync < Messages / 20 && blocking < Messages / 20 && control >= Messages / 2 && drainsClean;
        report.WriteLine(ok ? "OK" : "FAILED");
        return ok ? 0 : 1;
    }

    private static long WorkItemsPerWindow(TextWriter report, string name, TcpConnectionOptions options,
        Func<IPEndPoint, IConnectionHandler, TcpConnection> connect) => WorkItemsPerWindow(report, name, options, connect, out _);

    /// <summary>One back-pressure episode: the accepted end pauses its receive, the connecting end sends until bytes are
    /// queued, the accepted end resumes and the queue drains with nobody sending. Returns the bytes queued at the peak.</summary>
    private static long Backpressure(string name, TcpConnection client, TcpConnection server, SequenceCheckingHandler serverChecker, ref long sent)
    {
        server.PauseReceive();
        while (client.QueuedSendBytes == 0)
        {
            int length = FixMessages.WriteNumbered(client.GetSendSpan(128), sent);
            SendResult result = client.Commit(length);
            if (result is SendResult.Backpressure) break;
            if (result is not (SendResult.Sent or SendResult.Queued)) throw new InvalidOperationException($"send {sent}: {result}");
            sent++;
        }
        long queued = client.QueuedSendBytes;
        server.ResumeReceive();
        long deadline = Environment.TickCount64 + (long)Loopback.Wait.TotalMilliseconds;
        while (Volatile.Read(ref serverChecker.Expected) != sent || client.QueuedSendBytes != 0)
        {
            if (Environment.TickCount64 > deadline)
            {
                throw new InvalidOperationException($"{name}: the queue did not drain ({client.QueuedSendBytes} B left, {serverChecker.Expected} of {sent} received)");
            }
            Thread.Sleep(1);
        }
        return queued;
    }

    /// <summary>Waits until no thread-pool work item is pending and none has completed for 200 ms (at most 30 s; after
    /// that the measurement goes ahead and counts whatever still runs).</summary>
    private static void WaitForIdleThreadPool()
    {
        long deadline = Environment.TickCount64 + 30_000;
        long completed = ThreadPool.CompletedWorkItemCount;
        long quietSince = Environment.TickCount64;
        while (Environment.TickCount64 < deadline)
        {
            Thread.Sleep(10);
            long now = ThreadPool.CompletedWorkItemCount;
            if (now != completed || ThreadPool.PendingWorkItemCount != 0)
            {
                completed = now;
                quietSince = Environment.TickCount64;
            }
            else if (Environment.TickCount64 - quietSince >= 200)
            {
                return;
            }
        }
    }

    private static long WorkItemsPerWindow(TextWriter report, string name, TcpConnectionOptions options,
        Func<IPEndPoint, IConnectionHandler, TcpConnection> connect, out (long WorkItems, long Bytes) drain)
    {
        var accepted = new BlockingCollection<TcpConnection>();
        var serverChecker = new SequenceCheckingHandler();
        using var acceptor = new TcpAcceptor(new IPEndPoint(IPAddress.Loopback, 0), options, c =>
        {
            accepted.Add(c);
            return serverChecker;
        });
        acceptor.Start();
        var checker = new SequenceCheckingHandler();
        TcpConnection client = connect(acceptor.LocalEndPoint, checker);
        if (!accepted.TryTake(out TcpConnection? server, Loopback.Wait)) throw new InvalidOperationException("not accepted");
        client.Start();
        server.Start();
        long seq = 0;
        void OneAtATime(int count)
        {
            for (int i = 0; i < count; i++)
            {
                long workBefore = ThreadPool.CompletedWorkItemCount;
                TcpStressTests.SendNumbered(server, seq, 1);
                seq++;
                SpinWait spin = default;
                while (Volatile.Read(ref checker.Expected) != seq) spin.SpinOnce(sleep1Threshold: -1);
                // Give a work item this message caused up to a millisecond to complete before the next message, so that
                // one per message is counted rather than several coalesced into one (the control showed 126 to 1,999
                // per 2,000 messages without this wait, depending on how fast an idle worker woke up).
                long settle = Stopwatch.GetTimestamp() + Stopwatch.Frequency / 1000;
                while (ThreadPool.CompletedWorkItemCount == workBefore && Stopwatch.GetTimestamp() < settle) Thread.Yield();
            }
        }
        OneAtATime(200);

        // Backpressure: the accepted end stops reading until the connecting end has bytes queued; then it reads again
        // and the queue drains with nobody sending (the drain thread). The second episode is measured: the drain thread
        // is started by the first, and a drain costs no thread-pool work and allocates nothing.
        long sent = 0;
        long queued = Backpressure(name, client, server, serverChecker, ref sent);
        // Work items queued before the episode (the previous window's closed sockets and listener complete their
        // aborted operations on the pool) may run late on a loaded machine: let them finish so the episode counts its own.
        WaitForIdleThreadPool();
        long episodeWorkBefore = ThreadPool.CompletedWorkItemCount;
        long episodeBytesBefore = GC.GetTotalAllocatedBytes(true);
        queued = Math.Max(queued, Backpressure(name, client, server, serverChecker, ref sent));
        long episodeBytes = GC.GetTotalAllocatedBytes(true) - episodeBytesBefore;
        long episodeWork = ThreadPool.CompletedWorkItemCount - episodeWorkBefore;
        drain = (episodeWork, episodeBytes);
        WaitForIdleThreadPool();
        long before = ThreadPool.CompletedWorkItemCount;
        OneAtATime(Messages);
        long workItems = ThreadPool.CompletedWorkItemCount - before;
        report.WriteLine($"{name}: {workItems} thread-pool work items over {Messages} inbound messages, {checker.OutOfOrder} out of order; "
            + $"before: {sent} messages sent in two back-pressure episodes with {queued} B queued at the peak, all received in order: "
            + $"{serverChecker.OutOfOrder == 0}; the second episode's drain: {episodeWork} thread-pool work items, {episodeBytes} B allocated process-wide");
        client.Close();
        server.Close();
        return checker.OutOfOrder == 0 && serverChecker.OutOfOrder == 0 ? workItems : long.MaxValue;
    }
}
