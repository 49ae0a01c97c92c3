using System;
using System.Collections.Generic;
using System.Security.Authentication;
using FixEngine.Transport;

namespace FixEngine.Config;

/// <summary>The typed settings of one FIX session, with QuickFIX key names and defaults.</summary>
/// <remarks>
/// Build in code with an object initializer (then call <see cref="Validate"/>), or load from a QuickFIX-style file with
/// <see cref="SettingsFile"/> (which validates). Immutable once built; safe to share between threads. Times are in seconds
/// unless the name says otherwise, as in QuickFIX.
/// </remarks>
public sealed record SessionSettings
{
    /// <summary>acceptor or initiator. Required.</summary>
    public ConnectionType? ConnectionType { get; init; }

    /// <summary>FIX.4.0 .. FIX.4.4 or FIXT.1.1. Required.</summary>
    public string? BeginString { get; init; }

    /// <summary>Default application version for FIXT.1.1 sessions, e.g. <c>FIX.5.0SP2</c> or <c>9</c>. Required with FIXT.1.1.</summary>
    public string? DefaultApplVerID { get; init; }

    /// <summary>Our CompID. Required.</summary>
    public string? SenderCompID { get; init; }

    /// <summary>The counterparty's CompID. Required.</summary>
    public string? TargetCompID { get; init; }

    /// <summary>Optional SenderSubID(50).</summary>
    public string? SenderSubID { get; init; }

    /// <summary>Optional SenderLocationID(142).</summary>
    public string? SenderLocationID { get; init; }

    /// <summary>Optional TargetSubID(57).</summary>
    public string? TargetSubID { get; init; }

    /// <summary>Optional TargetLocationID(143).</summary>
    public string? TargetLocationID { get; init; }

    /// <summary>Distinguishes sessions with the same CompIDs.</summary>
    public string? SessionQualifier { get; init; }

    /// <summary>Heartbeat interval in seconds. Required for initiators; acceptors take it from the Logon.</summary>
    public int? HeartBtInt { get; init; }

    /// <summary>Address or host name an acceptor binds to (a name binds to every address it resolves to, see
    /// <see cref="HostResolver"/>); all interfaces when null.</summary>
    public string? SocketAcceptHost { get; init; }

    /// <summary>Port an acceptor listens on (1..65535, or 0: the operating system picks a free port when the engine starts,
    /// readable from <see cref="Engine.FixEngineHost.AcceptorPorts"/> and <see cref="Engine.FixEngineHost.TryGetAcceptorPort"/>
    /// and logged as "Listening on port P"; sessions that all say 0 share that one port). Required for acceptors.</summary>
    public int? SocketAcceptPort { get; init; }

    /// <summary>Host name or address an initiator connects to. Required for initiators.</summary>
    public string? SocketConnectHost { get; init; }

    /// <summary>Port an initiator connects to (1..65535). Required for initiators.</summary>
    public int? SocketConnectPort { get; init; }

    /// <summary>An IP address of this machine that an initiator's socket is bound to before it connects (the source
    /// address the counterparty sees), e.g. to pick the interface on a multi-homed host; the system's choice when null.
    /// Settings keys <c>SocketLocalHost</c> (QuickFIX/J) or <c>SocketConnectSourceHost</c> (QuickFIX C++; one of the two).
    /// It applies to the primary endpoint and to every failover that has no <c>SocketConnectSourceHost&lt;n&gt;</c> of its
    /// own. Acceptors ignore it.</summary>
    public string? SocketLocalHost { get; init; }

    /// <summary>The local port (1..65535) an initiator's socket is bound to before it connects to the primary endpoint
    /// (SocketConnectHost), for a counterparty whose firewall admits one source port; an ephemeral port the system picks
    /// when null. Settings keys <c>SocketLocalPort</c> (QuickFIX/J) or <c>SocketConnectSourcePort</c> (QuickFIX C++; one of
    /// the two); failover n takes its own <c>SocketConnectSourcePort&lt;n&gt;</c> (<see cref="SocketEndpoint.SourcePort"/>).
    /// The socket is bound with SO_REUSEADDR so a reconnect can bind the port while the previous connection from it is in
    /// TIME_WAIT; a reconnect to the same counterparty address and port can still be refused by the system until that
    /// TIME_WAIT ends (about 60 s on Linux): the initiator logs it and tries again at ReconnectInterval. Acceptors ignore it.</summary>
    public int? SocketLocalPort { get; init; }

    /// <summary>Failover endpoints, from SocketConnectHost1/SocketConnectPort1 .. N (with their own
    /// SocketConnectSourceHost&lt;n&gt;/SocketConnectSourcePort&lt;n&gt;, if any), tried in order after the primary.</summary>
    public IReadOnlyList<SocketEndpoint> SocketConnectFailovers { get; init; } = [];

    /// <summary>Seconds between reconnect attempts of an initiator. Default 30.</summary>
    public int ReconnectInterval { get; init; } = 30;

    /// <summary>Seconds to wait for the Logon answer. Default 10.</summary>
    public int LogonTimeout { get; init; } = 10;

    /// <summary>Seconds to wait for the Logout answer. Default 2.</summary>
    public int LogoutTimeout { get; init; } = 2;

    /// <summary>Daily (or weekly, with <see cref="StartDay"/>) session start, in <see cref="TimeZone"/>. Required unless <see cref="NonStopSession"/>.</summary>
    public TimeOnly? StartTime { get; init; }

    /// <summary>Daily (or weekly, with <see cref="EndDay"/>) session end, in <see cref="TimeZone"/>. Required unless <see cref="NonStopSession"/>.</summary>
    public TimeOnly? EndTime { get; init; }

    /// <summary>TimeZoneInfo id for StartTime/EndTime, e.g. <c>America/New_York</c>. Default UTC.</summary>
    public string TimeZone { get; init; } = "UTC";

    /// <summary>StartTime/EndTime are in the machine's local time zone (QuickFIX <c>UseLocalTime</c>); cannot be combined
    /// with a <see cref="TimeZone"/> other than UTC. Default N.</summary>
    public bool UseLocalTime { get; init; }

    /// <summary>QuickFIX/n <c>Weekdays</c>: a daily session (StartTime-EndTime) that runs only on these days (the day each
    /// period starts); every day when empty. Cannot be combined with StartDay/EndDay.</summary>
    public IReadOnlyList<DayOfWeek> Weekdays { get; init; } = [];

