using System;
using System.Collections.Generic;
using System.Runtime.InteropServices;

namespace FixEngine.Hosting;

/// <summary>Why a CPU affinity or scheduling request did or did not take effect.</summary>
public enum AffinityStatus
{
    /// <summary>The request took effect.</summary>
    Applied = 0,

    /// <summary>Nothing was requested (empty CPU set); the thread runs unpinned.</summary>
    NotRequested = 1,

    /// <summary>This operating system has no supported API for the request.</summary>
    NotSupported = 2,

    /// <summary>The OS refused for lack of privilege (EPERM; e.g. real-time priority without CAP_SYS_NICE).</summary>
    PermissionDenied = 3,

    /// <summary>A requested CPU does not exist or is outside the allowed set (EINVAL, or out of the mask's range).</summary>
    InvalidCpu = 4,

    /// <summary>The OS call failed for another reason; see <see cref="AffinityResult.ErrorCode"/>.</summary>
    Failed = 5,
}

/// <summary>The outcome of a <see cref="CpuAffinity"/> call: status, OS error code and a sentence saying why.</summary>
/// <param name="Status">What happened.</param>
/// <param name="ErrorCode">The OS error (errno on Linux, GetLastError on Windows), 0 when none.</param>
/// <param name="Message">A human-readable explanation, suitable for logging once.</param>
public readonly record struct AffinityResult(AffinityStatus Status, int ErrorCode, string Message)
{
    /// <summary>Whether the request took effect.</summary>
    public bool Succeeded => Status == AffinityStatus.Applied;
}

/// <summary>Pins the calling thread to CPUs and raises its scheduling priority, where the OS allows.</summary>
/// <remarks>
/// Linux uses <c>sched_setaffinity</c>/<c>sched_setscheduler</c> with pid 0 (the calling thread); Windows uses
/// <c>SetThreadAffinityMask</c> on the current thread (CPUs 0-63 of the current processor group). Other systems get
/// <see cref="AffinityStatus.NotSupported"/>. Failures are returned, never thrown; the thread keeps running unpinned.
/// Thread-safe (acts on the calling thread only). Allocates only the result message.
/// <para>Part of FixEngine's reusable low-latency toolkit (with the other types of Buffers, Collections, Timing and
/// Hosting): public and supported for trading code to use on its own threads, independently of the FIX layers.</para>
/// </remarks>
public static partial class CpuAffinity
{
    /// <summary>Highest CPU number + 1 that can be requested on Linux (size of glibc's cpu_set_t).</summary>
    public const int MaxLinuxCpus = 1024;

    private const int MaskWords = MaxLinuxCpus / 64;
    private const int EPERM = 1;
    private const int EINVAL = 22;
    private const int SchedFifo = 1;

    /// <summary>Pins the calling thread to one CPU.</summary>
    /// <param name="cpu">Zero-based CPU number.</param>
    /// <returns>What happened and why.</returns>
    public static AffinityResult PinCurrentThread(int cpu) => PinCurrentThread([cpu]);

    /// <summary>Restricts the calling thread to a set of CPUs.</summary>
    /// <param name="cpus">Zero-based CPU numbers; empty means no request.</param>
    /// <returns>What happened and why.</returns>
    public static unsafe AffinityResult PinCurrentThread(ReadOnlySpan<int> cpus)
    {
        if (cpus.IsEmpty)
        {
            return new AffinityResult(AffinityStatus.NotRequested, 0, "No CPU set requested; thread runs unpinned.");
        }
        string list = FormatCpus(cpus);
        if (OperatingSystem.IsLinux())
        {
            ulong* mask = stackalloc ulong[MaskWords];
            new Span<ulong>(mask, MaskWords).Clear();
            foreach (int cpu in cpus)
            {
                if ((uint)cpu >= MaxLinuxCpus)
                {
                    return new AffinityResult(AffinityStatus.InvalidCpu, EINVAL,
                        $"CPU {cpu} is outside 0..{MaxLinuxCpus - 1}; thread runs unpinned.");
                }
                mask[cpu >> 6] |= 1UL << (cpu & 63);
            }
            if (sched_setaffinity(0, (nuint)(MaskWords * sizeof(ulong)), mask) == 0)
            {
                return new AffinityResult(AffinityStatus.Applied, 0, $"Thread pinned to CPU(s) {list}.");
            }
            int errno = Marshal.GetLastPInvokeError();
            return errno switch
            {
                EINVAL => new AffinityResult(AffinityStatus.InvalidCpu, errno,
                    $"sched_setaffinity refused CPU(s) {list} (EINVAL: none of them exists or is allowed for this process); thread runs unpinned."),
                EPERM => new AffinityResult(AffinityStatus.PermissionDenied, errno,
                    $"sched_setaffinity refused CPU(s) {list} (EPERM); thread runs unpinned."),
                _ => new AffinityResult(AffinityStatus.Failed, errno,
                    $"sched_setaffinity failed for CPU(s) {list} (errno {errno}); thread runs unpinned."),
            };
        }
        if (OperatingSystem.IsWindows())
        {
            nuint mask = 0;
            foreach (int cpu in cpus)
            {
                if ((uint)cpu >= 64)
                {
                    return new AffinityResult(AffinityStatus.InvalidCpu, 0,
                        $"CPU {cpu} is outside 0..63 of the current processor group; thread runs unpinned.");
                }
                mask |= (nuint)1 << cpu;
            }
            if (SetThreadAffinityMask(GetCurrentThread(), mask) != 0)
            {
                return new AffinityResult(AffinityStatus.Applied, 0, $"Thread pinned to CPU(s) {list}.");
            }
            int error = Marshal.GetLastPInvokeError();
            const int ErrorInvalidParameter = 87;
            return new AffinityResult(error == ErrorInvalidParameter ? AffinityStatus.InvalidCpu : AffinityStatus.Failed, error,
                $"SetThreadAffinityMask refused CPU(s) {list} (error {error}); thread runs unpinned.");
        }
        return new AffinityResult(AffinityStatus.NotSupported, 0,
            $"CPU pinning is not supported on {RuntimeInformation.OSDescription}; thread runs unpinned.");
    }

