using System;

namespace FixEngine.Config;

/// <summary>Identifies a FIX session: BeginString, our SenderCompID, the counterparty's TargetCompID and an optional qualifier.</summary>
/// <param name="BeginString">e.g. <c>FIX.4.4</c> or <c>FIXT.1.1</c>.</param>
/// <param name="SenderCompID">Our CompID.</param>
/// <param name="TargetCompID">The counterparty's CompID.</param>
/// <param name="SessionQualifier">Distinguishes sessions with the same CompIDs; empty when unused.</param>
public readonly record struct SessionId(string BeginString, string SenderCompID, string TargetCompID, string SessionQualifier = "")
{
    /// <summary><c>FIX.4.2:ISLD-&gt;TW42</c>, with <c>:qualifier</c> appended when there is one.</summary>
    public override string ToString()
        => string.IsNullOrEmpty(SessionQualifier)
            ? $"{BeginString}:{SenderCompID}->{TargetCompID}"
            : $"{BeginString}:{SenderCompID}->{TargetCompID}:{SessionQualifier}";
}