    /// <summary>First day of a weekly session; set together with <see cref="EndDay"/>.</summary>
    public DayOfWeek? StartDay { get; init; }

    /// <summary>Last day of a weekly session; set together with <see cref="StartDay"/>.</summary>
    public DayOfWeek? EndDay { get; init; }

    /// <summary>The session never ends; StartTime/EndTime are ignored. Default N.</summary>
    public bool NonStopSession { get; init; }

    /// <summary>QuickFIX <c>LogonTime</c>: start of the logon window inside the session time, in the session's time zone
    /// (<see cref="TimeZone"/> or <see cref="UseLocalTime"/>). Outside the window (but inside StartTime-EndTime) an
    /// initiator does not connect and an acceptor answers a Logon with a Logout; the sequence numbers carry on (they are
    /// reset only when a new session period starts). Default <see cref="StartTime"/>.</summary>
    public TimeOnly? LogonTime { get; init; }

    /// <summary>QuickFIX <c>LogoutTime</c>: end of the logon window (inclusive); a logged-on session sends a Logout once it
    /// has passed, and keeps its sequence numbers. Default <see cref="EndTime"/>.</summary>
    public TimeOnly? LogoutTime { get; init; }

    /// <summary>QuickFIX <c>LogonDay</c>: the day the logon window opens (with <see cref="LogonTime"/>), for a weekly window.
    /// Default <see cref="StartDay"/>; a daily session (no StartDay) with a weekly window sets it together with
    /// <see cref="LogoutDay"/>.</summary>
    public DayOfWeek? LogonDay { get; init; }

    /// <summary>QuickFIX <c>LogoutDay</c>: the day the logon window closes (with <see cref="LogoutTime"/>). Default
    /// <see cref="EndDay"/>.</summary>
    public DayOfWeek? LogoutDay { get; init; }

    /// <summary>QuickFIX/J <c>ContinueInitializationOnError</c>: when Y, a session whose settings or files (data
    /// dictionary, store) fail to load is left out with its error reported (the engine's console line and
    /// <see cref="Engine.FixEngineHost.SkippedSessions"/>) and the other sessions start; the engine still fails to start
    /// when every session fails. Usually set in [DEFAULT]. Default N: any failing session stops the engine from
    /// starting.</summary>
    public bool ContinueInitializationOnError { get; init; }

    /// <summary>Directory of the file message store; memory store when null.</summary>
    public string? FileStorePath { get; init; }

    /// <summary>A folder the file store moves each finished journal to on a session reset (new trading day, a Logon with
    /// ResetSeqNumFlag), named by the incarnation's creation time (UTC); unset (the default) truncates it. Settings key
    /// <c>FileStoreArchivePath</c>. See <see cref="Store.FileMessageStoreOptions.ArchiveDirectory"/>.</summary>
    public string? FileStoreArchivePath { get; init; }

    /// <summary>Keep an index checkpoint beside each file store journal so a long journal opens without a full replay.
    /// Settings key <c>FileStoreIndexCheckpoint</c> (Y/N, default N). See
    /// <see cref="Store.FileMessageStoreOptions.IndexCheckpoint"/>.</summary>
    public bool FileStoreIndexCheckpoint { get; init; }

    /// <summary>Directory of the file log; no file log when null.</summary>
    public string? FileLogPath { get; init; }

    /// <summary>Tags whose values the message log under <see cref="FileLogPath"/> writes as <see cref="RedactionLogText"/>
    /// (QuickFIX/n <c>RedactFieldsInLogs</c>, comma-separated tag numbers, e.g. <c>553,554</c> for Username and Password).
    /// Only the log's copy is redacted: the store, the wire and the application see the values. Events and logs of your own
    /// <see cref="Session.ISessionLog"/> are not redacted. Empty (nothing redacted) by default.</summary>
    public IReadOnlyList<int> RedactFieldsInLogs { get; init; } = [];

    /// <summary>The text written in place of a value of a <see cref="RedactFieldsInLogs"/> tag (QuickFIX/n
    /// <c>RedactionLogText</c>); printable ASCII. Default <c>&lt;redacted&gt;</c>.</summary>
    public string RedactionLogText { get; init; } = DefaultRedactionLogText;

    /// <summary>The default <see cref="RedactionLogText"/>, as QuickFIX/n's.</summary>
    internal const string DefaultRedactionLogText = "<redacted>";

    /// <summary>How the file log under <see cref="FileLogPath"/> is laid out: <see cref="SessionLogLayout.SharedFile"/>
    /// (default: every session naming the directory writes to its <c>fixengine.log</c>) or
    /// <see cref="SessionLogLayout.PerSessionFiles"/> (QuickFIX's layout: <c>BeginString-SenderCompID-TargetCompID.messages.log</c>
    /// and <c>.event.log</c> per session).</summary>
    public SessionLogLayout FileLogLayout { get; init; } = SessionLogLayout.SharedFile;

    /// <summary>Data dictionary path for FIX.4.x sessions.</summary>
    public string? DataDictionary { get; init; }

    /// <summary>Transport (FIXT.1.1) dictionary path.</summary>
    public string? TransportDataDictionary { get; init; }

    /// <summary>Application (FIX.5.x) dictionary path.</summary>
    public string? AppDataDictionary { get; init; }

    /// <summary>Application dictionaries for further application versions of a FIXT.1.1 session (QuickFIX's
    /// <c>AppDataDictionary.&lt;version&gt;</c> keys, e.g. <c>AppDataDictionary.FIX.4.4=FIX44.xml</c>): the key is the
    /// version's name as QuickFIX spells it (<c>FIX.4.0</c> ... <c>FIX.4.4</c>, <c>FIX.5.0</c>, <c>FIX.5.0SP1</c>,
    /// <c>FIX.5.0SP2</c>), the value the dictionary's path. Empty by default.</summary>
    /// <remarks>
    /// <para>With entries here, each application message is validated against the dictionary of its version, as QuickFIX
    /// C++ chooses it: ApplVerID(1128) of its header, or when it has none the counterparty's DefaultApplVerID(1137) from
    /// its Logon. <see cref="AppDataDictionary"/> is the dictionary of <see cref="DefaultApplVerID"/>'s version. A
    /// message whose version has no dictionary is answered with a session Reject, SessionRejectReason(373) 18
    /// (Invalid/unsupported application version) naming ApplVerID(1128), and not handed to the application.</para>
    /// <para>Without entries (only <see cref="AppDataDictionary"/>) every application message is validated against
    /// <see cref="AppDataDictionary"/>, whatever version it names, as QuickFIX/n does.</para>
    /// <para>FIXT.1.1 sessions only; a version may not be named both here and by <see cref="DefaultApplVerID"/> with
    /// <see cref="AppDataDictionary"/> set. Set it in code with a dictionary keyed by the version name
    /// (<c>new Dictionary&lt;string, string&gt; { ["FIX.4.4"] = "FIX44.xml" }</c>).</para>
    /// </remarks>
    public IReadOnlyDictionary<string, string> AppDataDictionaries { get; init; } = NoAppDataDictionaries;

