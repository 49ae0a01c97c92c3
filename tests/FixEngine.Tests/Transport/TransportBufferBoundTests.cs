using System;
using System.Collections.Generic;
using System.Linq;
using System.Net;
using System.Net.Sockets;
using System.Text;
using FixEngine.Codec;
using FixEngine.Transport;

namespace FixEngine.Tests.Transport;

/// <summary>
/// The receive buffer can never fill with one incomplete frame at its maximum: FixFramer waits for at most
/// MaxMessageBodyLength + 54 bytes, and the options require MaxReceiveBufferBytes >= MaxMessageBodyLength + 64.
/// So there is no "message too large for the buffer" disconnect: a BodyLength over the maximum is a frame error.
/// </summary>
public class TransportBufferBoundTests
{
    private const int FrameOverhead = TcpConnectionOptions.FrameOverheadBytes;

    [Fact]
    public void OptionsRejectAReceiveBufferThatCannotHoldTheLargestFrame()
    {
        new TcpConnectionOptions().Validate();
        new TcpConnectionOptions { InitialReceiveBufferBytes = 256, MaxMessageBodyLength = 8192, MaxReceiveBufferBytes = 8192 + FrameOverhead }.Validate();

        var bad = new TcpConnectionOptions { InitialReceiveBufferBytes = 256, MaxMessageBodyLength = 8192, MaxReceiveBufferBytes = 8192 + FrameOverhead - 1 };
        var ex = Assert.Throws<ArgumentException>(bad.Validate);
        Assert.Equal(nameof(TcpConnectionOptions.MaxReceiveBufferBytes), ex.ParamName);
        Assert.Contains("MaxMessageBodyLength 8192", ex.Message);
        // Every way to make a connection validates, so an inconsistent pair never reaches a receive loop.
        Assert.Throws<ArgumentException>(() => new TcpAcceptor(new IPEndPoint(IPAddress.Loopback, 0), bad, _ => null));
        Assert.Throws<ArgumentException>(() => TcpConnector.Connect(new IPEndPoint(IPAddress.Loopback, 1), TimeSpan.FromSeconds(1), bad, new RecordingHandler()));
        Assert.Throws<ArgumentException>(() => new TlsAcceptor(new IPEndPoint(IPAddress.Loopback, 0), bad, new TlsOptions(), _ => null));
        // No int overflow at the top of the range.
        Assert.Throws<ArgumentException>(new TcpConnectionOptions { MaxMessageBodyLength = int.MaxValue, MaxReceiveBufferBytes = int.MaxValue }.Validate);
    }

    // TcpConnectionOptions is internal, so the theory takes the option's name and looks up how to spoil it.
    private static readonly Dictionary<string, Action<TcpConnectionOptions>> s_spoilers = new()
    {
        [nameof(TcpConnectionOptions.InitialReceiveBufferBytes)] = o => o.InitialReceiveBufferBytes = 255,
        [nameof(TcpConnectionOptions.MaxReceiveBufferBytes)] = o => o.MaxReceiveBufferBytes = o.InitialReceiveBufferBytes - 1,
        [nameof(TcpConnectionOptions.MaxMessageBodyLength)] = o => o.MaxMessageBodyLength = 0,
        [nameof(TcpConnectionOptions.SendQueueBytes)] = o => o.SendQueueBytes = 255,
        [nameof(TcpConnectionOptions.InitialSendBufferBytes)] = o => o.InitialSendBufferBytes = o.SendQueueBytes + 1,
        [nameof(TcpConnectionOptions.MaxConsecutiveFrameErrors)] = o => o.MaxConsecutiveFrameErrors = -1,
        [nameof(TcpConnectionOptions.MaxConsecutiveGarbageBytes)] = o => o.MaxConsecutiveGarbageBytes = -1,
        [nameof(TcpConnectionOptions.ReceiveBufferSize)] = o => o.ReceiveBufferSize = 0,
        [nameof(TcpConnectionOptions.SendBufferSize)] = o => o.SendBufferSize = -1,
        [nameof(TcpConnectionOptions.LingerSeconds)] = o => o.LingerSeconds = -1,
        [nameof(TcpConnectionOptions.MaxPooledEventArgs)] = o => o.MaxPooledEventArgs = 0,
    };

    public static readonly TheoryData<string> InvalidOptions = new(s_spoilers.Keys.ToArray());

    [Theory]
    [MemberData(nameof(InvalidOptions))]
    public void EachInvalidOptionIsNamed(string option)
    {
        var options = new TcpConnectionOptions();
        s_spoilers[option](options);
        var ex = Assert.Throws<ArgumentException>(options.Validate);
        Assert.Equal(option, ex.ParamName);
        Assert.StartsWith($"TcpConnectionOptions.{option} = ", ex.Message);
    }

    /// <summary>The worst-case header: the longest BeginString and all nine BodyLength digits.</summary>
    private static string WorstCaseHeader(int bodyLength) =>
        "8=FIX" + new string('X', FixFramer.MaxBeginStringLength - 3) + "\u0001" + "9=" + bodyLength.ToString("D9") + "\u0001";

    /// <summary>A valid frame with the worst-case header and a body of exactly <paramref name="bodyLength"/> bytes carrying MsgSeqNum <paramref name="seq"/>.</summary>
    private static byte[] WorstCaseFrame(int bodyLength, long seq)
    {
        string start = $"35=0\u000134={seq:D8}\u000158=";
        string body = start + new string('p', bodyLength - start.Length - 1) + "\u0001";
        byte[] withoutTrailer = Encoding.Latin1.GetBytes(WorstCaseHeader(bodyLength) + body);
        int sum = withoutTrailer.Sum(b => (int)b) % 256;
        return withoutTrailer.Concat(Encoding.Latin1.GetBytes($"10={sum:000}\u0001")).ToArray();
    }