    /// <summary>Reads the calling thread's allowed CPUs (Linux only).</summary>
    /// <param name="cpus">The allowed CPU numbers in ascending order, or empty when unsupported or failed.</param>
    /// <returns><see langword="true"/> on success.</returns>
    public static unsafe bool TryGetCurrentThreadAffinity(out int[] cpus)
    {
        cpus = [];
        if (!OperatingSystem.IsLinux())
        {
            return false;
        }
        ulong* mask = stackalloc ulong[MaskWords];
        new Span<ulong>(mask, MaskWords).Clear();
        if (sched_getaffinity(0, (nuint)(MaskWords * sizeof(ulong)), mask) != 0)
        {
            return false;
        }
        var list = new List<int>();
        for (int word = 0; word < MaskWords; word++)
        {
            for (int bit = 0; bit < 64; bit++)
            {
                if ((mask[word] & (1UL << bit)) != 0)
                {
                    list.Add(word * 64 + bit);
                }
            }
        }
        cpus = list.ToArray();
        return true;
    }

    /// <summary>Gives the calling thread real-time FIFO scheduling at <paramref name="priority"/> (Linux only).</summary>
    /// <param name="priority">1 (lowest) to 99 (highest) SCHED_FIFO priority.</param>
    /// <returns>What happened and why (usually <see cref="AffinityStatus.PermissionDenied"/> without CAP_SYS_NICE).</returns>
    /// <remarks>A SCHED_FIFO thread that busy-spins can starve the rest of the system on its core; pin it to an isolated CPU.</remarks>
    public static unsafe AffinityResult SetCurrentThreadRealTimePriority(int priority)
    {
        if (!OperatingSystem.IsLinux())
        {
            return new AffinityResult(AffinityStatus.NotSupported, 0,
                $"Real-time scheduling is only supported on Linux, not {RuntimeInformation.OSDescription}.");
        }
        if (priority < 1 || priority > 99)
        {
            return new AffinityResult(AffinityStatus.Failed, EINVAL, $"SCHED_FIFO priority {priority} is outside 1..99.");
        }
        int param = priority; // struct sched_param { int sched_priority; }
        if (sched_setscheduler(0, SchedFifo, &param) == 0)
        {
            return new AffinityResult(AffinityStatus.Applied, 0, $"Thread scheduled SCHED_FIFO at priority {priority}.");
        }
        int errno = Marshal.GetLastPInvokeError();
        return errno switch
        {
            EPERM => new AffinityResult(AffinityStatus.PermissionDenied, errno,
                $"sched_setscheduler(SCHED_FIFO, {priority}) refused (EPERM: needs CAP_SYS_NICE or an RLIMIT_RTPRIO); thread keeps normal scheduling."),
            _ => new AffinityResult(AffinityStatus.Failed, errno,
                $"sched_setscheduler(SCHED_FIFO, {priority}) failed (errno {errno}); thread keeps normal scheduling."),
        };
    }

    private static string FormatCpus(ReadOnlySpan<int> cpus)
    {
        var parts = new string[cpus.Length];
        for (int i = 0; i < cpus.Length; i++)
        {
            parts[i] = cpus[i].ToString(System.Globalization.CultureInfo.InvariantCulture);
        }
        return string.Join(",", parts);
    }

    // "libc" is mapped to the C library by the runtime's native library loader on Linux.
    [LibraryImport("libc", SetLastError = true)]
    private static unsafe partial int sched_setaffinity(int pid, nuint cpusetsize, ulong* mask);

    [LibraryImport("libc", SetLastError = true)]
    private static unsafe partial int sched_getaffinity(int pid, nuint cpusetsize, ulong* mask);

    [LibraryImport("libc", SetLastError = true)]
    private static unsafe partial int sched_setscheduler(int pid, int policy, int* param);

    [LibraryImport("kernel32", SetLastError = true)]
    private static partial nuint SetThreadAffinityMask(nint thread, nuint mask);

    [LibraryImport("kernel32")]
    private static partial nint GetCurrentThread();
}