    private static readonly IReadOnlyDictionary<string, string> NoAppDataDictionaries = new Dictionary<string, string>(StringComparer.OrdinalIgnoreCase);

    /// <summary>Validate incoming messages against the dictionary. Default Y.</summary>
    public bool UseDataDictionary { get; init; } = true;

    /// <summary>Reset sequence numbers on every Logon. Default N.</summary>
    public bool ResetOnLogon { get; init; }

    /// <summary>Reset sequence numbers after Logout. Default N.</summary>
    public bool ResetOnLogout { get; init; }

    /// <summary>Reset sequence numbers on disconnect. Default N.</summary>
    public bool ResetOnDisconnect { get; init; }

    /// <summary>Reload sequence numbers and stored messages from the store before each Logon (warm standby: resume where
    /// the previous primary left the store). Default N.</summary>
    /// <remarks>With a FileStorePath the journal is then opened shared, so a standby engine can hold it while the primary
    /// writes it; only the instance that is logged on may write.</remarks>
    public bool RefreshOnLogon { get; init; }

    /// <summary>Send a ResendRequest even when one for the same gap is outstanding. Default N.</summary>
    public bool SendRedundantResendRequests { get; init; }

    /// <summary>Maximum messages asked for per ResendRequest; 0 = all. Default 0.</summary>
    public int ResendRequestChunkSize { get; init; }

    /// <summary>Reject header/body/trailer fields out of order. Default Y.</summary>
    public bool ValidateFieldsOutOfOrder { get; init; } = true;

    /// <summary>Reject fields with empty values. Default Y.</summary>
    public bool ValidateFieldsHaveValues { get; init; } = true;

    /// <summary>Validate user-defined fields (tag 5000 and up). Default Y.</summary>
    public bool ValidateUserDefinedFields { get; init; } = true;

    /// <summary>Reject group members out of dictionary order. Default Y.</summary>
    public bool ValidateUnorderedGroupFields { get; init; } = true;

    /// <summary>Check BodyLength and CheckSum of incoming messages; N accepts messages whose BodyLength(9) or CheckSum(10)
    /// is wrong, as QuickFIX does. Default Y.</summary>
    public bool ValidateLengthAndChecksum { get; init; } = true;

    /// <summary>Accept fields not defined for the message type. Default N.</summary>
    public bool AllowUnknownMsgFields { get; init; }

    /// <summary>Accept values outside a field's dictionary enumeration (QuickFIX/n <c>AllowUnknownEnumValues</c>, also
    /// spelled <c>AllowUnknownFieldValues</c>): the value's format is still checked. Default N.</summary>
    public bool AllowUnknownEnumValues { get; init; }

    /// <summary>Ignore a ResendRequest that carries PossDupFlag(43)=Y (it is a copy of one already answered); its
    /// sequence number is still consumed (QuickFIX/n <c>IgnorePossDupResendRequests</c>). Default N.</summary>
    public bool IgnorePossDupResendRequests { get; init; }

    /// <summary>Send a Logout before disconnecting when the peer's heartbeats stop (QuickFIX/n
    /// <c>SendLogoutBeforeDisconnectFromTimeout</c>). Default N.</summary>
    public bool SendLogoutBeforeDisconnectFromTimeout { get; init; }

    /// <summary>Reject messages whose SendingTime is further than <see cref="MaxLatency"/> from now. Default Y.</summary>
    public bool CheckLatency { get; init; } = true;

    /// <summary>SendingTime tolerance in seconds. Default 120.</summary>
    public int MaxLatency { get; init; } = 120;

    /// <summary>Check the CompIDs of incoming messages. Default Y.</summary>
    public bool CheckCompID { get; init; } = true;

    /// <summary>Keep sent messages for resends. Default Y.</summary>
    public bool PersistMessages { get; init; } = true;

    /// <summary>QuickFIX's older switch: Y = milliseconds, N = seconds; overridden by <see cref="TimestampPrecision"/>. Default Y.</summary>
    public bool MillisecondsInTimeStamp { get; init; } = true;

    /// <summary>Digits of second fractions in timestamps we send: 0, 3, 6 or 9; null = from <see cref="MillisecondsInTimeStamp"/>.</summary>
    public int? TimestampPrecision { get; init; }

    /// <summary>The precision in effect: <see cref="TimestampPrecision"/>, else 3 or 0 from <see cref="MillisecondsInTimeStamp"/>.</summary>
    public int EffectiveTimestampPrecision => TimestampPrecision ?? (MillisecondsInTimeStamp ? 3 : 0);

    /// <summary>Stamp LastMsgSeqNumProcessed(369) = the last inbound MsgSeqNum processed on every outbound header. Default N.</summary>
    public bool EnableLastMsgSeqNumProcessed { get; init; }

    /// <summary>Send NextExpectedMsgSeqNum(789) on Logon. Default N.</summary>
    public bool EnableNextExpectedMsgSeqNum { get; init; }

    /// <summary>After a takeover whose store may have lost its last sent messages (PostgreSQL GroupCommit standby), how far
    /// the sender MsgSeqNum may be moved up to the number the counterparty expects, learnt from NextExpectedMsgSeqNum(789)
    /// of its Logon or from the Text(58) "MsgSeqNum too low, expecting X but received Y" of the Logout that refuses ours.
    /// Each move is logged; a larger jump is logged as an error and not made. 0 = never move. Default 100000.</summary>
    public int MaxSenderSeqNumCatchUp { get; init; } = 100_000;

    /// <summary>TCP_NODELAY. Default Y.</summary>
    public bool SocketNodelay { get; init; } = true;

    /// <summary>SO_REUSEADDR on the listening socket. Default Y.</summary>
    public bool SocketReuseAddress { get; init; } = true;

