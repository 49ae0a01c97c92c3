using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Net;
using System.Net.Sockets;
using System.Text;
using System.Threading;
using FixEngine.Codec;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Session;
using FixEngine.Tests.Transport;
using FixEngine.Transport;

namespace FixEngine.Tests.Engine;

/// <summary>Issue #16: settings the engine used to parse and ignore (warnings, SocketReuseAddress, ValidateLengthAndChecksum).</summary>
public sealed class EngineSettingsTests
{
    private sealed class ClOrdIdApp : IApplication
    {
        public readonly ConcurrentQueue<string> ClOrdIds = new();

        public FromAppResult FromApp(FixSession session, FixMessage message)
        {
            if (message.TryGetSpan(FixTags.ClOrdID, out ReadOnlySpan<byte> id)) ClOrdIds.Enqueue(Encoding.ASCII.GetString(id));
            return FromAppResult.Accepted;
        }
    }

    private static IReadOnlyList<SessionSettings> Acceptor(int port, string extra) => SettingsFile.Parse(
        $"[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort={port}\nNonStopSession=Y\nUseDataDictionary=N\n{extra}" +
        "[SESSION]\nBeginString=FIX.4.4\nSenderCompID=EXEC\nTargetCompID=CLIENT\n", "acceptor.cfg");

    internal static string Now() => DateTime.UtcNow.ToString("yyyyMMdd-HH:mm:ss.fff", System.Globalization.CultureInfo.InvariantCulture);

    internal static byte[] Logon(string client = "CLIENT") => Tests.Transport.FixMessages.Build("FIX.4.4", $"35=A|34=1|49={client}|56=EXEC|52={Now()}|98=0|108=30|141=Y|");

    internal static byte[] Order(int seq, string clOrdId) =>
        Tests.Transport.FixMessages.Build("FIX.4.4", $"35=D|34={seq}|49=CLIENT|56=EXEC|52={Now()}|11={clOrdId}|55=EURUSD|54=1|38=100|40=1|60={Now()}|");

    private static byte[] WithWrongCheckSum(byte[] frame)
    {
        byte[] copy = (byte[])frame.Clone();
        int at = copy.Length - 4;
        copy[at] = (byte)(copy[at] == '9' ? '0' : copy[at] + 1);
        return copy;
    }

    [Fact]
    public void TheEnginePrintsTheSettingsWarningsAtConstruction()
    {
        IReadOnlyList<SessionSettings> settings = Acceptor(0, "SSLCipherSuite=HIGH\n");
        Assert.NotEmpty(settings[0].Warnings);
        var lines = new ConcurrentQueue<string>();
        using var engine = new FixEngineHost(settings, new ClOrdIdApp(), new EngineOptions { Console = lines.Enqueue });
        Assert.Contains(lines, l => l.StartsWith("Settings warning: ", StringComparison.Ordinal)
            && l.Contains("SSLCipherSuite", StringComparison.Ordinal) && l.Contains("acceptor.cfg", StringComparison.Ordinal));
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public void ValidateLengthAndChecksumDecidesWhetherABadCheckSumReachesTheApplication(bool validate)
    {
        int port = 0;
        var app = new ClOrdIdApp();
        using var engine = new FixEngineHost(Acceptor(port, $"ValidateLengthAndChecksum={(validate ? "Y" : "N")}\n"), app);
        engine.Start();
        port = EngineTestSupport.PortOf(engine);
        using var client = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        client.Connect(IPAddress.Loopback, port);
        client.Send(Logon());
        Assert.True(EngineTestSupport.WaitFor(() => engine.Sessions[0].IsLoggedOn), "logged on");
        client.Send(WithWrongCheckSum(Order(2, "BADSUM")));
        // With Y the bad frame is garbled (ignored), so seq 2 is still expected; with N it was seq 2 and this is 3.
        client.Send(Order(validate ? 2 : 3, "GOOD"));
        Assert.True(EngineTestSupport.WaitFor(() => Array.IndexOf(app.ClOrdIds.ToArray(), "GOOD") >= 0), "the good order arrived");
        Assert.Equal(validate ? ["GOOD"] : ["BADSUM", "GOOD"], app.ClOrdIds.ToArray());
    }

    [Fact]
    public void SocketReuseAddressGoesToTheListeningSocket()
    {
        SessionSettings off = Acceptor(1234, "SocketReuseAddress=N\n")[0];
        Assert.False(EngineConfiguration.TransportOptions(off, off.MaxMessageSize).ReuseAddress);
        SessionSettings on = Acceptor(1234, "")[0];
        Assert.True(EngineConfiguration.TransportOptions(on, on.MaxMessageSize).ReuseAddress);

        var endPoint = new IPEndPoint(IPAddress.Loopback, 0);
        using var plain = new TcpAcceptor(endPoint, new TcpConnectionOptions { ReuseAddress = false }, _ => null);
        plain.Start();
        using var reusing = new TcpAcceptor(endPoint, new TcpConnectionOptions { ReuseAddress = true }, _ => null);
        reusing.Start();
        // SO_REUSEADDR itself (read raw: .NET's getter on Linux also reports SO_REUSEPORT, which the engine clears): set
        // when asked on Unix, never on Windows. .NET sets it on a Unix listening socket at bind by itself, so N does not
        // clear it there. Neither listener shares its port (SO_REUSEPORT off).
        Assert.Equal(!OperatingSystem.IsWindows(), reusing.ListenerReuseAddress);
        if (OperatingSystem.IsWindows()) Assert.False(plain.ListenerReuseAddress);
        Assert.False(plain.ListenerReusePort);
        Assert.False(reusing.ListenerReusePort);
    }
}
