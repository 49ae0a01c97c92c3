namespace FixEngine.Session;

/// <summary>Where a <see cref="Session"/> is in its connection life cycle.</summary>
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

    /// <summary>Our Logout is sent; waiting for the counterparty's Logout or the LogoutTimeout.</summary>
    LogoutSent,
}