    /// <summary>The longest prefix of <paramref name="bytes"/> for which the framer answers NeedMoreData.</summary>
    private static int LongestWait(byte[] bytes, int maxBodyLength)
    {
        int longest = 0;
        for (int length = 1; length <= bytes.Length; length++)
        {
            if (FixFramer.Frame(bytes.AsSpan(0, length), maxBodyLength).Status == FrameStatus.NeedMoreData) longest = length;
        }
        return longest;
    }

    [Theory]
    [InlineData(1)]
    [InlineData(100)]
    [InlineData(8192)]
    public void TheFramerNeverWaitsForMoreThanTheLargestFrame(int maxBodyLength)
    {
        int limit = maxBodyLength + FrameOverhead - 1; // the most an incomplete frame may hold in a buffer of the minimum valid maximum
        string header = WorstCaseHeader(maxBodyLength);
        byte[] filler = Enumerable.Repeat((byte)'a', maxBodyLength + 2 * FrameOverhead).ToArray();

        // A body that never reaches a trailer.
        byte[] unterminated = Encoding.Latin1.GetBytes(header).Concat(filler).ToArray();
        // A CheckSum tag after the declared end whose value never ends.
        byte[] endlessCheckSum = Encoding.Latin1.GetBytes(header + new string('a', maxBodyLength) + "x\u000110=").Concat(Enumerable.Repeat((byte)'9', 2 * FrameOverhead)).ToArray();
        // A short BodyLength whose frame then runs on without a trailer.
        byte[] shortBodyLength = Encoding.Latin1.GetBytes(WorstCaseHeader(1)).Concat(filler).ToArray();
        foreach (byte[] bytes in new[] { unterminated, endlessCheckSum, shortBodyLength })
        {
            Assert.InRange(LongestWait(bytes, maxBodyLength), 1, limit);
        }

        if (maxBodyLength >= 40)
        {
            // The largest valid frame: every proper prefix waits, the whole is complete, and it fits.
            byte[] largest = WorstCaseFrame(maxBodyLength, 1);
            Assert.Equal(largest.Length - 1, LongestWait(largest, maxBodyLength));
            Assert.Equal(FrameStatus.Complete, FixFramer.Frame(largest, maxBodyLength).Status);
            Assert.InRange(largest.Length, 1, maxBodyLength + FrameOverhead);
        }
    }

    [Theory]
    [MemberData(nameof(TcpConnectionTests.Modes), MemberType = typeof(TcpConnectionTests))]
    public void AtTheSmallestValidMaximumTheBufferHoldsTheLargestFramesWithoutDisconnecting(ReceiveMode mode)
    {
        const int MaxBody = 8192;
        var options = new TcpConnectionOptions
        {
            InitialReceiveBufferBytes = 256,
            MaxMessageBodyLength = MaxBody,
            MaxReceiveBufferBytes = MaxBody + FrameOverhead,
            MaxConsecutiveGarbageBytes = 1 << 20,
        };
        using var loop = new Loopback(mode, options);
        var (raw, server, handler) = loop.ConnectRaw();

        // The largest valid frame, in chunks, so the buffer grows step by step from 256 bytes to its maximum.
        byte[] largest = WorstCaseFrame(MaxBody, 1);
        SendInChunks(raw, server, largest);
        Assert.True(Loopback.Until(() => handler.Messages.Count == 1), loop.Describe(server, handler, largest.Length));
        Assert.Equal(largest, handler.Messages.Single());
        Assert.Equal(options.MaxReceiveBufferBytes, handler.MaxCapacitySeen);
        // Once the large frame is consumed the buffer goes back to its initial size (the large array to the pool).
        Assert.True(Loopback.Until(() => server.ReceiveBufferCapacity == options.InitialReceiveBufferBytes), "shrunk: " + server.ReceiveBufferCapacity);

        // The longest prefix the framer waits for, then more: a frame error, not a disconnect.
        byte[] unterminated = Encoding.Latin1.GetBytes(WorstCaseHeader(MaxBody) + new string('a', MaxBody + 2 * FrameOverhead));
        SendInChunks(raw, server, unterminated);
        Assert.True(Loopback.Until(() => !handler.Errors.IsEmpty), loop.Describe(server, handler, largest.Length + unterminated.Length));
        Assert.Equal(FrameStatus.BodyLengthMismatch, handler.Errors.First().Status);

        raw.Send(FixMessages.Numbered(3));
        Assert.True(Loopback.Until(() => handler.Messages.Count == 2), loop.Describe(server, handler, largest.Length + unterminated.Length));
        Assert.Equal(3, FixMessages.ReadSeq(handler.Messages.Last()));
        Assert.False(server.IsClosing);
        Assert.InRange(handler.MaxCapacitySeen, 0, options.MaxReceiveBufferBytes);
        Assert.All(handler.Errors, e => Assert.InRange(e.Capacity, 0, options.MaxReceiveBufferBytes));
        raw.Dispose();
        Assert.True(handler.Disconnected.Wait(Loopback.Wait));
        Assert.Equal(DisconnectReason.PeerClosed, handler.Reason);
        loop.AssertNoLeaks();
    }

    private static void SendInChunks(Socket raw, TransportConnection server, byte[] bytes, int chunk = 1000)
    {
        long before = server.BytesReceived;
        for (int at = 0; at < bytes.Length; at += chunk)
        {
            int count = Math.Min(chunk, bytes.Length - at);
            raw.Send(bytes, at, count, SocketFlags.None);
            long expected = before + at + count;
            Assert.True(Loopback.Until(() => server.BytesReceived == expected || server.IsClosing), $"{server.BytesReceived} of {expected} bytes received");
        }
    }
}