    /// <summary>SO_REUSEPORT on the listening socket: lets another listener (another engine or process) bind the same
    /// port, the kernel splitting connections between them. Default N: starting a second acceptor on a port in use fails
    /// with "port P is already in use by another listener". Y only for listeners that share one session state.</summary>
    public bool SocketReusePort { get; init; }

    /// <summary>SO_SNDBUF in bytes; 0 = OS default.</summary>
    public int SocketSendBufferSize { get; init; }

    /// <summary>SO_RCVBUF in bytes; 0 = OS default.</summary>
    public int SocketReceiveBufferSize { get; init; }

    /// <summary>SO_KEEPALIVE. Default N.</summary>
    public bool SocketKeepAlive { get; init; }

    /// <summary>Receive on a thread per connection, with socket completions or by the engine agent busy-polling. Default Dedicated.</summary>
    /// <remarks>
    /// Dedicated: inbound messages are processed on the connection's own receive thread (woken by the kernel, one
    /// wake-up per burst); Completion: on the socket completion thread; BusyPoll: on the engine agent thread.
    /// A per-port setting for acceptors (every session on one SocketAcceptPort must agree, the engine rejects a
    /// configuration where they differ); per session for initiators. TLS connections (<see cref="SocketUseSSL"/>) are
    /// always completion-driven, so BusyPoll with SSL is rejected.
    /// </remarks>
    public ReceiveMode ReceiveMode { get; init; } = ReceiveMode.Dedicated;

    /// <summary>CPUs the engine agent thread is pinned to (<c>2</c>, <c>2,3</c> or <c>2-3</c>); empty = not pinned.</summary>
    /// <remarks>Engine-wide: <c>FixEngineHost</c> runs one agent for all its sessions, so every session must have the same
    /// value (set it once in [DEFAULT]) unless <c>EngineOptions.CpuAffinity</c> is given.</remarks>
    public IReadOnlyList<int> CpuAffinity { get; init; } = [];

    /// <summary>Idle strategy of the engine agent thread. Default Backoff.</summary>
    /// <remarks>Engine-wide: <c>FixEngineHost</c> runs one agent for all its sessions, so every session must have the same
    /// value (set it once in [DEFAULT]) unless <c>EngineOptions.IdleStrategy</c> is given.</remarks>
    public IdleStrategyKind IdleStrategy { get; init; } = IdleStrategyKind.Backoff;

    /// <summary>File store flush policy. Default OS (the same default as <c>FileMessageStoreOptions.SyncPolicy</c>).</summary>
    /// <remarks>OS: each record reaches the kernel's page cache before the message is sent, so a process crash loses
    /// nothing, at about 1 µs per message; PerMessage also survives power loss at one disk flush per message.</remarks>
    public Store.FileStoreSyncPolicy FileStoreSync { get; init; } = Store.FileStoreSyncPolicy.OS;

    /// <summary>What the file store does when its journal is damaged in the middle (data lost, valid records after
    /// it): Refuse (default: opening fails naming the file, byte offset and record) or RecoverAndGapFill (keep every
    /// valid record, copy the damaged file aside, answer resend requests for lost messages with GapFill).</summary>
    /// <remarks>A damaged tail (a torn write) and damage that loses nothing are repaired under both policies.</remarks>
    public Store.StoreRecoveryPolicy FileStoreRecovery { get; init; } = Store.StoreRecoveryPolicy.Refuse;

    /// <summary>Largest accepted message in bytes; larger frames are garbled. Default 1 MiB.</summary>
    public int MaxMessageSize { get; init; } = 1 << 20;

    /// <summary>Acceptor: the largest message a connection may send before its Logon binds it to a session (a Logon fits in a
    /// few hundred bytes); the connection's receive buffer is sized for it, and <see cref="MaxMessageSize"/> applies after
    /// the Logon. A per-port key. Default 8 KiB.</summary>
    public int PreLogonMaxMessageSize { get; init; } = 8 << 10;

    /// <summary>Acceptor: most connections on one SocketAcceptPort that have not yet sent a routed Logon; one more is
    /// refused at accept, with a logged line naming the peer. A per-port key. Default 10000.</summary>
    /// <remarks>Sized for a reconnect storm: after a gateway restart every client connects at once, and each holds a
    /// place until its Logon is routed (at most <see cref="LogonTimeout"/>). The memory it bounds is small: before its
    /// Logon a connection's receive buffer is at most <see cref="PreLogonMaxMessageSize"/> (8 KiB by default), so 10,000
    /// silent or hostile connections hold at most about 80 MiB of buffers. See docs/guide.md, "Many sessions".</remarks>
    public int MaxUnauthenticatedConnections { get; init; } = 10_000;

    /// <summary>Acceptor: most such connections from one source address on one SocketAcceptPort. A per-port key. Default 2500.</summary>
    /// <remarks>A quarter of the default <see cref="MaxUnauthenticatedConnections"/>: thousands of clients behind a few NAT
    /// addresses reconnect in one wave, while one address alone cannot take every place on the port.</remarks>
    public int MaxUnauthenticatedConnectionsPerAddress { get; init; } = 2_500;

    /// <summary>Stored-message index entries reserved per session up front and kept across resets. Default 0: none; the
    /// store index grows with what the session stores (3 bytes per message in the file store, 16 in the memory store),
    /// from the shared array pool.</summary>
    /// <remarks>Reserve only for a session that must not touch the pool while it runs (its first period's growth is
    /// then free of pool rents); every reservation is held by every session whether it sends or not.</remarks>
    public int StoreIndexCapacity { get; init; }

    /// <summary>Message bytes the memory store reserves per session up front and keeps across resets (rounded up to
    /// whole 1 MiB chunks). Default 0: none; the arena grows from a 4 KiB chunk, doubling up to 1 MiB chunks, from the
    /// shared array pool.</summary>
    /// <remarks>Used only without <see cref="FileStorePath"/>. With <see cref="StoreIndexCapacity"/>, for a session that
    /// must not touch the pool while it runs: appends within both reservations allocate nothing from the first message
    /// on; beyond them the store grows (no message is dropped). Growth from a warm pool allocates nothing either.</remarks>
    public int MemoryStoreCapacityBytes { get; init; }

