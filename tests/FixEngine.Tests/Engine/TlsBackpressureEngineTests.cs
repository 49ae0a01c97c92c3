using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Net;
using System.Net.Security;
using System.Net.Sockets;
using System.Security.Cryptography.X509Certificates;
using System.Threading;
using FixEngine.Codec;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Session;
using FixEngine.Tests.Transport;
using Xunit.Abstractions;
using static FixEngine.Tests.Engine.EngineTestSupport;
using static FixEngine.Tests.Engine.RawPeerMessages;

namespace FixEngine.Tests.Engine;

/// <summary>Inbound flow control over TLS: the engine pauses a TLS connection's receive as it does a TCP one's.</summary>
public sealed class TlsBackpressureEngineTests : IDisposable
{
    private const string Password = "secret";
    private readonly string _directory = TempDirectory("fixengine-tls-backpressure-");

    private readonly ITestOutputHelper _output;

    public TlsBackpressureEngineTests(ITestOutputHelper output)
    {
        _output = output;
        Directory.CreateDirectory(_directory);
    }

    public void Dispose() => DeleteDirectory(_directory);

    /// <summary>
    /// A TLS peer that sends orders without reading the reports: the acceptor's outbound backlog passes the receive-pause
    /// threshold, the engine stops reading that TLS connection, and TCP flow control blocks the peer's writes (small
    /// socket buffers keep what the kernel holds small). So the peer cannot send all its orders before it reads, and the
    /// acceptor's backlog stays near the threshold instead of holding the answers to everything the peer could send
    /// (without the pause, as before TLS could pause: the peer wrote all its orders unread, and the acceptor's backlog
    /// was already past 3.5 MB and growing when it had). Once the peer reads, every report arrives, in order.
    /// </summary>
    [Fact]
    public void ATlsPeerThatDoesNotReadIsSlowedDownByTcpFlowControl()
    {
        const int Orders = 20_000;
        string pfx = Path.Combine(_directory, "server.pfx");
        File.WriteAllBytes(pfx, TlsCertificates.Localhost.Export(X509ContentType.Pkcs12, Password));
        int port = 0;
        (IReadOnlyList<SessionSettings> acceptorSettings, _) = ExecClientPair($"""
            [DEFAULT]
            NonStopSession=Y
            UseDataDictionary=N
            ResetOnLogon=Y
            HeartBtInt=30
            IdleStrategy=Yielding
            SocketSendBufferSize=65536
            SocketReceiveBufferSize=65536
            SocketUseSSL=Y
            SSLCertificate={pfx}
            SSLCertificatePassword={Password}
            """, port);
        var filler = new WideFillerApp();
        using var acceptor = new FixEngineHost(acceptorSettings, filler);
        acceptor.Start();
        port = EngineTestSupport.PortOf(acceptor);
        // No wall-clock dependence: the deadlock breaker (a backlog without progress for 1 s withdraws the pause) would
        // fire on a loaded machine before the 20 stuck polls below; the pause itself is what this test watches.
        acceptor.Sessions[0].SendBacklogStallNs = TimeSpan.FromMinutes(10).Ticks * 100;

        using var peer = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp)
        {
            NoDelay = true, SendBufferSize = 65536, ReceiveBufferSize = 65536,
            // Bounds a failing run: a write or read the acceptor never unblocks throws instead of hanging.
            SendTimeout = (int)Wait.TotalMilliseconds, ReceiveTimeout = (int)Wait.TotalMilliseconds,
        };
        peer.Connect(new IPEndPoint(IPAddress.Loopback, port));
        using var ssl = new SslStream(new NetworkStream(peer, ownsSocket: false));
        ssl.AuthenticateAsClient(new SslClientAuthenticationOptions
        {
            TargetHost = "localhost",
            RemoteCertificateValidationCallback = TlsCertificates.Pinned(TlsCertificates.Localhost),
        });

