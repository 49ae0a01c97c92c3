using System;
using System.Collections.Generic;
using System.Text;
using FixEngine.Buffers;
using FixEngine.Codec;
using FixEngine.Config;
using FixEngine.Dictionary;
using FixEngine.Store;

namespace FixEngine.Session;

/// <summary>One FIX session (FIX.4.x or FIXT.1.1): state machine, sequencing, validation, resend/gap-fill, timers.</summary>
/// <remarks>
/// <para>Design: one thread at a time runs the session: the engine agent for a busy-poll session, otherwise whichever
/// thread holds the session's gate (docs/architecture.md, "Who runs a session", holds the rules; FixSession.Gate
/// implements them). <see cref="Send{TState}(ReadOnlySpan{byte}, in TState, BodyWriter{TState}, long)"/> throws
/// <see cref="InvalidOperationException"/> on any other thread (one comparison per call). Any number of other threads
/// may call <see cref="TrySendFromAnyThread{TState}(ReadOnlySpan{byte}, long, in TState, BodyWriter{TState})"/>: they
/// write into a hand-off ring that only the session's holder numbers and sends, so sequence numbers stay single-writer. The session never reads a clock: every entry point takes
/// <c>epochNs</c>, nanoseconds since the Unix epoch (UTC), used both for SendingTime and for timers. Steady-state
/// processing allocates nothing: inbound messages are indexed in place, outbound messages are encoded into one reusable
/// buffer, early messages (gaps) are copied once into pooled buffers.</para>
/// <para>States (<see cref="State"/>) and transitions. "Logged on" (<see cref="IsLoggedOn"/>) means LoggedOn or
/// LogoutSent: both Logons were exchanged. Leaving a logged-on state raises <see cref="IApplication.OnLogout"/>.</para>
/// <code>
/// from           event                                             action                          to
/// -------------  ------------------------------------------------  ------------------------------  -------------
/// Disconnected   OnConnected, initiator                            send Logon                      LogonSent
/// Disconnected   OnConnected, acceptor                             -                               AwaitingLogon
/// AwaitingLogon  valid Logon                                       send Logon, OnLogon             LoggedOn
/// LogonSent      valid Logon                                       OnLogon                         LoggedOn
/// AwaitingLogon  first message not a Logon, garbled message,       disconnect                      Disconnected
///  or LogonSent   Reject needed, wrong BeginString, LogonTimeout
/// AwaitingLogon  Logon refused (RejectLogonException) or its       send Logout, disconnect         Disconnected
///  or LogonSent   MsgSeqNum too low
/// LoggedOn       Logout(), end of the schedule, SendingTime or     send Logout                     LogoutSent
///                 CompID problem (after the Reject), LogoutTime
///                 passed (numbers kept)
/// AwaitingLogon  Logon outside the logon window (LogonTime-        send Logout naming the window,  Disconnected
///                 LogoutTime) inside the schedule                   disconnect (numbers kept)
/// LogoutSent     SendingTime or CompID problem                     send Logout again (timer anew)  LogoutSent
/// LoggedOn       peer's Logout                                     send Logout, disconnect         Disconnected
/// LogoutSent     peer's Logout                                     disconnect                      Disconnected
/// LogoutSent     application message                               not processed nor consumed      LogoutSent
///                 (the peer resends it after the next Logon); the
///                 application's own Send is stored, not sent
/// LoggedOn or    MsgSeqNum too low without PossDupFlag, Logon      send Logout, disconnect         Disconnected
///  LogoutSent     other than a reset (141=Y, 34=1), wrong BeginString
///                 (Logout only from LoggedOn)
/// LoggedOn,      MsgSeqNum(34) missing or invalid, a message       send Logout with the reason,    Disconnected
///  AwaitingLogon  numbered int.MaxValue, our own MsgSeqNum within  disconnect
///  or LogonSent   SenderSeqNumReserve of the top
/// LoggedOn or    Logon with 141=Y and 34=1                         reset sequence numbers, send    unchanged
///  LogoutSent                                                       Logon with 141=Y
/// LogoutSent     LogoutTimeout                                     disconnect                      Disconnected
/// LoggedOn or    nothing heard for 2.4 x HeartBtInt (a             disconnect                      Disconnected
///  LogoutSent     TestRequest at 1.2 x)
/// LogonSent,     outside the schedule                              disconnect                      Disconnected
///  AwaitingLogon
/// LogonSent      outside the logon window                          disconnect                      Disconnected
/// any connected  OnDisconnected, Disconnect(), send backlog limit, disconnect                      Disconnected
///                 Logout() while not LoggedOn
/// </code>
/// <para>Besides the state, four facts are orthogonal to it: whether our Logon carried ResetSeqNumFlag=Y (so the
/// peer's 141=Y reply does not reset again), whether queued early messages are being processed (re-entrancy guard),
/// whether the session holds because its store cannot take writes (<see cref="IsStoreHeld"/>: nothing is sent or
/// processed, in any state) and whether the session is disposed. Everything else lives in one type per concern: <see cref="ResendState"/>
/// (gap recovery both ways), <see cref="InboundGapQueue"/> (early messages), <see cref="SessionHeaderWriter"/> and the
/// typed admin bodies (encoding), <see cref="OutboundFlowControl"/> (send backlog and receive pause),
/// <see cref="HeartbeatMonitor"/> (heartbeats and test requests) and <see cref="SessionCounters"/>.</para>
/// <para>The class is split by role: the state machine and life cycle (this file), the receive path
/// (FixSession.Inbound), inbound admin messages (FixSession.Admin), resend and gap-fill (FixSession.Resend), the limits
/// of sequence numbers (FixSession.SequenceLimits), timers
/// (FixSession.Timers), the send path and the messages the session composes (FixSession.Sending), outbound flow
/// control (FixSession.FlowControl), and the store beyond storing: holding while it is away, following the counterparty
/// after a takeover, telling the application of a recovery (FixSession.StoreHold).</para>
/// </remarks>
public sealed partial class FixSession : IDisposable
{
    // Configuration and collaborators, fixed at construction.
    private readonly SessionSettings _settings;
    private readonly IApplication _application;
    private readonly IMessageStore _store;

