using System;
using System.Net;
using System.Net.Sockets;
using System.Threading;

namespace FixEngine.Benchmarks.RoundTrip;

/// <summary>Blocking loopback TCP helpers shared by the raw configurations.</summary>
/// <remarks>Connection setup allocates; <see cref="SendAll"/> and <see cref="ReceiveExactly"/> do not.</remarks>
internal static class LoopbackTcp
{
    /// <summary>Opens a listener on 127.0.0.1 (port 0: any free port).</summary>
    public static Socket Listen(int port)
    {
        var listener = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        listener.Bind(new IPEndPoint(IPAddress.Loopback, port));
        listener.Listen(1);
        return listener;
    }

    /// <summary>The port a listener is bound to.</summary>
    public static int PortOf(Socket listener) => ((IPEndPoint)listener.LocalEndPoint!).Port;

    /// <summary>Connects to 127.0.0.1:<paramref name="port"/> with NoDelay.</summary>
    public static Socket Connect(int port)
    {
        var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        socket.Connect(new IPEndPoint(IPAddress.Loopback, port));
        return socket;
    }

    /// <summary>Accepts one connection and sets NoDelay.</summary>
    public static Socket Accept(Socket listener)
    {
        Socket socket = listener.Accept();
        socket.NoDelay = true;
        return socket;
    }

    /// <summary>Creates a connected pair: (initiator side, acceptor side).</summary>
    public static (Socket Initiator, Socket Acceptor) CreatePair()
    {
        using Socket listener = Listen(0);
        Socket initiator = Connect(PortOf(listener));
        Socket acceptor = Accept(listener);
        return (initiator, acceptor);
    }

    /// <summary>Sends every byte of <paramref name="data"/>.</summary>
    public static void SendAll(Socket socket, ReadOnlySpan<byte> data)
    {
        while (!data.IsEmpty)
        {
            int sent = socket.Send(data, SocketFlags.None);
            data = data.Slice(sent);
        }
    }

    /// <summary>Fills <paramref name="destination"/>; false when the peer closed first.</summary>
    public static bool ReceiveExactly(Socket socket, Span<byte> destination)
    {
        while (!destination.IsEmpty)
        {
            int received = socket.Receive(destination, SocketFlags.None);
            if (received == 0) return false;
            destination = destination.Slice(received);
        }
        return true;
    }

    /// <summary>Closes a socket, ignoring errors from a peer that is already gone.</summary>
    public static void CloseQuietly(Socket? socket)
    {
        if (socket is null) return;
        try
        {
            socket.Shutdown(SocketShutdown.Both);
        }
        catch (SocketException)
        {
        }
        catch (ObjectDisposedException)
        {
        }
        socket.Dispose();
    }

    /// <summary>Starts a named background thread.</summary>
    public static Thread StartThread(string name, ThreadStart body)
    {
        var thread = new Thread(body) { IsBackground = true, Name = name };
        thread.Start();
        return thread;
    }

    /// <summary>True for the exceptions a blocking socket call throws when the socket is closed under it.</summary>
    public static bool IsClosedError(Exception e) => e is SocketException or ObjectDisposedException;
}
