using System;
using System.Collections.Generic;
using System.Net;
using System.Net.Sockets;
using System.Text;
using System.Threading;
using FixEngine.Codec;
using FixEngine.Config;
using FixEngine.Engine;
using static FixEngine.Tests.Engine.EngineTestSupport;
using static FixEngine.Tests.Engine.RawPeerMessages;

namespace FixEngine.Tests.Engine;

/// <summary>Garbage in front of a valid Logon (issue 14, item 7): over real TCP, leading bytes that are not a frame are
/// skipped up to <see cref="SessionConnection.MaxPreLogonGarbageBytes"/> and the Logon that follows is answered and the
/// session trades; more leading garbage than that bound closes the connection without a Logon.</summary>
public sealed class PreLogonGarbageEngineTests
{
    private static string Defaults(string receiveMode) => $"""
        [DEFAULT]
        NonStopSession=Y
        UseDataDictionary=N
        ResetOnLogon=Y
        HeartBtInt=30
        ReceiveMode={receiveMode}
        IdleStrategy=Yielding
        """;

    [Theory]
    [InlineData("BusyPoll", false)]
    [InlineData("Completion", false)]
    [InlineData("Completion", true)]
    public void GarbageInFrontOfALogonDoesNotLoseIt(string receiveMode, bool separateWrites)
    {
        int port = 0;
        (IReadOnlyList<SessionSettings> acceptorSettings, _) = ExecClientPair(Defaults(receiveMode), port);
        var filler = new FillerApp();
        using var acceptor = new FixEngineHost(acceptorSettings, filler);
        acceptor.Start();
        port = EngineTestSupport.PortOf(acceptor);
        using var peer = Connect(port);
        byte[] garbage = Encoding.ASCII.GetBytes("GET / HTTP/1.1\r\nHost: x\r\n\r\n\u0001\u0001==10=\r\nnoise 9=12\u0001");
        byte[] logon = Message(1, "35=A|98=0|108=30|141=Y");
        if (separateWrites)
        {
            peer.Send(garbage);
            Thread.Sleep(50);
            peer.Send(logon);
        }
        else
        {
            var both = new byte[garbage.Length + logon.Length];
            garbage.CopyTo(both, 0);
            logon.CopyTo(both, garbage.Length);
            peer.Send(both);
        }

        var reader = new FrameReader(peer);
        Assert.Equal("A", reader.Next()?.MsgType);
        peer.Send(Order(0));
        (string MsgType, string ClOrdId)? report = reader.Next();
        Assert.Equal("8", report?.MsgType);
        Assert.Equal("0", report?.ClOrdId);
        Assert.Equal(1, filler.Orders);
        acceptor.Stop(TimeSpan.FromSeconds(5));
    }

    [Fact]
    public void MoreLeadingGarbageThanTheBoundClosesTheConnection()
    {
        int port = 0;
        (IReadOnlyList<SessionSettings> acceptorSettings, _) = ExecClientPair(Defaults("Completion"), port);
        var filler = new FillerApp();
        using var acceptor = new FixEngineHost(acceptorSettings, filler);
        acceptor.Start();
        port = EngineTestSupport.PortOf(acceptor);
        using var peer = Connect(port);
        var garbage = new byte[SessionConnection.MaxPreLogonGarbageBytes + 512];
        garbage.AsSpan().Fill((byte)'x');
        peer.Send(garbage);
        Thread.Sleep(50);
        try
        {
            peer.Send(Message(1, "35=A|98=0|108=30|141=Y"));
        }
        catch (SocketException)
        {
            // Already closed: what the test wants.
        }
        var reader = new FrameReader(peer);
        Assert.Null(reader.Next());
        Assert.Equal(0, filler.Logons);
        acceptor.Stop(TimeSpan.FromSeconds(5));
    }

    private static Socket Connect(int port)
    {
        var peer = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true, ReceiveTimeout = 10_000 };
        peer.Connect(new IPEndPoint(IPAddress.Loopback, port));
        return peer;
    }

    /// <summary>Reads frames from a blocking socket; null when the peer closed (or nothing came within the timeout).</summary>
    private sealed class FrameReader(Socket socket)
    {
        private readonly byte[] _buffer = new byte[1 << 16];
        private int _length;

        public (string MsgType, string ClOrdId)? Next()
        {
            while (true)
            {
                FrameResult frame = FixFramer.Frame(_buffer.AsSpan(0, _length), 1 << 20);
                if (frame.IsComplete)
                {
                    var index = new FixMessageIndex(64);
                    ReadOnlySpan<byte> bytes = _buffer.AsSpan(0, frame.Length);
                    index.Parse(bytes);
                    FixMessage m = index.Bind(bytes);
                    string type = Encoding.ASCII.GetString(m.MsgType);
                    string id = m.TryGetSpan(FixTags.ClOrdID, out ReadOnlySpan<byte> v) ? Encoding.ASCII.GetString(v) : "";
                    Buffer.BlockCopy(_buffer, frame.Length, _buffer, 0, _length - frame.Length);
                    _length -= frame.Length;
                    if (type == "0") continue;
                    return (type, id);
                }
                Assert.False(frame.IsError, "the acceptor sent bytes that do not frame");
                int n;
                try
                {
                    n = socket.Receive(_buffer, _length, _buffer.Length - _length, SocketFlags.None);
                }
                catch (SocketException)
                {
                    return null;
                }
                if (n == 0) return null;
                _length += n;
            }
        }
    }
}