    // _store when it is the file store, which takes each message's resend layout from the header writer.
    private readonly FileMessageStore? _fileStore;
    private readonly ISessionLog _log;
    private readonly MessageValidator? _validator;
    private readonly DataDictionary? _sessionDictionary;
    // The header fields a resend rewrites are header fields of the session dictionary (FixSession.Resend: a layout the
    // store recorded is used only then).
    private readonly bool _rewrittenAreHeaderTags;
    // FIXT.1.1 with AppDataDictionary.<version> keys: the application dictionary of each version, and the one of the
    // counterparty's DefaultApplVerID(1137) (from its Logon; ours until then), for messages without ApplVerID(1128).
    private readonly ApplicationDictionaries? _appVersions;
    private DataDictionary? _counterpartyAppDictionary;
    private string? _counterpartyApplVerId;
    private readonly SessionSchedule _schedule;
    private readonly SessionSchedule? _logonWindow;
    private readonly string? _logonWindowText;
    private readonly byte[] _defaultApplVerId;
    private readonly bool _isFixt;
    private readonly int _beginStringVersion;
    private readonly bool _isInitiator;

    // The parts, one type per concern.
    private readonly SessionHeaderWriter _header;
    private readonly InboundGapQueue _gapQueue = new();
    private readonly ResendState _resend = new();
    private readonly SessionCounters _counters = new();
    private readonly OutboundFlowControl _flow;
    private readonly HeartbeatMonitor _heartbeat;
    private readonly SendHandOff _handOff;
    // Rented from FixMessageIndexPool when a message is read, given back when the outermost OnMessage returns.
    private FixMessageIndex? _index;
    private FixMessageIndex? _resendIndex;
    private int _inboundDepth;

