using System;
using System.Collections.Generic;
using FixEngine.Config;
using FixEngine.Session;
using FixEngine.Store;

namespace FixEngine.Engine;

/// <summary>Makes the message store of each session an engine builds (<see cref="EngineOptions.MessageStoreFactory"/>).</summary>
/// <remarks>Called once per session: by the <see cref="FixEngineHost"/> constructor on the constructing thread, by
/// <see cref="FixEngineHost.AddSession"/> on its caller's thread, and for a session made by an
/// <see cref="EngineOptions.UnknownSessionHandler"/> on the thread that received its Logon; never twice at once for one
/// engine. The session owns the store it is given and disposes it with itself (a removed session's store is closed by
/// <see cref="FixEngineHost.RemoveSession"/>).</remarks>
public interface IMessageStoreFactory
{
    /// <summary>The store for the session of <paramref name="settings"/>.</summary>
    /// <param name="settings">The session's settings.</param>
    /// <param name="epochNs">Now (epoch nanoseconds): the creation time of a new store.</param>
    /// <returns>A store; the session takes ownership.</returns>
    IMessageStore Create(SessionSettings settings, long epochNs);

    /// <summary>Checks the store settings of a session before any store is made: the engine calls it for every session
    /// when it is built (and before <see cref="FixEngineHost.AddSession"/> or an unknown session's Logon makes one), so a
    /// bad value stops the engine at start rather than after other sessions' stores have opened.</summary>
    /// <param name="settings">The session's settings.</param>
    /// <exception cref="ConfigException">A store setting is invalid; names the file, line and key when the settings
    /// came from a file (<see cref="SessionSettings.Origin"/>).</exception>
    /// <remarks>The default accepts everything; <see cref="Create"/> may still fail on the medium.</remarks>
    void Validate(SessionSettings settings)
    {
    }
}

/// <summary>Makes the message log of each session an engine builds (<see cref="EngineOptions.SessionLogFactory"/>).</summary>
/// <remarks>Called once per session, like <see cref="IMessageStoreFactory.Create"/> (at construction, by
/// <see cref="FixEngineHost.AddSession"/>, for an unknown session's Logon). The factory keeps ownership of what it creates
/// (the engine does not dispose logs); release it after disposing the engine. The engine hands each log back through
/// <see cref="Release"/> once its session is gone (removed by <see cref="FixEngineHost.RemoveSession"/>, or the engine
/// disposed) and no longer logs, so a factory can free what it keeps per session.</remarks>
public interface ISessionLogFactory
{
    /// <summary>The log for the session of <paramref name="settings"/>, or null for none.</summary>
    /// <param name="settings">The session's settings.</param>
    /// <returns>A log, or null.</returns>
    ISessionLog? Create(SessionSettings settings);

    /// <summary>The engine is done with a log this factory created: its session was removed or disposed and will not
    /// log again. Called once per log, on the thread that removed or disposed the session.</summary>
    /// <param name="settings">The session's settings, as given to <see cref="Create"/>.</param>
    /// <param name="log">The log <see cref="Create"/> returned (never null).</param>
    /// <remarks>The default does nothing: what the factory keeps for the session lives as long as the factory.</remarks>
    void Release(SessionSettings settings, ISessionLog log)
    {
    }
}

/// <summary>The built-in store choice: a <see cref="FileMessageStore"/> under <c>FileStorePath</c> when it is set, else a
/// <see cref="MemoryMessageStore"/> (<c>StoreIndexCapacity</c>, <c>MemoryStoreCapacityBytes</c>, <c>FileStoreSync</c>).</summary>
/// <remarks>Stores of integration packages are not made here: a session whose settings name one (the
/// <c>PostgreSQLStoreConnectionString</c> of FixEngine.PostgreSQL, or QuickFIX C++'s <c>PostgreSQLStoreHost</c> and its
/// siblings) fails <see cref="Validate"/> with an error naming the
/// key, its file and line, and the package to reference; that package's factory handles those sessions and hands the
/// others to this one.</remarks>
public sealed class SettingsMessageStoreFactory : IMessageStoreFactory
{
    /// <summary>The one instance (stateless).</summary>
    public static SettingsMessageStoreFactory Instance { get; } = new();

