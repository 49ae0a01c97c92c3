using System;
using System.Numerics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace FixEngine.Codec;

/// <summary>Kind of the first structural defect found while indexing a message.</summary>
public enum FixDefectKind : byte
{
    /// <summary>No defect.</summary>
    None,

    /// <summary>The tag is not a decimal number (e.g. <c>-1=HI</c>, <c>A=1</c>, <c>=1</c>, <c>3 5=D</c>); the field is not indexed.</summary>
    TagNotNumeric,

    /// <summary>The tag is 0 (<c>0=HI</c>); the field is not indexed.</summary>
    TagZero,

    /// <summary>The field has no '=' before its SOH; the field is not indexed.</summary>
    MissingEquals,

    /// <summary>The value is empty (<c>56=</c> then SOH); the field is indexed with length 0.</summary>
    EmptyValue,

    /// <summary>More fields than the index capacity; indexing stopped at this field.</summary>
    TooManyFields,

    /// <summary>A data field's preceding length is malformed or does not end at an SOH; the value was read to the next SOH instead.</summary>
    BadDataLength,

    /// <summary>The last field has no terminating SOH; it is indexed up to the end of the input.</summary>
    UnterminatedField,

    /// <summary>
    /// The tag is all digits but has more than <see cref="FixMessageIndex.MaxTagDigits"/> of them (e.g. <c>99999999999=1</c>):
    /// beyond the largest tag the index takes; the field is not indexed.
    /// </summary>
    TagOutOfRange,
}

/// <summary>The first defect found by <see cref="FixMessageIndex.Parse"/>.</summary>
/// <remarks>
/// A plain value; no allocation except <see cref="Describe()"/>. For a field whose tag is not a valid tag number
/// (<see cref="IsInvalidTagNumber"/>) it also says where the field and its tag text are, so the session can name them:
/// <code>
///   35=D|58=x|99999999999=1|
///             ^ FieldOffset, TagLength 11 (the bytes before '=', or up to the SOH when there is no '=')
/// </code>
/// </remarks>
public readonly struct FixDefect
{
    internal FixDefect(FixDefectKind kind, int tag, int fieldIndex, int offset, int fieldOffset = -1, int tagLength = 0)
    {
        Kind = kind;
        Tag = tag;
        FieldIndex = fieldIndex;
        Offset = offset;
        FieldOffset = fieldOffset;
        TagLength = tagLength;
    }

    /// <summary>What is wrong.</summary>
    public FixDefectKind Kind { get; }

    /// <summary>
    /// The tag as parsed: negative for <c>-1=</c>, 0 for <c>0=</c> or an unparsable tag, the leading digits for a
    /// field missing its '=', the data tag for <see cref="FixDefectKind.BadDataLength"/>. Suitable as RefTagID (371).
    /// </summary>
    public int Tag { get; }

    /// <summary>Position of the defective field counting every field seen in the input (indexed or not).</summary>
    public int FieldIndex { get; }

    /// <summary>Byte offset of the defect in the parsed input.</summary>
    public int Offset { get; }

    /// <summary>
    /// Byte offset where the defective field starts, for the kinds of <see cref="IsInvalidTagNumber"/>; -1 for the
    /// other kinds.
    /// </summary>
    public int FieldOffset { get; }

    /// <summary>
    /// Length of the field's tag text at <see cref="FieldOffset"/> (the bytes before its '=', or the whole field when
    /// it has none; 0 for an empty tag), for the kinds of <see cref="IsInvalidTagNumber"/>; 0 for the other kinds.
    /// </summary>
    public int TagLength { get; }

    /// <summary>True when there is no defect.</summary>
    public bool IsNone => Kind == FixDefectKind.None;

    /// <summary>
    /// True when a field has no valid tag number: <see cref="FixDefectKind.TagNotNumeric"/>, <see cref="FixDefectKind.TagZero"/>,
    /// <see cref="FixDefectKind.TagOutOfRange"/> or <see cref="FixDefectKind.MissingEquals"/>. The field was not indexed; a
    /// session answers such a message with a session Reject, SessionRejectReason(373) = 0 (Invalid tag number),
    /// RefTagID(371) = <see cref="Tag"/>, whether or not it validates against a data dictionary.
    /// </summary>
    public bool IsInvalidTagNumber => Kind is FixDefectKind.TagNotNumeric or FixDefectKind.TagZero
        or FixDefectKind.TagOutOfRange or FixDefectKind.MissingEquals;

    /// <summary>The tag text of the defective field (see <see cref="TagLength"/>), empty when not known.</summary>
    /// <param name="message">The bytes that were parsed.</param>
    /// <returns>A slice of <paramref name="message"/>.</returns>
    public ReadOnlySpan<byte> GetTagText(ReadOnlySpan<byte> message) =>
        FieldOffset >= 0 && (ulong)(uint)FieldOffset + (uint)TagLength <= (ulong)message.Length
            ? message.Slice(FieldOffset, TagLength)
            : default;

    /// <summary>Human-readable description (allocates; error path only).</summary>
    /// <returns>A new string.</returns>
    public string Describe() => Kind == FixDefectKind.None
        ? "no defect"
        : $"{Kind} at field #{FieldIndex} (tag {Tag}), byte offset {Offset}";

    /// <summary>Human-readable description naming the tag text as received (allocates; error path only).</summary>
    /// <param name="message">The bytes that were parsed.</param>
    /// <returns>A new string; control and non-ASCII bytes of the tag text are written as <c>\xHH</c>.</returns>
    public string Describe(ReadOnlySpan<byte> message)
    {
        if (FieldOffset < 0) return Describe();
        ReadOnlySpan<byte> text = GetTagText(message);
        var builder = new System.Text.StringBuilder(text.Length + 64);
        builder.Append(Kind).Append(" at field #").Append(FieldIndex).Append(", byte offset ").Append(FieldOffset)
            .Append(": tag text \"");
        foreach (byte b in text)
        {
            if (b is >= 0x20 and < 0x7F and not (byte)'"' and not (byte)'\\') builder.Append((char)b);
            else builder.Append("\\x").Append(b.ToString("X2", System.Globalization.CultureInfo.InvariantCulture));
        }
        builder.Append('"').Append(Kind switch
        {
            FixDefectKind.TagZero => " (tag 0 is not a tag)",
            FixDefectKind.TagOutOfRange => $" (more than {FixMessageIndex.MaxTagDigits} digits)",
            FixDefectKind.MissingEquals => $" (no '=' in the field; first non-digit at byte offset {Offset})",
            _ => text.IsEmpty ? " (empty tag)" : $" (not a positive decimal number; first bad byte at offset {Offset})",
        });
        return builder.ToString();
    }

    /// <inheritdoc/>
    public override string ToString() => Describe();
}

