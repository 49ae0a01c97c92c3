using System;
using System.Collections.Generic;
using FixEngine.Config;
using FixEngine.Dictionary;
using FixEngine.Session;
using FixEngine.Store;

namespace FixEngine.Engine;

/// <summary>Builds <see cref="FixSession"/> objects from <see cref="SessionSettings"/>: dictionaries, and the store and log
/// from an <see cref="IMessageStoreFactory"/> and an <see cref="ISessionLogFactory"/>.</summary>
/// <remarks>
/// Not thread-safe, except <see cref="Release"/>; the engine uses it under its control lock (construction, <see cref="FixEngineHost.AddSession"/>). Dictionaries are loaded once per path and shared
/// (they are immutable). Allocates (start-up only).
/// </remarks>
internal sealed class SessionFactory : IDisposable
{
    private readonly Dictionary<string, DataDictionary> _dictionaries = new(StringComparer.Ordinal);
    private readonly IMessageStoreFactory _stores;
    private readonly ISessionLogFactory _logs;
    private readonly FileSessionLogFactory? _ownLogs;

    /// <summary>A factory with the built-in store and log choices (from the settings).</summary>
    public SessionFactory()
        : this(null, null)
    {
    }

    /// <summary>A factory with the given store and log factories.</summary>
    /// <param name="stores">Makes each session's store; <see cref="SettingsMessageStoreFactory"/> when null.</param>
    /// <param name="logs">Makes each session's log; a <see cref="FileSessionLogFactory"/> this factory owns when null.</param>
    public SessionFactory(IMessageStoreFactory? stores, ISessionLogFactory? logs)
    {
        _stores = stores ?? SettingsMessageStoreFactory.Instance;
        _logs = logs ?? (_ownLogs = new FileSessionLogFactory());
    }

    /// <summary>Checks a session's store settings with the store factory (<see cref="IMessageStoreFactory.Validate"/>)
    /// before any store is made.</summary>
    /// <param name="settings">The session's settings.</param>
    /// <exception cref="ConfigException">A store setting is invalid.</exception>
    public void ValidateStore(SessionSettings settings) => _stores.Validate(settings);

    /// <summary>Checks a session's store settings and loads (once) its data dictionaries, before any store is opened.</summary>
    /// <param name="settings">The session's settings.</param>
    /// <exception cref="ConfigException">A store setting is invalid, or a dictionary is missing or malformed (naming the
    /// settings file, line and key).</exception>
    public void ValidateStoreAndDictionaries(SessionSettings settings)
    {
        _stores.Validate(settings);
        if (settings.BeginString == "FIXT.1.1")
        {
            if (settings.TransportDataDictionary is string t) Load(settings, nameof(SessionSettings.TransportDataDictionary), t);
            if (settings.AppDataDictionary is string a) Load(settings, nameof(SessionSettings.AppDataDictionary), a);
        }
        else if (settings.DataDictionary is string d)
        {
            Load(settings, nameof(SessionSettings.DataDictionary), d);
        }
    }

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
        _stores.Validate(settings);
        DataDictionary? sessionDictionary = null;
        DataDictionary? appDictionary = null;
        if (settings.BeginString == "FIXT.1.1")
        {
            if (settings.TransportDataDictionary is string t) sessionDictionary = Load(settings, nameof(SessionSettings.TransportDataDictionary), t);
            if (settings.AppDataDictionary is string a) appDictionary = Load(settings, nameof(SessionSettings.AppDataDictionary), a);
        }
        else if (settings.DataDictionary is string d)
        {
            sessionDictionary = Load(settings, nameof(SessionSettings.DataDictionary), d);
        }

        IMessageStore store = _stores.Create(settings, epochNs);
        Session.ISessionLog? log;
        try
        {
            log = _logs.Create(settings);
        }
        catch
        {
            store.Dispose();
            throw;
        }
        // A store that had to recover its journal says what it found and did; the session log keeps it.
        if (store.LastRecoveryReport is StoreRecoveryReport report) log?.OnEvent(Logging.LogLevel.Warning, report.ToString(), epochNs);
        if (store is MemoryMessageStore)
        {
            log?.OnEvent(Logging.LogLevel.Warning, "The message store is in memory (no FileStorePath or other persistent store): sent messages and "
                + "sequence numbers do not survive a restart of this process, which then starts again from MsgSeqNum 1", epochNs);
        }
        return new FixSession(settings, application, store, log, sessionDictionary, appDictionary);
    }

    // A dictionary a settings key names: a file that is missing, unreadable or malformed is a ConfigException naming the
    // settings file, the key's line and the key, with the dictionary's own file, line and element where it has them.
    private DataDictionary Load(SessionSettings settings, string key, string path)
    {
        try
        {
            return Load(path);
        }
        catch (Exception e) when (e is DataDictionaryException or System.IO.IOException or UnauthorizedAccessException)
        {
            string reason = !System.IO.File.Exists(path)
                ? $"the data dictionary '{path}' does not exist (full path '{System.IO.Path.GetFullPath(path)}')"
                : $"cannot load the data dictionary '{path}': {e.Message}";
            throw Config.SettingsOrigin.Error(settings, key, reason);
        }
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

    /// <summary>Hands a disposed session's log back to the log factory (<see cref="ISessionLogFactory.Release"/>), once;
    /// a session made without a log has nothing to hand back.</summary>
    /// <param name="session">A session this factory created, disposed (it no longer logs).</param>
    /// <param name="engineDisposing">The engine is being disposed: a log factory this factory owns is about to close every
    /// log at once (<see cref="Dispose"/>), so its logs are not released one by one.</param>
    /// <remarks>Any thread (the log factory is thread-safe). Exceptions from a user factory propagate.</remarks>
    public void Release(FixSession session, bool engineDisposing = false)
    {
        if (engineDisposing && _ownLogs is not null) return;
        if (session.Log is NullSessionLog) return;
        if (System.Threading.Interlocked.Exchange(ref session.LogReleased, 1) != 0) return;
        _logs.Release(session.Settings, session.Log);
    }

    /// <summary>Flushes and closes the message logs.</summary>
    public void Dispose()
    {
        _ownLogs?.Dispose();
    }
}
