using System;
using System.Net;
using FixEngine.Config;

namespace FixEngine.Engine;

/// <summary>The engine's event lines (connections, logons, refusals) for <see cref="EngineOptions.Console"/>.</summary>
/// <remarks>Any thread (the sink must be thread-safe). Builds no string when there is no sink.</remarks>
internal sealed class EngineConsole(Action<string>? sink)
{
    public void Accepted(string remote) => sink?.Invoke($"Accepted connection from {remote}");

    public void Connecting(SessionId session, SocketEndpoint endpoint, bool tls) => sink?.Invoke($"Connecting {session} to {endpoint}{(tls ? " (TLS)" : "")}");

    public void Connected(SessionId session, string remote) => sink?.Invoke($"Connected to {remote} for {session}");

    public void ConnectFailed(SocketEndpoint endpoint, Exception error) => sink?.Invoke($"Connect to {endpoint} failed: {error.Message}");

    public void ConnectFailed(SocketEndpoint endpoint, IPEndPoint address, Exception error, bool tryingNext) =>
        sink?.Invoke($"Connect to {endpoint} ({address}) failed: {error.Message}{(tryingNext ? "; trying its next address" : "")}");

    public void NotReconnecting(SessionId session, string why) => sink?.Invoke($"Not reconnecting {session}: {why}");

    public void ReconnectingLater(SessionId session, string why) => sink?.Invoke($"Reconnecting {session} later: {why}");

    public void LoggedOn(SessionId session, string remote) => sink?.Invoke($"Logon {session} from {remote}");

    public void Disconnected(SessionId session, string reason) => sink?.Invoke($"Disconnected {session}: {reason}");

    public void Warning(ConfigWarning warning) => sink?.Invoke($"Settings warning: {warning}");

    public void Refused(string remote, string why) => sink?.Invoke($"Refused {remote}: {why}");

    public void SessionAdded(SessionId session) => sink?.Invoke($"Session added: {session}");

    public void SessionRemoved(SessionId session) => sink?.Invoke($"Session removed: {session}");

    public void LogReleaseFailed(SessionId session, Exception error) =>
        sink?.Invoke($"Session {session}: the log factory failed to release its log: {error.GetType().Name}: {error.Message}");

    public void MemoryReclaimed(int closedBeforeLogon, long committedBefore, long committedAfter, TimeSpan pause, bool nativeTrimmed) =>
        sink?.Invoke($"Reclaimed memory after a surge of {closedBeforeLogon} connections that closed without a Logon: GC committed {committedBefore >> 20} MB -> {committedAfter >> 20} MB, "
            + $"pause {pause.TotalMilliseconds:F1} ms{(nativeTrimmed ? ", native heap trimmed" : "")}");

    /// <summary>A process limit the configured sessions exceed: on the console, or on standard error when there is none
    /// (the engine must say it before the limit is hit).</summary>
    public void ResourceLimit(string what)
    {
        string line = "FixEngine resource limit: " + what;
        if (sink is not null) sink(line);
        else System.Console.Error.WriteLine(line);
    }

    /// <summary>A session left out under ContinueInitializationOnError=Y: on the console, or on standard error when there
    /// is none (it must not go unseen).</summary>
    public void SessionSkipped(SkippedSession skipped)
    {
        string line = $"Session {skipped.Session} not started (ContinueInitializationOnError=Y): {skipped.Error.Message}";
        if (sink is not null) sink(line);
        else System.Console.Error.WriteLine(line);
    }

    public void Listening(int port) => sink?.Invoke($"Listening on port {port}");

    public void WebConsole(Uri address) => sink?.Invoke($"Web console at {address}");
}