    /// <summary>What the session does when its message store cannot take writes for a while (a store whose failure
    /// <see cref="Store.MessageStoreException.MayRecover"/>, such as the PostgreSQL store of the FixEngine.PostgreSQL
    /// package while its database is away): <c>Logout</c> (default: disconnect, <see cref="Session.IApplication.OnStoreFailure"/>)
    /// or <c>Hold</c> (stop sending, keep the connection while the store's lease lasts, resume when the store is back; see
    /// docs/postgres-store.md). Settings key <c>StoreFailurePolicy</c>, or <c>PostgreSQLStoreFailurePolicy</c> as
    /// earlier versions spelled it.</summary>
    public StoreFailurePolicy StoreFailurePolicy { get; init; } = StoreFailurePolicy.Logout;

    /// <summary>Keys that an integration package reads, as written (key, value; keys ignore case): the
    /// <c>PostgreSQLStore*</c> keys of FixEngine.PostgreSQL. The package's store factory parses and validates them (and
    /// names the file and line of a bad value through <see cref="Origin"/>); without the package, a session that names
    /// a PostgreSQL store fails at engine start with an error saying which package to reference. Empty by default.</summary>
    /// <remarks>Set them in code with <see cref="WithExtensionSetting"/>.</remarks>
    public IReadOnlyDictionary<string, string> ExtensionSettings { get; init; } = NoExtensionSettings;

    private static readonly IReadOnlyDictionary<string, string> NoExtensionSettings = new Dictionary<string, string>(StringComparer.OrdinalIgnoreCase);

    /// <summary>A copy of these settings with the integration key <paramref name="key"/> set to <paramref name="value"/>
    /// (see <see cref="ExtensionSettings"/>), e.g. <c>PostgreSQLStoreConnectionString</c>.</summary>
    /// <param name="key">An integration package's key (one of the keys <see cref="SettingsFile"/> accepts for it).</param>
    /// <param name="value">Its value as a settings file would write it.</param>
    /// <returns>The new settings.</returns>
    /// <exception cref="ArgumentException"><paramref name="key"/> is not an integration package's key.</exception>
    public SessionSettings WithExtensionSetting(string key, string value)
    {
        ArgumentNullException.ThrowIfNull(key);
        ArgumentNullException.ThrowIfNull(value);
        if (SettingKeys.ExtensionOwner(key) is null) throw new ArgumentException($"'{key}' is not a key of an integration package", nameof(key));
        var copy = new Dictionary<string, string>(ExtensionSettings, StringComparer.OrdinalIgnoreCase) { [key] = value };
        return this with { ExtensionSettings = copy };
    }

    /// <summary>Use TLS. Default N.</summary>
    public bool SocketUseSSL { get; init; }

    /// <summary>Path of our certificate for TLS, with its private key: a PKCS#12 file (.pfx/.p12), or PEM (any
    /// extension, e.g. .pem or .crt) with the key in the same file or in <see cref="SSLCertificateKeyFile"/>; required for
    /// TLS acceptors. QuickFIX C++ <c>ServerCertificateFile</c> (acceptors) and <c>ClientCertificateFile</c> (initiators)
    /// set it.</summary>
    public string? SSLCertificate { get; init; }

    /// <summary>PEM private key of <see cref="SSLCertificate"/> when it is in a separate file (PKCS#8, encrypted PKCS#8,
    /// PKCS#1 RSA or SEC1 EC). QuickFIX C++ <c>ServerCertificateKeyFile</c>/<c>ClientCertificateKeyFile</c> set it.</summary>
    public string? SSLCertificateKeyFile { get; init; }

    /// <summary>Password of <see cref="SSLCertificate"/> (PKCS#12) or of an encrypted PEM private key.</summary>
    public string? SSLCertificatePassword { get; init; }

    /// <summary>Server name an initiator expects on the acceptor's certificate; SocketConnectHost when null.</summary>
    public string? SSLServerName { get; init; }

    /// <summary>A TLS acceptor requires a client certificate. Default N.</summary>
    public bool SSLRequireClientCertificate { get; init; }

    /// <summary>Allowed TLS versions (<c>Tls12,Tls13</c>); None = OS default.</summary>
    public SslProtocols SSLProtocols { get; init; } = SslProtocols.None;

    /// <summary>Path of the certificates trusted to sign the peer's certificate, instead of the system trust store: a PEM
    /// bundle (every certificate in it is used), a DER certificate or a PKCS#12 file. QuickFIX C++
    /// <c>CertificationAuthoritiesFile</c> sets it. The system trust store when neither this nor
    /// <see cref="SSLCACertificateDirectory"/> is set.</summary>
    public string? SSLCACertificate { get; init; }

    /// <summary>A directory whose certificate files (PEM or DER, e.g. an OpenSSL <c>c_rehash</c> directory) are all trusted,
    /// together with <see cref="SSLCACertificate"/>. QuickFIX C++ <c>CertificationAuthoritiesDirectory</c> sets it.</summary>
    public string? SSLCACertificateDirectory { get; init; }

    /// <summary>Check the revocation status of the peer's certificate chain online (CRL/OCSP from the certificates'
    /// distribution points) when <see cref="SSLValidateCertificates"/> is Y. Default N (QuickFIX/n defaults to Y;
    /// QuickFIX C++ checks only CRL files it is given).</summary>
    public bool SSLCheckCertificateRevocation { get; init; }

    /// <summary>Validate the peer's certificate (chain, and on initiators the name). Default Y; N accepts any certificate
    /// (testing only).</summary>
    public bool SSLValidateCertificates { get; init; } = true;

    /// <summary>Longest TLS handshake in seconds. On an acceptor it counts from the TCP accept, so a client that connects
    /// and sends nothing gives its place among the connections without a Logon back after it. Default 10.</summary>
    public int SSLHandshakeTimeout { get; init; } = 10;

    /// <summary>The peers an acceptor session takes a Logon from (QuickFIX/J <c>AllowedRemoteAddresses</c>, comma-separated):
    /// IP addresses or host names, a name standing for every address it resolves to when the engine starts (or the session
    /// is added). A Logon for the session from any other address is answered with a Logout naming the address and the
    /// connection closed; a connection from an address that no session on its port allows is closed as soon as it is
    /// accepted, before a byte is read (unless a session on the port has no list, or EngineOptions.UnknownSessionHandler
    /// may add sessions). Empty (any address) by default. Initiators cannot have one.</summary>
    public IReadOnlyList<string> AllowedRemoteAddresses { get; init; } = [];

    /// <summary>Log session events verbosely (QuickFIX/n <c>Verbose</c>). Default N.</summary>
    public bool Verbose { get; init; }

