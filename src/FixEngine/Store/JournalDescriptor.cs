using System;
using System.IO;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Text;
using Microsoft.Win32.SafeHandles;

namespace FixEngine.Store;

// Reopening a parked journal without allocating (Linux).
// - Why: File.OpenHandle allocates a SafeFileHandle (and a path string) per call, and under the journal budget's pressure
//   a parked journal is opened again on every heartbeat it writes: an allocation per operation in steady state.
// - How: the store keeps one SafeFileHandle that does not own its descriptor (created at its first reopen) and points it
//   at each descriptor it opens itself: open(O_RDWR|O_CLOEXEC) on a UTF-8 path encoded once, flock(LOCK_EX|LOCK_NB) as
//   File.OpenHandle takes for FileShare.None (so a second store or process still cannot open the journal while this one
//   holds it, and this one cannot reopen what another holds), and lseek(SEEK_END) for its length. Parking closes the
//   descriptor and points the handle at -1 (invalid), so a stray use throws instead of writing to a reused number.
// - The handle's value is changed through SafeHandle.SetHandle (protected; reached with UnsafeAccessor, no reflection).
//   The handle is only ever used by the store's owner thread, so no RandomAccess call holds it while it changes.
// - Elsewhere (Windows, macOS) the store keeps reopening with File.OpenHandle.
internal static partial class JournalDescriptor
{
    private const int O_RDWR = 2;
    private const int O_CLOEXEC = 0x80000;
    private const int LOCK_EX = 2;
    private const int LOCK_NB = 4;
    private const int SEEK_END = 2;
    private const int EINTR = 4;
    private const int EWOULDBLOCK = 11;

    /// <summary>True where the store reopens parked journals through <see cref="TryOpen"/>.</summary>
    public static bool Supported { get; } = OperatingSystem.IsLinux();

    /// <summary>The NUL-terminated UTF-8 bytes of <paramref name="path"/> (once per store).</summary>
    public static byte[] EncodePath(string path)
    {
        byte[] bytes = new byte[Encoding.UTF8.GetByteCount(path) + 1];
        Encoding.UTF8.GetBytes(path, bytes);
        return bytes;
    }

    /// <summary>Opens the journal at <paramref name="path"/> for reading and writing, locked as File.OpenHandle locks
    /// FileShare.None, and reads its length. Returns the descriptor, or -1 with <paramref name="error"/> set (the
    /// failure allocates its message; success allocates nothing).</summary>
    public static unsafe int TryOpen(byte[] path, out long length, out string? error)
    {
        length = -1;
        int fd;
        fixed (byte* p = path)
        {
            do fd = open(p, O_RDWR | O_CLOEXEC);
            while (fd < 0 && Marshal.GetLastPInvokeError() == EINTR);
        }
        if (fd < 0)
        {
            error = Marshal.GetLastPInvokeErrorMessage();
            return -1;
        }
        int locked;
        do locked = flock(fd, LOCK_EX | LOCK_NB);
        while (locked != 0 && Marshal.GetLastPInvokeError() == EINTR);
        if (locked != 0)
        {
            int errno = Marshal.GetLastPInvokeError();
            error = errno == EWOULDBLOCK ? "The process cannot access the file because it is being used by another process." : Marshal.GetLastPInvokeErrorMessage();
            close(fd);
            return -1;
        }
        length = lseek(fd, 0, SEEK_END);
        if (length < 0)
        {
            error = Marshal.GetLastPInvokeErrorMessage();
            close(fd);
            return -1;
        }
        error = null;
        return fd;
    }

    /// <summary>A handle that does not own <paramref name="fd"/> (the store's one allocation for all its reopens).</summary>
    public static SafeFileHandle Wrap(int fd) => new((IntPtr)fd, ownsHandle: false);

    /// <summary>Points <paramref name="handle"/> (from <see cref="Wrap"/>) at <paramref name="fd"/>.</summary>
    public static void Point(SafeFileHandle handle, int fd) => SetHandle(handle, (IntPtr)fd);

    /// <summary>Closes the descriptor <paramref name="handle"/> (from <see cref="Wrap"/>) points at and points it at -1.</summary>
    public static void Close(SafeFileHandle handle)
    {
        int fd = (int)handle.DangerousGetHandle();
        SetHandle(handle, (IntPtr)(-1));
        // Linux releases the descriptor even when close reports EINTR or EIO: never retried. The flock goes with it.
        if (fd >= 0) close(fd);
    }

    [UnsafeAccessor(UnsafeAccessorKind.Method, Name = "SetHandle")]
    private static extern void SetHandle(SafeHandle handle, IntPtr value);

    [LibraryImport("libc", SetLastError = true)]
    private static unsafe partial int open(byte* path, int flags);

    [LibraryImport("libc", SetLastError = true)]
    private static partial int flock(int fd, int operation);

    [LibraryImport("libc", SetLastError = true)]
    private static partial long lseek(int fd, long offset, int whence);

    [LibraryImport("libc", SetLastError = true)]
    private static partial int close(int fd);
}
