using System;
using System.Globalization;
using System.IO;
using System.Text;
using System.Threading;
using FixEngine.Logging;
using FixEngine.Session;

namespace FixEngine.CrashPeer;

/// <summary>Usage: FixEngine.CrashPeer log &lt;dir&gt; &lt;lines&gt;. Logs numbered outgoing messages through a session file
/// log (per-session files under &lt;dir&gt;) while another session of the same log writes without pause, so the drain thread
/// is never idle; prints "logged N" once the drain has taken them, then SIGKILLs itself.</summary>
internal static class LogPeer
{
    // Longest wait for the drain to take the numbered lines before saying "logged" anyway.
    private static readonly TimeSpan s_drainWait = TimeSpan.FromSeconds(10);

    public static int Run(string dir, int lines)
    {
        Directory.CreateDirectory(dir);
        var log = new FixLog(TextWriter.Null, new FixLogOptions { FullPolicy = LogFullPolicy.Wait });
        FixLogSessionLog busy = FixLogSessionLog.CreatePerSessionFiles(log, dir, "FIX.4.4:BUSY->PEER");
        FixLogSessionLog session = FixLogSessionLog.CreatePerSessionFiles(log, dir, "FIX.4.4:CLIENT->EXEC");
        byte[] filler = Encoding.ASCII.GetBytes("8=FIX.4.4\u00019=5\u000135=0\u000158=filler\u000110=000\u0001");
        long fillerLines = 0;
        var busyThread = new Thread(() =>
        {
            while (true)
            {
                busy.OnOutgoing(filler, 0);
                Interlocked.Increment(ref fillerLines);
            }
        }) { IsBackground = true };
        busyThread.Start();
        // The drain is busy before the numbered lines come: none of them is left for an idle pass to write out.
        while (log.LinesWritten < 10_000) Thread.Sleep(1);

        long before = log.LinesWritten;
        for (int i = 1; i <= lines; i++)
        {
            session.OnOutgoing(Encoding.ASCII.GetBytes($"8=FIX.4.4\u00019=20\u000135=D\u000111=line-{i}-end\u000110=000\u0001"), 0);
        }
        // The drain reads every ring in each pass: once it wrote more than our lines plus the filler logged meanwhile, it has
        // taken ours. Bounded, in case it cannot keep up.
        long target = before + lines + Interlocked.Read(ref fillerLines);
        var waited = System.Diagnostics.Stopwatch.StartNew();
        while (log.LinesWritten < target && waited.Elapsed < s_drainWait) Thread.Sleep(1);
                long onDisk = new FileInfo(Directory.GetFiles(dir, "*CLIENT*EXEC*.messages.log")[0]).Length;
        Console.WriteLine($"logged {lines} (drain wrote {log.LinesWritten} lines, {onDisk} bytes of this session's file handed to the OS, filler logged {Interlocked.Read(ref fillerLines)})");
        // SIGKILL of ourselves at once (Process.Kill sends SIGKILL on Unix): no flush, no dispose, and no idle drain pass in
        // between to write the lines out by chance, as there could be while a parent noticed the line above and killed us.
        System.Diagnostics.Process.GetCurrentProcess().Kill();
        Thread.Sleep(Timeout.Infinite);
        return 0;
    }
}