    // State machine.
    private ISessionConnection? _connection;
    private SessionState _state;
    private long _stateSinceNs;
    private bool _sentResetSeqNumFlag;
    // An operator reset the numbers while disconnected: an initiator's next Logon says so (ResetSeqNumFlag(141)=Y).
    private bool _resetOnNextLogon;
    private bool _processingQueue;
    private bool _disposed;

    // The time passed to the entry point being processed.
    private long _epochNs;

    // Threads (docs/architecture.md, "Who runs a session"; FixSession.Gate): the thread that holds the session (entered
    // it through Enter or TryEnter; the constructing thread until then) owns it, and Send checks it.
    private int _ownerThreadId;

    /// <summary>Signalled after a message is handed over, so the engine agent that drains the hand-off wakes from its
    /// idle park at once (null: nobody to wake, e.g. a session driven by tests). Set once by the engine before it starts.</summary>
    internal Timing.IdleWakeup? AgentWakeup { get; set; }

    /// <summary>Asks the engine agent to service this session alone on its next duty cycle (and wakes it), so a message
    /// handed over while another thread held the session costs the agent one session, not a sweep of all of them; null:
    /// <see cref="AgentWakeup"/> is signalled instead (the agent then sweeps every session). Set once by the engine.</summary>
    internal Action? AgentServiceRequest { get; set; }

    // Handed-over messages wait and no thread in the session will send them: the agent takes them.
    private void RequestAgentService()
    {
        Unquiet();
        if (AgentServiceRequest is { } request) request();
        else AgentWakeup?.Signal();
    }

    /// <summary>The session's transport closed (any thread, without entering the session): the agent's next visit
    /// polls it and it is asked for at once (<see cref="AgentServiceRequest"/>), so the session learns of the close.</summary>
    internal void OnTransportClosed()
    {
        Unquiet();
        AgentServiceRequest?.Invoke();
    }

    /// <summary>The log the session was given (<see cref="NullSessionLog.Instance"/> when none): the engine hands it back
    /// to its <see cref="Engine.ISessionLogFactory"/> once the session is disposed.</summary>
    internal ISessionLog Log => _log;

    /// <summary>Set once (Interlocked) by whoever hands <see cref="Log"/> back to its factory, so it is released once.</summary>
    internal int LogReleased;

    /// <summary>Messages handed over by TrySendFromAnyThread wait in the hand-off (approximate; any thread).</summary>
    internal bool HasHandedOverMessages => _handOff.UsedBytes != 0;
    private long _handedOverNotStored;
    private bool _lastFinishFailed;
    private bool _lastFinishVetoed;

    // Durability: the inbound message FromApp is processing (0: none), so what it sends carries the processed mark;
    // whether that delivery may repeat an earlier one; the inbound number that was next when the store was opened (the
    // one that may have been in FromApp when the process stopped); the store failure that stopped the session.
    private int _answeringInbound;
    private bool _possibleRedelivery;
    private int _interruptedInbound;
    private Store.MessageStoreException? _storeFault;

    // Metrics: the latency histograms' handle, set by the engine before the session runs (null: not measured).
    private SessionLatency? _latency;

    /// <summary>The latency histograms this session records into (<see cref="Diagnostics.FixEngineMetrics"/>); set once by
    /// the engine before the session runs.</summary>
    internal SessionLatency? Latency
    {
        get => _latency;
        set => _latency = value;
    }

    // Store hold (StoreFailurePolicy=Hold, FixSession.StoreHold): the recoverable failure the session waits on
    // (null: not holding), since when, the back-off and the next check; inbound messages left unprocessed meanwhile
    // (count, highest MsgSeqNum), asked for again on resume. _held is also read by producer threads.
    private Store.MessageStoreException? _storeHold;
    private volatile bool _held;
    private long _heldSinceNs;
    private long _holdRetryNs;
    private long _holdRetryAtNs;
    private int _heldInboundCount;
    private int _heldInboundMax;

