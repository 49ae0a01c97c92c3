namespace FixEngine.Session;

/// <summary>Where a <see cref="FixSession"/> is in its connection life cycle.</summary>
/// <remarks>The transitions are tabled in the remarks of <see cref="FixSession"/>.</remarks>
public enum SessionState : byte
{
    /// <summary>No connection.</summary>
    Disconnected,

    /// <summary>Connected as acceptor; waiting for the counterparty's Logon.</summary>
    AwaitingLogon,

    /// <summary>Connected as initiator; our Logon is sent, waiting for the reply.</summary>
    LogonSent,

    /// <summary>Logon exchanged; messages flow.</summary>
    LoggedOn,

    /// <summary>Logged on and our Logout is sent; waiting for the counterparty's Logout or the LogoutTimeout. (A
    /// Logout sent before the Logon exchange completed is followed at once by a disconnect.)</summary>
    LogoutSent,
}
