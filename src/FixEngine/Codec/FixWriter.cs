using System;
using System.Buffers;
using System.ComponentModel;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics;

namespace FixEngine.Codec;

/// <summary>Encodes one FIX message straight into a caller's buffer: header, fields, BodyLength and CheckSum.</summary>
/// <remarks>
/// Stack-only and single-threaded; allocates nothing and never throws on the hot path. When a field does not fit,
/// the writer becomes <see cref="Failed"/>, ignores every later write and <see cref="TryFinish"/> returns false, so
/// callers may write all fields and check once. Usage:
/// <code>
///   var w = new FixWriter(buffer);
///   w.Begin(BeginStrings.Fix44, MsgTypes.Heartbeat);
///   w.Write(FixTags.SenderCompID, "S"u8); ...
///   if (w.TryFinish(out int length)) send(buffer[..length]);
/// </code>
/// BodyLength is written into space reserved by <see cref="Begin"/> for three digits (bodies of 100..999 bytes, the
/// common case, need no move); <see cref="TryFinish"/> moves the body when it needs fewer or more digits, so the
/// message always starts at offset 0:
/// <code>
///   8=FIX.4.4|9=___|35=0|...body...|           before TryFinish (3 digits reserved)
///   8=FIX.4.4|9=58|35=0|...body...|10=045|     after (body moved 1 byte left)
/// </code>
/// Each field writer is a small inlined fast path: one unsigned compare for room and failure, then the whole field
/// (<c>tag=</c>, value, SOH) built in registers and written with one to three exact-width stores (see
/// <see cref="AsciiFormatting"/>); numbers, prices and timestamps call small shared helpers. Anything unusual (a tag of
/// 5+ digits, a field near the end of the buffer, a failed writer, a big-endian machine) takes the general path.
/// Nothing is written past the end of a field, so nothing is written after the message.
/// <para>
/// Write a message's fields in a method that the JIT compiles as its own root. A small encode method called from one
/// hot place may be inlined into its caller, and then the JIT has no inlining budget left for these fast paths (they
/// are force-inlined, but that only raises the budget when every caller up the chain was force-inlined too); mark
/// such a method <c>[MethodImpl(MethodImplOptions.NoInlining)]</c> (as a root it encodes about twice as fast).
/// </para>
/// PERF: encoding is bound by the instruction stream (every field is inlined at its call site) and by the chain of
/// position updates, not by arithmetic. So a field is a few wide stores of values built in registers (<c>49=BROKER|</c>
/// is two stores of immediates), each field's length is known before its digits, and there is no call where a short
/// inline sequence does. The measurements: docs/benchmarks/toolkit-codec-notes.md in the repository.
/// </remarks>
public ref struct FixWriter
{
    private const byte Soh = AsciiParsing.Soh;

    /// <summary>Tags below this (at most 4 digits) take the inlined fast paths.</summary>
    private const uint FastTagLimit = 10_000;

    /// <summary>Longest <c>tag=</c> on the fast paths.</summary>
    private const uint MaxFastPrefix = 5;

    /// <summary>BodyLength digits reserved by <see cref="Begin"/> (fewer when the buffer is smaller than 100 bytes).</summary>
    private const int ReservedBodyLengthDigits = 3;

    /// <summary>Longest integer text: '-' and 19 digits.</summary>
    private const uint MaxIntegerLength = 20;

    /// <summary>Longest UTCTimestamp text (nanoseconds).</summary>
    private const uint MaxTimestampLength = 27;

    private readonly Span<byte> _buffer;
    private readonly IBufferWriter<byte>? _output;
    private int _position;

    /// <summary>The buffer length while healthy, 0 once failed: one unsigned compare checks both room and failure.</summary>
    private uint _limit;
    private int _bodyLengthOffset;
    private int _reservedDigits;
    private bool _failed;

    /// <summary>0 when no typed body is open, else 2 + the dictionary index of the last body field given (1: none yet),
    /// with <see cref="TypedGroupOpen"/> set while a group opened at the body's level is open.</summary>
    /// <remarks>
    /// The only state a body field stores (a constant). The last field's tag is not kept: an OutOfOrder defect records the
    /// earlier field's index, and <see cref="CloseTypedBody"/> names its tag from the message's table. PERF: in a Send
    /// callback (the writer behind a <c>ref</c>, in memory) every store per field costs, so there is one
    /// (docs/benchmarks/typed-codec.md, "Round 5").
    /// </remarks>
    private int _typedBody;

    // Set in _typedBody while a group opened at the body's level is open (see OpenTypedGroup); far above any index + 2.
    private const int TypedGroupOpen = 0x4000_0000;

    // The first defect of the open typed body (reason None while there is none), as scalars: recording one is a few
    // inline stores, where a FixBodyError returned by a helper costs the encode method JIT temporaries at every check
    // (and past 512 locals the JIT inlines nothing more, not even the force-inlined field writers). A negative
    // _typedDefectOtherTag is ~index of a body field, named by CloseTypedBody.
    private FixBodyErrorReason _typedDefectReason;
    private int _typedDefectTag;
    private int _typedDefectOtherTag;

    /// <summary>Groups open in the typed body's per-entry chain (8 at most: a ninth is GroupTooDeep).</summary>
    private int _typedDepth;

    /// <summary>The innermost open group's entries still to come (0 outside any group).</summary>
    private int _typedDue;

    /// <summary>The innermost open group's entry: 1 + the entry index of the last member given (the delimiter is 0), <see cref="NoTypedEntry"/> before its first entry and outside any group.</summary>
    /// <remarks>
    /// PERF: its own field, stored with a constant per member (no read-modify-write): when the writer is behind a
    /// <c>ref</c> (a Send callback), state packed with the count made every member load, mask and store one word, a chain
    /// through memory as long as the position's (docs/benchmarks/typed-codec.md, "Round 5").
    /// </remarks>
    private int _typedEntry;

    // The enclosing levels of the per-entry chain's open groups: _typedSavedN holds the state of the level a group opened
    // at depth N was nested in (the body's for N = 0) as (entries still to come << 16) | its _typedEntry. One slot per
    // depth, written and read with a compare on the depth (a constant when the writer is a local; depth 0 first), so
    // opening or closing a group moves one slot, not a whole stack. Plain fields, not an array: an indexed element would
    // take the writer's address, and a local writer would then live in memory.
    private int _typedSaved0;
    private int _typedSaved1;
    private int _typedSaved2;
    private int _typedSaved3;
    private int _typedSaved4;
    private int _typedSaved5;
    private int _typedSaved6;
    private int _typedSaved7;

    /// <summary>Creates a writer over <paramref name="destination"/>.</summary>
    /// <param name="destination">Where the message is written, starting at offset 0.</param>
    /// <remarks>
    /// PERF: force-inlined. Not inlined, the call takes the writer's address and a local writer lives in memory for the
    /// whole method; the JIT stopped inlining it on its own when the typed group stack grew the (zero-initialising) IL.
    /// </remarks>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public FixWriter(Span<byte> destination)
    {
        _buffer = destination;
        _output = null;
        _limit = (uint)destination.Length;
        _bodyLengthOffset = -1;
    }

    /// <summary>Creates a writer over <c>output.GetSpan(sizeHint)</c>; a successful <see cref="TryFinish"/> calls <c>output.Advance(length)</c>.</summary>
    /// <param name="output">Destination buffer writer.</param>
    /// <param name="sizeHint">Bytes requested from <paramref name="output"/>; the message must fit in the span it returns.</param>
    public FixWriter(IBufferWriter<byte> output, int sizeHint)
    {
        _buffer = output.GetSpan(sizeHint);
        _output = output;
        _limit = (uint)_buffer.Length;
        _bodyLengthOffset = -1;
    }

    /// <summary>Bytes written so far.</summary>
    public readonly int Written => _position;

    /// <summary>The bytes written so far.</summary>
    public readonly ReadOnlySpan<byte> WrittenSpan => _buffer.Slice(0, _position);

    /// <summary>True once a write did not fit; every later write is ignored.</summary>
    /// <remarks>Also true while a typed body is open (between the generated <c>X.Begin</c> and <c>End</c>).</remarks>
    public readonly bool Failed => _failed || _typedBody != 0;

    /// <summary>Writes <c>8=beginString|9=</c>, reserves the BodyLength digits, then <c>35=msgType|</c>.</summary>
    /// <param name="beginString">BeginString value, e.g. <see cref="BeginStrings.Fix44"/>.</param>
    /// <param name="msgType">MsgType value, e.g. <see cref="MsgTypes.NewOrderSingle"/>.</param>
    /// <returns>False when the buffer is too small.</returns>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool Begin(scoped ReadOnlySpan<byte> beginString, scoped ReadOnlySpan<byte> msgType)
    {
        _position = 0;
        _failed = false;
        _typedBody = 0;
        _typedDefectReason = FixBodyErrorReason.None;
        _limit = (uint)_buffer.Length;
        // As many digits as the buffer length has, at most three.
        int reserved = _buffer.Length >= 100 ? ReservedBodyLengthDigits : _buffer.Length >= 10 ? 2 : 1;
        int needed = 2 + beginString.Length + 1 + 2 + reserved + 1 + 3 + msgType.Length + 1;
        if (needed > _buffer.Length) return Commit(-1);
        if (BitConverter.IsLittleEndian && reserved == ReservedBodyLengthDigits && beginString.Length <= 15 && msgType.Length <= 15)
        {
            // 8=FIX.4.4| 9=___| 35=D| as three short fields, exactly `needed` bytes (checked above); the BodyLength
            // digits stay zero bytes until TryFinish.
            ref byte d = ref MemoryMarshal.GetReference(_buffer);
            AsciiFormatting.WriteShortField(ref d, '8' | ('=' << 8), 2, ref MemoryMarshal.GetReference(beginString), beginString.Length);
            int slot = 3 + beginString.Length;
            Unsafe.WriteUnaligned(ref Unsafe.Add(ref d, slot), (ushort)('9' | ('=' << 8)));
            Unsafe.WriteUnaligned(ref Unsafe.Add(ref d, slot + 2), (uint)Soh << 24);
            _bodyLengthOffset = slot + 2;
            _reservedDigits = ReservedBodyLengthDigits;
            AsciiFormatting.WriteShortField(ref Unsafe.Add(ref d, slot + 6), '3' | ('5' << 8) | ('=' << 16), 3, ref MemoryMarshal.GetReference(msgType), msgType.Length);
            _position = needed;
            return true;
        }
        Span<byte> b = _buffer;
        AsciiParsing.StoreUnchecked(b, 0, '8' | ('=' << 8), 2);
        AsciiParsing.CopyUnchecked(beginString, b, 2);
        int p = 2 + beginString.Length;
        AsciiParsing.StoreUnchecked(b, p, Soh | ('9' << 8) | ('=' << 16), 3);
        _bodyLengthOffset = p + 3;
        _reservedDigits = reserved;
        b.Slice(_bodyLengthOffset, reserved).Clear();
        p = _bodyLengthOffset + reserved;
        AsciiParsing.StoreUnchecked(b, p, Soh | ('3' << 8) | ('5' << 16) | ('=' << 24), 4);
        AsciiParsing.CopyUnchecked(msgType, b, p + 4);
        p += 4 + msgType.Length;
        AsciiParsing.StoreUnchecked(b, p, Soh);
        _position = p + 1;
        return true;
    }

    /// <summary>Writes <c>tag=value|</c>.</summary>
    /// <param name="tag">Positive tag.</param>
    /// <param name="value">Value bytes (must not contain SOH unless this is a data field).</param>
    /// <returns>False when it did not fit.</returns>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool Write(int tag, scoped ReadOnlySpan<byte> value)
    {
        if (BitConverter.IsLittleEndian && (uint)tag < FastTagLimit)
        {
            uint p = (uint)_position;
            ulong prefix = AsciiParsing.TagPrefix((uint)tag, out int prefixLength);
            uint total = (uint)prefixLength + (uint)value.Length + 1;
            if (p + total <= _limit)
            {
                ref byte d = ref At(p);
                if (value.Length <= 15)
                {
                    AsciiFormatting.WriteShortField(ref d, prefix, prefixLength, ref MemoryMarshal.GetReference(value), value.Length);
                }
                else
                {
                    AsciiFormatting.StoreTagPrefix(ref d, prefix, prefixLength);
                    Unsafe.CopyBlockUnaligned(ref Unsafe.Add(ref d, prefixLength), ref MemoryMarshal.GetReference(value), (uint)value.Length);
                    Unsafe.Add(ref d, total - 1) = Soh;
                }
                _position = (int)(p + total);
                return true;
            }
        }
        return Commit(WriteGeneral(_buffer, _position, _failed, tag, value));
    }

    /// <summary>Writes <c>tag=value|</c> for an ASCII string (each char is written as one byte).</summary>
    /// <param name="tag">Positive tag.</param>
    /// <param name="value">ASCII text.</param>
    /// <returns>False when it did not fit.</returns>
    public bool Write(int tag, string value)
    {
        int p = _position;
        int tagLength = TagLength(tag);
        if (_failed || (uint)(p + tagLength + 2 + value.Length) > (uint)_buffer.Length) return Fail();
        WriteTag(_buffer, p, tag, tagLength);
        p += tagLength + 1;
        Span<byte> destination = _buffer.Slice(p, value.Length);
        for (int i = 0; i < value.Length; i++) destination[i] = (byte)value[i];
        p += value.Length;
        _buffer[p] = Soh;
        _position = p + 1;
        return true;
    }

    /// <summary>Writes an int field.</summary>
    /// <param name="tag">Positive tag.</param>
    /// <param name="value">Value.</param>
    /// <returns>False when it did not fit.</returns>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool Write(int tag, int value) => Write(tag, (long)value);

    /// <summary>Writes a 64-bit int field.</summary>
    /// <param name="tag">Positive tag.</param>
    /// <param name="value">Value.</param>
    /// <returns>False when it did not fit.</returns>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool Write(int tag, long value)
    {
        uint p = (uint)_position;
        if (BitConverter.IsLittleEndian && (uint)tag < FastTagLimit && value >= 0 && p + MaxFastPrefix + MaxIntegerLength + 1 <= _limit)
        {
            ulong prefix = AsciiParsing.TagPrefix((uint)tag, out int prefixLength);
            ref byte d = ref At(p);
            if (value < 100)
            {
                // Counts, roles and small enumerations: tag=, one or two digits and SOH in one word, no call.
                uint small = (uint)value;
                if (small < 10)
                {
                    AsciiFormatting.StoreExact(ref d, prefix | ((ulong)('0' + small) << (8 * prefixLength)) | ((ulong)Soh << (8 * prefixLength + 8)), prefixLength + 2);
                    _position = (int)p + prefixLength + 2;
                    return true;
                }
                AsciiFormatting.StoreExact(ref d, prefix | ((ulong)AsciiFormatting.DigitPair(small) << (8 * prefixLength)) | ((ulong)Soh << (8 * prefixLength + 16)), prefixLength + 3);
                _position = (int)p + prefixLength + 3;
                return true;
            }
            AsciiFormatting.StoreTagPrefix(ref d, prefix, prefixLength);
            if (value < 10_000)
            {
                // Quantities and early sequence numbers: four digits built in a register, no call.
                uint v = (uint)value;
                uint hundreds = (v * 5243) >> 19;
                ulong text = AsciiFormatting.DigitPair(hundreds) | ((ulong)AsciiFormatting.DigitPair(v - hundreds * 100) << 16) | ((ulong)Soh << 32);
                if (v < 1000)
                {
                    Unsafe.WriteUnaligned(ref Unsafe.Add(ref d, prefixLength), (uint)(text >> 8));
                    _position = (int)p + prefixLength + 4;
                    return true;
                }
                AsciiFormatting.StoreExact(ref Unsafe.Add(ref d, prefixLength), text, 5);
                _position = (int)p + prefixLength + 5;
                return true;
            }
            int count = AsciiParsing.CountDigits((ulong)value);
            AsciiFormatting.WriteDigitsAndSoh(ref Unsafe.Add(ref d, prefixLength), (ulong)value, count);
            _position = (int)p + prefixLength + count + 1;
            return true;
        }
        return Commit(WriteGeneral(_buffer, _position, _failed, tag, value));
    }

    /// <summary>Writes a decimal field with exactly <see cref="FixDecimal.Scale"/> decimals.</summary>
    /// <param name="tag">Positive tag.</param>
    /// <param name="value">Value.</param>
    /// <returns>False when it did not fit.</returns>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool Write(int tag, FixDecimal value)
    {
        uint p = (uint)_position;
        if (BitConverter.IsLittleEndian && (uint)tag < FastTagLimit && p + MaxFastPrefix + FixDecimal.MaxFormattedLength + 1 <= _limit)
        {
            ulong prefix = AsciiParsing.TagPrefix((uint)tag, out int prefixLength);
            ref byte d = ref At(p);
            AsciiFormatting.StoreTagPrefix(ref d, prefix, prefixLength);
            _position = (int)p + prefixLength + AsciiFormatting.WriteDecimalAndSoh(ref Unsafe.Add(ref d, prefixLength), value.Mantissa, value.Scale);
            return true;
        }
        return Commit(WriteGeneral(_buffer, _position, _failed, tag, value));
    }

    /// <summary>Writes a char field (one byte).</summary>
    /// <param name="tag">Positive tag.</param>
    /// <param name="value">ASCII character.</param>
    /// <returns>False when it did not fit.</returns>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool Write(int tag, char value)
    {
        uint p = (uint)_position;
        if (BitConverter.IsLittleEndian && (uint)tag < FastTagLimit && p + MaxFastPrefix + 2 <= _limit)
        {
            ulong prefix = AsciiParsing.TagPrefix((uint)tag, out int prefixLength);
            AsciiFormatting.StoreExact(ref At(p), prefix | ((ulong)(byte)value << (8 * prefixLength)) | ((ulong)Soh << (8 * prefixLength + 8)), prefixLength + 2);
            _position = (int)p + prefixLength + 2;
            return true;
        }
        return Commit(WriteGeneral(_buffer, _position, _failed, tag, value));
    }

    /// <summary>Writes a Boolean field as Y or N.</summary>
    /// <param name="tag">Positive tag.</param>
    /// <param name="value">Value.</param>
    /// <returns>False when it did not fit.</returns>
    public bool Write(int tag, bool value) => Write(tag, value ? 'Y' : 'N');

    /// <summary>Writes a UTCTimestamp field from nanoseconds since the Unix epoch.</summary>
    /// <param name="tag">Positive tag.</param>
    /// <param name="epochNs">Nanoseconds since 1970-01-01T00:00:00Z.</param>
    /// <param name="precision">Fraction digits (truncating).</param>
    /// <returns>False when it did not fit.</returns>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool WriteTimestamp(int tag, long epochNs, TimestampPrecision precision)
    {
        uint p = (uint)_position;
        if (BitConverter.IsLittleEndian && (uint)tag < FastTagLimit && p + MaxFastPrefix + MaxTimestampLength + 1 <= _limit)
        {
            ulong prefix = AsciiParsing.TagPrefix((uint)tag, out int prefixLength);
            ref byte d = ref At(p);
            AsciiFormatting.StoreTagPrefix(ref d, prefix, prefixLength);
            AsciiFormatting.WriteTimestampAndSoh(ref Unsafe.Add(ref d, prefixLength), epochNs, precision);
            _position = (int)p + prefixLength + FixValueFormatter.UtcTimestampLength(precision) + 1;
            return true;
        }
        return Commit(WriteTimestampGeneral(_buffer, _position, _failed, tag, epochNs, precision));
    }

    /// <summary>Writes a UTCTimestamp using a per-second cache of the <c>YYYYMMDD-HH:MM:SS</c> prefix (e.g. SendingTime).</summary>
    /// <param name="tag">Positive tag.</param>
    /// <param name="epochNs">Nanoseconds since the Unix epoch.</param>
    /// <param name="precision">Fraction digits.</param>
    /// <param name="cache">Cache owned by the writing thread.</param>
    /// <returns>False when it did not fit.</returns>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool WriteTimestamp(int tag, long epochNs, TimestampPrecision precision, UtcTimestampCache cache)
    {
        uint p = (uint)_position;
        if (BitConverter.IsLittleEndian && (uint)tag < FastTagLimit && p + MaxFastPrefix + MaxTimestampLength + 1 <= _limit)
        {
            ulong prefix = AsciiParsing.TagPrefix((uint)tag, out int prefixLength);
            ref byte d = ref At(p);
            AsciiFormatting.StoreTagPrefix(ref d, prefix, prefixLength);
            cache.WriteAndSoh(ref Unsafe.Add(ref d, prefixLength), epochNs, precision);
            _position = (int)p + prefixLength + FixValueFormatter.UtcTimestampLength(precision) + 1;
            return true;
        }
        return Commit(WriteTimestampGeneral(_buffer, _position, _failed, tag, epochNs, precision, cache));
    }

    /// <summary>Writes a UTCTimeOnly field from nanoseconds since midnight.</summary>
    /// <param name="tag">Positive tag.</param>
    /// <param name="nanosOfDay">0..86,399,999,999,999.</param>
    /// <param name="precision">Fraction digits.</param>
    /// <returns>False when it did not fit or the value is out of range.</returns>
    public bool WriteTimeOnly(int tag, long nanosOfDay, TimestampPrecision precision)
    {
        if ((ulong)nanosOfDay >= FixValueParser.NanosPerDay) return Fail();
        if (!TryReserveValue(tag, 8 + FixValueFormatter.FractionLength(precision), out Span<byte> value)) return false;
        FixValueFormatter.WriteTimeOfDay(nanosOfDay, precision, value);
        return true;
    }

    /// <summary>Writes a UTCDateOnly/LocalMktDate field (YYYYMMDD).</summary>
    /// <param name="tag">Positive tag.</param>
    /// <param name="date">Date.</param>
    /// <returns>False when it did not fit.</returns>
    public bool Write(int tag, DateOnly date)
    {
        if (!TryReserveValue(tag, 8, out Span<byte> value)) return false;
        FixValueFormatter.TryFormatDate(date, value, out _);
        return true;
    }

    /// <summary>Writes a MonthYear field.</summary>
    /// <param name="tag">Positive tag.</param>
    /// <param name="value">Value.</param>
    /// <returns>False when it did not fit.</returns>
    public bool Write(int tag, FixMonthYear value)
    {
        int length = value.Day != 0 || value.Week != 0 ? 8 : 6;
        if (!TryReserveValue(tag, length, out Span<byte> span)) return false;
        if (!FixValueFormatter.TryFormatMonthYear(value, span, out _)) return Fail();
        return true;
    }

    /// <summary>Copies already-encoded fields (each <c>tag=value|</c>) verbatim, e.g. a stored body under a fresh header.</summary>
    /// <param name="encodedFields">Complete fields including their SOH delimiters.</param>
    /// <returns>False when it did not fit.</returns>
    public bool WriteRaw(scoped ReadOnlySpan<byte> encodedFields)
    {
        if (_failed || (uint)(_position + encodedFields.Length) > (uint)_buffer.Length) return Fail();
        encodedFields.CopyTo(_buffer.Slice(_position));
        _position += encodedFields.Length;
        return true;
    }

    // ---- typed body writers -------------------------------------------------------------------------------------
    // The generated X.Begin(ref writer) ... End() chains are views of this writer (a stage struct's only field is a
    // FixWriter, so `ref writer` is reinterpreted, never copied): every field goes straight through the caller's writer,
    // which the JIT keeps in registers when it is a local. These members keep the chain's state here.
    // PERF: stage structs that carried a copy of the writer (a first version) were not promoted by the JIT: each stage
    // change copied the writer through memory with store-forwarding stalls, several times slower than raw. As views the
    // chain copies nothing. Like the general paths above, none of
    // these members passes the writer (`this`) to a call that is not inlined, not even on a cold path: one such call
    // anywhere in an encode method makes a local writer address-exposed for the whole method, so every field loads and
    // stores the position through memory and no order check folds away (docs/benchmarks/typed-codec.md). A defect is
    // recorded with inline stores.

    /// <summary>Opens a typed body (the generated <c>X.Begin(ref writer)</c>): until <see cref="CloseTypedBody"/>, <see cref="Failed"/> is true and <see cref="TryFinish"/> fails.</summary>
    /// <remarks>So a message whose typed body was never ended cannot be sent. Field writes go on as usual.</remarks>
    [EditorBrowsable(EditorBrowsableState.Never)]
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void OpenTypedBody()
    {
        // The saved levels are not cleared: a slot is read only after the open at its depth in this body wrote it (a
        // close at depth 0 is refused before it reads one).
        _typedBody = 1;
        _typedDefectReason = FixBodyErrorReason.None;
        _typedDepth = 0;
        _typedDue = 0;
        _typedEntry = NoTypedEntry;
    }

    /// <summary>Records that the body field <paramref name="tag"/>, at dictionary index <paramref name="index"/>, is being written; one given before at the same or a later index is a defect (OutOfOrder).</summary>
    /// <param name="index">The field's position in the message's dictionary order.</param>
    /// <param name="tag">The field's tag.</param>
    [EditorBrowsable(EditorBrowsableState.Never)]
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void AdvanceTypedBody(int index, int tag)
    {
        // The field given before is recorded by its index (~index: not a tag); CloseTypedBody names its tag.
        if (index + 2 <= _typedBody) Defect(FixBodyErrorReason.OutOfOrder, tag, ~(_typedBody - 2));
        _typedBody = index + 2;
    }

    /// <summary>Records a defect of the open typed body (the first one is kept): <see cref="CloseTypedBody"/> then refuses it.</summary>
    /// <param name="reason">Why.</param>
    /// <param name="tag">The field at fault.</param>
    /// <param name="otherTag">See <see cref="FixBodyError.OtherTag"/>.</param>
    [EditorBrowsable(EditorBrowsableState.Never)]
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void RefuseTypedBody(FixBodyErrorReason reason, int tag, int otherTag) => Defect(reason, tag, otherTag);

    /// <summary>Records a defect unless one was recorded before: inline stores, no call (the writer does not escape).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private void Defect(FixBodyErrorReason reason, int tag, int otherTag)
    {
        if (_typedDefectReason != FixBodyErrorReason.None) return;
        _typedDefectOtherTag = otherTag;
        _typedDefectTag = tag;
        _typedDefectReason = reason;
    }

    /// <summary>Opens a group of the typed body's per-entry chain (the generated <c>.NoXxx(count)</c>): writes NumInGroup unless <paramref name="count"/> is 0.</summary>
    /// <param name="countTag">The group's NumInGroup tag.</param>
    /// <param name="count">The entries that will follow (0..65,535; 0 writes nothing).</param>
    /// <remarks>A negative or larger count, or a ninth nested group, is a defect; <see cref="CloseTypedGroup"/> checks the count.</remarks>
    [EditorBrowsable(EditorBrowsableState.Never)]
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void OpenTypedGroup(int countTag, int count)
    {
        if ((uint)count - 1 < MaxTypedGroupCount) Write(countTag, count);
        else if (count != 0) Defect(FixBodyErrorReason.GroupCountMismatch, countTag, 0);
        // No local for the saved state: each would be one more JIT temporary per group in the encode method.
        if (_typedDepth == 0)
        {
            _typedSaved0 = (_typedDue << 16) | _typedEntry;
            // While a group of the body is open, a body field (through a view held with ref var) would land between
            // its entries: the flag makes AdvanceTypedBody's one compare refuse it, at no cost per field.
            _typedBody |= TypedGroupOpen;
        }
        else if (_typedDepth == 1) _typedSaved1 = (_typedDue << 16) | _typedEntry;
        else if (_typedDepth == 2) _typedSaved2 = (_typedDue << 16) | _typedEntry;
        else if (_typedDepth == 3) _typedSaved3 = (_typedDue << 16) | _typedEntry;
        else if (_typedDepth == 4) _typedSaved4 = (_typedDue << 16) | _typedEntry;
        else if (_typedDepth == 5) _typedSaved5 = (_typedDue << 16) | _typedEntry;
        else if (_typedDepth == 6) _typedSaved6 = (_typedDue << 16) | _typedEntry;
        else if (_typedDepth == 7) _typedSaved7 = (_typedDue << 16) | _typedEntry;
        else Defect(FixBodyErrorReason.GroupTooDeep, countTag, 0);
        _typedDepth++;
        _typedDue = (uint)count - 1 < MaxTypedGroupCount ? count : 0;
        _typedEntry = NoTypedEntry;
    }

    /// <summary>Starts an entry of the innermost open group (the generated delimiter method): one more than its count is a defect.</summary>
    /// <param name="countTag">The group's NumInGroup tag.</param>
    [EditorBrowsable(EditorBrowsableState.Never)]
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void BeginTypedEntry(int countTag)
    {
        // No locals here or below: each would be one more JIT temporary per entry in the encode method.
        if (_typedDue == 0) Defect(FixBodyErrorReason.GroupCountMismatch, countTag, 0);
        else _typedDue--;
        _typedEntry = 1;
    }

    /// <summary>Records that the member <paramref name="tag"/>, at entry index <paramref name="index"/> (1 and up), of the innermost open group's entry is being written.</summary>
    /// <param name="index">The member's position in the entry's dictionary order (the delimiter is 0).</param>
    /// <param name="tag">The member's tag.</param>
    /// <param name="countTag">The group's NumInGroup tag.</param>
    /// <remarks>Before the entry's delimiter, or at the same or an earlier index than the member before it, it is a defect (EntryOutOfOrder).</remarks>
    [EditorBrowsable(EditorBrowsableState.Never)]
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void AdvanceTypedEntry(int index, int tag, int countTag)
    {
        // Refused when the last index + 1 is above index (NoTypedEntry: no entry started): one compare, and a constant store.
        if (_typedEntry > index) Defect(FixBodyErrorReason.EntryOutOfOrder, tag, countTag);
        _typedEntry = index + 1;
    }

    /// <summary>Closes the innermost open group (the generated <c>.EndNoXxx()</c>): fewer entries than its count is a defect.</summary>
    /// <param name="countTag">The group's NumInGroup tag.</param>
    [EditorBrowsable(EditorBrowsableState.Never)]
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void CloseTypedGroup(int countTag)
    {
        if (_typedDepth == 0)
        {
            // More closes than opens (a group view used after its End): refused, and nothing to pop.
            Defect(FixBodyErrorReason.GroupCountMismatch, countTag, 0);
            return;
        }
        if (_typedDue != 0) Defect(FixBodyErrorReason.GroupCountMismatch, countTag, 0);
        _typedDepth--;
        if (_typedDepth == 0)
        {
            RestoreTypedLevel(_typedSaved0);
            _typedBody &= ~TypedGroupOpen;
        }
        else if (_typedDepth == 1) RestoreTypedLevel(_typedSaved1);
        else if (_typedDepth == 2) RestoreTypedLevel(_typedSaved2);
        else if (_typedDepth == 3) RestoreTypedLevel(_typedSaved3);
        else if (_typedDepth == 4) RestoreTypedLevel(_typedSaved4);
        else if (_typedDepth == 5) RestoreTypedLevel(_typedSaved5);
        else if (_typedDepth == 6) RestoreTypedLevel(_typedSaved6);
        else if (_typedDepth == 7) RestoreTypedLevel(_typedSaved7);
        else RestoreTypedLevel(NoTypedEntry); // past the 8 levels (GroupTooDeep already recorded): nothing was saved
    }

    /// <summary>Makes a level saved by <see cref="OpenTypedGroup"/> the innermost again.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private void RestoreTypedLevel(int saved)
    {
        _typedDue = (int)((uint)saved >> 16);
        _typedEntry = saved & 0xFFFF;
    }

    /// <summary>A text field of the open typed body, at dictionary index <paramref name="index"/>: left out when empty, which is a defect (RequiredMissing) when <paramref name="required"/>.</summary>
    /// <param name="index">The field's position in the message's dictionary order.</param>
    /// <param name="tag">The field's tag.</param>
    /// <param name="value">The text.</param>
    /// <param name="required">Whether the dictionary requires the field.</param>
    /// <remarks>
    /// PERF: the generated setter passes the text straight on, so the span is copied once (here) where a setter that
    /// tested it and then called <see cref="Write(int, ReadOnlySpan{byte})"/> copied it twice: each copy is three JIT
    /// temporaries, and an encode method that reaches 512 of them gets nothing more inlined (docs/benchmarks/typed-codec.md).
    /// </remarks>
    [EditorBrowsable(EditorBrowsableState.Never)]
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void WriteTypedText(int index, int tag, scoped ReadOnlySpan<byte> value, bool required)
    {
        if (value.IsEmpty)
        {
            if (required) Defect(FixBodyErrorReason.RequiredMissing, tag, 0);
            return;
        }
        AdvanceTypedBody(index, tag);
        WriteText(tag, ref MemoryMarshal.GetReference(value), value.Length);
    }

    /// <summary>A text member of the innermost open group's entry, at entry index <paramref name="index"/>: left out when empty, which is a defect (IncompleteGroupEntry) when <paramref name="required"/>.</summary>
    /// <param name="index">The member's position in the entry's dictionary order (1 and up).</param>
    /// <param name="tag">The member's tag.</param>
    /// <param name="countTag">The group's NumInGroup tag.</param>
    /// <param name="value">The text.</param>
    /// <param name="required">Whether the dictionary requires the member.</param>
    [EditorBrowsable(EditorBrowsableState.Never)]
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void WriteTypedEntryText(int index, int tag, int countTag, scoped ReadOnlySpan<byte> value, bool required)
    {
        if (value.IsEmpty)
        {
            if (required) Defect(FixBodyErrorReason.IncompleteGroupEntry, tag, countTag);
            return;
        }
        AdvanceTypedEntry(index, tag, countTag);
        WriteText(tag, ref MemoryMarshal.GetReference(value), value.Length);
    }

    /// <summary>Starts an entry of the innermost open group with its text delimiter (see <see cref="BeginTypedEntry(int)"/>); empty text is a defect (IncompleteGroupEntry).</summary>
    /// <param name="countTag">The group's NumInGroup tag.</param>
    /// <param name="tag">The delimiter's tag.</param>
    /// <param name="value">The text.</param>
    [EditorBrowsable(EditorBrowsableState.Never)]
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void BeginTypedEntry(int countTag, int tag, scoped ReadOnlySpan<byte> value)
    {
        BeginTypedEntry(countTag);
        if (value.IsEmpty) Defect(FixBodyErrorReason.IncompleteGroupEntry, tag, countTag);
        else WriteText(tag, ref MemoryMarshal.GetReference(value), value.Length);
    }

    /// <summary><see cref="Write(int, ReadOnlySpan{byte})"/> over text the caller already holds as a span: its first byte and length (no further copy of the span).</summary>
    /// <remarks>The same fast path, kept apart so the raw writer's own inlining does not change.</remarks>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private void WriteText(int tag, scoped ref byte value, int length)
    {
        if (BitConverter.IsLittleEndian && (uint)tag < FastTagLimit)
        {
            uint p = (uint)_position;
            ulong prefix = AsciiParsing.TagPrefix((uint)tag, out int prefixLength);
            uint total = (uint)prefixLength + (uint)length + 1;
            if (p + total <= _limit)
            {
                ref byte d = ref At(p);
                if (length <= 15)
                {
                    AsciiFormatting.WriteShortField(ref d, prefix, prefixLength, ref value, length);
                }
                else
                {
                    AsciiFormatting.StoreTagPrefix(ref d, prefix, prefixLength);
                    Unsafe.CopyBlockUnaligned(ref Unsafe.Add(ref d, prefixLength), ref value, (uint)length);
                    Unsafe.Add(ref d, total - 1) = Soh;
                }
                _position = (int)(p + total);
                return;
            }
        }
        Commit(WriteGeneral(_buffer, _position, _failed, tag, MemoryMarshal.CreateReadOnlySpan(ref value, length)));
    }

    /// <summary>Largest count a per-entry chain group takes (16 bits of its slot).</summary>
    private const uint MaxTypedGroupCount = 0xFFFF;

    /// <summary><see cref="_typedEntry"/> before a group's first entry: above every member index (16 bits, as in a saved slot).</summary>
    private const int NoTypedEntry = 0xFFFF;

    /// <summary>Closes the typed body (the generated <c>End()</c>).</summary>
    /// <param name="bodyTags">The tag of each body field by dictionary index (as given to <see cref="AdvanceTypedBody"/>): names the earlier field of an OutOfOrder defect.</param>
    /// <param name="error">Why it was refused; Reason None when it was written.</param>
    /// <returns>True when the body is complete and fitted. Otherwise false and the writer is failed, so the message is not sent.</returns>
    [EditorBrowsable(EditorBrowsableState.Never)]
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool CloseTypedBody(scoped ReadOnlySpan<int> bodyTags, out FixBodyError error)
    {
        if (_typedBody != 0 && _typedDefectReason == FixBodyErrorReason.None && !_failed && _typedDepth == 0)
        {
            _typedBody = 0;
            error = default;
            return true;
        }
        error = ClosedTypedBodyError(_typedBody, _typedDefectReason, _typedDefectTag, _typedDefectOtherTag, _typedDepth, bodyTags);
        _typedBody = 0;
        return Commit(-1);
    }

    /// <summary>Why <see cref="CloseTypedBody"/> refuses (static: the writer does not escape).</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static FixBodyError ClosedTypedBodyError(int typedBody, FixBodyErrorReason reason, int tag, int otherTag, int depth, ReadOnlySpan<int> bodyTags) =>
        typedBody == 0 ? new FixBodyError(FixBodyErrorReason.NotOpen, 0, 0)
        : reason != FixBodyErrorReason.None ? new FixBodyError(reason, tag, otherTag >= 0 ? otherTag : (uint)(~otherTag & ~TypedGroupOpen) < (uint)bodyTags.Length ? bodyTags[~otherTag & ~TypedGroupOpen] : 0)
        : depth != 0 ? new FixBodyError(FixBodyErrorReason.GroupCountMismatch, 0, 0)
        : new FixBodyError(FixBodyErrorReason.NoRoom, 0, 0);

    /// <summary>Fills in BodyLength, appends <c>10=ddd|</c> and (for an <see cref="IBufferWriter{T}"/>) advances it.</summary>
    /// <param name="length">Total message length (the message occupies offsets 0..length-1).</param>
    /// <returns>False when <see cref="Begin"/> was not called or the buffer was too small.</returns>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool TryFinish(out int length)
    {
        int end = _failed || _bodyLengthOffset < 0 || _typedBody != 0 ? -1 : FinishCore(_buffer, _position, _bodyLengthOffset, _reservedDigits);
        // Commit written out: at the end of a long encode method the JIT may have no inlining left for it, and a call
        // that takes the writer's address would keep a local writer in memory for the whole method.
        if (end < 0)
        {
            _failed = true;
            _limit = 0;
            length = 0;
            return false;
        }
        _position = end;
        _bodyLengthOffset = -1;
        length = end;
        _output?.Advance(end);
        return true;
    }

    /// <summary>Appends <paramref name="encodedFields"/> (complete fields ending the body, e.g. a stored message's body)
    /// and finishes the message as <see cref="TryFinish"/> does; the appended bytes are summed for the CheckSum as they
    /// are copied, in one pass, and only the bytes before them are summed again.</summary>
    /// <returns>False when <see cref="Begin"/> was not called or the buffer was too small.</returns>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal bool TryFinishWithRaw(scoped ReadOnlySpan<byte> encodedFields, out int length) => TryFinishWithRaw(encodedFields, summed: false, 0, out length);

    /// <summary>As <see cref="TryFinishWithRaw(ReadOnlySpan{byte}, out int)"/> when the byte sum of
    /// <paramref name="encodedFields"/> (mod 256) is known: they are copied, not summed.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal bool TryFinishWithRaw(scoped ReadOnlySpan<byte> encodedFields, byte encodedSum, out int length) =>
        TryFinishWithRaw(encodedFields, summed: true, encodedSum, out length);

    // The commit tail is TryFinish's, written out there on purpose (2383d74: a call taking the writer's address kept local
    // writers in memory); the two raw finishes share this one.
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private bool TryFinishWithRaw(scoped ReadOnlySpan<byte> encodedFields, bool summed, byte encodedSum, out int length)
    {
        int start = _position;
        int end = -1;
        if (!_failed && _bodyLengthOffset >= 0 && _typedBody == 0 && (uint)(start + encodedFields.Length) <= (uint)_buffer.Length)
        {
            uint rawSum;
            if (summed)
            {
                encodedFields.CopyTo(_buffer.Slice(start));
                rawSum = encodedSum;
            }
            else
            {
                rawSum = AsciiParsing.CopyAndSum(encodedFields, _buffer.Slice(start));
            }
            end = FinishCore(_buffer, start + encodedFields.Length, _bodyLengthOffset, _reservedDigits, start, rawSum);
        }
        if (end < 0)
        {
            _failed = true;
            _limit = 0;
            length = 0;
            return false;
        }
        _position = end;
        _bodyLengthOffset = -1;
        length = end;
        _output?.Advance(end);
        return true;
    }

    /// <summary>BodyLength, body move and trailer for a body that ends at <paramref name="position"/>; returns the message length or -1.</summary>
    /// <remarks>
    /// The BodyLength slot holds zero bytes from <see cref="Begin"/>, so the CheckSum is the buffer's byte sum (one pass
    /// of the vectorised <see cref="AsciiParsing.Sum"/>) plus the digits' sum: the pass never reads the digits just
    /// stored (a load spanning a recent narrower store cannot be forwarded from it and waits for it to reach the cache).
    /// </remarks>
    private static int FinishCore(Span<byte> b, int position, int bodyLengthOffset, int reservedDigits) =>
        FinishCore(b, position, bodyLengthOffset, reservedDigits, position, 0);

    /// <summary><see cref="FinishCore(Span{byte}, int, int, int)"/> when the bytes from <paramref name="summedFrom"/> to
    /// <paramref name="position"/> are already summed (<paramref name="presum"/>).</summary>
    private static int FinishCore(Span<byte> b, int position, int bodyLengthOffset, int reservedDigits, int summedFrom, uint presum)
    {
        int bodyStart = bodyLengthOffset + reservedDigits + 1;
        int bodyLength = position - bodyStart;
        int digits = AsciiParsing.CountDigits((ulong)bodyLength);
        int shift = digits - reservedDigits;
        // Fails exactly when the finished message does not fit (before, a body that was about to move left also
        // needed room for the trailer at its old end, so an exactly fitting buffer was refused).
        if (position + shift + FixFramer.TrailerLength > b.Length) return -1;
        uint sum = AsciiParsing.Sum(b.Slice(0, summedFrom)) + presum;
        if (shift != 0 || digits != 3 || !BitConverter.IsLittleEndian) return FinishMoved(b, position, bodyLengthOffset, bodyLength, digits, shift, sum);
        // 100..999 bytes, the common case: three digits and the slot's SOH as one 4-byte store.
        uint hundreds = ((uint)bodyLength * 41) >> 12;
        uint tensAndUnits = AsciiFormatting.DigitPair((uint)bodyLength - hundreds * 100);
        Unsafe.WriteUnaligned(ref Unsafe.Add(ref MemoryMarshal.GetReference(b), bodyLengthOffset), ('0' + hundreds) | (tensAndUnits << 8) | ((uint)Soh << 24));
        return WriteTrailer(b, position, sum + '0' + hundreds + (tensAndUnits & 0xFF) + (tensAndUnits >> 8));
    }

    /// <summary><see cref="FinishCore(Span{byte}, int, int, int, int, uint)"/> when BodyLength does not have the three reserved digits: moves the body first.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int FinishMoved(Span<byte> b, int position, int bodyLengthOffset, int bodyLength, int digits, int shift, uint sum)
    {
        int bodyStart = bodyLengthOffset + digits - shift + 1;
        if (shift < 0)
        {
            MoveLeft(b.Slice(bodyStart - 1, bodyLength + 1), -shift);
        }
        else if (shift > 0)
        {
            // Bodies of 1000+ bytes: one memmove, cheaper than a second formatting pass.
            b.Slice(bodyStart - 1, bodyLength + 1).CopyTo(b.Slice(bodyStart - 1 + shift));
        }
        AsciiParsing.WriteDigitsUnchecked(b, bodyLengthOffset, (ulong)bodyLength, digits);
        return WriteTrailer(b, position + shift, sum + AsciiParsing.Sum(b.Slice(bodyLengthOffset, digits)));
    }

    /// <summary>Appends <c>10=ddd|</c> for a byte sum of <paramref name="sum"/> at <paramref name="position"/>; returns the message length.</summary>
    private static int WriteTrailer(Span<byte> b, int position, uint sum)
    {
        uint checkSum = sum & 0xFF;
        uint hundreds = checkSum / 100;
        uint rest = checkSum - hundreds * 100;
        uint tens = rest / 10;
        // 1 0 = d d d SOH as one 7-byte store.
        ulong trailer = '1' | ('0' << 8) | ('=' << 16) | ((ulong)('0' + hundreds) << 24) | ((ulong)('0' + tens) << 32)
            | ((ulong)('0' + rest - tens * 10) << 40) | ((ulong)Soh << 48);
        AsciiParsing.StoreUnchecked(b, position, trailer, FixFramer.TrailerLength);
        return position + FixFramer.TrailerLength;
    }

    /// <summary>Moves <paramref name="region"/> <paramref name="distance"/> (1..2) bytes towards the start of the buffer.</summary>
    /// <remarks>
    /// Forward 16-byte chunks are safe for a move to lower addresses: the store of chunk i ends below chunk i + 1,
    /// and the last (overlapping) chunk is loaded before anything is stored.
    /// PERF: Span.CopyTo sends overlapping buffers to the native memmove through a P/Invoke transition, a visible share
    /// of FixWriterBenchmarks.EncodeHeartbeat (whose 55-byte body moves one byte left;
    /// docs/benchmarks/toolkit-codec-notes.md).
    /// </remarks>
    private static void MoveLeft(Span<byte> region, int distance)
    {
        ref byte source = ref MemoryMarshal.GetReference(region);
        ref byte destination = ref Unsafe.Subtract(ref source, distance);
        int length = region.Length;
        if (length < 16)
        {
            for (int i = 0; i < length; i++) Unsafe.Add(ref destination, i) = Unsafe.Add(ref source, i);
            return;
        }
        Vector128<byte> last = Vector128.LoadUnsafe(ref source, (nuint)(length - 16));
        for (int i = 0; i <= length - 16; i += 16)
        {
            Vector128.LoadUnsafe(ref source, (nuint)i).StoreUnsafe(ref destination, (nuint)i);
        }
        last.StoreUnsafe(ref destination, (nuint)(length - 16));
    }

    /// <summary>Like <see cref="TryFinish"/>, returning the total length, or 0 when the message did not fit.</summary>
    /// <returns>The message length or 0.</returns>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public int Finish() => TryFinish(out int length) ? length : 0;

    /// <summary>The buffer byte at <paramref name="p"/>, without a bounds check (the caller has checked the room).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private readonly ref byte At(uint p) => ref Unsafe.Add(ref MemoryMarshal.GetReference(_buffer), p);

    // General paths, for any tag and any position. They are static and return the new position (or -1 when the field
    // does not fit or the writer has failed), so the writer itself never escapes and the JIT can keep its fields in
    // registers across the inlined fast paths.
    // PERF: with `ref this` passed to an out-of-line path the writer would live in memory and every field would pay a
    // store-to-load round trip on _position (docs/benchmarks/toolkit-codec-notes.md).

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int WriteGeneral(Span<byte> b, int p, bool failed, int tag, ReadOnlySpan<byte> value)
    {
        int tagLength = TagLength(tag);
        if (failed || (uint)(p + tagLength + 2 + value.Length) > (uint)b.Length) return -1;
        WriteTag(b, p, tag, tagLength);
        p += tagLength + 1;
        value.CopyTo(b.Slice(p));
        p += value.Length;
        b[p] = Soh;
        return p + 1;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int WriteGeneral(Span<byte> b, int p, bool failed, int tag, long value)
    {
        bool negative = value < 0;
        ulong magnitude = negative ? unchecked((ulong)(-value)) : (ulong)value;
        int digits = AsciiParsing.CountDigits(magnitude);
        int width = digits + (negative ? 1 : 0);
        int tagLength = TagLength(tag);
        if (failed || (uint)(p + tagLength + 2 + width) > (uint)b.Length) return -1;
        WriteTag(b, p, tag, tagLength);
        p += tagLength + 1;
        if (negative) b[p] = (byte)'-';
        AsciiParsing.WriteDigitsUnchecked(b, p + (negative ? 1 : 0), magnitude, digits);
        int end = p + width;
        b[end] = Soh;
        return end + 1;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int WriteGeneral(Span<byte> b, int p, bool failed, int tag, FixDecimal value)
    {
        int tagLength = TagLength(tag);
        if (failed || p + tagLength + 1 > b.Length) return -1;
        Span<byte> valueSpan = b.Slice(p + tagLength + 1);
        if (!value.TryFormat(valueSpan, out int written) || written >= valueSpan.Length) return -1;
        WriteTag(b, p, tag, tagLength);
        p += tagLength + 1 + written;
        b[p] = Soh;
        return p + 1;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int WriteGeneral(Span<byte> b, int p, bool failed, int tag, char value)
    {
        int tagLength = TagLength(tag);
        if (failed || (uint)(p + tagLength + 3) > (uint)b.Length) return -1;
        WriteTag(b, p, tag, tagLength);
        p += tagLength + 1;
        b[p] = (byte)value;
        b[p + 1] = Soh;
        return p + 2;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int WriteTimestampGeneral(Span<byte> b, int p, bool failed, int tag, long epochNs, TimestampPrecision precision)
    {
        int length = FixValueFormatter.UtcTimestampLength(precision);
        int valueOffset = ReserveGeneral(b, p, failed, tag, length);
        if (valueOffset < 0) return -1;
        FixValueFormatter.TryFormatUtcTimestamp(epochNs, precision, b.Slice(valueOffset, length), out _);
        return valueOffset + length + 1;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int WriteTimestampGeneral(Span<byte> b, int p, bool failed, int tag, long epochNs, TimestampPrecision precision, UtcTimestampCache cache)
    {
        int length = FixValueFormatter.UtcTimestampLength(precision);
        int valueOffset = ReserveGeneral(b, p, failed, tag, length);
        if (valueOffset < 0) return -1;
        cache.TryFormat(epochNs, precision, b.Slice(valueOffset, length), out _);
        return valueOffset + length + 1;
    }

    /// <summary>Writes <c>tag=</c> and the SOH after a value of <paramref name="valueLength"/> bytes; returns the value offset or -1.</summary>
    private static int ReserveGeneral(Span<byte> b, int p, bool failed, int tag, int valueLength)
    {
        int tagLength = TagLength(tag);
        if (failed || (uint)(p + tagLength + 2 + valueLength) > (uint)b.Length) return -1;
        WriteTag(b, p, tag, tagLength);
        p += tagLength + 1;
        b[p + valueLength] = Soh;
        return p;
    }

    private bool TryReserveValue(int tag, int valueLength, out Span<byte> value)
    {
        int valueOffset = ReserveGeneral(_buffer, _position, _failed, tag, valueLength);
        if (!Commit(valueOffset < 0 ? -1 : valueOffset + valueLength + 1))
        {
            value = default;
            return false;
        }
        value = _buffer.Slice(valueOffset, valueLength);
        return true;
    }

    /// <summary>Takes the new position from a general path, or fails the writer when it is -1.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private bool Commit(int newPosition)
    {
        if (newPosition < 0)
        {
            _failed = true;
            _limit = 0;
            return false;
        }
        _position = newPosition;
        return true;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static int TagLength(int tag) => (uint)tag < 100 ? ((uint)tag < 10 ? 1 : 2) : (uint)tag < 10000 ? ((uint)tag < 1000 ? 3 : 4) : AsciiParsing.CountDigits((uint)tag);

    /// <summary>Writes the tag digits and '=' at <paramref name="p"/> (general path: any tag).</summary>
    private static void WriteTag(Span<byte> b, int p, int tag, int tagLength)
    {
        if ((uint)tag < FastTagLimit)
        {
            AsciiParsing.StoreUnchecked(b, p, AsciiParsing.TagPrefix((uint)tag, out int length), length);
            return;
        }
        AsciiParsing.WriteFixedDigits(b, p, (uint)tag, tagLength);
        b[p + tagLength] = (byte)'=';
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private bool Fail() => Commit(-1);
}

/// <summary>
/// Formats UTCTimestamps for a clock that mostly moves forward, caching <c>YYYYMMDD-HH:MM:SS</c> for the current
/// second: in <see cref="FixWriter"/> a SendingTime is two 8-byte stores of the cached words and one store of the
/// last seconds digit, the fraction and SOH.
/// </summary>
/// <remarks>Not thread-safe: one instance per sending thread. Allocates only in the constructor.</remarks>
public sealed class UtcTimestampCache
{
    // The 17 bytes of YYYYMMDD-HH:MM:SS as words: bytes 0..7, 8..15 and byte 16.
    private ulong _prefixHead;
    private ulong _prefixMiddle;
    private byte _prefixLast;
    private long _cachedSecond = long.MinValue;

    /// <summary>Formats <paramref name="epochNs"/> as <c>YYYYMMDD-HH:MM:SS[.f…]</c>.</summary>
    /// <param name="epochNs">Nanoseconds since the Unix epoch.</param>
    /// <param name="precision">Fraction digits (truncating).</param>
    /// <param name="destination">Output.</param>
    /// <param name="bytesWritten">Bytes written.</param>
    /// <returns>False when the destination is too small.</returns>
    public bool TryFormat(long epochNs, TimestampPrecision precision, Span<byte> destination, out int bytesWritten)
    {
        if (destination.Length < FixValueFormatter.UtcTimestampLength(precision))
        {
            bytesWritten = 0;
            return false;
        }
        bytesWritten = FormatUnchecked(epochNs, precision, destination, 0);
        return true;
    }

    /// <summary>Formats at <paramref name="offset"/> without bounds checks (the caller has checked the room); returns the length.</summary>
    internal int FormatUnchecked(long epochNs, TimestampPrecision precision, Span<byte> destination, int offset)
    {
        long second = Math.DivRem(epochNs, FixValueParser.NanosPerSecond, out long nanos);
        if (nanos < 0)
        {
            nanos += FixValueParser.NanosPerSecond;
            second--;
        }
        if (second != _cachedSecond) Refresh(second);
        AsciiParsing.StoreUnchecked(destination, offset, _prefixHead, 8);
        AsciiParsing.StoreUnchecked(destination, offset + 8, _prefixMiddle, 8);
        AsciiParsing.StoreUnchecked(destination, offset + 16, _prefixLast);
        return UtcTimestampOverlay.Size + FixValueFormatter.WriteFractionUnchecked((uint)nanos, precision, destination, offset + UtcTimestampOverlay.Size);
    }

    /// <summary>Writes the timestamp and SOH at <paramref name="destination"/> (the caller has checked the room).</summary>
    internal void WriteAndSoh(ref byte destination, long epochNs, TimestampPrecision precision)
    {
        long second;
        long nanos;
        if (epochNs >= 0)
        {
            second = (long)((ulong)epochNs / FixValueParser.NanosPerSecond);
            nanos = epochNs - second * FixValueParser.NanosPerSecond;
        }
        else
        {
            second = Math.DivRem(epochNs, FixValueParser.NanosPerSecond, out nanos);
            if (nanos < 0)
            {
                nanos += FixValueParser.NanosPerSecond;
                second--;
            }
        }
        if (second != _cachedSecond) Refresh(second);
        AsciiFormatting.WriteTimestampAndSoh(ref destination, _prefixHead, _prefixMiddle, _prefixLast, (uint)nanos, precision);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private void Refresh(long second)
    {
        Span<byte> prefix = stackalloc byte[UtcTimestampOverlay.Size];
        FixValueFormatter.TryFormatUtcTimestamp(second * FixValueParser.NanosPerSecond, TimestampPrecision.Seconds, prefix, out _);
        _prefixHead = AsciiParsing.ReadUInt64(prefix, 0);
        _prefixMiddle = AsciiParsing.ReadUInt64(prefix, 8);
        _prefixLast = prefix[16];
        _cachedSecond = second;
    }
}