    /// <summary>The session's identity; call after <see cref="Validate"/> (CompIDs and BeginString must be set).</summary>
    public SessionId SessionId => new(BeginString ?? "", SenderCompID ?? "", TargetCompID ?? "", SessionQualifier ?? "");

    /// <summary>The primary endpoint followed by the failovers; empty for acceptors.</summary>
    public IReadOnlyList<SocketEndpoint> SocketConnectEndpoints
    {
        get
        {
            var list = new List<SocketEndpoint>();
            if (SocketConnectHost is not null && SocketConnectPort is int port)
            {
                list.Add(new SocketEndpoint(SocketConnectHost, port) { SourceHost = SocketLocalHost, SourcePort = SocketLocalPort });
            }
            foreach (SocketEndpoint failover in SocketConnectFailovers)
            {
                list.Add(failover.SourceHost is null ? failover with { SourceHost = SocketLocalHost } : failover);
            }
            return list;
        }
    }

    /// <summary>Checks required settings, ranges and combinations.</summary>
    /// <exception cref="ConfigException">Names the property (= the settings key) and the reason; no file or line.</exception>
    public void Validate()
    {
        if (FindError() is (string key, string reason)) throw new ConfigException(null, 0, key, reason);
    }

    /// <summary>Builds the schedule described by StartTime/EndTime/StartDay/EndDay/TimeZone/NonStopSession.</summary>
    /// <exception cref="ConfigException">The schedule settings are invalid.</exception>
    public SessionSchedule CreateSchedule()
    {
        Validate();
        return NonStopSession
            ? SessionSchedule.NonStop
            : new SessionSchedule(StartTime!.Value, EndTime!.Value, UseLocalTime ? TimeZoneInfo.Local : ResolveTimeZone(TimeZone)!, StartDay, EndDay, Weekdays);
    }

    /// <summary>The logon window (LogonTime-LogoutTime, LogonDay-LogoutDay) when it is narrower than the session time, or
    /// null when it is the session time itself (no logon key set, the keys equal the session's, or a non-stop session).</summary>
    /// <exception cref="ConfigException">The settings are invalid.</exception>
    internal SessionSchedule? CreateLogonWindow()
    {
        Validate();
        if (NonStopSession || !HasLogonKeys) return null;
        (TimeOnly on, TimeOnly off, DayOfWeek? onDay, DayOfWeek? offDay) = EffectiveLogonWindow();
        if (on == StartTime && off == EndTime && onDay == StartDay && offDay == EndDay) return null;
        return new SessionSchedule(on, off, UseLocalTime ? TimeZoneInfo.Local : ResolveTimeZone(TimeZone)!, onDay, offDay);
    }

    /// <summary>The logon window as text for logs and Logout texts, e.g. <c>LogonTime 08:00:00 - LogoutTime 17:00:00 UTC</c>.</summary>
    internal string DescribeLogonWindow()
    {
        (TimeOnly on, TimeOnly off, DayOfWeek? onDay, DayOfWeek? offDay) = EffectiveLogonWindow();
        string zone = UseLocalTime ? "local time" : TimeZone;
        return onDay is null
            ? $"LogonTime {FormatTime(on)} - LogoutTime {FormatTime(off)} {zone}"
            : $"LogonDay {onDay} {FormatTime(on)} - LogoutDay {offDay} {FormatTime(off)} {zone}";
    }

    private static string FormatTime(TimeOnly t)
        => t.ToString(t.Ticks % TimeSpan.TicksPerSecond == 0 ? "HH:mm:ss" : "HH:mm:ss.FFFFFFF", System.Globalization.CultureInfo.InvariantCulture);

    private bool HasLogonKeys => LogonTime is not null || LogoutTime is not null || LogonDay is not null || LogoutDay is not null;

    // QuickFIX: each end of the logon window defaults to the session time's (LogonTime to StartTime, LogonDay to StartDay ...).
    private (TimeOnly On, TimeOnly Off, DayOfWeek? OnDay, DayOfWeek? OffDay) EffectiveLogonWindow()
        => (LogonTime ?? StartTime!.Value, LogoutTime ?? EndTime!.Value, LogonDay ?? StartDay, LogoutDay ?? EndDay);

    private const long TicksPerWeek = 7 * TimeSpan.TicksPerDay;

    // The logon window must lie inside one period of the session time (QuickFIX: "LogonTime must be between StartTime and
    // EndTime"), and close after it opens. Called once StartTime/EndTime/StartDay/EndDay are known to be valid.
    private (string Key, string Reason)? FindLogonWindowError()
    {
        if (!HasLogonKeys) return null;
        if (StartDay is null && LogonDay is null != LogoutDay is null)
        {
            return LogonDay is null
                ? (nameof(LogonDay), "missing (LogoutDay is set; a weekly logon window in a daily session needs both)")
                : (nameof(LogoutDay), "missing (LogonDay is set; a weekly logon window in a daily session needs both)");
        }
        (TimeOnly on, TimeOnly off, DayOfWeek? onDay, DayOfWeek? offDay) = EffectiveLogonWindow();
        TimeOnly start = StartTime!.Value;
        TimeOnly end = EndTime!.Value;
        if (on == start && off == end && onDay == StartDay && offDay == EndDay) return null;
        string onKey = LogonDay is not null && LogonTime is null ? nameof(LogonDay) : nameof(LogonTime);
        string offKey = LogoutDay is not null && LogoutTime is null ? nameof(LogoutDay) : nameof(LogoutTime);
        string session = StartDay is null
            ? $"StartTime {Format(start)} - EndTime {Format(end)}"
            : $"StartDay {StartDay} {Format(start)} - EndDay {EndDay} {Format(end)}";
        if (onDay is null || StartDay is null)
        {
            // A daily window in a daily session, or (as QuickFIX) the times of a weekly window in a daily session.
            long length = Mod(end.Ticks - start.Ticks, TimeSpan.TicksPerDay);
            if (length == 0) length = TimeSpan.TicksPerDay;
            long l = Mod(on.Ticks - start.Ticks, TimeSpan.TicksPerDay);
            long o = Mod(off.Ticks - start.Ticks, TimeSpan.TicksPerDay);
            if (l > length) return (onKey, $"{Format(on)} is outside the session time {session} (LogonTime must be between StartTime and EndTime)");
            if (o > length) return (offKey, $"{Format(off)} is outside the session time {session} (LogoutTime must be between StartTime and EndTime)");
            if (onDay is null && o <= l)
            {
                return (offKey, $"{Format(off)} is not after LogonTime {Format(on)} within one session period ({session}): the logon window must close after it opens, before the session's end");
            }
            if (onDay is not null && onDay == offDay && on == off)
            {
                return (offKey, $"LogoutDay {offDay} {Format(off)} equals LogonDay {onDay} {Format(on)}: the logon window would be empty");
            }
            return null;
        }
        // A weekly window in a weekly session: positions in the week, counted from the session's start.
        long weekStart = WeekTicks(StartDay.Value, start);
        long weekLength = Mod(WeekTicks(EndDay!.Value, end) - weekStart, TicksPerWeek);
        if (weekLength == 0) weekLength = TicksPerWeek;
        long wl = Mod(WeekTicks(onDay.Value, on) - weekStart, TicksPerWeek);
        long wo = Mod(WeekTicks(offDay!.Value, off) - weekStart, TicksPerWeek);
        if (wl > weekLength) return (onKey, $"{onDay} {Format(on)} is outside the session time {session} (LogonDay/LogonTime must be between StartDay/StartTime and EndDay/EndTime)");
        if (wo > weekLength) return (offKey, $"{offDay} {Format(off)} is outside the session time {session} (LogoutDay/LogoutTime must be between StartDay/StartTime and EndDay/EndTime)");
        if (wo <= wl)
        {
            return (offKey, $"{offDay} {Format(off)} is not after LogonDay/LogonTime {onDay} {Format(on)} within one session period ({session}): the logon window must close after it opens");
        }
        return null;

        static long Mod(long a, long m) => ((a % m) + m) % m;
        static long WeekTicks(DayOfWeek d, TimeOnly t) => (int)d * TimeSpan.TicksPerDay + t.Ticks;
        static string Format(TimeOnly t) => FormatTime(t);
    }

