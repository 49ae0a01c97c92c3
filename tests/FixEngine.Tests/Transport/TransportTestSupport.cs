using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Net;
using System.Net.Sockets;
using System.Text;
using System.Threading;
using FixEngine.Codec;
using FixEngine.Hosting;
using FixEngine.Tests.Infrastructure;
using FixEngine.Timing;
using FixEngine.Transport;

namespace FixEngine.Tests.Transport;

/// <summary>Records every callback; optionally runs a hook on each message (e.g. echo).</summary>
internal sealed class RecordingHandler : IConnectionHandler
{
    private readonly bool _keepMessages;
    private int _disconnects;

    public RecordingHandler(bool keepMessages = true) => _keepMessages = keepMessages;

    public readonly ConcurrentQueue<byte[]> Messages = new();
    public readonly ConcurrentQueue<(FrameStatus Status, int Skipped, int Capacity)> Errors = new();
    public long MessageCount;
    public int MaxCapacitySeen;
    public DisconnectReason Reason;
    public string? Detail;
    public readonly ManualResetEventSlim Disconnected = new(false);

    public Action<TransportConnection, ReadOnlySpan<byte>>? OnMessageHook { get; set; }

    public Action<TransportConnection, FrameResult>? OnFrameErrorHook { get; set; }

    public int DisconnectCount => Volatile.Read(ref _disconnects);

    public void OnMessage(TransportConnection connection, ReadOnlySpan<byte> message)
    {
        MaxCapacitySeen = Math.Max(MaxCapacitySeen, connection.ReceiveBufferCapacity);
        if (_keepMessages) Messages.Enqueue(message.ToArray());
        OnMessageHook?.Invoke(connection, message);
        Interlocked.Increment(ref MessageCount);
    }

    public void OnFrameError(TransportConnection connection, in FrameResult error, ReadOnlySpan<byte> skipped)
    {
        MaxCapacitySeen = Math.Max(MaxCapacitySeen, connection.ReceiveBufferCapacity);
        Errors.Enqueue((error.Status, skipped.Length, connection.ReceiveBufferCapacity));
        OnFrameErrorHook?.Invoke(connection, error);
    }

    public void OnDisconnected(TransportConnection connection, DisconnectReason reason, string? detail)
    {
        Reason = reason;
        Detail = detail;
        Interlocked.Increment(ref _disconnects);
        Disconnected.Set();
    }
}

/// <summary>An acceptor on loopback plus, per test, connected client/server pairs; busy-poll connections run on one poller thread.</summary>
internal sealed class Loopback : IDisposable
{
    public static readonly TimeSpan Wait = TimeSpan.FromSeconds(20);

    private readonly BlockingCollection<TcpConnection> _accepted = new();
    private readonly ConcurrentDictionary<TcpConnection, IConnectionHandler> _serverHandlers = new();
    private AgentRunner? _runner;

    public Loopback(ReceiveMode mode, TcpConnectionOptions? options = null, IPAddress? address = null, bool startServerConnections = true)
    {
        Mode = mode;
        Pool = new LeakTrackingArrayPool<byte>();
        Options = options ?? new TcpConnectionOptions();
        Options.ReceiveMode = mode;
        Options.BufferPool = Pool;
        Poller = new ConnectionPoller("test-poller");
        Acceptor = new TcpAcceptor(new IPEndPoint(address ?? IPAddress.Loopback, 0), Options, connection =>
        {
            var handler = ServerHandlerFactory();
            _serverHandlers[connection] = handler;
            if (startServerConnections) Launch(connection);
            _accepted.Add(connection);
            // Runs after the connection was handed to its receiving thread but before the acceptor sets its handler.
            BeforeAcceptReturns?.Invoke(connection);
            return handler;
        });
        Acceptor.Start();
        if (mode == ReceiveMode.BusyPoll)
        {
            _runner = new AgentRunner(Poller, new AgentRunnerOptions { IdleStrategy = new BackoffIdleStrategy(maxSpins: 10, maxYields: 10, maxParkMs: 1) });
            _runner.Start();
        }
    }

    public ReceiveMode Mode { get; }
    public TcpConnectionOptions Options { get; }
    public LeakTrackingArrayPool<byte> Pool { get; }
    public TcpAcceptor Acceptor { get; }
    public ConnectionPoller Poller { get; }
    public Func<IConnectionHandler> ServerHandlerFactory { get; set; } = () => new RecordingHandler();

    /// <summary>Called at the end of the accept handler (acceptor thread), after <see cref="Launch"/> and after the test may take the connection.</summary>
    public Action<TcpConnection>? BeforeAcceptReturns { get; set; }

    public IPEndPoint EndPoint => Acceptor.LocalEndPoint;

    /// <summary>Starts a connection in its mode (completion: Start; busy-poll: hand to the poller thread).</summary>
    public void Launch(TransportConnection connection)
    {
        if (Mode == ReceiveMode.BusyPoll) Poller.Add(connection);
        else connection.Start();
    }

    public (TcpConnection Client, RecordingHandler ClientHandler, TcpConnection Server, RecordingHandler ServerHandler) Connect(IPEndPoint? to = null)
    {
        var clientHandler = new RecordingHandler();
        TcpConnection client = TcpConnector.Connect(to ?? EndPoint, TimeSpan.FromSeconds(5), Options, clientHandler);
        Launch(client);
        TcpConnection server = TakeAccepted();
        return (client, clientHandler, server, (RecordingHandler)_serverHandlers[server]);
    }

