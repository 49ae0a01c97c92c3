using System;
using System.Net.Sockets;
using System.Threading;
using FixEngine.Codec;
using FixEngine.Timing;

namespace FixEngine.Benchmarks.RoundTrip;

/// <summary>Codec over raw TCP: FixWriter encodes, FixFramer frames and FixMessageIndex parses on both sides, with no
/// session layer, so the difference to the floor is the codec's cost.</summary>
/// <remarks>
/// The initiator encodes a NewOrderSingle per order; the acceptor frames and parses it and answers with an
/// ExecutionReport built from its fields; the initiator's receive thread frames and parses the report and reads the
/// intended send time back from ClOrdID. Blocking sockets on dedicated threads, NoDelay. Allocation-free after
/// <see cref="Start"/>. The acceptor can also run in another process (<see cref="CodecAcceptor"/>).
/// </remarks>
public sealed class CodecTcpSystem : IRoundTripSystem
{
    // Design: the sender thread owns _messages/_orderBuffer and the initiator socket's send side; the receive thread
    // owns _reader/_replyIndex and the receive side; the acceptor owns its own buffers. Nothing else is shared.
    private readonly OrderFlowMessages _messages = new();
    private readonly byte[] _orderBuffer = new byte[512];
    private readonly ReplyReader _replyReader = new();
    private readonly int _remoteAcceptorPort;
    private Socket? _initiator;
    private CodecAcceptor? _acceptor;
    private Thread? _receiveThread;

    /// <summary>Creates the system with an in-process acceptor (port 0) or one already listening on a port.</summary>
    /// <param name="name">Report key.</param>
    /// <param name="remoteAcceptorPort">0 for an in-process acceptor, else the port of an acceptor in another process.</param>
    public CodecTcpSystem(string name = "codec", int remoteAcceptorPort = 0)
    {
        Name = name;
        _remoteAcceptorPort = remoteAcceptorPort;
    }

    /// <inheritdoc/>
    public string Name { get; }

    /// <inheritdoc/>
    public void Start(IReplyHandler handler)
    {
        _replyReader.Handler = handler;
        if (_remoteAcceptorPort != 0)
        {
            _initiator = LoopbackTcp.Connect(_remoteAcceptorPort);
        }
        else
        {
            (Socket initiator, Socket acceptorSocket) = LoopbackTcp.CreatePair();
            _initiator = initiator;
            _acceptor = new CodecAcceptor(acceptorSocket);
            _acceptor.Start();
        }
        _receiveThread = LoopbackTcp.StartThread("codec-initiator-rx", ReceiveLoop);
    }

    /// <inheritdoc/>
    public void SendOrder(long msgSeqNum, long intendedSendNs)
    {
        long epochNs = EpochClock.Shared.ToEpochNs(HighResTime.NowNs());
        int length = _messages.EncodeNewOrderSingle(_orderBuffer, msgSeqNum, intendedSendNs, epochNs);
        LoopbackTcp.SendAll(_initiator!, _orderBuffer.AsSpan(0, length));
    }

    private void ReceiveLoop()
    {
        try
        {
            new FixStreamReader().Run(_initiator!, _replyReader);
        }
        catch (Exception e) when (LoopbackTcp.IsClosedError(e))
        {
        }
    }

    /// <inheritdoc/>
    public void Stop()
    {
        LoopbackTcp.CloseQuietly(_initiator);
        _acceptor?.Stop();
        _receiveThread?.Join(5_000);
        _initiator = null;
        _acceptor = null;
        _receiveThread = null;
    }

    /// <inheritdoc/>
    public void Dispose() => Stop();

    /// <summary>Parses ExecutionReports and passes the ClOrdID (intended send time) on.</summary>
    internal sealed class ReplyReader : IFrameHandler
    {
        private readonly FixMessageIndex _index = new(64);

        public IReplyHandler? Handler { get; set; }

        public void OnFrame(ReadOnlySpan<byte> frame)
        {
            _index.Parse(frame);
            FixMessage report = _index.Bind(frame);
            if (report.MsgType.SequenceEqual(MsgTypes.ExecutionReport)
                && report.TryGetLong(FixTags.ClOrdID, out long intendedSendNs) == FixValueStatus.Ok)
            {
                Handler!.OnReply(intendedSendNs);
            }
            else
            {
                Handler!.OnReplyError();
            }
        }

        public void OnFrameError(FrameStatus status) => Handler!.OnReplyError();
    }
}

/// <summary>The codec configuration's acceptor: answers each NewOrderSingle with an ExecutionReport on one connection.</summary>
/// <remarks>Owns one thread and its buffers; allocation-free after <see cref="Start"/>. <see cref="Errors"/> counts
/// frames it could not answer.</remarks>
public sealed class CodecAcceptor : IFrameHandler
{
    // Design: the acceptor thread owns every field; _errors is also read by other threads (Errors), so it is read
    // with Volatile.Read; a stale count is fine (it is only reported after the thread is joined).
    private readonly Socket _socket;
    private readonly OrderFlowMessages _messages = new();
    private readonly FixMessageIndex _index = new(64);
    private readonly byte[] _reportBuffer = new byte[1024];
    private long _nextSeqNum = 1;
    private long _errors;
    private Thread? _thread;

    /// <summary>Wraps a connected socket.</summary>
    public CodecAcceptor(Socket socket) => _socket = socket;

    /// <summary>Frames the acceptor could not answer.</summary>
    public long Errors => Volatile.Read(ref _errors);

    /// <summary>Starts the acceptor thread.</summary>
    public void Start() => _thread = LoopbackTcp.StartThread("codec-acceptor", Run);

    /// <summary>Runs on the calling thread until the peer closes.</summary>
    public void Run()
    {
        try
        {
            new FixStreamReader().Run(_socket, this);
        }
        catch (Exception e) when (LoopbackTcp.IsClosedError(e))
        {
        }
    }

    /// <summary>Closes the connection and joins the thread.</summary>
    public void Stop()
    {
        LoopbackTcp.CloseQuietly(_socket);
        _thread?.Join(5_000);
    }

    void IFrameHandler.OnFrame(ReadOnlySpan<byte> frame)
    {
        _index.Parse(frame);
        FixMessage order = _index.Bind(frame);
        if (!order.MsgType.SequenceEqual(MsgTypes.NewOrderSingle))
        {
            _errors++;
            return;
        }
        long epochNs = EpochClock.Shared.ToEpochNs(HighResTime.NowNs());
        int length = _messages.EncodeExecutionReport(_reportBuffer, order, _nextSeqNum, epochNs);
        if (length == 0)
        {
            _errors++;
            return;
        }
        _nextSeqNum++;
        LoopbackTcp.SendAll(_socket, _reportBuffer.AsSpan(0, length));
    }

    void IFrameHandler.OnFrameError(FrameStatus status) => _errors++;
}