/// <summary>
/// Reusable field index over one FIX message: tag, field offset, value offset and value length per field, with
/// O(1) first-occurrence lookup by tag.
/// </summary>
/// <remarks>
/// Not thread-safe: one instance per reading thread (typically one per session), reused for every message.
/// <see cref="Parse"/> allocates nothing and never throws. Capacity is fixed at construction
/// (<see cref="MaxFields"/>); a message with more fields gets <see cref="FixDefectKind.TooManyFields"/> and is
/// indexed up to the capacity. Lookup tables are reset by bumping a generation number, not by clearing.
/// DataFieldPairs added after construction are picked up by the next <see cref="Parse"/>.
/// <code>
///   8=FIX.4.4|9=5|35=0|10=161|
///   field 0: tag 8,  FieldOffset 0,  ValueOffset 2,  ValueLength 7
///   field 1: tag 9,  FieldOffset 10, ValueOffset 12, ValueLength 1
///   field 2: tag 35, FieldOffset 14, ValueOffset 17, ValueLength 1
///   field 3: tag 10, FieldOffset 19, ValueOffset 22, ValueLength 3
/// </code>
/// </remarks>
public sealed class FixMessageIndex
{
    /// <summary>Default <see cref="MaxFields"/>.</summary>
    public const int DefaultMaxFields = 1024;

    /// <summary>Tags below this bound are looked up in a direct table; larger tags in a small hash table.</summary>
    public const int DirectLookupTags = 2048;

