using System;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Threading;

namespace FixEngine.Transport;

// Design (threading rules: docs/architecture.md, "Completion-mode TCP"):
// - Completion-mode plain-TCP connections on Linux are served by a small fixed set of engine threads, "fix-reactor#i",
//   each owning one epoll instance (process-wide, started on first use, never stopped, like SendDrainThread). Count:
//   ProcessorCount / 2, at least 1 (1 on two cores): one thread can read and process every inbound message of
//   thousands of sessions, and the other half of the cores stays for the application, the engine agent and the peers.
//   A connection is assigned to one reactor (round robin) when it is created and stays on it.
// - Level-triggered EPOLLIN (EPOLLHUP and EPOLLERR always report). On each event the reactor thread reads once with a
//   non-blocking Socket.Receive into the connection's pooled receive buffer and processes every complete message
//   inline (the framing and dispatch core all modes share); a read that filled the free space reads again (at most
//   MaxReadsPerEvent, for fairness), a read that did not has drained the socket. Whatever is left is reported again
//   by the next epoll_wait: level triggering needs no read-until-EAGAIN, so one inbound message costs one
//   epoll_wait and one recv.
// - Membership of the epoll set is an in-flight count of the connection (TransportConnection's lifecycle): taken
//   before EPOLL_CTL_ADD (Start, or the resume of a parked receive), released only by the reactor thread after
//   EPOLL_CTL_DEL (peer close, error, close, pause). So the socket is never disposed (and its descriptor never reused)
//   while it is in the set, and its buffers return to the pools only after it left. epoll_event.data holds a GCHandle
//   of the connection, freed at teardown, when no event can name it any more.
// - A close from any thread shuts the socket's receive side down, which makes it readable; the reactor sees the close,
//   removes it and releases the count, and the last one out tears down.
// - A pause is applied by the reactor thread at the connection's next event: it removes the socket, then parks; a
//   resume (any thread) that found it parked takes the count again and adds the socket back, and level triggering
//   reports what arrived meanwhile. A resume that cancelled the pause before it parked makes the reactor add it back.
// - Send remainders never use the runtime's async socket engine (a socket that ran one async operation stays in the
//   runtime's epoll set for life and wakes its thread on every inbound segment): they are drained by the next send, by
//   the reactor after each inbound burst and by the process-wide SendDrainThread, as in dedicated mode.
// - Internal switch for A/B: FIXENGINE_COMPLETION_REACTOR=0 (read once per process) keeps the SocketAsyncEventArgs
//   completion path; so do non-Linux systems and TLS. FIXENGINE_REACTOR_THREADS=n sets the reactor count (A/B only).

/// <summary>An engine thread that receives and processes completion-mode TCP connections through epoll (see the design notes).</summary>
internal sealed unsafe partial class ConnectionReactor
{
    private const int EpollCtlAdd = 1;
    private const int EpollCtlDel = 2;
    private const uint EpollIn = 0x001;
    private const int EpollCloexec = 0x80000;
    private const int Eintr = 4;
    private const int MaxEvents = 256;

    /// <summary>Reads per connection per event before the reactor serves the others (a read that filled the buffer's free space may have left more).</summary>
    internal const int MaxReadsPerEvent = 4;

    private static readonly object s_gate = new();
    private static ConnectionReactor[]? s_reactors;
    private static bool s_failed;
    private static int s_next;

    // x86-64 packs struct epoll_event (12 bytes, data at offset 4); other architectures align data to 8 (16 bytes).
    private static readonly int s_eventSize = RuntimeInformation.ProcessArchitecture is Architecture.X64 or Architecture.X86 ? 12 : 16;

    private readonly int _epfd;
    private readonly byte* _events;

    private ConnectionReactor(int epfd, int index)
    {
        _epfd = epfd;
        _events = (byte*)NativeMemory.AllocZeroed((nuint)(MaxEvents * s_eventSize));
        var thread = new Thread(Run) { IsBackground = true, Name = "fix-reactor#" + index };
        thread.Start();
    }

