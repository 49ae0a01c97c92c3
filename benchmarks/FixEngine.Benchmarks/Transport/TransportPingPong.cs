using System;
using System.Collections.Concurrent;
using System.Net;
using System.Net.Sockets;
using System.Text;
using System.Threading;
using FixEngine.Codec;
using FixEngine.Benchmarks.Diagnostics;
using HdrHistogram;
using FixEngine.Timing;
using FixEngine.Transport;

namespace FixEngine.Benchmarks.Transport;

/// <summary>
/// Loopback ping-pong of a 200-byte FIX message: raw blocking Socket pair (the floor), our transport in busy-poll mode,
/// and in completion mode. Each round trip goes into an HdrHistogram; prints p50/p99/p99.9/max, the ratio to the raw
/// floor and the GC counts during the measured window.
/// Run: dotnet run -c Release --project benchmarks/FixEngine.Benchmarks -- transport-pingpong [--quick]
/// </summary>
public static class TransportPingPong
{
    private const int MessageLength = 200;

    public static int Run(string[] args)
    {
        bool quick = Array.IndexOf(args, "--quick") >= 0;
        int warmup = quick ? 20_000 : 100_000;
        int measured = quick ? 100_000 : 1_000_000;
        byte[] message = BuildMessage(MessageLength);
        Console.WriteLine($"transport-pingpong: {MessageLength}-byte message, {warmup:N0} warm-up + {measured:N0} measured round trips, {Environment.ProcessorCount} CPUs");

        Result raw = Measure("raw Socket (blocking)", RawPingPong, message, warmup, measured);
        Result busy = Measure("FixEngine busy-poll", (m, w, n, h) => TransportRun(ReceiveMode.BusyPoll, m, w, n, h), message, warmup, measured);
        Result completion = Measure("FixEngine completion", (m, w, n, h) => TransportRun(ReceiveMode.Completion, m, w, n, h), message, warmup, measured);

        Console.WriteLine();
        Console.WriteLine("| mode | p50 µs | p99 µs | p99.9 µs | max µs | p50 / raw | Gen0/1/2 GCs in window |");
        Console.WriteLine("|---|---:|---:|---:|---:|---:|---|");
        foreach (Result r in new[] { raw, busy, completion })
        {
            Console.WriteLine($"| {r.Name} | {Us(r.P50)} | {Us(r.P99)} | {Us(r.P999)} | {Us(r.Max)} | {(double)r.P50 / raw.P50:0.00}x | {r.Gc0}/{r.Gc1}/{r.Gc2} |");
        }
        Console.WriteLine();
        Console.WriteLine("Targets: busy-poll p50 within 1.2x of raw, completion within 1.5x, 0 GCs in the window.");
        return 0;
    }

    private static string Us(long ns) => (ns / 1000.0).ToString("0.0");

    private readonly record struct Result(string Name, long P50, long P99, long P999, long Max, int Gc0, int Gc1, int Gc2);

    private delegate void PingPong(byte[] message, int warmup, int measured, HistogramBase histogram);

    private static Result Measure(string name, PingPong run, byte[] message, int warmup, int measured)
    {
        var histogram = Histograms.Create();
        run(message, warmup, measured, histogram);
        Result r = new(name, histogram.GetValueAtPercentile(50), histogram.GetValueAtPercentile(99), histogram.GetValueAtPercentile(99.9), histogram.GetMaxValue(),
            s_gc0, s_gc1, s_gc2);
        Console.WriteLine($"  {name}: {histogram.TotalCount:N0} samples, p50 {Us(r.P50)} µs");
        return r;
    }

    private static int s_gc0, s_gc1, s_gc2;
    private static int[] s_gcStart = new int[3];

    private static void StartWindow()
    {
        s_gcStart = [GC.CollectionCount(0), GC.CollectionCount(1), GC.CollectionCount(2)];
    }

    private static void EndWindow()
    {
        s_gc0 = GC.CollectionCount(0) - s_gcStart[0];
        s_gc1 = GC.CollectionCount(1) - s_gcStart[1];
        s_gc2 = GC.CollectionCount(2) - s_gcStart[2];
    }

    private static byte[] BuildMessage(int totalLength)
    {
        // 8=FIX.4.4|9=nnn|...|58=xxx|10=ccc| padded to the requested total length.
        string Body(int pad) => $"35=D\u000134=1\u000149=CLIENT\u000156=BROKER\u000152=20260101-00:00:00.000\u000111=ORD1\u000155=MSFT\u000154=1\u000138=100\u000140=2\u000144=101.25\u000158={new string('x', pad)}\u0001";
        for (int pad = 1; pad < totalLength; pad++)
        {
            string body = Body(pad);
            string head = $"8=FIX.4.4\u00019={body.Length}\u0001";
            int sum = 0;
            foreach (char c in head + body) sum += c;
            byte[] bytes = Encoding.ASCII.GetBytes(head + body + $"10={sum % 256:000}\u0001");
            if (bytes.Length == totalLength) return bytes;
        }
        throw new InvalidOperationException("cannot build the message");
    }

