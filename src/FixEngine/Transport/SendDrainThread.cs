using System.Threading;

namespace FixEngine.Transport;

// Design:
// - Dedicated receive mode's retry for a send remainder (bytes the socket refused, waiting in a connection's queue while
//   nobody sends or receives): one process-wide background thread, "fix-send-drain", instead of a timer per connection.
//   A System.Threading.Timer runs its callback on a thread-pool worker; the pool retires workers idle for about 20 s, and
//   a new worker allocates its thread-locals (about 400 B) on its first work item. A session that met back-pressure now
//   and then therefore allocated in steady state (found with the round-trip harness's allocation trace: FixEngine
//   initiator at 100,000/s against QuickFIX C++, 280-1,300 B per measured window).
// - Armed connections form an intrusive list (TcpConnection.NextArmed) guarded by s_gate (a Monitor: a contended
//   System.Threading.Lock allocates its wait event, a Monitor does not), which also guards the start of the thread. A
//   connection arms itself under its own send lock (lock order: send lock, then s_gate). The thread, in one critical
//   section per pass: waits on s_gate while the list is empty; then waits RetryMs more with the gate released (Arm pulses
//   only the list it found empty, so nothing cuts that wait short); then takes the whole list, and gives each connection
//   one drain attempt outside s_gate; a connection with bytes still queued arms itself again. So a remainder waits about
//   a millisecond after the socket has room, as before.
// - Started by the first connection that needs it (Prewarm or the first queued byte); never stops (background thread,
//   idle in Monitor.Wait). Allocates nothing after its start.

/// <summary>The process-wide thread that retries dedicated-mode connections' queued sends (see the design notes).</summary>
internal static class SendDrainThread
{
    /// <summary>How long an armed connection waits before its next drain attempt.</summary>
    internal const int RetryMs = 1;

    private static readonly object s_gate = new();
    private static TcpConnection? s_armed;
    private static Thread? s_thread;

    /// <summary>Starts the thread unless it runs (allocates once per process).</summary>
    internal static void EnsureStarted()
    {
        lock (s_gate)
        {
            StartUnderGate();
        }
    }

    /// <summary>Schedules one drain attempt of <paramref name="connection"/> in about <see cref="RetryMs"/>; the caller
    /// holds its send lock and knows it is not armed already.</summary>
    internal static void Arm(TcpConnection connection)
    {
        lock (s_gate)
        {
            StartUnderGate();
            connection.NextArmed = s_armed;
            s_armed = connection;
            if (connection.NextArmed is null)
            {
                Monitor.Pulse(s_gate);
            }
        }
    }

    private static void StartUnderGate()
    {
        if (s_thread is null)
        {
            var thread = new Thread(Run) { IsBackground = true, Name = "fix-send-drain" };
            thread.Start();
            s_thread = thread;
        }
    }

    private static void Run()
    {
        while (true)
        {
            Hosting.EngineThreadProbe.OnPass();
            TcpConnection? list;
            lock (s_gate)
            {
                while (s_armed is null)
                {
                    Monitor.Wait(s_gate);
                }
                Monitor.Wait(s_gate, RetryMs);
                list = s_armed;
                s_armed = null;
            }
            while (list is not null)
            {
                TcpConnection? next = list.NextArmed;
                list.NextArmed = null;
                list.OnDrainRetry();
                list = next;
            }
        }
    }
}