    internal static TimeZoneInfo? ResolveTimeZone(string id)
    {
        if (string.Equals(id, "UTC", StringComparison.OrdinalIgnoreCase)) return TimeZoneInfo.Utc;
        try
        {
            return TimeZoneInfo.FindSystemTimeZoneById(id);
        }
        catch (Exception e) when (e is TimeZoneNotFoundException or InvalidTimeZoneException)
        {
            return null;
        }
    }

    /// <summary>The first problem found, as (key, reason), or null when the settings are valid.</summary>
    internal (string Key, string Reason)? FindError()
    {
        if (ConnectionType is null) return (nameof(ConnectionType), "missing (acceptor or initiator)");
        if (string.IsNullOrEmpty(BeginString)) return (nameof(BeginString), "missing");
        if (BeginString is not ("FIX.4.0" or "FIX.4.1" or "FIX.4.2" or "FIX.4.3" or "FIX.4.4" or "FIXT.1.1"))
        {
            return (nameof(BeginString), $"'{BeginString}' is not FIX.4.0 .. FIX.4.4 or FIXT.1.1");
        }
        if (string.IsNullOrEmpty(SenderCompID)) return (nameof(SenderCompID), "missing");
        if (string.IsNullOrEmpty(TargetCompID)) return (nameof(TargetCompID), "missing");
        if (BeginString == "FIXT.1.1" && string.IsNullOrEmpty(DefaultApplVerID)) return (nameof(DefaultApplVerID), "missing (required with FIXT.1.1)");

        if (FindAppDataDictionariesError() is (string appKey, string appReason)) return (appKey, appReason);

        if (ConnectionType == Config.ConnectionType.Acceptor)
        {
            if (SocketAcceptPort is null) return (nameof(SocketAcceptPort), "missing (required for acceptors)");
        }
        else
        {
            if (string.IsNullOrEmpty(SocketConnectHost)) return (nameof(SocketConnectHost), "missing (required for initiators)");
            if (SocketConnectPort is null) return (nameof(SocketConnectPort), "missing (required for initiators)");
            if (HeartBtInt is null) return (nameof(HeartBtInt), "missing (required for initiators)");
        }
        if (MaxSenderSeqNumCatchUp < 0) return (nameof(MaxSenderSeqNumCatchUp), $"{MaxSenderSeqNumCatchUp} is negative (0 = never move)");
        if (SocketAcceptPort is int ap && ap != 0 && !IsPort(ap)) return (nameof(SocketAcceptPort), $"{ap} is not a port (1..65535, or 0 for one the system picks)");
        if (SocketConnectPort is int cp && !IsPort(cp)) return (nameof(SocketConnectPort), $"{cp} is not a port (1..65535)");
        if (SocketLocalHost is not null && !System.Net.IPAddress.TryParse(SocketLocalHost, out _))
        {
            return (nameof(SocketLocalHost), $"'{SocketLocalHost}' is not an IP address (the address of this machine the initiator connects from)");
        }
        if (SocketLocalPort is int lp && !IsPort(lp)) return (nameof(SocketLocalPort), $"{lp} is not a port (1..65535)");
        for (int i = 0; i < SocketConnectFailovers.Count; i++)
        {
            SocketEndpoint ep = SocketConnectFailovers[i];
            if (string.IsNullOrEmpty(ep.Host)) return (nameof(SocketConnectHost) + (i + 1), "missing host of failover " + (i + 1));
            if (!IsPort(ep.Port)) return (nameof(SocketConnectPort) + (i + 1), $"{ep.Port} is not a port (1..65535)");
            if (ep.SourceHost is not null && !System.Net.IPAddress.TryParse(ep.SourceHost, out _))
            {
                return ("SocketConnectSourceHost" + (i + 1), $"'{ep.SourceHost}' is not an IP address (the address of this machine the initiator connects to failover {i + 1} from)");
            }
            if (ep.SourcePort is int sp && !IsPort(sp)) return ("SocketConnectSourcePort" + (i + 1), $"{sp} is not a port (1..65535)");
        }
        if (AllowedRemoteAddresses.Count > 0)
        {
            if (ConnectionType == Config.ConnectionType.Initiator)
            {
                return (nameof(AllowedRemoteAddresses), "applies to acceptors (the peers they take a Logon from); an initiator chooses its peer with SocketConnectHost");
            }
            foreach (string a in AllowedRemoteAddresses)
            {
                if (!HostResolver.IsHostSyntax(a)) return (nameof(AllowedRemoteAddresses), $"'{a}' is not an IP address or a host name");
            }
        }
        foreach (int tag in RedactFieldsInLogs)
        {
            if (tag < 1) return (nameof(RedactFieldsInLogs), $"{tag} is not a tag number (1 or more)");
        }
        if (string.IsNullOrEmpty(RedactionLogText)) return (nameof(RedactionLogText), "empty (the text written in place of a redacted value)");
        foreach (char c in RedactionLogText)
        {
            if (c is < ' ' or > '~') return (nameof(RedactionLogText), $"'{RedactionLogText}' holds a character that is not printable ASCII");
        }

        if (HeartBtInt is int hb && hb < 1) return (nameof(HeartBtInt), $"{hb} must be at least 1");
        if (ReconnectInterval < 1) return (nameof(ReconnectInterval), $"{ReconnectInterval} must be at least 1");
        if (LogonTimeout < 1) return (nameof(LogonTimeout), $"{LogonTimeout} must be at least 1");
        if (LogoutTimeout < 1) return (nameof(LogoutTimeout), $"{LogoutTimeout} must be at least 1");
        if (MaxLatency < 1) return (nameof(MaxLatency), $"{MaxLatency} must be at least 1");
        if (ResendRequestChunkSize < 0) return (nameof(ResendRequestChunkSize), $"{ResendRequestChunkSize} must not be negative");
        if (SocketSendBufferSize < 0) return (nameof(SocketSendBufferSize), $"{SocketSendBufferSize} must not be negative");
        if (SocketReceiveBufferSize < 0) return (nameof(SocketReceiveBufferSize), $"{SocketReceiveBufferSize} must not be negative");
        if (MaxMessageSize < 64) return (nameof(MaxMessageSize), $"{MaxMessageSize} must be at least 64");
        if (PreLogonMaxMessageSize < 64) return (nameof(PreLogonMaxMessageSize), $"{PreLogonMaxMessageSize} must be at least 64");
        if (MaxUnauthenticatedConnections < 1) return (nameof(MaxUnauthenticatedConnections), $"{MaxUnauthenticatedConnections} must be at least 1");
        if (SSLHandshakeTimeout < 1) return (nameof(SSLHandshakeTimeout), $"{SSLHandshakeTimeout} must be at least 1 (seconds)");
        if (MaxUnauthenticatedConnectionsPerAddress < 1) return (nameof(MaxUnauthenticatedConnectionsPerAddress), $"{MaxUnauthenticatedConnectionsPerAddress} must be at least 1");
        if (StoreIndexCapacity < 0) return (nameof(StoreIndexCapacity), $"{StoreIndexCapacity} must not be negative");
        if (MemoryStoreCapacityBytes < 0) return (nameof(MemoryStoreCapacityBytes), $"{MemoryStoreCapacityBytes} must not be negative");
        if (TimestampPrecision is int tp && tp is not (0 or 3 or 6 or 9)) return (nameof(TimestampPrecision), $"{tp} must be 0, 3, 6 or 9");
        foreach (int cpu in CpuAffinity)
        {
            if (cpu < 0) return (nameof(CpuAffinity), $"CPU {cpu} must not be negative");
        }

        if (!NonStopSession)
        {
            if (StartTime is null) return (nameof(StartTime), "missing (required unless NonStopSession=Y)");
            if (EndTime is null) return (nameof(EndTime), "missing (required unless NonStopSession=Y)");
        }
        if (StartDay is null != EndDay is null)
        {
            return StartDay is null ? (nameof(StartDay), "missing (EndDay is set)") : (nameof(EndDay), "missing (StartDay is set)");
        }
        if (ResolveTimeZone(TimeZone) is null) return (nameof(TimeZone), $"unknown time zone '{TimeZone}'");
        if (UseLocalTime && !TimeZone.Equals("UTC", StringComparison.OrdinalIgnoreCase))
        {
            return (nameof(TimeZone), $"'{TimeZone}' conflicts with UseLocalTime=Y (set one of them)");
        }
        if (Weekdays.Count > 0 && StartDay is not null) return (nameof(Weekdays), "cannot be combined with StartDay/EndDay");
        if (!NonStopSession && FindLogonWindowError() is (string windowKey, string windowReason)) return (windowKey, windowReason);

        if (SocketUseSSL && ConnectionType == Config.ConnectionType.Acceptor && string.IsNullOrEmpty(SSLCertificate))
        {
            return (nameof(SSLCertificate), "missing (required for SSL acceptors)");
        }
        if (SocketUseSSL && ReceiveMode == ReceiveMode.BusyPoll)
        {
            return (nameof(ReceiveMode), "BusyPoll cannot be used with SocketUseSSL=Y (TLS connections are completion-driven)");
        }
        return null;
    }