    /// <inheritdoc/>
    /// <exception cref="ConfigException">The settings name a store of a package this factory cannot make
    /// (<c>PostgreSQLStoreConnectionString</c>: reference FixEngine.PostgreSQL and use its factory).</exception>
    public void Validate(SessionSettings settings)
    {
        ArgumentNullException.ThrowIfNull(settings);
        foreach (string key in settings.ExtensionSettings.Keys)
        {
            // A key that selects a store this factory does not know; the package's other keys only tune that store.
            if (!SettingKeys.SelectsStore(key)) continue;
            if (SettingKeys.ExtensionOwner(key) is not (string package, string usage)) continue;
            throw SettingsOrigin.Error(settings, key, $"names a store of the {package} package, which this engine does not use: "
                + $"reference {package} and use its factory ({usage})");
        }
    }

    /// <inheritdoc/>
    /// <exception cref="ConfigException">As <see cref="Validate"/>.</exception>
    /// <exception cref="MessageStoreException">The file store cannot be opened or refuses a damaged journal
    /// (<c>FileStoreRecovery=Refuse</c>).</exception>
    public IMessageStore Create(SessionSettings settings, long epochNs)
    {
        Validate(settings);
        string name = settings.SessionId.ToString();
        return settings.FileStorePath is string storePath
            // RefreshOnLogon is for a standby that opens the journal while the primary still writes it.
            ? new FileMessageStore(storePath, name, epochNs, FileOptions(settings, sharedAccess: settings.RefreshOnLogon))
            : MemoryMessageStoreFactory.Instance.Create(settings, epochNs);
    }

    /// <summary>The file store options the settings ask for (<c>FileStoreSync</c>, <c>FileStoreRecovery</c>,
    /// <c>StoreIndexCapacity</c>, <c>FileStoreArchivePath</c>); also the PostgreSQL store's local journal.</summary>
    internal static FileMessageStoreOptions FileOptions(SessionSettings settings, bool sharedAccess)
    {
        return new FileMessageStoreOptions
        {
            SyncPolicy = settings.FileStoreSync,
            Recovery = settings.FileStoreRecovery,
            InitialIndexCapacity = settings.StoreIndexCapacity,
            SharedAccess = sharedAccess,
            ArchiveDirectory = settings.FileStoreArchivePath,
            IndexCheckpoint = settings.FileStoreIndexCheckpoint,
        };
    }
}

/// <summary>Always a <see cref="MemoryMessageStore"/> (ignores <c>FileStorePath</c>): sequence numbers and sent messages live
/// as long as the process.</summary>
public sealed class MemoryMessageStoreFactory : IMessageStoreFactory
{
    /// <summary>The one instance (stateless).</summary>
    public static MemoryMessageStoreFactory Instance { get; } = new();

    /// <inheritdoc/>
    public IMessageStore Create(SessionSettings settings, long epochNs)
    {
        ArgumentNullException.ThrowIfNull(settings);
        return new MemoryMessageStore(epochNs, initialIndexCapacity: settings.StoreIndexCapacity, initialCapacityInBytes: settings.MemoryStoreCapacityBytes);
    }
}

/// <summary>The built-in log, in the directory <c>FileLogPath</c> (no log when it is not set), laid out as
/// <c>FileLogLayout</c> says: <c>SharedFile</c> (default), one <c>fixengine.log</c> per directory shared by the sessions that
/// name it, each session logging through its own producer; or <c>PerSessionFiles</c>, QuickFIX's layout,
/// <c>&lt;BeginString-SenderCompID-TargetCompID[-qualifier]&gt;.messages.log</c> and <c>.event.log</c> per session.</summary>
/// <remarks>One <see cref="Logging.FixLog"/> (one drain thread) per directory and layout while a session uses it. Owns the
/// log files: dispose it after the engine (the engine disposes the one it makes itself). <see cref="Release"/> (the engine
/// calls it for a removed session) writes what the session logged and closes its per-session files; the last session of
/// a directory takes its FixLog (drain thread, shared <c>fixengine.log</c>) with it. Thread-safe: the engine may add and
/// remove sessions while it runs.</remarks>
public sealed class FileSessionLogFactory : ISessionLogFactory, IDisposable
{
    private readonly Dictionary<(string Path, SessionLogLayout Layout), LogDirectory> _logs = [];
    private readonly Dictionary<FixLogSessionLog, LogDirectory> _created = [];
    private readonly object _gate = new();