    /// <summary>Most digits in a tag: tags run from 1 to 999,999,999; a longer all-digit tag is <see cref="FixDefectKind.TagOutOfRange"/>.</summary>
    public const int MaxTagDigits = 9;

    private const byte Soh = AsciiParsing.Soh;

    /// <summary>
    /// Bit of a direct slot's stamp marking the length tag of a data pair (and tag 0), so that the field loop hands
    /// it to the general path; generations stay below it.
    /// </summary>
    private const uint LengthTagFlag = 0x8000_0000;

    private readonly FieldEntry[] _fields;
    private readonly Slot[] _direct;
    private readonly HashSlot[] _hashed;
    private readonly int _hashMask;
    private ulong[] _sohBits = new ulong[64];
    private readonly DataFieldPairs _dataFields;
    private int _generation;
    private int _lengthTagFlagsVersion;
    private int _count;
    private int _length;
    private FixDefect _defect;
    private int _firstDuplicateTag;
    private int _firstDuplicateIndex;
    private int _skippedFields;
    private int _pendingDataLength;

    /// <summary>Creates an index.</summary>
    /// <param name="maxFields">Capacity in fields (default 1024).</param>
    /// <param name="dataFields">Length/data pairs; <see cref="DataFieldPairs.Standard"/> when null.</param>
    public FixMessageIndex(int maxFields = DefaultMaxFields, DataFieldPairs? dataFields = null)
    {
        if (maxFields <= 0) Internal.ThrowHelper.ThrowArgumentOutOfRange(nameof(maxFields));
        _fields = new FieldEntry[maxFields];
        _direct = new Slot[DirectLookupTags];
        int hashSize = 64;
        while (hashSize < maxFields * 2) hashSize <<= 1;
        _hashed = new HashSlot[hashSize];
        _hashMask = hashSize - 1;
        _dataFields = dataFields ?? DataFieldPairs.Standard;
        _generation = 1;
        SetLengthTagFlags();
    }

    /// <summary>Capacity in fields.</summary>
    public int MaxFields => _fields.Length;

    /// <summary>Length/data pairs used by <see cref="Parse"/>.</summary>
    public DataFieldPairs DataFields => _dataFields;

    /// <summary>Number of indexed fields.</summary>
    public int Count => _count;

    /// <summary>Length in bytes of the last parsed input.</summary>
    public int MessageLength => _length;

    /// <summary>The first defect of the last parse (Kind None when clean).</summary>
    public FixDefect Defect => _defect;

    /// <summary>True when the last parse found a defect.</summary>
    public bool HasDefect => _defect.Kind != FixDefectKind.None;

    /// <summary>First tag that occurred twice (0 when all tags are distinct). Repeating groups repeat tags legitimately.</summary>
    public int FirstDuplicateTag => _firstDuplicateTag;

    /// <summary>Field index of the second occurrence of <see cref="FirstDuplicateTag"/>, or -1.</summary>
    public int FirstDuplicateIndex => _firstDuplicateIndex;

    /// <summary>Indexes <paramref name="message"/> in one pass.</summary>
    /// <param name="message">A whole message (normally a frame from <see cref="FixFramer"/>) or any run of fields.</param>
    /// <returns>True when no defect was found; otherwise see <see cref="Defect"/>.</returns>
    /// <remarks>
    /// Continues past defects so the session can still read the header and name the bad tag in a Reject.
    /// The index refers to <paramref name="message"/> by offset: read it only with the same bytes.
    /// </remarks>
    public bool Parse(ReadOnlySpan<byte> message)
    {
        NextGeneration();
        if (_lengthTagFlagsVersion != _dataFields.Version) SetLengthTagFlags();
        int length = message.Length;
        _length = length;
        _defect = default;
        _firstDuplicateTag = 0;
        _firstDuplicateIndex = -1;
        _skippedFields = 0;

        // PERF: a message of plain fields is indexed by the field loop alone; the SOH bitmap of the whole message and
        // the general loop (its state, calls and spills) are built and entered only at the first field that needs
        // them (FixReadBenchmarks.FrameAndIndex: docs/benchmarks/toolkit-codec-notes.md).
        int count = IndexPlainFields(message, 0, 0);
        int pos = count == 0 ? 0 : _fields[count - 1].ValueEnd + 1;
        if (pos >= length)
        {
            _count = count;
            return true;
        }
        return ParseGeneral(message, pos, count);
    }