    // AppDataDictionary.<version>: FIXT.1.1 only, known version names, a path each, and no second dictionary for the
    // DefaultApplVerID's version.
    private (string Key, string Reason)? FindAppDataDictionariesError()
    {
        foreach ((string version, string path) in AppDataDictionaries)
        {
            string key = SettingKeys.AppDictionaryPrefix + version;
            if (!SettingKeys.TryParseAppDictionaryKey(key, out string? name) || name is null) return (key, SettingKeys.UnknownApplVersion(key));
            if (BeginString != "FIXT.1.1")
            {
                return (key, $"applies to FIXT.1.1 sessions only; this session is {BeginString} (its messages are validated against DataDictionary): "
                    + "remove it, or move it from [DEFAULT] to the FIXT.1.1 sessions");
            }
            if (string.IsNullOrEmpty(path)) return (key, "empty value");
            if (AppDataDictionary is not null && SettingKeys.ToApplVerId(name) == SettingKeys.ToApplVerId(DefaultApplVerID))
            {
                return (key, $"names the same version as DefaultApplVerID={DefaultApplVerID}, whose dictionary is AppDataDictionary; keep one of them");
            }
        }
        return null;
    }

    private static bool IsPort(int port) => port is >= 1 and <= 65535;

    // Filled by SettingsFile: where the settings came from and what could not apply.

    /// <summary>Keys that were accepted but cannot apply as written (QuickFIX keys FixEngine does not act on, values it
    /// rounds or drops), each naming the file, line and key; empty for settings built in code. Log them at start;
    /// <see cref="SettingsFile.Warnings"/> gathers them for a whole file, once each.</summary>
    public IReadOnlyList<ConfigWarning> Warnings { get; init; } = [];

    /// <summary>The file and lines these settings were loaded from (used to name the line of a host that does not resolve
    /// or a certificate that does not load); null for settings built in code.</summary>
    public SettingsOrigin? Origin { get; init; }
}