    /// <summary>One FixLog and the number of session logs made on it and not yet released.</summary>
    private sealed class LogDirectory((string Path, SessionLogLayout Layout) key, Logging.FixLog log)
    {
        public (string Path, SessionLogLayout Layout) Key { get; } = key;

        public Logging.FixLog Log { get; } = log;

        public int Sessions { get; set; }
    }

    /// <summary>FixLogs open (one per directory and layout with a session not yet released), and the producers and files
    /// of all of them; for diagnostics and tests.</summary>
    internal (int Logs, int Producers, int Files) Totals
    {
        get
        {
            lock (_gate)
            {
                int producers = 0, files = 0;
                foreach (LogDirectory d in _logs.Values)
                {
                    producers += d.Log.ProducerCount;
                    files += d.Log.OpenFileCount;
                }
                return (_logs.Count, producers, files);
            }
        }
    }

    /// <inheritdoc/>
    /// <exception cref="System.IO.IOException">A log file or its directory cannot be created.</exception>
    public ISessionLog? Create(SessionSettings settings)
    {
        ArgumentNullException.ThrowIfNull(settings);
        if (settings.FileLogPath is not string logPath) return null;
        SessionLogLayout layout = settings.FileLogLayout;
        lock (_gate)
        {
            if (!_logs.TryGetValue((logPath, layout), out LogDirectory? directory))
            {
                System.IO.Directory.CreateDirectory(logPath);
                // Entries carry the time the session was given (no clock read per entry).
                var options = new Logging.FixLogOptions { Clock = SessionLogClock.Instance };
                Logging.FixLog fixLog = layout == SessionLogLayout.PerSessionFiles
                    ? new Logging.FixLog(System.IO.TextWriter.Null, options)
                    : Logging.FixLog.CreateFile(System.IO.Path.Combine(logPath, "fixengine.log"), options);
                directory = new LogDirectory((logPath, layout), fixLog);
                _logs.Add(directory.Key, directory);
            }
            SessionId id = settings.SessionId;
            FixLogSessionLog log;
            try
            {
                if (layout == SessionLogLayout.PerSessionFiles)
                {
                    string prefix = FixLogSessionLog.FilePrefix(id.BeginString, id.SenderCompID, id.TargetCompID, id.SessionQualifier);
                    log = FixLogSessionLog.CreatePerSessionFiles(directory.Log, logPath, id.ToString(), prefix);
                }
                else
                {
                    log = new FixLogSessionLog(directory.Log, id.ToString());
                }
            }
            catch
            {
                if (directory.Sessions == 0) CloseDirectory(directory);
                throw;
            }
            // RedactFieldsInLogs/RedactionLogText: the drain writes those values redacted.
            if (settings.RedactFieldsInLogs.Count > 0) log.Redaction = new Logging.LogRedaction(settings.RedactFieldsInLogs, settings.RedactionLogText);
            directory.Sessions++;
            _created.Add(log, directory);
            return log;
        }
    }

    /// <summary>Retires the session's log (<see cref="FixLogSessionLog.Dispose"/>: what it logged is written, its per-session
    /// files closed); closes the directory's FixLog when it was the last session on it. A log this factory did not make
    /// is left alone.</summary>
    /// <param name="settings">The session's settings.</param>
    /// <param name="log">The log <see cref="Create"/> returned.</param>
    public void Release(SessionSettings settings, ISessionLog log)
    {
        ArgumentNullException.ThrowIfNull(log);
        if (log is not FixLogSessionLog own) return;
        lock (_gate)
        {
            if (!_created.Remove(own, out LogDirectory? directory)) return;
            // Under the gate: a Create for the same directory waits until the old FixLog has closed its files.
            own.Dispose();
            if (--directory.Sessions == 0) CloseDirectory(directory);
        }
    }

    // Under _gate.
    private void CloseDirectory(LogDirectory directory)
    {
        _logs.Remove(directory.Key);
        directory.Log.Dispose();
    }

    /// <summary>Flushes and closes the log files.</summary>
    public void Dispose()
    {
        lock (_gate)
        {
            foreach (LogDirectory directory in _logs.Values) directory.Log.Dispose();
            _logs.Clear();
            _created.Clear();
        }
    }
}
