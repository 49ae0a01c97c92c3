using System;
using System.IO;
using System.Runtime.InteropServices;

namespace FixEngine.Timing;

// Design:
// - Decides once per process whether the x64 time-stamp counter may be used as a clock, and if so
//   builds two tiny machine-code readers in a page of executable memory:
//     ordered:   rdtscp (or lfence; rdtsc without RDTSCP) ; shl rdx, 32 ; or rax, rdx ; ret
//     unordered: rdtsc                                     ; shl rdx, 32 ; or rax, rdx ; ret
//   They are called through delegate* unmanaged[SuppressGCTransition]: no GC transition frame, no
//   marshalling (the stubs never block, allocate, or call back). No Reflection.Emit, so AOT-safe.
// - RDTSCP waits until every earlier instruction has executed and every earlier load is globally
//   visible, so a value read after observing another thread's timestamp is not older than it. Plain
//   RDTSC may execute before earlier loads complete (tens of ns early): fine for a log record's time,
//   not for a clock that promises cross-thread monotonicity.
// - Used only where the TSC is a sound clock: x64 Linux whose kernel clocksource is "tsc" (the kernel
//   checked the TSC is synchronised across CPUs and stable, else it would have switched away) and whose
//   CPU flags include constant_tsc and nonstop_tsc (fixed rate, runs in deep C-states). Everywhere else
//   (ARM64, Windows, macOS, another clocksource, mmap/mprotect refused, FIXENGINE_DISABLE_TSC=1) the
//   reason is recorded once in Reason and callers use Stopwatch.
// - Windows is left to Stopwatch on purpose: QueryPerformanceCounter already reads the TSC directly
//   where Windows has verified it is invariant, and we cannot check that verification from here.
// - The executable page is mapped read-write, filled, then switched to read-execute (never writable
//   and executable at once) and kept for the life of the process.

/// <summary>Finds out whether the TSC can be read directly and provides the machine-code readers.</summary>
internal static unsafe partial class TscReader
{
    /// <summary>Environment variable that, set to 1 or true, keeps every TSC clock on <see cref="System.Diagnostics.Stopwatch"/>.</summary>
    public const string DisableVariable = "FIXENGINE_DISABLE_TSC";

    private const int ProtRead = 0x1;
    private const int ProtWrite = 0x2;
    private const int ProtExec = 0x4;
    private const int MapPrivate = 0x02;
    private const int MapAnonymous = 0x20;
    private const int StubStride = 32;

    /// <summary>Why the TSC is not used, or null when <see cref="Ordered"/> and <see cref="Unordered"/> are set.</summary>
    public static readonly string? Reason = Initialize(out HasRdtscp, out Ordered, out Unordered);

    /// <summary>Whether the ordered reader uses RDTSCP (otherwise LFENCE; RDTSC).</summary>
    public static readonly bool HasRdtscp;

    /// <summary>Reads the TSC after all earlier loads are visible; null when the TSC is not used.</summary>
    public static readonly delegate* unmanaged[SuppressGCTransition]<long> Ordered;

    /// <summary>Reads the TSC without ordering; null when the TSC is not used.</summary>
    public static readonly delegate* unmanaged[SuppressGCTransition]<long> Unordered;

    /// <summary>Checks every precondition on Linux; returns the reason for not using the TSC, or null.</summary>
    internal static string? CheckPlatform(out bool hasRdtscp)
    {
        hasRdtscp = false;
        string? disabled = Environment.GetEnvironmentVariable(DisableVariable);
        if (disabled is "1" || string.Equals(disabled, "true", StringComparison.OrdinalIgnoreCase))
        {
            return $"disabled by {DisableVariable}={disabled}";
        }
        if (RuntimeInformation.ProcessArchitecture != Architecture.X64)
        {
            return $"the process is {RuntimeInformation.ProcessArchitecture}, not x64";
        }
        if (!OperatingSystem.IsLinux())
        {
            return "not Linux (on Windows, Stopwatch already reads the TSC where the OS has verified it is invariant)";
        }
        string? clocksource = ReadFirstLine("/sys/devices/system/clocksource/clocksource0/current_clocksource");
        if (clocksource != "tsc")
        {
            return $"the kernel clocksource is '{clocksource ?? "unknown"}', not 'tsc'";
        }
        string? flags = ReadCpuFlags();
        if (flags is null)
        {
            return "/proc/cpuinfo has no flags line";
        }
        foreach (string required in (ReadOnlySpan<string>)["constant_tsc", "nonstop_tsc"])
        {
            if (!HasFlag(flags, required))
            {
                return $"the CPU flags lack {required} (TSC rate not invariant)";
            }
        }
        hasRdtscp = HasFlag(flags, "rdtscp");
        return null;
    }

    private static string? Initialize(out bool hasRdtscp, out delegate* unmanaged[SuppressGCTransition]<long> ordered,
        out delegate* unmanaged[SuppressGCTransition]<long> unordered)
    {
        ordered = null;
        unordered = null;
        string? reason;
        try
        {
            reason = CheckPlatform(out hasRdtscp);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            hasRdtscp = false;
            return $"the TSC checks could not read /proc or /sys ({ex.GetType().Name})";
        }
        if (reason is not null)
        {
            return reason;
        }
        try
        {
            return MapStubs(hasRdtscp, out ordered, out unordered);
        }
        catch (Exception ex) when (ex is DllNotFoundException or EntryPointNotFoundException)
        {
            return $"mmap/mprotect are not callable ({ex.GetType().Name})";
        }
    }

