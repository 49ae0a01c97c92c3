using System;
using System.Buffers;
using System.Threading;

namespace FixEngine.Transport;

/// <summary>Settings for TCP (and TLS) connections: receive mode, socket options, buffer limits, send queue and garbage limits.</summary>
/// <remarks>
/// Read when a connection is created (values are copied into the connection); share one instance between the connections
/// of an acceptor or connector. Not thread-safe to mutate while connections are being created.
/// </remarks>
internal sealed class TcpConnectionOptions
{
    /// <summary>Slack beyond <see cref="MaxMessageBodyLength"/> for the header and trailer of the largest frame.</summary>
    public const int FrameOverheadBytes = 64;

    private EventArgsPool? _eventArgsPool;

    /// <summary>Dedicated (a receive thread per connection), completion (SAEA callbacks) or busy-poll (the owner polls).
    /// Default <see cref="ReceiveMode.Dedicated"/>.</summary>
    public ReceiveMode ReceiveMode { get; set; } = ReceiveMode.Dedicated;

    /// <summary>Completion mode on Linux: receive through an engine reactor thread (epoll) instead of SocketAsyncEventArgs
    /// (see ConnectionReactor). Default: on, unless FIXENGINE_COMPLETION_REACTOR=0; ignored elsewhere and by TLS.</summary>
    internal bool CompletionReactor { get; set; } = ConnectionReactor.IsEnabled;

    /// <summary>TCP_NODELAY (disable Nagle). Default true.</summary>
    public bool NoDelay { get; set; } = true;

    /// <summary>SO_RCVBUF in bytes; the OS default when null.</summary>
    public int? ReceiveBufferSize { get; set; }

    /// <summary>SO_SNDBUF in bytes; the OS default when null.</summary>
    public int? SendBufferSize { get; set; }

    /// <summary>The local address a connecting socket is bound to before it connects (SocketLocalHost); the system's
    /// choice when null.</summary>
    public System.Net.IPAddress? LocalAddress { get; set; }

    /// <summary>SO_KEEPALIVE. Default false (FIX heartbeats detect dead peers).</summary>
    public bool KeepAlive { get; set; }

    /// <summary>SO_REUSEADDR on an acceptor's listening socket (Unix only: it lets a restarted acceptor bind over
    /// connections in TIME_WAIT; on Windows it would let two listeners share a port, so it is never set there). Default true.</summary>
    public bool ReuseAddress { get; set; } = true;

    /// <summary>SO_REUSEPORT on an acceptor's listening socket (Linux, macOS): lets other listeners, in this process or
    /// another, bind the same port, and the kernel then splits incoming connections between them. Default false: a second
    /// listener on the port fails to start. Set it only when every listener on the port serves every session on it
    /// from one shared state (never two engines with their own stores).</summary>
    public bool ReusePort { get; set; }

    /// <summary>Whether a frame whose BodyLength does not end at its CheckSum field, or whose CheckSum is wrong, is refused
    /// (a frame error) or delivered as a message all the same (QuickFIX's <c>ValidateLengthAndChecksum=N</c>). Default true.
    /// A connection may change it once its peer is known (<see cref="TransportConnection.SetSessionLimits"/>).</summary>
    public bool ValidateLengthAndChecksum { get; set; } = true;

    /// <summary>SO_LINGER on close in seconds; off (the OS default graceful close) when null.</summary>
    public int? LingerSeconds { get; set; }

    /// <summary>Initial receive buffer size in bytes. Default 64 KiB.</summary>
    /// <remarks>TCP and TLS alike (SslStream decrypts into the same buffer).</remarks>
    public int InitialReceiveBufferBytes { get; set; } = 64 * 1024;

    /// <summary>The receive buffer grows (doubling) up to this many bytes to hold one incomplete frame. Default 4 MiB.</summary>
    /// <remarks>Must be at least <see cref="MaxMessageBodyLength"/> + <see cref="FrameOverheadBytes"/> (checked by <see cref="Validate"/>): the framer
    /// rejects a larger BodyLength after the header, so the largest incomplete frame always fits and the buffer never needs to grow past this.</remarks>
    public int MaxReceiveBufferBytes { get; set; } = 4 * 1024 * 1024;

    /// <summary>Largest BodyLength accepted; a larger one is rejected after the header, without buffering the body. Default 1 MiB.</summary>
    public int MaxMessageBodyLength { get; set; } = 1024 * 1024;

    /// <summary>Largest BodyLength accepted until the owner lifts the limit with <see cref="TransportConnection.SetSessionLimits"/>
    /// (an acceptor does once a Logon has bound the connection to a session); 0 = <see cref="MaxMessageBodyLength"/> from the
    /// start. While it applies the receive buffer is rented at the size of the largest such frame (at most
    /// <see cref="InitialReceiveBufferBytes"/>) and never grows, so an unauthenticated peer holds only that much memory.
    /// Default 0.</summary>
    public int PreLogonMaxMessageBodyLength { get; set; }

    /// <summary>Capacity of the bounded per-connection send queue in bytes (its array grows to it on demand, from
    /// <see cref="InitialSendQueueBytes"/>); also the longest message that can be sent. Default 1 MiB.</summary>
    public int SendQueueBytes { get; set; } = 1024 * 1024;