    /// <summary>Indexes from <paramref name="pos"/> on, field by field, handing runs of plain fields to <see cref="IndexPlainFields"/>.</summary>
    /// <returns>True when no defect was found.</returns>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private bool ParseGeneral(ReadOnlySpan<byte> message, int pos, int count)
    {
        int length = message.Length;
        int words = (length + 63) >> 6;
        if (words > _sohBits.Length)
        {
            // Grows once to the largest message seen; steady state does not allocate.
            _sohBits = new ulong[words];
        }
        Span<ulong> sohBits = _sohBits.AsSpan(0, words);
        AsciiParsing.BuildSohMask(message, sohBits);

        FieldEntry[] fields = _fields;
        Slot[] direct = _direct;
        uint generation = (uint)_generation;
        int[] dataTagTable = _dataFields.DirectTable;
        int pendingDataTag = 0;
        while (pos < length)
        {
            if (pendingDataTag == 0)
            {
                int indexed = IndexPlainFields(message, pos, count);
                if (indexed != count)
                {
                    count = indexed;
                    ref readonly FieldEntry last = ref fields[count - 1];
                    pos = last.ValueEnd + 1;
                    if (pos >= length) break;
                }
            }

            // General path, one field: the tail, 8-9 digit tags, large tags, data fields and every defect.
            int fieldStart = pos;
            int fieldSoh = AsciiParsing.NextSetBit(sohBits, pos);
            ulong word = AsciiParsing.ReadUInt64OrZeroPadded(message, pos);
            int digits = AsciiParsing.LeadingDigitCount(word);
            uint tag;
            if ((uint)(digits - 1) < 7 && AsciiParsing.ByteAt(word, digits) == (byte)'=')
            {
                tag = AsciiParsing.ParseLeadingDigits(word, digits);
            }
            else
            {
                // 8 or 9 digits (beyond the SWAR window), or not a tag at all (tag 0).
                ulong longTag = digits == 8 ? ParseLongTag(message, pos) : 0;
                tag = (uint)longTag;
                digits = (int)(longTag >> 32);
            }
            if (tag == 0)
            {
                pos = SkipBadField(message, fieldStart, count + _skippedFields);
                _skippedFields++;
                pendingDataTag = 0;
                continue;
            }

            int valueStart = pos + digits + 1;
            int valueEnd = fieldSoh;
            if ((int)tag == pendingDataTag)
            {
                valueEnd = DataValueEnd(message, sohBits, (int)tag, count + _skippedFields, valueStart);
            }
            if (valueEnd < 0)
            {
                Record(FixDefectKind.UnterminatedField, (int)tag, count + _skippedFields, length);
                valueEnd = length;
            }

            if (valueEnd == valueStart) Record(FixDefectKind.EmptyValue, (int)tag, count + _skippedFields, valueStart);
            if ((uint)count >= (uint)fields.Length)
            {
                Record(FixDefectKind.TooManyFields, (int)tag, count + _skippedFields, fieldStart);
                break;
            }
            fields[count] = new FieldEntry((int)tag, fieldStart, valueStart, valueEnd);
            if (tag < (uint)direct.Length)
            {
                ref Slot slot = ref direct[tag];
                if ((slot.Stamp & ~LengthTagFlag) == generation)
                {
                    NoteDuplicate((int)tag, count);
                }
                else
                {
                    slot.Stamp = (slot.Stamp & LengthTagFlag) | generation;
                    slot.Index = count;
                }
            }
            else
            {
                AddToHash((int)tag, count);
            }
            pendingDataTag = tag < (uint)dataTagTable.Length ? dataTagTable[tag] : _dataFields.GetDataTag((int)tag);
            if (pendingDataTag != 0) _pendingDataLength = ParseDataLength(message.Slice(valueStart, valueEnd - valueStart));
            count++;
            pos = valueEnd + 1;
        }
        _count = count;
        return _defect.Kind == FixDefectKind.None;
    }

