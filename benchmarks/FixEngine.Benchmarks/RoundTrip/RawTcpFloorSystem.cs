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
/// <see cref="Start"/>.
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

    /// <summary>Creates the floor with the given message sizes (at least 16 bytes each).</summary>
    public RawTcpFloorSystem(int orderLength, int replyLength)
    {
        _order = new byte[Math.Max(16, orderLength)];
        _orderIn = new byte[_order.Length];
        _reply = new byte[Math.Max(16, replyLength)];
        _replyIn = new byte[_reply.Length];
        _order.AsSpan().Fill((byte)'o');
        _reply.AsSpan().Fill((byte)'r');
    }

    /// <inheritdoc/>
    public string Name => "floor";

    /// <inheritdoc/>
    public void Start(IReplyHandler handler)
    {
        _handler = handler;
        (_initiator, _acceptor) = LoopbackTcp.CreatePair();
        _acceptorThread = LoopbackTcp.StartThread("floor-acceptor", AcceptorLoop);
        _receiveThread = LoopbackTcp.StartThread("floor-initiator-rx", ReceiveLoop);
    }

    /// <inheritdoc/>
    public void SendOrder(long msgSeqNum, long intendedSendNs)
    {
        BinaryPrimitives.WriteInt64LittleEndian(_order, intendedSendNs);
        BinaryPrimitives.WriteInt64LittleEndian(_order.AsSpan(8), msgSeqNum);
        LoopbackTcp.SendAll(_initiator!, _order);
    }

    private void AcceptorLoop()
    {
        Socket socket = _acceptor!;
        try
        {
            while (LoopbackTcp.ReceiveExactly(socket, _orderIn))
            {
                _orderIn.AsSpan(0, 16).CopyTo(_reply);
                LoopbackTcp.SendAll(socket, _reply);
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
