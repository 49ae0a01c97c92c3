namespace FixEngine.Logging;

/// <summary>Severity of a log entry, lowest first.</summary>
public enum LogLevel : byte
{
    /// <summary>Very detailed tracing (e.g. every message).</summary>
    Trace = 0,

    /// <summary>Debugging detail.</summary>
    Debug = 1,

    /// <summary>Normal operation events (logon, logout, resend).</summary>
    Information = 2,

    /// <summary>Something unexpected that the engine handled.</summary>
    Warning = 3,

    /// <summary>An operation failed.</summary>
    Error = 4,

    /// <summary>The engine or a session cannot continue.</summary>
    Critical = 5,

    /// <summary>As a minimum level: log nothing.</summary>
    None = 6,
}
