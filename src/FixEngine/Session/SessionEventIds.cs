namespace FixEngine.Session;

/// <summary>The EventId and name of each session event: the ILogger bridge of FixEngine.Extensions.Hosting logs with
/// them and the admin console's live tail shows them (docs/operations.md, "Session events"). A contract: log queries
/// and alerts select on them; never renumber one.</summary>
internal static class SessionEventIds
{
    /// <summary>Events without properties of their own (<see cref="SessionEventKind.Other"/>), named <see cref="OtherName"/>.</summary>
    internal const int Other = 1;
    internal const string OtherName = "SessionEvent";
    internal const int Connected = 2;
    internal const int Disconnected = 3;
    internal const int Logon = 4;
    internal const int Logout = 5;
    internal const int LogonRefused = 6;
    internal const int SequenceGap = 7;
    internal const int ResendRequest = 8;
    internal const int SequenceReset = 9;
    internal const int SequenceNumbersReset = 10;
    internal const int RejectSent = 11;
    internal const int StoreFailed = 12;
    internal const int StoreHold = 13;
    internal const int TakenOver = 14;
    internal const int AdminAction = 15;

    /// <summary>The id and name of <paramref name="e"/> (a SequenceReset with a text is both numbers reset to 1).</summary>
    internal static (int Id, string Name) Of(in SessionEvent e) => e.Kind switch
    {
        SessionEventKind.Connected => (Connected, nameof(Connected)),
        SessionEventKind.Disconnected => (Disconnected, nameof(Disconnected)),
        SessionEventKind.Logon => (Logon, nameof(Logon)),
        SessionEventKind.Logout => (Logout, nameof(Logout)),
        SessionEventKind.LogonRefused => (LogonRefused, nameof(LogonRefused)),
        SessionEventKind.SequenceGap => (SequenceGap, nameof(SequenceGap)),
        SessionEventKind.ResendRequest => (ResendRequest, nameof(ResendRequest)),
        SessionEventKind.SequenceReset => e.Text is null ? (SequenceReset, nameof(SequenceReset)) : (SequenceNumbersReset, nameof(SequenceNumbersReset)),
        SessionEventKind.RejectSent => (RejectSent, nameof(RejectSent)),
        SessionEventKind.StoreFailed => (StoreFailed, nameof(StoreFailed)),
        SessionEventKind.StoreHold => (StoreHold, nameof(StoreHold)),
        SessionEventKind.TakenOver => (TakenOver, nameof(TakenOver)),
        SessionEventKind.AdminAction => (AdminAction, nameof(AdminAction)),
        _ => (Other, OtherName),
    };
}