    // The store may have lost its last sent messages (IMessageStore.MayHaveLostTail): until the first logon, the
    // counterparty's expectation may move the sender number up. The recovery report already raised to the application.
    private bool _tailMayBeLost;
    private Store.StoreRecoveryReport? _raisedRecovery;

    /// <summary>Creates a session. Nothing is sent until a connection is attached.</summary>
    /// <param name="settings">Validated settings of this session.</param>
    /// <param name="application">Application callbacks.</param>
    /// <param name="store">Sequence numbers and sent messages; the session owns and disposes it.</param>
    /// <param name="log">Message and event log, or null for none.</param>
    /// <param name="sessionDictionary">Header/trailer/admin dictionary (FIX4x.xml or FIXT11.xml), or null without validation.</param>
    /// <param name="appDictionary">Application dictionary for FIXT (FIX50SP2.xml), the DefaultApplVerID's; null for FIX.4.x.</param>
    /// <param name="appVersions">FIXT.1.1 with several application versions: every application dictionary by ApplVerID
    /// (including <paramref name="appDictionary"/>); each application message is validated against its version's, and one
    /// whose version has none is rejected. Null: every application message is validated against <paramref name="appDictionary"/>.</param>
    internal FixSession(SessionSettings settings, IApplication application, IMessageStore store, ISessionLog? log = null,
        DataDictionary? sessionDictionary = null, DataDictionary? appDictionary = null, ApplicationDictionaries? appVersions = null)
    {
        ArgumentNullException.ThrowIfNull(settings);
        ArgumentNullException.ThrowIfNull(application);
        ArgumentNullException.ThrowIfNull(store);
        settings.Validate();
        _settings = settings;
        _application = application;
        _store = store;
        _fileStore = store as FileMessageStore;
        _log = log ?? NullSessionLog.Instance;
        Id = settings.SessionId;
        _schedule = settings.CreateSchedule();
        _logonWindow = settings.CreateLogonWindow();
        _logonWindowText = _logonWindow is null ? null : settings.DescribeLogonWindow();
        _isFixt = settings.BeginString == "FIXT.1.1";
        _beginStringVersion = VersionOf(settings.BeginString!);
        // FIX.4.0 and FIX.4.1 timestamps have no fraction: SendingTime and OrigSendingTime go to the second there, as
        // QuickFIX writes them, whatever TimestampPrecision says.
        _header = new SessionHeaderWriter(settings.BeginString!, settings.SenderCompID!, settings.TargetCompID!,
            _beginStringVersion < 42 ? 0 : settings.EffectiveTimestampPrecision, settings.EnableLastMsgSeqNumProcessed, settings.MaxMessageSize, store);
        _defaultApplVerId = Encoding.ASCII.GetBytes(ToApplVerId(settings.DefaultApplVerID));
        _isInitiator = settings.ConnectionType == ConnectionType.Initiator;
        _heartbeat = new HeartbeatMonitor(settings.HeartBtInt ?? 30);
        _sessionDictionary = sessionDictionary;
        _rewrittenAreHeaderTags = RewrittenAreHeaderTags();
        ApplicationDictionary = appDictionary;
        if (_isFixt && appVersions is not null)
        {
            _appVersions = appVersions;
            _counterpartyAppDictionary = appVersions.Find(_defaultApplVerId);
        }
        if (settings.UseDataDictionary && sessionDictionary is not null)
        {
            _validator = new MessageValidator(sessionDictionary, appDictionary, new ValidationOptions
            {
                ValidateFieldsOutOfOrder = settings.ValidateFieldsOutOfOrder,
                ValidateFieldsHaveValues = settings.ValidateFieldsHaveValues,
                ValidateUserDefinedFields = settings.ValidateUserDefinedFields,
                AllowUnknownMsgFields = settings.AllowUnknownMsgFields,
                AllowUnknownEnumValues = settings.AllowUnknownEnumValues,
            });
        }
        _handOff = new SendHandOff(1 << 20);
        _flow = new OutboundFlowControl((level, text, epochNs) => Raise(SessionEventKind.Other, level, text, epochNs), _counters);
        _ownerThreadId = Environment.CurrentManagedThreadId;
        _interruptedInbound = store.NextTargetMsgSeqNum;
        _tailMayBeLost = store.MayHaveLostTail;
        _application.OnCreate(this);
        RaiseStoreRecovered();
        if (settings.PersistMessages) ReplayCompilation.Start(this, store);
    }