    /// <summary>
    /// Indexes plain fields from <paramref name="start"/> on and returns the new field count; stops (without consuming it) at
    /// the first field that needs the general path: a tag that is not 1..4 digits followed by '=', tag 0 or beyond the
    /// direct table, no SOH left, an empty value, a repeated or length tag of a data pair, or a message too short or
    /// with more SOHs than the index has room for.
    /// </summary>
    /// <remarks>
    /// Such a field never records a defect, so defects are still found in message order by the general path.
    /// The SOHs are consumed in order: <c>pendingSohs</c> holds the SOH bits of the 64-byte block at
    /// <c>blockStart</c> from pos on; the block is computed (two vector compares) when the loop reaches it.
    /// <code>
    ///   pos ──► 4 4 = 1 0 1 . 2 5 | 5 4 = 1 |
    ///           └ one 8-byte read:  ^ fieldSoh = lowest pending bit; clearing it (blsr) moves to the next field
    ///             digits and tag by 32-bit SWAR, '=' compared in memory, first occurrence and duplicates by the
    ///             tag's direct slot (a stamp at or above the generation: repeated, length tag or tag 0)
    /// </code>
    /// Bounds: the 8-byte read is at pos only while pos + 8 &lt;= length, else at length - 8 (shifted); the slot
    /// index is a tag below <see cref="DirectLookupTags"/>, the length of the direct table; the field array has room
    /// for every SOH of the block (checked when the block is computed), and each field written ends at one of them.
    /// PERF: this loop does about 40 micro-ops per field and runs at the 4-per-cycle issue limit, so each trick
    /// below is an instruction saved per field: no bounds checks, no DataFieldPairs table lookup (the length-tag flag
    /// rides in the slot stamp), the last fields in the loop (no general path for the trailer), the value end stored
    /// instead of its length, the '=' compared in memory instead of shifted out of the word
    /// (FixReadBenchmarks.FrameAndIndex: docs/benchmarks/toolkit-codec-notes.md). Written as its own method: inlined
    /// into Parse, the JIT spills loop state on every field.
    /// </remarks>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private int IndexPlainFields(ReadOnlySpan<byte> message, int start, int count)
    {
        nint lastWordStart = message.Length - 8;
        if (lastWordStart < 0) return count;
        ref byte bytes = ref MemoryMarshal.GetReference(message);
        nint blockStart = start & ~63;
        ulong pendingSohs = AsciiParsing.SohBlock(message, (int)blockStart) & (ulong.MaxValue << start);
        // Room for every field that can end in this block: each one ends at one of its SOHs.
        if (BitOperations.PopCount(pendingSohs) > _fields.Length - count) return count;

        ref FieldEntry entry = ref Unsafe.Add(ref MemoryMarshal.GetArrayDataReference(_fields), count);
        ref Slot direct = ref MemoryMarshal.GetArrayDataReference(_direct);
        uint generation = (uint)_generation;
        nint pos = start;
        while (true)
        {
            while (pendingSohs == 0)
            {
                // The next 64 bytes; a last, partial block re-reads the last 64 bytes of the message and drops those
                // before blockStart (the message is longer than 64 bytes here). No call, so no spills in the loop.
                blockStart += 64;
                nint lastBlockStart = lastWordStart - 56;
                if (blockStart > lastBlockStart + 63) return count;
                nint readAt = Math.Min(blockStart, lastBlockStart);
                pendingSohs = AsciiParsing.SohBlock64(ref bytes, (int)readAt) >> (int)(blockStart - readAt);
                if (BitOperations.PopCount(pendingSohs) > _fields.Length - count) return count;
            }
            nint fieldSoh = blockStart + (nint)ulong.TrailingZeroCount(pendingSohs);
            // The last field(s) of a message: re-read the last 8 bytes and shift out those before pos (zero bytes
            // come in at the top, and a zero byte is neither a digit nor '=').
            ulong word = pos <= lastWordStart
                ? AsciiParsing.ReadUInt64(ref bytes, pos)
                : AsciiParsing.ReadUInt64(ref bytes, lastWordStart) >> (int)((pos - lastWordStart) << 3);

            // Tags in the direct table have at most 4 digits: 32-bit SWAR on the low half of the word.
            uint digitsMinusZero = (uint)word - 0x3030_3030u;
            // 8 * the number of leading digits; the byte after them must be '='.
            int digitBits = AsciiParsing.LeadingDigitBits4(digitsMinusZero);
            if (digitBits == 0) return count;
            nint valueStart = pos + (nint)((uint)digitBits >> 3) + 1;
            // PERF: the '=' is compared in memory (one fused load-compare) rather than shifted out of the word. It is
            // within the message: the digits end before fieldSoh.
            if (Unsafe.Add(ref bytes, valueStart - 1) != (byte)'=') return count;
            nuint tag = AsciiParsing.ParseLeadingDigits4(digitsMinusZero, digitBits);
            // Tag 0 is caught below: its slot carries the length-tag flag.
            if (tag >= DirectLookupTags || valueStart == fieldSoh) return count;

            // tag < DirectLookupTags == _direct.Length.
            ref Slot slot = ref Unsafe.Add(ref direct, tag);
            uint stamp = slot.Stamp;
            if (stamp >= generation)
            {
                // Stamped in this generation (a repeated tag), the length tag of a data pair, or tag 0.
                if (stamp != generation) return count;
                NoteDuplicate((int)tag, count);
            }
            else
            {
                slot.Stamp = generation;
                slot.Index = count;
            }
            // count < _fields.Length: every field here ends at one of the SOHs of the block, counted above.
            entry = new FieldEntry((int)tag, (int)pos, (int)valueStart, (int)fieldSoh);
            entry = ref Unsafe.Add(ref entry, 1);
            count++;
            pos = fieldSoh + 1;
            pendingSohs &= pendingSohs - 1;
        }
    }