    /// <summary>Whether completion-mode TCP connections use a reactor by default: Linux, unless FIXENGINE_COMPLETION_REACTOR=0.</summary>
    internal static bool IsEnabled { get; } = OperatingSystem.IsLinux()
        && Environment.GetEnvironmentVariable("FIXENGINE_COMPLETION_REACTOR") != "0";

    /// <summary>Reactor threads (started with the first connection that uses one): ProcessorCount / 2, at least 1;
    /// FIXENGINE_REACTOR_THREADS=n (1-64, read once per process) overrides it for A/B measurements.</summary>
    internal static int Count { get; } = ThreadCount(Environment.GetEnvironmentVariable("FIXENGINE_REACTOR_THREADS"), Environment.ProcessorCount);

    /// <summary>The reactor thread count for an override value (null or invalid: ignored) on <paramref name="processors"/> cores.</summary>
    internal static int ThreadCount(string? overrideValue, int processors) =>
        int.TryParse(overrideValue, System.Globalization.NumberStyles.None, System.Globalization.CultureInfo.InvariantCulture, out int n) && n is >= 1 and <= 64
            ? n
            : Math.Max(1, processors / 2);

    /// <summary>The reactor for a new connection (round robin), or null when epoll is unavailable (the connection then
    /// receives through SocketAsyncEventArgs).</summary>
    internal static ConnectionReactor? Assign()
    {
        ConnectionReactor[]? reactors = Volatile.Read(ref s_reactors);
        if (reactors is null)
        {
            lock (s_gate)
            {
                if (s_failed) return null;
                reactors = s_reactors;
                if (reactors is null)
                {
                    reactors = new ConnectionReactor[Count];
                    for (int i = 0; i < reactors.Length; i++)
                    {
                        int epfd = epoll_create1(EpollCloexec);
                        if (epfd < 0)
                        {
                            s_failed = true;
                            return null;
                        }
                        reactors[i] = new ConnectionReactor(epfd, i);
                    }
                    Volatile.Write(ref s_reactors, reactors);
                }
            }
        }
        return reactors[(int)((uint)Interlocked.Increment(ref s_next) % (uint)reactors.Length)];
    }

    /// <summary>Adds <paramref name="fd"/> to the set (any thread); 0, or the errno.</summary>
    internal int Add(int fd, nint connection)
    {
        byte* ev = stackalloc byte[16];
        *(uint*)ev = EpollIn;
        *(ulong*)(ev + s_eventSize - 8) = (ulong)connection;
        return epoll_ctl(_epfd, EpollCtlAdd, fd, ev) == 0 ? 0 : Marshal.GetLastPInvokeError();
    }

    /// <summary>Removes <paramref name="fd"/> from the set (the reactor thread, while the socket is open).</summary>
    internal void Remove(int fd)
    {
        byte* ev = stackalloc byte[16];
        epoll_ctl(_epfd, EpollCtlDel, fd, ev);
    }

    private void Run()
    {
        int size = s_eventSize;
        while (true)
        {
            Hosting.EngineThreadProbe.OnPass();
            int n = epoll_wait(_epfd, _events, MaxEvents, -1);
            if (n < 0)
            {
                if (Marshal.GetLastPInvokeError() == Eintr) continue;
                // EBADF/EINVAL cannot happen on a set this thread owns; back off rather than spin.
                Thread.Sleep(1);
                continue;
            }
            for (int i = 0; i < n; i++)
            {
                nint data = (nint)(*(ulong*)(_events + i * size + size - 8));
                TcpConnection connection = Unsafe.As<TcpConnection>(GCHandle.FromIntPtr(data).Target)!;
                connection.OnReactorReady();
            }
        }
    }

    [LibraryImport("libc", SetLastError = true)]
    private static partial int epoll_create1(int flags);

    [LibraryImport("libc", SetLastError = true)]
    private static partial int epoll_ctl(int epfd, int op, int fd, byte* ev);

    [LibraryImport("libc", SetLastError = true)]
    private static partial int epoll_wait(int epfd, byte* events, int maxevents, int timeout);
}