        // The writer: the Logon, then every order, as fast as blocking TLS writes go; it never reads.
        long written = 0;
        Exception? writeError = null;
        var writer = new Thread(() =>
        {
            try
            {
                ssl.Write(Message(1, "35=A|98=0|108=30|141=Y"));
                for (int i = 0; i < Orders; i++)
                {
                    ssl.Write(Order(i));
                    Volatile.Write(ref written, i + 1);
                }
            }
            catch (Exception e) when (e is IOException or ObjectDisposedException)
            {
                writeError = e;
            }
        }) { IsBackground = true, Name = "tls peer writer" };
        writer.Start();
        try
        {
            // Phase 1: wait until the acceptor has asked to stop reading, then until the writer has been stuck for 20 polls
            // of 10 ms in a row (one that still reads would take every order). The pause request may be withdrawn and made
            // again meanwhile (the backlog dipping under the threshold, or the deadlock breaker a second after the backlog
            // began): the timeline records it, the writer staying stuck is what counts.
            var watch = Stopwatch.StartNew();
            bool pauseSeen = false;
            bool heldBack = false;
            long last = -1;
            int stuckPolls = 0;
            var timeline = new List<string>();
            // Bounded by progress, not by a fixed time: on a loaded machine (the suite beside CPU hogs, the thread pool
            // busy with other tests) the acceptor may read slowly, so the peer may need far longer than usual to write
            // the ~1 MiB of reports that make the acceptor pause. The loop ends when the writer has made no progress for
            // Wait (held back without a pause: the failure this test looks for) or after four times Wait in all.
            long progressAt = 0;
            long progressCount = 0;
            long nextSample = 1000;
            while (!heldBack && Volatile.Read(ref written) < Orders && writer.IsAlive && watch.Elapsed < 4 * Wait)
            {
                if (!pauseSeen)
                {
                    long count = Volatile.Read(ref written);
                    if (count != progressCount)
                    {
                        progressCount = count;
                        progressAt = watch.ElapsedMilliseconds;
                    }
                    else if (watch.ElapsedMilliseconds - progressAt > Wait.TotalMilliseconds)
                    {
                        break;
                    }
                    if (watch.ElapsedMilliseconds >= nextSample)
                    {
                        nextSample += 1000;
                        timeline.Add($"{watch.ElapsedMilliseconds}ms w={count} (before a pause) b={filler.Session?.SendBacklogBytes}");
                    }
                    if (filler.Session is not { IsReceivePauseRequested: true })
                    {
                        Thread.Sleep(1);
                        continue;
                    }
                    pauseSeen = true;
                    last = Volatile.Read(ref written);
                }
                Thread.Sleep(10);
                long now = Volatile.Read(ref written);
                timeline.Add($"{watch.ElapsedMilliseconds}ms w={now} p={filler.Session!.IsReceivePauseRequested} b={filler.Session.SendBacklogBytes}");
                if (now == last)
                {
                    heldBack = ++stuckPolls >= 20;
                }
                else
                {
                    last = now;
                    stuckPolls = 0;
                }
            }
            Assert.True(heldBack, $"the peer wrote {Volatile.Read(ref written)} orders without reading and was never held back after the acceptor asked to pause (pause seen: {pauseSeen}; acceptor backlog {filler.Session?.SendBacklogHighWaterBytes} B at most; {writeError?.Message}) " + string.Join(" | ", timeline.TakeLast(40)));
            FixSession session = filler.Session!;

            // Phase 2: read the reports; the writer goes on as the acceptor reads again.
            var reports = new ExecutionReportChecker();
            byte[] buffer = new byte[1 << 20];
            int length = 0;
            var reading = Stopwatch.StartNew();
            while (reports.Reports < Orders && reading.Elapsed < Wait + Wait)
            {
                int n = ssl.Read(buffer, length, buffer.Length - length);
                Assert.True(n > 0, "the acceptor closed the connection");
                length = reports.Consume(buffer, length + n);
            }
            Assert.True(writer.Join(Wait), "the writer did not finish");
            Assert.Null(writeError);
            Assert.Empty(reports.Problems);
            Assert.Equal(Orders, reports.Reports);
            filler.AssertClean();
            Assert.Equal(0, session.GapsDetected);
            Assert.True(session.SendBackpressureCount > 0);
            // Threshold (1 MiB) plus the answers to what one duty cycle's reads had already taken in; far below the ~20 MB
            // of reports.
            Assert.True(session.SendBacklogHighWaterBytes < 4L << 20, $"backlog reached {session.SendBacklogHighWaterBytes} B");
            _output.WriteLine($"backlog high water {session.SendBacklogHighWaterBytes} B; " + string.Join(" | ", timeline));
        }
        finally
        {
            peer.Dispose();
            writer.Join(Wait);
        }
    }

    /// <summary>Answers every NewOrderSingle with an ExecutionReport of about 1 KB carrying its ClOrdID; checks orders arrive in order.</summary>
    /// <remarks>The session withdraws its pause request once its backlog has made no progress for a second counted from
    /// when the backlog began (a deadlock breaker), so the backlog must reach the pause threshold well within a second of
    /// the first refused send even on a loaded machine: reports five times the size of <see cref="FillerApp"/>'s get there
    /// after about a thousand orders.</remarks>
    private sealed class WideFillerApp : RecordingApp
    {
        public long Orders;

        protected override FromAppResult OnApp(FixSession session, FixMessage message)
        {
            if (!message.MsgType.SequenceEqual(MsgTypes.NewOrderSingle)) return FromAppResult.UnsupportedMessageType;
            message.TryGetLong(FixTags.ClOrdID, out long id);
            if (id != Orders) Problem($"order {id} arrived when {Orders} was expected");
            Orders = id + 1;
            session.Send(MsgTypes.ExecutionReport, message, static (ref FixWriter w, scoped in FixMessage o) =>
            {
                o.TryGetSpan(FixTags.ClOrdID, out ReadOnlySpan<byte> clOrdId);
                w.Write(FixTags.ClOrdID, clOrdId);
                w.Write(FixTags.ExecType, 'F');
                w.Write(FixTags.OrdStatus, '2');
                w.Write(FixTags.Text, s_text);
            });
            return FromAppResult.Accepted;
        }

        private static readonly byte[] s_text = System.Text.Encoding.ASCII.GetBytes(new string('t', 900));
    }

}
