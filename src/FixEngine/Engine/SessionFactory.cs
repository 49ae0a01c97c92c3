using System;
using System.Collections.Generic;
using FixEngine.Config;
using FixEngine.Dictionary;
using FixEngine.Session;
using FixEngine.Store;

namespace FixEngine.Engine;

/// <summary>Builds <see cref="FixSession"/> objects from <see cref="SessionSettings"/>: dictionaries, store and log.</summary>
/// <remarks>
/// Not thread-safe; used while an engine is being built. Dictionaries are loaded once per path and shared
/// (they are immutable). Allocates (start-up only).
/// </remarks>
public sealed class SessionFactory : IDisposable
{
    private readonly Dictionary<string, DataDictionary> _dictionaries = new(StringComparer.Ordinal);
    private readonly Dictionary<string, Logging.FixLog> _logs = new(StringComparer.Ordinal);

    /// <summary>Creates a session.</summary>
    /// <param name="settings">Its settings (validated here).</param>
    /// <param name="application">Application callbacks.</param>
    /// <param name="epochNs">Now (epoch nanoseconds), for new stores.</param>
    /// <returns>The session, owning its store and log.</returns>
    /// <exception cref="MessageStoreException">The file store cannot be opened (unwritable folder, journal in use,
    /// I/O error) or refuses a damaged journal (<c>FileStoreRecovery=Refuse</c>); an <see cref="System.IO.IOException"/>.</exception>
    public FixSession Create(SessionSettings settings, Session.IApplication application, long epochNs)
    {
        ArgumentNullException.ThrowIfNull(settings);
        settings.Validate();
        DataDictionary? sessionDictionary = null;
        DataDictionary? appDictionary = null;
        if (settings.BeginString == "FIXT.1.1")
        {
            if (settings.TransportDataDictionary is string t) sessionDictionary = Load(t);
            if (settings.AppDataDictionary is string a) appDictionary = Load(a);
        }
        else if (settings.DataDictionary is string d)
        {
            sessionDictionary = Load(d);
        }

        string name = settings.SessionId.ToString();
        IMessageStore store = settings.FileStorePath is string storePath
            ? new FileMessageStore(storePath, name, epochNs, new FileMessageStoreOptions
            {
                SyncPolicy = ToPolicy(settings.FileStoreSync),
                Recovery = settings.FileStoreRecovery,
                InitialIndexCapacity = settings.StoreIndexCapacity,
                // RefreshOnLogon is for a standby that opens the journal while the primary still writes it.
                SharedAccess = settings.RefreshOnLogon,
            })
            : new MemoryMessageStore(
                epochNs, initialIndexCapacity: settings.StoreIndexCapacity, initialCapacityInBytes: settings.MemoryStoreCapacityBytes);

        Session.ISessionLog? log = null;
        if (settings.FileLogPath is string logPath)
        {
            // One struct-logger file per FileLogPath; each session logs through its own producer.
            if (!_logs.TryGetValue(logPath, out Logging.FixLog? fixLog))
            {
                System.IO.Directory.CreateDirectory(logPath);
                // Entries carry the time the session was given (no clock read per entry).
                fixLog = Logging.FixLog.CreateFile(System.IO.Path.Combine(logPath, "fixengine.log"), new Logging.FixLogOptions { Clock = SessionLogClock.Instance });
                _logs.Add(logPath, fixLog);
            }
            log = new Session.FixLogSessionLog(fixLog, name);
        }
        // A store that had to recover its journal says what it found and did; the session log keeps it.
        if (store.LastRecoveryReport is StoreRecoveryReport report) log?.OnEvent(report.ToString(), epochNs);
        return new FixSession(settings, application, store, log, sessionDictionary, appDictionary);
    }

    /// <summary>Loads (once) and returns the dictionary at <paramref name="path"/>.</summary>
    /// <param name="path">QuickFIX XML dictionary path.</param>
    /// <returns>The compiled dictionary.</returns>
    public DataDictionary Load(string path)
    {
        if (!_dictionaries.TryGetValue(path, out DataDictionary? dictionary))
        {
            dictionary = DataDictionary.Load(path);
            _dictionaries.Add(path, dictionary);
        }
        return dictionary;
    }

    private static FileStoreSyncPolicy ToPolicy(FileStoreSync sync) => sync switch
    {
        FileStoreSync.PerMessage => FileStoreSyncPolicy.PerMessage,
        FileStoreSync.Batched => FileStoreSyncPolicy.Batched,
        _ => FileStoreSyncPolicy.OS,
    };

    /// <summary>Flushes and closes the message logs.</summary>
    public void Dispose()
    {
        foreach (Logging.FixLog log in _logs.Values) log.Dispose();
        _logs.Clear();
    }
}
