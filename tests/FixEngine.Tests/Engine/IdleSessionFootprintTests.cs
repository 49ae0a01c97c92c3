using System;
using System.Collections.Generic;
using System.IO;
using System.Net;
using System.Net.Sockets;
using System.Text;
using System.Threading;
using FixEngine.Codec;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Session;
using FixEngine.Tests.Transport;
using Xunit.Abstractions;

namespace FixEngine.Tests.Engine;

/// <summary>Issue 35: an idle logged-on acceptor session (memory store, completion receive mode, the engine's defaults,
/// PrewarmConnections on) holds at most 128 KB of managed memory: what it stores and the first size of its buffers, which
/// grow on demand. Before, the prewarmed send queue alone was a 2 MiB array (1 MiB + 1 KiB rounded up by the pool) and
/// the send backlog 64 KiB, about 2.1 MB per session.</summary>
/// <remarks>Measured in a process of its own (<see cref="IsolatedProcess"/>: other tests' objects would count):
/// <c>GC.GetTotalMemory(forceFullCollection: true)</c> after 20 sessions logged on (code paths, statics and pools warmed)
/// and again after 200 more, each logged on by a raw client socket of the same process (its Socket objects count too,
/// about 1 KB each).</remarks>
public sealed class IdleSessionFootprintTests(ITestOutputHelper output)
{
    internal const string Probe = "idle-session-footprint";
    private const int WarmSessions = 20;
    private const int MeasuredSessions = 200;
    private const long MaxBytesPerSession = 128 * 1024;

    [Fact]
    public void AnIdleLoggedOnSessionHoldsAtMost128KBOfManagedMemory()
    {
        // A hang bound: seconds idle, minutes beside a CPU hog.
        (int exitCode, string report) = IsolatedProcess.Run(Probe, TimeSpan.FromMinutes(10));
        output.WriteLine(report);
        Assert.True(exitCode == 0, $"exit code {exitCode}: {report}");
        Assert.Contains("managed bytes per idle logged-on session", report, StringComparison.Ordinal);
    }

    /// <summary>The measurement behind <see cref="AnIdleLoggedOnSessionHoldsAtMost128KBOfManagedMemory"/>, in a child
    /// process; 0 when the sessions logged on and each holds at most <see cref="MaxBytesPerSession"/>.</summary>
    internal static int Measure(TextWriter output)
    {
        const int Total = WarmSessions + MeasuredSessions;
        var text = new StringBuilder("""
            [DEFAULT]
            ConnectionType=acceptor
            SocketAcceptPort=0
            NonStopSession=Y
            HeartBtInt=30
            UseDataDictionary=N
            ResetOnLogon=Y
            ReceiveMode=Completion
            BeginString=FIX.4.4
            SenderCompID=EXEC

            """);
        for (int i = 0; i < Total; i++) text.Append("[SESSION]\nTargetCompID=").Append(Client(i)).Append('\n');
        var app = new LogonCounter();
        var sockets = new List<Socket>(Total);
        using var host = new FixEngineHost(SettingsFile.Parse(text.ToString(), "footprint.cfg"), app);
        host.Start();
        try
        {
            int port = Assert.Single(host.AcceptorPorts);
            if (!LogOn(sockets, port, 0, WarmSessions, app, output)) return 2;
            long before = ManagedBytes();
            if (!LogOn(sockets, port, WarmSessions, Total, app, output)) return 2;
            long after = ManagedBytes();
            long perSession = (after - before) / MeasuredSessions;
            output.WriteLine($"{perSession} managed bytes per idle logged-on session ({MeasuredSessions} sessions: {before:N0} -> {after:N0} B; bound {MaxBytesPerSession})");
            return perSession <= MaxBytesPerSession ? 0 : 1;
        }
        finally
        {
            foreach (Socket s in sockets) s.Dispose();
            host.Stop(TimeSpan.FromSeconds(5));
        }
    }

    private static string Client(int i) => "C" + i.ToString("D4", System.Globalization.CultureInfo.InvariantCulture);

    private static long ManagedBytes()
    {
        GC.Collect();
        GC.WaitForPendingFinalizers();
        return GC.GetTotalMemory(forceFullCollection: true);
    }

    // Logs sessions [from, to) on, one raw client each: Logon, then its answer; then waits for the engine's OnLogon.
    private static bool LogOn(List<Socket> sockets, int port, int from, int to, LogonCounter app, TextWriter output)
    {
        var buffer = new byte[4096];
        for (int i = from; i < to; i++)
        {
            var s = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { ReceiveTimeout = 60_000 };
            sockets.Add(s);
            s.Connect(IPAddress.Loopback, port);
            s.Send(Tests.Transport.FixMessages.Build("FIX.4.4", $"35=A|34=1|49={Client(i)}|56=EXEC|52={RawPeerMessages.Now()}|98=0|108=30|141=Y|"));
            int n = s.Receive(buffer);
            if (!Encoding.ASCII.GetString(buffer, 0, n).Contains("\u000135=A\u0001", StringComparison.Ordinal))
            {
                output.WriteLine($"session {Client(i)}: no Logon answer: {Encoding.ASCII.GetString(buffer, 0, n).Replace('\u0001', '|')}");
                return false;
            }
        }
        if (!SpinWait.SpinUntil(() => Volatile.Read(ref app.Logons) == to, TimeSpan.FromSeconds(60)))
        {
            output.WriteLine($"{Volatile.Read(ref app.Logons)} of {to} sessions logged on");
            return false;
        }
        return true;
    }

    private sealed class LogonCounter : IApplication
    {
        public int Logons;

        public void OnCreate(FixSession session)
        {
        }

        public void OnLogon(FixSession session) => Interlocked.Increment(ref Logons);

        public void OnLogout(FixSession session)
        {
        }

        public void ToAdmin(FixSession session, ReadOnlySpan<byte> msgType, ref FixWriter body)
        {
        }

        public void FromAdmin(FixSession session, FixMessage message)
        {
        }

        public FromAppResult FromApp(FixSession session, FixMessage message) => FromAppResult.Accepted;
    }
}