    private static string? MapStubs(bool hasRdtscp, out delegate* unmanaged[SuppressGCTransition]<long> ordered,
        out delegate* unmanaged[SuppressGCTransition]<long> unordered)
    {
        ordered = null;
        unordered = null;
        nuint length = (nuint)Environment.SystemPageSize;
        nint page = mmap(0, length, ProtRead | ProtWrite, MapPrivate | MapAnonymous, -1, 0);
        if (page == -1)
        {
            return $"mmap of one page failed (errno {Marshal.GetLastPInvokeError()})";
        }
        var code = new Span<byte>((void*)page, 2 * StubStride);
        ReadOnlySpan<byte> join = [0x48, 0xC1, 0xE2, 0x20, 0x48, 0x09, 0xD0, 0xC3]; // shl rdx,32; or rax,rdx; ret
        ReadOnlySpan<byte> orderedRead = hasRdtscp
            ? [0x0F, 0x01, 0xF9] // rdtscp
            : [0x0F, 0xAE, 0xE8, 0x0F, 0x31]; // lfence; rdtsc
        orderedRead.CopyTo(code);
        join.CopyTo(code[orderedRead.Length..]);
        ReadOnlySpan<byte> unorderedRead = [0x0F, 0x31]; // rdtsc
        unorderedRead.CopyTo(code[StubStride..]);
        join.CopyTo(code[(StubStride + unorderedRead.Length)..]);
        if (mprotect(page, length, ProtRead | ProtExec) != 0)
        {
            int errno = Marshal.GetLastPInvokeError();
            munmap(page, length);
            return $"mprotect to read+execute was refused (errno {errno}; a W^X or SELinux execmem policy?)";
        }
        ordered = (delegate* unmanaged[SuppressGCTransition]<long>)page;
        unordered = (delegate* unmanaged[SuppressGCTransition]<long>)(page + StubStride);
        return null;
    }

    /// <summary>
    /// Maps a reader that returns the value stored at <paramref name="cell"/> (movabs rax, [cell]; ret), callable like
    /// <see cref="Ordered"/>: lets tests drive a <see cref="TscTimeSource"/> with a counter they set, through the same
    /// call as the real TSC. x64 Linux only; the page is kept for the life of the process.
    /// </summary>
    /// <param name="cell">Native memory that stays valid while the reader is used.</param>
    /// <returns>The reader.</returns>
    /// <exception cref="PlatformNotSupportedException">Not x64 Linux, or the executable mapping was refused.</exception>
    internal static delegate* unmanaged[SuppressGCTransition]<long> MapCellReader(long* cell)
    {
        if (RuntimeInformation.ProcessArchitecture != Architecture.X64 || !OperatingSystem.IsLinux())
        {
            throw new PlatformNotSupportedException("A mapped counter reader needs x64 Linux.");
        }
        nuint length = (nuint)Environment.SystemPageSize;
        nint page = mmap(0, length, ProtRead | ProtWrite, MapPrivate | MapAnonymous, -1, 0);
        if (page == -1)
        {
            throw new PlatformNotSupportedException($"mmap of one page failed (errno {Marshal.GetLastPInvokeError()}).");
        }
        var code = new Span<byte>((void*)page, 11);
        code[0] = 0x48; // REX.W
        code[1] = 0xA1; // mov rax, moffs64
        BitConverter.TryWriteBytes(code[2..10], (long)cell);
        code[10] = 0xC3; // ret
        if (mprotect(page, length, ProtRead | ProtExec) != 0)
        {
            int errno = Marshal.GetLastPInvokeError();
            munmap(page, length);
            throw new PlatformNotSupportedException($"mprotect to read+execute was refused (errno {errno}).");
        }
        return (delegate* unmanaged[SuppressGCTransition]<long>)page;
    }

    private static string? ReadFirstLine(string path)
    {
        if (!File.Exists(path))
        {
            return null;
        }
        using var reader = new StreamReader(path);
        return reader.ReadLine()?.Trim();
    }

    private static string? ReadCpuFlags()
    {
        if (!File.Exists("/proc/cpuinfo"))
        {
            return null;
        }
        foreach (string line in File.ReadLines("/proc/cpuinfo"))
        {
            if (line.StartsWith("flags", StringComparison.Ordinal) && line.IndexOf(':') is int colon and > 0)
            {
                return line[(colon + 1)..];
            }
        }
        return null;
    }

    private static bool HasFlag(string flags, string flag)
    {
        foreach (Range range in flags.AsSpan().Split(' '))
        {
            if (flags.AsSpan()[range].SequenceEqual(flag))
            {
                return true;
            }
        }
        return false;
    }

    // "libc" is mapped to the C library by the runtime's native library loader on Linux.
    [LibraryImport("libc", SetLastError = true)]
    private static partial nint mmap(nint address, nuint length, int protection, int flags, int fd, nint offset);

    [LibraryImport("libc", SetLastError = true)]
    private static partial int mprotect(nint address, nuint length, int protection);

    [LibraryImport("libc")]
    private static partial int munmap(nint address, nuint length);
}
