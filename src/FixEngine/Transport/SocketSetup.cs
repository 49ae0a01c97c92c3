using System;
using System.Net;
using System.Net.Sockets;

namespace FixEngine.Transport;

/// <summary>Socket set-up shared by TCP and TLS: the options of a connected socket and the listening socket of an acceptor.</summary>
/// <remarks>Connection set-up only (not a hot path); any thread.</remarks>
internal static class SocketSetup
{
    /// <summary>The listen backlog acceptors use unless told otherwise. Linux caps it at net.core.somaxconn (4096 on
    /// current kernels), so a burst of connects waits in the accept queue instead of having its SYNs dropped (a dropped SYN
    /// is retried only after 1 s, then 3 s, and a connect with a short timeout fails with TimedOut).</summary>
    public const int DefaultBacklog = 4096;

    /// <summary>Applies <paramref name="options"/> to a connected socket.</summary>
    /// <param name="socket">The socket.</param>
    /// <param name="options">The options.</param>
    /// <param name="nonBlocking">True for TCP: busy-poll receives and every direct send must never block the owner. TLS
    /// uses only the socket's async operations, which never block either way, and leaves the mode alone.</param>
    public static void ApplyOptions(Socket socket, TcpConnectionOptions options, bool nonBlocking)
    {
        socket.NoDelay = options.NoDelay;
        if (options.ReceiveBufferSize is int receive)
        {
            socket.ReceiveBufferSize = receive;
        }
        if (options.SendBufferSize is int send)
        {
            socket.SendBufferSize = send;
        }
        if (options.KeepAlive)
        {
            socket.SetSocketOption(SocketOptionLevel.Socket, SocketOptionName.KeepAlive, true);
        }
        if (options.LingerSeconds is int linger)
        {
            socket.LingerState = new LingerOption(true, linger);
        }
        if (nonBlocking)
        {
            socket.Blocking = false;
        }
    }

    /// <summary>A socket bound to <paramref name="endPoint"/> and listening: dual-mode on <see cref="IPAddress.IPv6Any"/>,
    /// and on Unix SO_REUSEADDR when <paramref name="reuseAddress"/> (it only allows rebinding over TIME_WAIT there; it does not let two listeners share a
    /// port, which it would on Windows, so it is not set there). SO_REUSEPORT, which lets several listeners share the port
    /// and the kernel split connections between them, is set only when <paramref name="reusePort"/>: .NET sets it together
    /// with SO_REUSEADDR on Linux, so it is cleared explicitly otherwise, and a second listener on the port fails to bind.</summary>
    /// <exception cref="SocketException">The bind or listen failed (e.g. the port is in use).</exception>
    public static Socket Listen(IPEndPoint endPoint, int backlog, bool reuseAddress = true, bool reusePort = false)
    {
        var listener = new Socket(endPoint.AddressFamily, SocketType.Stream, ProtocolType.Tcp);
        try
        {
            if (endPoint.AddressFamily == AddressFamily.InterNetworkV6 && endPoint.Address.Equals(IPAddress.IPv6Any))
            {
                listener.DualMode = true;
            }
            if (!OperatingSystem.IsWindows())
            {
                // Set both ways: .NET may set it on Unix sockets by itself.
                listener.SetSocketOption(SocketOptionLevel.Socket, SocketOptionName.ReuseAddress, reuseAddress);
                SetReusePort(listener, reusePort);
            }
            listener.Bind(endPoint);
            listener.Listen(backlog);
        }
        catch
        {
            listener.Dispose();
            throw;
        }
        return listener;
    }

    /// <summary>SO_REUSEADDR alone as <paramref name="socket"/> has it (.NET's getter on Linux also needs SO_REUSEPORT).</summary>
    public static bool GetReuseAddress(Socket socket)
    {
        int level, name;
        if (OperatingSystem.IsLinux()) (level, name) = (1, 2);
        else if (OperatingSystem.IsMacOS() || OperatingSystem.IsFreeBSD()) (level, name) = (0xFFFF, 0x4);
        else return (int)socket.GetSocketOption(SocketOptionLevel.Socket, SocketOptionName.ReuseAddress)! != 0;
        Span<byte> value = stackalloc byte[4];
        socket.GetRawSocketOption(level, name, value);
        return System.Buffers.Binary.BinaryPrimitives.ReadInt32LittleEndian(value) != 0;
    }

    /// <summary>SO_REUSEPORT as <paramref name="socket"/> has it (Linux and macOS; false elsewhere).</summary>
    public static bool GetReusePort(Socket socket)
    {
        if (!TryReusePortOption(out int level, out int name)) return false;
        Span<byte> value = stackalloc byte[4];
        socket.GetRawSocketOption(level, name, value);
        return System.Buffers.Binary.BinaryPrimitives.ReadInt32LittleEndian(value) != 0;
    }

    private static void SetReusePort(Socket socket, bool on)
    {
        if (!TryReusePortOption(out int level, out int name)) return;
        Span<byte> value = stackalloc byte[4];
        System.Buffers.Binary.BinaryPrimitives.WriteInt32LittleEndian(value, on ? 1 : 0);
        socket.SetRawSocketOption(level, name, value);
    }

    // SOL_SOCKET and SO_REUSEPORT: Linux 1 and 15; macOS and the BSDs 0xFFFF and 0x200.
    private static bool TryReusePortOption(out int level, out int name)
    {
        if (OperatingSystem.IsLinux())
        {
            (level, name) = (1, 15);
            return true;
        }
        if (OperatingSystem.IsMacOS() || OperatingSystem.IsFreeBSD())
        {
            (level, name) = (0xFFFF, 0x200);
            return true;
        }
        (level, name) = (0, 0);
        return false;
    }
}
