using System;
using System.Collections.Generic;
using System.IO.Pipelines;
using FixEngine.Codec;
using FixEngine.Config;
using FixEngine.Engine;
using FixEngine.Session;
using FixEngine.Transport;

namespace FixEngine.Testing;

/// <summary>Drives an application's <see cref="IApplication"/> through a real <see cref="FixSession"/> in a unit test:
/// the session is connected to a counterparty session through an in-memory pipe pair (System.IO.Pipelines), with no
/// sockets, no threads and a clock the test moves.</summary>
/// <remarks>
/// <para>Everything runs on the test's thread, deterministically: <see cref="Pump"/> moves every pending message both
/// ways until both sides are quiet, and <see cref="Advance"/> moves the clock and runs both sessions' timers
/// (heartbeats, test requests, logon and logout timeouts). The counterparty is a real session too (CompIDs swapped, the
/// other role, a memory store, no dictionary); it records what it receives in <see cref="Received"/>, and the test
/// sends from it with <see cref="SendFromCounterparty{TState}"/> or raw bytes with <see cref="SendRawFromCounterparty"/>.</para>
/// <code>
/// var settings = SettingsFile.Parse(myAcceptorConfig)[0];
/// using var pair = FixSessionTestPair.Create(settings, new MyApplication());
/// pair.Connect();                                                  // Logon exchange
/// pair.SendFromCounterparty(MsgTypes.NewOrderSingle, 0, static (ref FixWriter w, scoped in int _) =>
/// {
///     w.Write(FixTags.ClOrdID, "A1"u8); w.Write(FixTags.Symbol, "EURUSD"u8); w.Write(FixTags.Side, '1');
/// });
/// ReceivedFixMessage report = pair.Received[^1];                  // what MyApplication answered
/// Assert.Equal("8", report.MsgType);
/// pair.Advance(TimeSpan.FromSeconds(31));                          // a Heartbeat goes out
/// </code>
/// <para>A test helper: it allocates; the socket transports are the fast path.</para>
/// </remarks>
public sealed class FixSessionTestPair : IDisposable
{
    private readonly SessionFactory _factory;
    private readonly SessionFactory _counterpartyFactory = new(MemoryMessageStoreFactory.Instance, null);
    private readonly RecordingApplication _counterpartyApp = new();
    private readonly int _maxBodyLength;
    private PipeSessionConnection? _sessionSide;
    private PipeSessionConnection? _counterpartySide;
    private long _epochNs;

    private FixSessionTestPair(SessionSettings settings, IApplication application, DateTime startUtc, ISessionLogFactory? sessionLogs)
    {
        _factory = new SessionFactory(null, sessionLogs);
        _epochNs = (startUtc.ToUniversalTime() - DateTime.UnixEpoch).Ticks * 100;
        _maxBodyLength = settings.MaxMessageSize;
        Session = _factory.Create(settings, application, _epochNs);
        SessionSettings counterparty = new SessionSettings
        {
            ConnectionType = settings.ConnectionType == ConnectionType.Acceptor ? ConnectionType.Initiator : ConnectionType.Acceptor,
            BeginString = settings.BeginString,
            DefaultApplVerID = settings.DefaultApplVerID,
            SenderCompID = settings.TargetCompID,
            TargetCompID = settings.SenderCompID,
            HeartBtInt = settings.HeartBtInt ?? 30,
            SocketConnectHost = "test",
            SocketConnectPort = 1,
            SocketAcceptPort = 1,
            NonStopSession = true,
            UseDataDictionary = false,
            ResetOnLogon = settings.ResetOnLogon,
            MaxMessageSize = settings.MaxMessageSize,
        };
        Counterparty = _counterpartyFactory.Create(counterparty, _counterpartyApp, _epochNs);
    }

    /// <summary>Creates the pair; nothing is connected until <see cref="Connect"/>.</summary>
    /// <param name="settings">The settings of the session under test (acceptor or initiator; its store and log are
    /// built from them as the engine builds them, so a <c>FileStorePath</c> gives a file store).</param>
    /// <param name="application">The application under test.</param>
    /// <param name="startUtc">The clock's start; 2026-01-05 09:00 UTC (a Monday) when null.</param>
    /// <param name="sessionLogs">Makes the log of the session under test, e.g. a
    /// <c>LoggerSessionLogFactory</c> (FixEngine.Extensions.Hosting) to see its events in the test's logger; null = the
    /// settings' choice (<c>FileLogPath</c>). The pair does not dispose it.</param>
    /// <returns>The pair.</returns>
    /// <exception cref="ConfigException">The settings are invalid.</exception>
    public static FixSessionTestPair Create(SessionSettings settings, IApplication application, DateTime? startUtc = null, ISessionLogFactory? sessionLogs = null)
    {
        ArgumentNullException.ThrowIfNull(settings);
        ArgumentNullException.ThrowIfNull(application);
        return new FixSessionTestPair(settings, application, startUtc ?? new DateTime(2026, 1, 5, 9, 0, 0, DateTimeKind.Utc), sessionLogs);
    }

    /// <summary>The session under test (its application is the one given to <see cref="Create"/>).</summary>
    public FixSession Session { get; }

    /// <summary>The counterparty's session.</summary>
    public FixSession Counterparty { get; }

    /// <summary>Every message the counterparty received, admin and application, in order.</summary>
    public IReadOnlyList<ReceivedFixMessage> Received => _counterpartyApp.Received;