    /// <summary>Attaches a new connection. An initiator sends its Logon at once; an acceptor waits for one.</summary>
    /// <param name="connection">The transport.</param>
    /// <param name="epochNs">Now, epoch nanoseconds.</param>
    internal void OnConnected(ISessionConnection connection, long epochNs)
    {
        ArgumentNullException.ThrowIfNull(connection);
        if (_storeFault is not null)
        {
            Raise(SessionEventKind.Other, Logging.LogLevel.Error, "Connection refused: the message store failed (" + _storeFault.Message + ")", epochNs);
            connection.Disconnect("message store failed");
            return;
        }
        if (_held)
        {
            if (_store.CurrentFailure is null)
            {
                ResumeFromHold(epochNs);
            }
            else
            {
                Raise(SessionEventKind.Other, Logging.LogLevel.Warning, "Connection refused: holding, the message store cannot take writes (" + _storeHold?.Message + ")", epochNs);
                connection.Disconnect("message store unavailable (holding)");
                return;
            }
        }
        try
        {
            OnConnectedCore(connection, epochNs);
        }
        catch (Store.MessageStoreException e)
        {
            OnStoreFailed(e, epochNs);
        }
    }

    private void OnConnectedCore(ISessionConnection connection, long epochNs)
    {
        if (_connection is not null) Disconnect("replaced by a new connection", epochNs);
        _connection = connection;
        _epochNs = epochNs;
        _heartbeat.Restart(epochNs);
        CheckSchedule(epochNs);
        Raise(SessionEventKind.Connected, Logging.LogLevel.Information, null, epochNs);
        if (_isInitiator)
        {
            if (_settings.RefreshOnLogon) RefreshStore(epochNs);
            if (_settings.ResetOnLogon) ResetStore(epochNs);
            if (!HasSenderSeqRoom(epochNs)) return;
            // ResetSeqNumFlag(141) exists from FIX.4.1 on: a FIX.4.0 session resets its own numbers without saying so.
            _sentResetSeqNumFlag = (_settings.ResetOnLogon || _resetOnNextLogon) && _beginStringVersion >= 41;
            _resetOnNextLogon = false;
            EnterState(SessionState.LogonSent, epochNs);
            SendLogon(epochNs, _sentResetSeqNumFlag, 0);
        }
        else
        {
            EnterState(SessionState.AwaitingLogon, epochNs);
        }
    }

    /// <summary>The transport reports that the connection closed (by the peer or by an error).</summary>
    /// <param name="reason">Why, for the log.</param>
    /// <param name="epochNs">Now, epoch nanoseconds.</param>
    internal void OnDisconnected(string reason, long epochNs)
    {
        if (_connection is null) return;
        _connection = null;
        AfterDisconnect(reason, epochNs);
    }

    /// <summary>Closes the connection (if any) and resets the connection state.</summary>
    /// <param name="reason">Why, for the log.</param>
    /// <param name="epochNs">Now, epoch nanoseconds.</param>
    public void Disconnect(string reason, long epochNs)
    {
        ISessionConnection? connection = _connection;
        if (connection is null) return;
        // Best effort: what the transport takes now still leaves (a Logout, a Reject, a replay step's batch) before the close.
        FlushReplayBatch(epochNs);
        FlushSendBacklog(epochNs);
        _connection = null;
        connection.Disconnect(reason);
        AfterDisconnect(reason, epochNs);
    }