    /// <summary>Declared length of a data field (the value of its length field), or -1 when malformed.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int ParseDataLength(ReadOnlySpan<byte> value) =>
        AsciiParsing.TryParseSmallUnsigned(value, out int declared) ? declared : -1;

    /// <summary>
    /// Slow path: a tag of 8 or 9 digits (the SWAR window holds 8 bytes); same rule, the first non-digit must be '='.
    /// Returns the tag in the low 32 bits and its digit count in the high 32 bits, or 0 when it is not a tag.
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static ulong ParseLongTag(ReadOnlySpan<byte> message, int pos)
    {
        ReadOnlySpan<byte> rest = message.Slice(pos);
        int equals = rest.IndexOfAnyExceptInRange((byte)'0', (byte)'9');
        if (equals < 0 || rest[equals] != (byte)'=' || !AsciiParsing.TryParseSmallUnsigned(rest.Slice(0, equals), out int tag)) return 0;
        return (uint)tag | ((ulong)(uint)equals << 32);
    }

    /// <summary>End of a data field's value: the declared length when it ends at an SOH, else the next SOH (with a defect).</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private int DataValueEnd(ReadOnlySpan<byte> message, ReadOnlySpan<ulong> sohBits, int tag, int fieldNumber, int valueStart)
    {
        int declaredLength = _pendingDataLength;
        int valueEnd = valueStart + declaredLength;
        if (declaredLength < 0 || valueEnd >= message.Length || message[valueEnd] != Soh)
        {
            Record(FixDefectKind.BadDataLength, tag, fieldNumber, valueStart);
            valueEnd = AsciiParsing.NextSetBit(sohBits, valueStart);
        }
        return valueEnd;
    }

    /// <summary>Tag of field <paramref name="fieldIndex"/>.</summary>
    /// <param name="fieldIndex">0..Count-1.</param>
    /// <returns>The tag.</returns>
    public int GetTag(int fieldIndex) => Entry(fieldIndex).Tag;

    /// <summary>Byte offset where field <paramref name="fieldIndex"/> starts (its first tag digit).</summary>
    /// <param name="fieldIndex">0..Count-1.</param>
    /// <returns>The offset.</returns>
    public int GetFieldOffset(int fieldIndex) => Entry(fieldIndex).FieldOffset;

    /// <summary>Byte offset of the value of field <paramref name="fieldIndex"/>.</summary>
    /// <param name="fieldIndex">0..Count-1.</param>
    /// <returns>The offset.</returns>
    public int GetValueOffset(int fieldIndex) => Entry(fieldIndex).ValueOffset;