    /// <summary>Size of the send queue's first array, rented on the first partial send or by
    /// <see cref="TransportConnection.Prewarm"/>; it doubles on demand up to <see cref="SendQueueBytes"/> and is kept, grown,
    /// until the connection closes. Default 16 KiB (clamped to <see cref="SendQueueBytes"/>).</summary>
    public int InitialSendQueueBytes { get; set; } = 16 * 1024;

    /// <summary>Initial size of the encode buffer handed out by <see cref="TransportConnection.GetSendSpan"/>. Default 4 KiB.</summary>
    public int InitialSendBufferBytes { get; set; } = 4 * 1024;

    /// <summary>Consecutive malformed frames (framer errors other than plain garbage, without a valid message in between) tolerated; one more closes with <see cref="DisconnectReason.Garbage"/>. Default 16.</summary>
    public int MaxConsecutiveFrameErrors { get; set; } = 16;

    /// <summary>Bytes skipped by consecutive frame errors tolerated; more close with <see cref="DisconnectReason.Garbage"/>. Default 64 KiB.</summary>
    public int MaxConsecutiveGarbageBytes { get; set; } = 64 * 1024;

    /// <summary>Where receive buffers and send queues are rented; <see cref="ArrayPool{T}.Shared"/> when null.</summary>
    public ArrayPool<byte>? BufferPool { get; set; }

    /// <summary>Most idle <see cref="System.Net.Sockets.SocketAsyncEventArgs"/> kept for reuse by connections created with these options. Default 1024.</summary>
    public int MaxPooledEventArgs { get; set; } = 1024;

    /// <summary>The SocketAsyncEventArgs pool shared by connections created with these options.</summary>
    internal EventArgsPool EventArgsPool
    {
        get
        {
            EventArgsPool? pool = Volatile.Read(ref _eventArgsPool);
            if (pool is null)
            {
                Interlocked.CompareExchange(ref _eventArgsPool, new EventArgsPool(MaxPooledEventArgs), null);
                pool = _eventArgsPool!;
            }
            return pool;
        }
    }

    /// <summary>Checks every value and throws naming the first bad one.</summary>
    /// <exception cref="ArgumentException">A value is out of range or inconsistent with another.</exception>
    public void Validate()
    {
        if (InitialReceiveBufferBytes < 256) Internal.ThrowHelper.ThrowInvalidTcpOptions(nameof(InitialReceiveBufferBytes), InitialReceiveBufferBytes, "must be at least 256");
        if (MaxReceiveBufferBytes < InitialReceiveBufferBytes) Internal.ThrowHelper.ThrowInvalidTcpOptions(nameof(MaxReceiveBufferBytes), MaxReceiveBufferBytes, "must be at least InitialReceiveBufferBytes");
        if (MaxMessageBodyLength < 1) Internal.ThrowHelper.ThrowInvalidTcpOptions(nameof(MaxMessageBodyLength), MaxMessageBodyLength, "must be positive");
        if (PreLogonMaxMessageBodyLength < 0) Internal.ThrowHelper.ThrowInvalidTcpOptions(nameof(PreLogonMaxMessageBodyLength), PreLogonMaxMessageBodyLength, "must not be negative");
        if ((long)MaxMessageBodyLength + FrameOverheadBytes > MaxReceiveBufferBytes)
        {
            Internal.ThrowHelper.ThrowInvalidTcpOptions(nameof(MaxReceiveBufferBytes), MaxReceiveBufferBytes, $"must hold the largest frame (MaxMessageBodyLength {MaxMessageBodyLength} + {FrameOverheadBytes})");
        }
        if (SendQueueBytes < 256) Internal.ThrowHelper.ThrowInvalidTcpOptions(nameof(SendQueueBytes), SendQueueBytes, "must be at least 256");
        if (InitialSendQueueBytes < 256) Internal.ThrowHelper.ThrowInvalidTcpOptions(nameof(InitialSendQueueBytes), InitialSendQueueBytes, "must be at least 256");
        if (InitialSendBufferBytes < 64 || InitialSendBufferBytes > SendQueueBytes) Internal.ThrowHelper.ThrowInvalidTcpOptions(nameof(InitialSendBufferBytes), InitialSendBufferBytes, "must be 64..SendQueueBytes");
        if (MaxConsecutiveFrameErrors < 0) Internal.ThrowHelper.ThrowInvalidTcpOptions(nameof(MaxConsecutiveFrameErrors), MaxConsecutiveFrameErrors, "must not be negative");
        if (MaxConsecutiveGarbageBytes < 0) Internal.ThrowHelper.ThrowInvalidTcpOptions(nameof(MaxConsecutiveGarbageBytes), MaxConsecutiveGarbageBytes, "must not be negative");
        if (ReceiveBufferSize is <= 0) Internal.ThrowHelper.ThrowInvalidTcpOptions(nameof(ReceiveBufferSize), ReceiveBufferSize, "must be positive or null");
        if (SendBufferSize is <= 0) Internal.ThrowHelper.ThrowInvalidTcpOptions(nameof(SendBufferSize), SendBufferSize, "must be positive or null");
        if (LingerSeconds is < 0) Internal.ThrowHelper.ThrowInvalidTcpOptions(nameof(LingerSeconds), LingerSeconds, "must not be negative");
        if (MaxPooledEventArgs < 1) Internal.ThrowHelper.ThrowInvalidTcpOptions(nameof(MaxPooledEventArgs), MaxPooledEventArgs, "must be at least 1");
    }
}