    private void AfterDisconnect(string reason, long epochNs)
    {
        _counters.OnDisconnect();
        bool wasLoggedOn = IsLoggedOn;
        Raise(SessionEventKind.Disconnected, Logging.LogLevel.Information, reason, epochNs);
        EnterState(SessionState.Disconnected, epochNs);
        ForgetRecovery();
        _flow.Clear("Disconnected", epochNs, release: true);
        if (_settings.ResetOnDisconnect && _storeFault is null && !_held) ResetStore(epochNs);
        if (wasLoggedOn) _application.OnLogout(this);
    }

    private void EnterState(SessionState state, long epochNs)
    {
        _state = state;
        _stateSinceNs = epochNs;
    }

    // Gap recovery belongs to one connection and one run of sequence numbers: a disconnect, a reset or a store refresh
    // drops the early messages kept, our outstanding ResendRequest and any replay for the peer.
    private void ForgetRecovery()
    {
        _gapQueue.Clear();
        _resend.Reset();
    }

    /// <summary>True during <see cref="IApplication.FromApp"/> when the message being delivered may have been delivered
    /// to the application before: it carries PossDupFlag(43)=Y (the peer resent it), or it is the inbound message that
    /// was next when the store was opened (the process may have stopped while the application processed it).</summary>
    /// <remarks>A message the session knows was processed (its answer stored with the processed mark) is never handed
    /// over again, flagged or not; a flagged one was not known processed: decide from your own records whether work you
    /// did outside the engine for it was done (README "Exactly-once processing"). Owner thread, during FromApp.</remarks>
    public bool IsPossibleRedelivery => _possibleRedelivery;

    // A store write failed. A failure that may pass under StoreFailurePolicy=Hold: hold (FixSession.StoreHold).
    // Otherwise the session cannot number or keep messages any more: disconnect, tell the application, and refuse every
    // later send and connection. No Logout: it would need a sequence number the store cannot keep, and a Logout sent
    // unstored puts the counterparty one number ahead of the store, so the Logon after the restart (numbered from the
    // store) would be refused as "MsgSeqNum too low" until someone mended the numbers by hand. The reason goes to the
    // session log and to IApplication.OnStoreFailure; the counterparty sees the disconnect.
    private void OnStoreFailed(Store.MessageStoreException error, long epochNs)
    {
        if (_storeFault is not null) return;
        if (WouldHold(error))
        {
            EnterHold(error, epochNs);
            return;
        }
        EndHold();
        _storeFault = error;
        _handOff.Close();
        bool fenced = error.Ownership == FixEngine.Store.MessageStoreOwnership.TakenOver;
        Raise(fenced ? SessionEventKind.TakenOver : SessionEventKind.StoreFailed, Logging.LogLevel.Error, error.Message, epochNs);
        Disconnect("message store failure: " + error.Message, epochNs);
        _application.OnStoreFailure(this, error);
        AbandonOutbox(SendNotStoredReason.StoreFailed, epochNs);
    }

    /// <summary>Disconnects, reports messages still handed over (<see cref="IApplication.OnSendNotStored"/>) and disposes
    /// the store.</summary>
    public void Dispose()
    {
        if (_disposed) return;
        _disposed = true;
        Disconnect("session disposed", 0);
        _handOff.Close();
        AbandonOutbox(_storeFault is null ? SendNotStoredReason.EngineStopped : SendNotStoredReason.StoreFailed, _epochNs);
        _gapQueue.Clear();
        _flow.Release();
        _store.Dispose();
    }

    /// <inheritdoc/>
    public override string ToString() => Id.ToString();

    private static int VersionOf(string beginString) => beginString switch
    {
        "FIX.4.0" => 40,
        "FIX.4.1" => 41,
        "FIX.4.2" => 42,
        "FIX.4.3" => 43,
        "FIX.4.4" => 44,
        _ => 50,
    };

    /// <summary>Maps a DefaultApplVerID setting (<c>FIX.5.0SP2</c> or <c>9</c>) to the ApplVerID(1128) enum value.</summary>
    /// <param name="setting">The setting value.</param>
    /// <returns>The enum value, or an empty string when <paramref name="setting"/> is null.</returns>
    internal static string ToApplVerId(string? setting) => SettingKeys.ToApplVerId(setting);
}