    /// <summary>Length in bytes of the value of field <paramref name="fieldIndex"/>.</summary>
    /// <param name="fieldIndex">0..Count-1.</param>
    /// <returns>The length.</returns>
    public int GetValueLength(int fieldIndex)
    {
        ref readonly FieldEntry entry = ref Entry(fieldIndex);
        return entry.ValueEnd - entry.ValueOffset;
    }

    /// <summary>Index of the first field with <paramref name="tag"/>, or -1 (O(1)).</summary>
    /// <param name="tag">Tag to find.</param>
    /// <returns>The field index or -1.</returns>
    public int IndexOf(int tag)
    {
        if ((uint)tag < DirectLookupTags)
        {
            Slot slot = _direct[tag];
            return (slot.Stamp & ~LengthTagFlag) == (uint)_generation ? slot.Index : -1;
        }
        if (tag <= 0) return -1;
        HashSlot[] hashed = _hashed;
        for (int h = Hash(tag); ; h = (h + 1) & _hashMask)
        {
            ref HashSlot s = ref hashed[h];
            if (s.Generation != _generation) return -1;
            if (s.Tag == tag) return s.Index;
        }
    }

    /// <summary>Index of the first field with <paramref name="tag"/> in [<paramref name="start"/>, <paramref name="end"/>), or -1 (linear).</summary>
    /// <param name="tag">Tag to find.</param>
    /// <param name="start">First field index searched.</param>
    /// <param name="end">Field index after the last one searched.</param>
    /// <returns>The field index or -1.</returns>
    public int IndexOf(int tag, int start, int end)
    {
        end = Math.Min(end, _count);
        FieldEntry[] fields = _fields;
        for (int i = Math.Max(start, 0); i < end; i++)
        {
            if (fields[i].Tag == tag) return i;
        }
        return -1;
    }

    /// <summary>Pairs this index with the bytes it was built from.</summary>
    /// <param name="message">The same bytes passed to <see cref="Parse"/>.</param>
    /// <returns>A reader over the whole message.</returns>
    public FixMessage Bind(ReadOnlySpan<byte> message) => new(message, this);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private ref readonly FieldEntry Entry(int fieldIndex)
    {
        if ((uint)fieldIndex >= (uint)_count) Internal.ThrowHelper.ThrowArgumentOutOfRange(nameof(fieldIndex));
        return ref _fields[fieldIndex];
    }

    /// <summary>Test hook: the next <see cref="Parse"/> uses generation <paramref name="generation"/> + 1.</summary>
    internal void SetGenerationForTest(int generation) => _generation = generation;

    private void NextGeneration()
    {
        if (++_generation == int.MaxValue)
        {
            Array.Clear(_direct);
            Array.Clear(_hashed);
            _generation = 1;
            SetLengthTagFlags();
        }
    }

    /// <summary>Marks the direct slots of the length tags of <see cref="DataFields"/> and of tag 0 (and unmarks the others).</summary>
    /// <remarks>Tag 0 is never indexed, so the flag only sends it from the field loop to the general path, which reports it.</remarks>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private void SetLengthTagFlags()
    {
        int[] dataTagByLengthTag = _dataFields.DirectTable;
        Slot[] direct = _direct;
        for (int tag = 0; tag < direct.Length; tag++)
        {
            direct[tag].Stamp = (direct[tag].Stamp & ~LengthTagFlag) | (tag == 0 || dataTagByLengthTag[tag] != 0 ? LengthTagFlag : 0);
        }
        _lengthTagFlagsVersion = _dataFields.Version;
    }

    private void AddToHash(int tag, int fieldIndex)
    {
        HashSlot[] hashed = _hashed;
        for (int h = Hash(tag); ; h = (h + 1) & _hashMask)
        {
            ref HashSlot s = ref hashed[h];
            if (s.Generation != _generation)
            {
                s.Generation = _generation;
                s.Tag = tag;
                s.Index = fieldIndex;
                return;
            }
            if (s.Tag == tag)
            {
                NoteDuplicate(tag, fieldIndex);
                return;
            }
        }
    }

