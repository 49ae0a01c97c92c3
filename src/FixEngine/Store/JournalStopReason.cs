namespace FixEngine.Store;

/// <summary>Why replaying a <see cref="FileMessageStore"/> journal stopped before the end of the file.</summary>
public enum JournalStopReason
{
    /// <summary>The whole file was valid.</summary>
    None,

    /// <summary>The last record is incomplete: the file ends inside its header or payload (a torn write).</summary>
    Truncated,

    /// <summary>A record header has an unknown type, non-zero reserved bytes or an invalid sequence number.</summary>
    BadHeader,

    /// <summary>A record declares a payload length that is negative, above the configured maximum or wrong for its type.</summary>
    BadLength,

    /// <summary>A record's CRC-32C does not match its header and payload.</summary>
    BadChecksum,
}
