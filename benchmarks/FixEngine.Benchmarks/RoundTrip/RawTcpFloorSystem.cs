using System;
using System.Buffers.Binary;
using System.Net.Sockets;
using System.Threading;

namespace FixEngine.Benchmarks.RoundTrip;

/// <summary>The floor: a raw TCP ping-pong over loopback with messages of the same sizes as the FIX order and report.</summary>
/// <remarks>
/// No encoding, no parsing: the order is a fixed byte block with the intended send time and sequence number stamped
/// into its first 16 bytes; the acceptor thread reads exactly one order and echoes those 16 bytes in a reply block of
/// the report's size. Blocking <see cref="Socket"/> calls on dedicated threads, NoDelay. Allocation-free after
/// <see cref="Start"/>. With a remote acceptor port (<c>floor-2proc</c>) the acceptor thread runs <see cref="Echo"/> in a
/// child process (<see cref="AcceptorProcess"/>), as the <c>-2proc</c> session configurations' acceptors do.
/// </remarks>
public sealed class RawTcpFloorSystem : IRoundTripSystem
{
    // Design: three threads. The harness's sender thread owns _order and the initiator socket's send side; the
    // initiator receive thread owns _replyIn and the socket's receive side; the acceptor thread owns _orderIn/_reply
    // and the acceptor socket. No field is shared between them except the sockets (full duplex, one sender and one
    // receiver each), so no synchronisation is needed beyond Start/Stop's thread start and join.
    private readonly byte[] _order;
    private readonly byte[] _orderIn;
    private readonly byte[] _reply;
    private readonly byte[] _replyIn;
    private Socket? _initiator;
    private Socket? _acceptor;
    private Thread? _acceptorThread;
    private Thread? _receiveThread;
    private IReplyHandler? _handler;
    private readonly int _remoteAcceptorPort;

    /// <summary>Creates the floor with the given message sizes (at least 16 bytes each).</summary>
    /// <param name="orderLength">Bytes per order.</param>
    /// <param name="replyLength">Bytes per reply.</param>
    /// <param name="name">Report key.</param>
    /// <param name="remoteAcceptorPort">0 for the in-process acceptor thread, else the port of an <see cref="Echo"/>
    /// acceptor in another process.</param>
    public RawTcpFloorSystem(int orderLength, int replyLength, string name = "floor", int remoteAcceptorPort = 0)
    {
        Name = name;
        _remoteAcceptorPort = remoteAcceptorPort;
        _order = new byte[Math.Max(16, orderLength)];
        _orderIn = new byte[_order.Length];
        _reply = new byte[Math.Max(16, replyLength)];
        _replyIn = new byte[_reply.Length];
        _order.AsSpan().Fill((byte)'o');
        _reply.AsSpan().Fill((byte)'r');
    }

    /// <inheritdoc/>
    public string Name { get; }

    /// <inheritdoc/>
    public void Start(IReplyHandler handler)
    {
        _handler = handler;
        if (_remoteAcceptorPort != 0)
        {
            _initiator = LoopbackTcp.Connect(_remoteAcceptorPort);
        }
        else
        {
            (_initiator, _acceptor) = LoopbackTcp.CreatePair();
            _acceptorThread = LoopbackTcp.StartThread("floor-acceptor", AcceptorLoop);
        }
        _receiveThread = LoopbackTcp.StartThread("floor-initiator-rx", ReceiveLoop);
    }

    /// <inheritdoc/>
    public void SendOrder(long msgSeqNum, long intendedSendNs)
    {
        BinaryPrimitives.WriteInt64LittleEndian(_order, intendedSendNs);
        BinaryPrimitives.WriteInt64LittleEndian(_order.AsSpan(8), msgSeqNum);
        LoopbackTcp.SendAll(_initiator!, _order);
    }

    private void AcceptorLoop() => Echo(_acceptor!, _orderIn, _reply);

    /// <summary>The floor's acceptor: reads one order of <paramref name="orderIn"/>'s length at a time and answers each with
    /// <paramref name="reply"/>, its first 16 bytes the order's, until the connection closes.</summary>
    public static void Echo(Socket socket, byte[] orderIn, byte[] reply)
    {
        try
        {
            while (LoopbackTcp.ReceiveExactly(socket, orderIn))
            {
                orderIn.AsSpan(0, 16).CopyTo(reply);
                LoopbackTcp.SendAll(socket, reply);
            }
        }
        catch (Exception e) when (LoopbackTcp.IsClosedError(e))
        {
        }
    }

    private void ReceiveLoop()
    {
        Socket socket = _initiator!;
        IReplyHandler handler = _handler!;
        try
        {
            while (LoopbackTcp.ReceiveExactly(socket, _replyIn))
            {
                handler.OnReply(BinaryPrimitives.ReadInt64LittleEndian(_replyIn));
            }
        }
        catch (Exception e) when (LoopbackTcp.IsClosedError(e))
        {
        }
    }

    /// <inheritdoc/>
    public void Stop()
    {
        LoopbackTcp.CloseQuietly(_initiator);
        LoopbackTcp.CloseQuietly(_acceptor);
        _acceptorThread?.Join(5_000);
        _receiveThread?.Join(5_000);
        _initiator = null;
        _acceptor = null;
        _acceptorThread = null;
        _receiveThread = null;
    }

    /// <inheritdoc/>
    public void Dispose() => Stop();
}