    private void NoteDuplicate(int tag, int fieldIndex)
    {
        if (_firstDuplicateTag == 0)
        {
            _firstDuplicateTag = tag;
            _firstDuplicateIndex = fieldIndex;
        }
    }

    private int Hash(int tag) => (int)((uint)tag * 0x9E3779B1u >> 7) & _hashMask;

    /// <summary>Slow path: the field at <paramref name="fieldStart"/> has no valid tag; record why and skip it.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private int SkipBadField(ReadOnlySpan<byte> message, int fieldStart, int fieldNumber)
    {
        ReadOnlySpan<byte> rest = message.Slice(fieldStart);
        int soh = rest.IndexOf(Soh);
        int fieldEnd = soh >= 0 ? fieldStart + soh : message.Length;
        ReadOnlySpan<byte> field = message.Slice(fieldStart, fieldEnd - fieldStart);
        int equals = field.IndexOf((byte)'=');
        if (equals < 0)
        {
            int leading = field.IndexOfAnyExceptInRange((byte)'0', (byte)'9');
            ReadOnlySpan<byte> digits = leading < 0 ? field : field.Slice(0, leading);
            int tagGuess = AsciiParsing.TryParseSmallUnsigned(digits, out int t) ? t : 0;
            RecordBadTag(FixDefectKind.MissingEquals, tagGuess, fieldNumber, fieldStart + (leading < 0 ? field.Length : leading), fieldStart, field.Length);
            return fieldEnd + 1;
        }
        ReadOnlySpan<byte> tagText = field.Slice(0, equals);
        int firstNonDigit = tagText.IndexOfAnyExceptInRange((byte)'0', (byte)'9');
        if (tagText.Length > 1 && tagText[0] == (byte)'-' && AsciiParsing.TryParseSmallUnsigned(tagText.Slice(1), out int negative))
        {
            RecordBadTag(FixDefectKind.TagNotNumeric, -negative, fieldNumber, fieldStart, fieldStart, equals);
        }
        else if (AsciiParsing.TryParseSmallUnsigned(tagText, out int parsed) && parsed == 0)
        {
            RecordBadTag(FixDefectKind.TagZero, 0, fieldNumber, fieldStart, fieldStart, equals);
        }
        else if (firstNonDigit < 0 && tagText.Length > MaxTagDigits)
        {
            RecordBadTag(FixDefectKind.TagOutOfRange, 0, fieldNumber, fieldStart + MaxTagDigits, fieldStart, equals);
        }
        else
        {
            RecordBadTag(FixDefectKind.TagNotNumeric, 0, fieldNumber, fieldStart + (firstNonDigit < 0 ? 0 : firstNonDigit), fieldStart, equals);
        }
        return fieldEnd + 1;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private void RecordBadTag(FixDefectKind kind, int tag, int fieldNumber, int offset, int fieldOffset, int tagLength)
    {
        if (_defect.Kind == FixDefectKind.None) _defect = new FixDefect(kind, tag, fieldNumber, offset, fieldOffset, tagLength);
    }

    private void Record(FixDefectKind kind, int tag, int fieldNumber, int offset)
    {
        if (_defect.Kind == FixDefectKind.None) _defect = new FixDefect(kind, tag, fieldNumber, offset);
    }

    /// <summary>One indexed field.</summary>
    /// <remarks>PERF: the value's end (its SOH) is stored rather than its length, which saves the field loop a subtraction.</remarks>
    private readonly struct FieldEntry(int tag, int fieldOffset, int valueOffset, int valueEnd)
    {
        public readonly int Tag = tag;
        public readonly int FieldOffset = fieldOffset;
        public readonly int ValueOffset = valueOffset;
        public readonly int ValueEnd = valueEnd;
    }

    /// <summary>Direct lookup slot of one tag.</summary>
    private struct Slot
    {
        /// <summary>Generation of the parse that indexed the tag, plus <see cref="LengthTagFlag"/> for the length tag of a data pair.</summary>
        public uint Stamp;

        /// <summary>Index of the tag's first field in that parse.</summary>
        public int Index;
    }

    private struct HashSlot
    {
        public int Generation;
        public int Tag;
        public int Index;
    }
}