    /// <summary>The counterparty's application messages only, in order.</summary>
    public IEnumerable<ReceivedFixMessage> ReceivedApplicationMessages
    {
        get
        {
            foreach (ReceivedFixMessage m in _counterpartyApp.Received)
            {
                if (!MsgTypes.IsAdmin(System.Text.Encoding.ASCII.GetBytes(m.MsgType))) yield return m;
            }
        }
    }

    /// <summary>The pair's clock (UTC).</summary>
    public DateTime UtcNow => DateTime.UnixEpoch.AddTicks(_epochNs / 100);

    /// <summary>Connects both sides through a fresh pipe pair and pumps until quiet (the initiator's Logon and the
    /// acceptor's answer have been exchanged, unless an application refused it).</summary>
    public void Connect()
    {
        var toCounterparty = new Pipe(new PipeOptions(pauseWriterThreshold: 0, useSynchronizationContext: false));
        var toSession = new Pipe(new PipeOptions(pauseWriterThreshold: 0, useSynchronizationContext: false));
        _sessionSide = new PipeSessionConnection(new DuplexPipe(toSession.Reader, toCounterparty.Writer), _maxBodyLength);
        _counterpartySide = new PipeSessionConnection(new DuplexPipe(toCounterparty.Reader, toSession.Writer), _maxBodyLength);
        // The acceptor side is attached first, as the engine does once it has routed a Logon to it.
        if (Session.IsInitiator)
        {
            _counterpartySide.Attach(Counterparty, _epochNs);
            _sessionSide.Attach(Session, _epochNs);
        }
        else
        {
            _sessionSide.Attach(Session, _epochNs);
            _counterpartySide.Attach(Counterparty, _epochNs);
        }
        Pump();
    }

    /// <summary>Moves every pending message both ways (including messages handed over with
    /// <see cref="FixSession.TrySendFromAnyThread{TState}(ReadOnlySpan{byte}, long, in TState, BodyWriter{TState})"/>) until neither side has anything left to do.</summary>
    /// <returns>Frames delivered.</returns>
    public int Pump()
    {
        int total = 0;
        for (int round = 0; round < 100_000; round++)
        {
            int n = 0;
            if (_sessionSide is not null) n += _sessionSide.PumpInbound(_epochNs);
            if (_counterpartySide is not null) n += _counterpartySide.PumpInbound(_epochNs);
            n += Session.Poll(_epochNs) + Counterparty.Poll(_epochNs);
            total += n;
            if (n == 0) return total;
        }
        throw new InvalidOperationException("the two sessions did not go quiet after 100,000 rounds (a message loop?)");
    }

    /// <summary>Moves the clock by <paramref name="interval"/> in steps of at most one second, running both sessions'
    /// timers and pumping at each step.</summary>
    /// <param name="interval">How far; not negative.</param>
    public void Advance(TimeSpan interval)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(interval, TimeSpan.Zero);
        long remaining = interval.Ticks * 100;
        do
        {
            long step = Math.Min(remaining, 1_000_000_000L);
            _epochNs += step;
            remaining -= step;
            Pump();
        }
        while (remaining > 0);
    }

    /// <summary>Sends an application message from the counterparty (header and trailer written by its session) and pumps.</summary>
    /// <typeparam name="TState">What <paramref name="body"/> reads.</typeparam>
    /// <param name="msgType">MsgType(35).</param>
    /// <param name="state">Passed to <paramref name="body"/>.</param>
    /// <param name="body">Writes the body fields.</param>
    public void SendFromCounterparty<TState>(ReadOnlySpan<byte> msgType, scoped in TState state, BodyWriter<TState> body)
        where TState : allows ref struct
    {
        Counterparty.Send(msgType, state, body, _epochNs);
        Pump();
    }

    /// <summary>Writes raw bytes from the counterparty's side of the pipe, bypassing its session (garbled frames, wrong
    /// sequence numbers, hand-made messages), and pumps.</summary>
    /// <param name="bytes">The bytes; a FIX message needs SOH (0x01) separators and a correct BodyLength and CheckSum
    /// (see <see cref="FixWriter"/>) unless the test is about their absence.</param>
    public void SendRawFromCounterparty(ReadOnlySpan<byte> bytes)
    {
        if (_counterpartySide is null) throw new InvalidOperationException("Connect first");
        _counterpartySide.Send(bytes);
        Pump();
    }

    /// <summary>The counterparty closes the connection (the session under test sees the pipe end) and the pair pumps.</summary>
    public void DisconnectCounterparty()
    {
        _counterpartySide?.Disconnect("closed by the test");
        Counterparty.OnDisconnected("closed by the test", _epochNs);
        Pump();
    }

    /// <inheritdoc/>
    public void Dispose()
    {
        Session.Dispose();
        // As the engine does: the session's log goes back to a log factory given to Create (its own closes with it).
        _factory.Release(Session, engineDisposing: true);
        Counterparty.Dispose();
        _factory.Dispose();
        _counterpartyFactory.Dispose();
    }

    private sealed class DuplexPipe(PipeReader input, PipeWriter output) : IDuplexPipe
    {
        public PipeReader Input { get; } = input;

        public PipeWriter Output { get; } = output;
    }

    private sealed class RecordingApplication : IApplication
    {
        public List<ReceivedFixMessage> Received { get; } = [];

        public void FromAdmin(FixSession session, FixMessage message) => Received.Add(new ReceivedFixMessage(message.Buffer));

        public FromAppResult FromApp(FixSession session, FixMessage message)
        {
            Received.Add(new ReceivedFixMessage(message.Buffer));
            return FromAppResult.Accepted;
        }
    }
}
