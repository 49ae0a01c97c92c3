using System;

namespace FixEngine.Config;

/// <summary>A session left out at start-up because <c>ContinueInitializationOnError=Y</c> and its settings or files (data
/// dictionary, message store, certificate) failed to load; the engine runs the other sessions
/// (<see cref="Engine.FixEngineHost.SkippedSessions"/>).</summary>
public sealed class SkippedSession
{
    internal SkippedSession(string session, Exception error)
    {
        Session = session;
        Error = error;
    }

    /// <summary>The session: its SessionID (<c>FIX.4.2:ME-&gt;THEM</c>) as far as its settings name it, or
    /// <c>[SESSION] at file(line)</c> when they do not.</summary>
    public string Session { get; }

    /// <summary>Why it failed: a <see cref="ConfigException"/> (its message reads <c>file(line): Key: reason</c>) or a
    /// <see cref="Store.MessageStoreException"/>.</summary>
    public Exception Error { get; }

    /// <summary><c>session: error message</c>.</summary>
    public override string ToString() => Session + ": " + Error.Message;
}