    private static void RawPingPong(byte[] message, int warmup, int measured, HistogramBase histogram)
    {
        using var listener = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        listener.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        listener.Listen(1);
        using var client = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        client.Connect(listener.LocalEndPoint!);
        using Socket server = listener.Accept();
        server.NoDelay = true;
        int total = warmup + measured;
        var echo = new Thread(() =>
        {
            byte[] buffer = new byte[message.Length];
            for (int i = 0; i < total; i++)
            {
                ReceiveExactly(server, buffer);
                server.Send(buffer);
            }
        }) { IsBackground = true, Name = "raw-echo" };
        echo.Start();
        byte[] reply = new byte[message.Length];
        for (int i = 0; i < total; i++)
        {
            if (i == warmup) StartWindow();
            long start = HighResTime.NowNs();
            client.Send(message);
            ReceiveExactly(client, reply);
            if (i >= warmup) Histograms.Record(histogram, HighResTime.NowNs() - start);
        }
        EndWindow();
        echo.Join();
    }

    private static void ReceiveExactly(Socket socket, byte[] buffer)
    {
        int read = 0;
        while (read < buffer.Length)
        {
            int n = socket.Receive(buffer, read, buffer.Length - read, SocketFlags.None);
            if (n == 0) throw new InvalidOperationException("peer closed");
            read += n;
        }
    }

    private sealed class EchoHandler : IConnectionHandler
    {
        public void OnMessage(TransportConnection connection, ReadOnlySpan<byte> message) => connection.TrySend(message);

        public void OnFrameError(TransportConnection connection, in FrameResult error, ReadOnlySpan<byte> skipped) =>
            throw new InvalidOperationException(error.Describe());

        public void OnDisconnected(TransportConnection connection, DisconnectReason reason, string? detail)
        {
        }
    }

    private sealed class ReplyHandler : IConnectionHandler
    {
        public int Replies;

        public void OnMessage(TransportConnection connection, ReadOnlySpan<byte> message) => Volatile.Write(ref Replies, Replies + 1);

        public void OnFrameError(TransportConnection connection, in FrameResult error, ReadOnlySpan<byte> skipped) =>
            throw new InvalidOperationException(error.Describe());

        public void OnDisconnected(TransportConnection connection, DisconnectReason reason, string? detail)
        {
        }
    }

    private static void TransportRun(ReceiveMode mode, byte[] message, int warmup, int measured, HistogramBase histogram)
    {
        var options = new TcpConnectionOptions { ReceiveMode = mode };
        var accepted = new BlockingCollection<TcpConnection>();
        using var acceptor = new TcpAcceptor(new IPEndPoint(IPAddress.Loopback, 0), options, c =>
        {
            accepted.Add(c);
            return new EchoHandler();
        });
        acceptor.Start();
        var replies = new ReplyHandler();
        TcpConnection client = TcpConnector.Connect(acceptor.LocalEndPoint, TimeSpan.FromSeconds(5), options, replies);
        TcpConnection server = accepted.Take();
        client.Prewarm();
        server.Prewarm();
        int total = warmup + measured;
        Thread? echo = null;
        if (mode == ReceiveMode.BusyPoll)
        {
            // The echo side spins on its own thread (one core); the measuring thread polls the client (the other core).
            echo = new Thread(() =>
            {
                while (!server.IsClosed) server.Poll(0);
            }) { IsBackground = true, Name = "busy-echo" };
            echo.Start();
        }
        else
        {
            server.Start();
            client.Start();
        }
        for (int i = 0; i < total; i++)
        {
            if (i == warmup) StartWindow();
            long start = HighResTime.NowNs();
            message.CopyTo(client.GetSendSpan(message.Length));
            client.Commit(message.Length);
            if (mode == ReceiveMode.BusyPoll)
            {
                while (Volatile.Read(ref replies.Replies) == i) client.Poll(0);
            }
            else
            {
                while (Volatile.Read(ref replies.Replies) == i) Thread.SpinWait(1);
            }
            if (i >= warmup) Histograms.Record(histogram, HighResTime.NowNs() - start);
        }
        EndWindow();
        client.Close();
        SpinWait.SpinUntil(() => server.IsClosed, TimeSpan.FromSeconds(5));
        server.Close();
        echo?.Join(TimeSpan.FromSeconds(5));
    }
}
