using System;
using System.Reflection;
using System.Runtime.CompilerServices;
using System.Threading;
using FixEngine.Store;

namespace FixEngine.Session;

// Role: compiles the replay's per-message code ahead of the first ResendRequest, on a thread-pool thread.
//
// A resend runs a few methods per stored message (the file store's range read with its CRC checks, the header read, the
// re-encode). Under tiered compilation they start as unoptimised tier-0 code and are promoted only after a call-count
// delay, so a resend of 100,000 messages ran mostly in tier-0 code and even one of 1,000,000 about half
// (docs/benchmarks/2026-12-06-long-history.md). Those methods are marked AggressiveOptimization: compiled optimised once,
// never tiered. Compiled at their first call, that would be on the session's thread, in the middle of the first replay
// step, and a thread that runs other sessions too (the engine agent, busy-poll) stalled them 19-43 ms. So the first
// session of the process queues their compilation here (RuntimeHelpers.PrepareMethod), off every session's thread: once
// for the session's methods, once more for the file store's read path when the first file-store session comes. A
// ResendRequest that arrives while a method is still being compiled waits for that method only. Without a JIT (native
// AOT) there is nothing to do.
internal static class ReplayCompilation
{
    private static int _sessionQueued;
    private static int _fileStoreQueued;

    /// <summary>Queues the compilation of the replay's methods, the first time a session (and a file-store session) is
    /// created in the process.</summary>
    public static void Start(FixSession session, IMessageStore store)
    {
        if (!RuntimeFeature.IsDynamicCodeCompiled) return;
        bool sessionPart = Volatile.Read(ref _sessionQueued) == 0 && Interlocked.Exchange(ref _sessionQueued, 1) == 0;
        FileMessageStore? fileStore = store as FileMessageStore;
        bool storePart = fileStore is not null && Volatile.Read(ref _fileStoreQueued) == 0 && Interlocked.Exchange(ref _fileStoreQueued, 1) == 0;
        if (!sessionPart && !storePart) return;
        Delegate[] methods = session.ReplayMethods(sessionPart, storePart ? fileStore : null);
        ThreadPool.UnsafeQueueUserWorkItem(static m => Compile(Array.ConvertAll(m, d => d.Method)), methods, preferLocal: false);
    }

    private static string? _failureReport;

    /// <summary>Methods whose compilation ahead failed in this process (diagnostics and tests).</summary>
    internal static int Failures => Volatile.Read(ref _failures);

    private static int _failures;

    /// <summary>The first failure's description, once: the next caller gets null. A session raises it as a warning event
    /// when it answers a ResendRequest (FixSession.ResendRange), so it reaches the engine's log from a session's thread.</summary>
    internal static string? TakeFailureReport() => Volatile.Read(ref _failureReport) is null ? null : Interlocked.Exchange(ref _failureReport, null);

    internal static void Compile(MethodInfo[] methods)
    {
        foreach (MethodInfo method in methods)
        {
            try
            {
                RuntimeHelpers.PrepareMethod(method.MethodHandle);
            }
            catch (Exception e)
            {
                // Not compiled ahead: the method compiles at its first call, as any other, on the session's thread in a
                // replay step (ResendCopyTests.TheReplayMethodsCompiledAheadAllCompile checks that none fails). The first
                // failure is kept for a session to report.
                if (Interlocked.Increment(ref _failures) == 1)
                {
                    Volatile.Write(ref _failureReport, "The replay method " + method.DeclaringType?.Name + "." + method.Name
                        + " was not compiled ahead (" + e.GetType().Name + ": " + e.Message + "); it compiles at its first call, on the session's thread");
                }
            }
        }
    }
}