    /// <summary>A raw blocking socket client and the server-side connection it produced.</summary>
    public (Socket Raw, TcpConnection Server, RecordingHandler ServerHandler) ConnectRaw()
    {
        var raw = new Socket(EndPoint.AddressFamily, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        raw.Connect(EndPoint);
        TcpConnection server = TakeAccepted();
        return (raw, server, (RecordingHandler)_serverHandlers[server]);
    }

    /// <summary>The handler the accept handler gave <paramref name="server"/>.</summary>
    public IConnectionHandler HandlerOf(TcpConnection server) => _serverHandlers[server];

    public TcpConnection TakeAccepted()
    {
        Assert.True(_accepted.TryTake(out TcpConnection? server, Wait), "no connection accepted");
        return server!;
    }

    public void Dispose()
    {
        Acceptor.Dispose();
        _runner?.Dispose();
    }

    /// <summary>Stops the poller, then checks every pooled array and SAEA came back.</summary>
    public void AssertNoLeaks()
    {
        Assert.True(SpinWait.SpinUntil(() => Pool.Outstanding == 0 && Options.EventArgsPool.Outstanding == 0, Wait),
            $"leaked: {Pool.Outstanding} arrays, {Options.EventArgsPool.Outstanding} event args");
        Pool.AssertClean();
    }

    public static bool Until(Func<bool> condition) => SpinWait.SpinUntil(condition, Wait);

    /// <summary>The server side's state for an assertion message, so a failure explains itself.</summary>
    public string Describe(TransportConnection server, RecordingHandler handler, long expectedBytes) =>
        $"handler got {handler.Messages.Count} messages ({Volatile.Read(ref handler.MessageCount)} counted), {handler.Errors.Count} frame errors, " +
        $"{handler.DisconnectCount} disconnects ({handler.Reason} '{handler.Detail}'); server {server.Name}: {server.BytesReceived} of {expectedBytes} bytes, " +
        $"{server.MessagesReceived} messages, {server.FrameErrors} frame errors, buffer {server.ReceiveBufferCapacity}, closing {server.IsClosing}, closed {server.IsClosed}, " +
        $"reason {server.DisconnectReason} '{server.DisconnectDetail}'; poller: {Poller.Count} connections, runner running {_runner?.IsRunning}, " +
        $"{_runner?.ErrorCount} errors (last: {_runner?.LastError?.GetType().Name} {_runner?.LastError?.Message})";
}

internal static class FixMessages
{
    /// <summary>A valid message with a fixed-width 8-digit sequence number in MsgSeqNum (34), padded to about <paramref name="size"/> bytes.</summary>
    public static byte[] Numbered(long seq, int size = 0)
    {
        string pad = size > 90 ? new string('x', size - 90) : "";
        return Build("FIX.4.4", $"35=0|34={seq:D8}|49=SENDER|56=TARGET|52=20260101-00:00:00.000|58={pad}|");
    }

    public static byte[] Build(string beginString, string pipeBody)
    {
        string body = pipeBody.Replace('|', '\u0001');
        string head = "8=" + beginString + "\u00019=" + Encoding.Latin1.GetByteCount(body) + "\u0001";
        byte[] withoutTrailer = Encoding.Latin1.GetBytes(head + body);
        int sum = 0;
        foreach (byte b in withoutTrailer) sum += b;
        return Encoding.Latin1.GetBytes(head + body + "10=" + (sum % 256).ToString("000") + "\u0001");
    }

    /// <summary>Writes the same layout as <see cref="Numbered"/> (no padding) into a span without allocating; returns the length.</summary>
    public static int WriteNumbered(Span<byte> destination, long seq)
    {
        ReadOnlySpan<byte> template = Template;
        template.CopyTo(destination);
        int at = SeqOffset;
        for (int i = 7; i >= 0; i--)
        {
            destination[at + i] = (byte)('0' + seq % 10);
            seq /= 10;
        }
        int checkSumAt = template.Length - 4;
        int sum = 0;
        for (int i = 0; i < template.Length - 7; i++) sum += destination[i];
        sum %= 256;
        destination[checkSumAt] = (byte)('0' + sum / 100);
        destination[checkSumAt + 1] = (byte)('0' + sum / 10 % 10);
        destination[checkSumAt + 2] = (byte)('0' + sum % 10);
        return template.Length;
    }

    /// <summary>Reads the 8-digit MsgSeqNum written by <see cref="Numbered"/>/<see cref="WriteNumbered"/>.</summary>
    public static long ReadSeq(ReadOnlySpan<byte> message)
    {
        int at = message.IndexOf("\u000134="u8) + 4;
        long seq = 0;
        for (int i = 0; i < 8; i++) seq = seq * 10 + (message[at + i] - '0');
        return seq;
    }

    private static readonly byte[] s_template = Numbered(0);
    private static readonly int s_seqOffset = s_template.AsSpan().IndexOf("\u000134="u8) + 4;

    private static ReadOnlySpan<byte> Template => s_template;
    private static int SeqOffset => s_seqOffset;
}
