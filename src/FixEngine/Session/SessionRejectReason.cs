namespace FixEngine.Session;

/// <summary>SessionRejectReason(373) codes with the standard texts used in Text(58) of a session Reject.</summary>
public static class SessionRejectReason
{
    /// <summary>0: Invalid tag number.</summary>
    public const int InvalidTagNumber = 0;

    /// <summary>1: Required tag missing.</summary>
    public const int RequiredTagMissing = 1;

    /// <summary>2: Tag not defined for this message type.</summary>
    public const int TagNotDefinedForMessageType = 2;

    /// <summary>3: Undefined tag.</summary>
    public const int UndefinedTag = 3;

    /// <summary>4: Tag specified without a value.</summary>
    public const int TagSpecifiedWithoutValue = 4;

    /// <summary>5: Value is incorrect (out of range) for this tag.</summary>
    public const int ValueIsIncorrect = 5;

    /// <summary>6: Incorrect data format for value.</summary>
    public const int IncorrectDataFormat = 6;

    /// <summary>7: Decryption problem.</summary>
    public const int DecryptionProblem = 7;

    /// <summary>8: Signature problem.</summary>
    public const int SignatureProblem = 8;

    /// <summary>9: CompID problem.</summary>
    public const int CompIdProblem = 9;

    /// <summary>10: SendingTime accuracy problem.</summary>
    public const int SendingTimeAccuracyProblem = 10;

    /// <summary>11: Invalid MsgType.</summary>
    public const int InvalidMsgType = 11;

    /// <summary>13: Tag appears more than once.</summary>
    public const int TagAppearsMoreThanOnce = 13;

    /// <summary>14: Tag specified out of required order.</summary>
    public const int TagSpecifiedOutOfRequiredOrder = 14;

    /// <summary>15: Repeating group fields out of order.</summary>
    public const int RepeatingGroupFieldsOutOfOrder = 15;

    /// <summary>16: Incorrect NumInGroup count for repeating group.</summary>
    public const int IncorrectNumInGroupCount = 16;

    /// <summary>18: Invalid/unsupported application version (FIXT.1.1): the ApplVerID(1128) of an application message,
    /// or the counterparty's DefaultApplVerID(1137) it defaults to, names a version the session has no dictionary for.</summary>
    public const int InvalidUnsupportedApplicationVersion = 18;

    /// <summary>99: Other.</summary>
    public const int Other = 99;

    /// <summary>The standard Text(58) for <paramref name="code"/>.</summary>
    /// <param name="code">A SessionRejectReason code.</param>
    /// <returns>A cached string (no allocation).</returns>
    public static string GetText(int code) => code switch
    {
        InvalidTagNumber => "Invalid tag number",
        RequiredTagMissing => "Required tag missing",
        TagNotDefinedForMessageType => "Tag not defined for this message type",
        UndefinedTag => "Undefined Tag",
        TagSpecifiedWithoutValue => "Tag specified without a value",
        ValueIsIncorrect => "Value is incorrect (out of range) for this tag",
        IncorrectDataFormat => "Incorrect data format for value",
        DecryptionProblem => "Decryption problem",
        SignatureProblem => "Signature problem",
        CompIdProblem => "CompID problem",
        SendingTimeAccuracyProblem => "SendingTime accuracy problem",
        InvalidMsgType => "Invalid MsgType",
        TagAppearsMoreThanOnce => "Tag appears more than once",
        TagSpecifiedOutOfRequiredOrder => "Tag specified out of required order",
        RepeatingGroupFieldsOutOfOrder => "Repeating group fields out of order",
        IncorrectNumInGroupCount => "Incorrect NumInGroup count for repeating group",
        InvalidUnsupportedApplicationVersion => "Invalid/unsupported application version",
        _ => "Other",
    };

    /// <summary>The Text(58) QuickFIX writes for <paramref name="code"/> in a session Reject, or null for the reasons
    /// it writes no text for (3, 7, 8, 15 and any other code outside 0-16).</summary>
    internal static string? GetQuickFixText(int code) => code switch
    {
        UndefinedTag or DecryptionProblem or SignatureProblem or RepeatingGroupFieldsOutOfOrder => null,
        >= InvalidTagNumber and <= IncorrectNumInGroupCount => GetText(code),
        _ => null,
    };
}
