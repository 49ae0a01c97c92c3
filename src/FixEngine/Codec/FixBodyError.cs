using System.Globalization;

namespace FixEngine.Codec;

/// <summary>Why a generated typed body writer (<c>X.Begin(ref writer)</c> … <c>End()</c>) refused a message.</summary>
/// <remarks>A refused body leaves the writer failed, so the message is not sent.</remarks>
public enum FixBodyErrorReason : byte
{
    /// <summary>The body was written.</summary>
    None,

    /// <summary>A required field was given an empty value (text or group): <see cref="FixBodyError.Tag"/>.</summary>
    RequiredMissing,

    /// <summary>
    /// A field was given after one that follows it in the dictionary (or twice): <see cref="FixBodyError.Tag"/> came
    /// after <see cref="FixBodyError.OtherTag"/>.
    /// </summary>
    OutOfOrder,

    /// <summary>
    /// An entry of the group <see cref="FixBodyError.OtherTag"/> (its NumInGroup tag) lacks its required member
    /// <see cref="FixBodyError.Tag"/> (the delimiter included).
    /// </summary>
    IncompleteGroupEntry,

    /// <summary>The writer ran out of room (or had already failed); <see cref="FixWriter.Failed"/> is true.</summary>
    NoRoom,

    /// <summary><c>End</c> was called on a writer with no open typed body (ended twice, or a copy of the chain was ended).</summary>
    NotOpen,

    /// <summary>
    /// The entries written to the group <see cref="FixBodyError.Tag"/> (its NumInGroup tag) through the per-entry
    /// chain (<c>.NoPartyIDs(count)</c> … <c>.EndNoPartyIDs()</c>) are not as many as its count, or the count is
    /// negative or above 65,535.
    /// </summary>
    GroupCountMismatch,

    /// <summary>
    /// In an entry of the group <see cref="FixBodyError.OtherTag"/> (its NumInGroup tag), the member
    /// <see cref="FixBodyError.Tag"/> came before the entry's first field (the delimiter), after a member that follows
    /// it in the dictionary, or twice.
    /// </summary>
    EntryOutOfOrder,

    /// <summary>Groups were opened through the per-entry chain more than 8 deep: <see cref="FixBodyError.Tag"/> is the group that did not fit.</summary>
    GroupTooDeep,
}

/// <summary>The first defect a typed body writer found: reason and tags. Allocation-free until <see cref="ToString"/>.</summary>
/// <param name="reason">Why.</param>
/// <param name="tag">The field at fault (0 for <see cref="FixBodyErrorReason.NoRoom"/> and <see cref="FixBodyErrorReason.NotOpen"/>).</param>
/// <param name="otherTag">The field given before it (OutOfOrder) or the group's NumInGroup tag (IncompleteGroupEntry, EntryOutOfOrder); else 0.</param>
public readonly struct FixBodyError(FixBodyErrorReason reason, int tag, int otherTag)
{
    /// <summary>Why the body was refused; <see cref="FixBodyErrorReason.None"/> when it was written.</summary>
    public FixBodyErrorReason Reason { get; } = reason;

    /// <summary>The field at fault.</summary>
    public int Tag { get; } = tag;

    /// <summary>The field given before <see cref="Tag"/> (OutOfOrder) or the group's NumInGroup tag (IncompleteGroupEntry).</summary>
    public int OtherTag { get; } = otherTag;

    /// <summary>A sentence naming the tags, e.g. <c>tag 1 given after tag 55 (fields go in dictionary order)</c>.</summary>
    /// <returns>The description.</returns>
    public override string ToString() => Reason switch
    {
        FixBodyErrorReason.None => "no error",
        FixBodyErrorReason.RequiredMissing => string.Create(CultureInfo.InvariantCulture, $"required tag {Tag} is empty"),
        FixBodyErrorReason.OutOfOrder => string.Create(CultureInfo.InvariantCulture, $"tag {Tag} given after tag {OtherTag} (fields go in dictionary order, each once)"),
        FixBodyErrorReason.IncompleteGroupEntry => string.Create(CultureInfo.InvariantCulture, $"an entry of group {OtherTag} lacks its required tag {Tag}"),
        FixBodyErrorReason.NoRoom => "the message does not fit in the writer's buffer",
        FixBodyErrorReason.GroupCountMismatch => string.Create(CultureInfo.InvariantCulture, $"the entries written to group {Tag} differ from its count (or the count is negative or above 65535)"),
        FixBodyErrorReason.EntryOutOfOrder => string.Create(CultureInfo.InvariantCulture, $"tag {Tag} given out of order in an entry of group {OtherTag} (an entry starts with the group's first field, the others follow in dictionary order, each once)"),
        FixBodyErrorReason.GroupTooDeep => string.Create(CultureInfo.InvariantCulture, $"group {Tag} is nested more than 8 deep in the per-entry chain"),
        FixBodyErrorReason.NotOpen => "End was called on a writer without an open typed body (a copy of the chain, or a second End)",
        _ => Reason.ToString(),
    };
}
