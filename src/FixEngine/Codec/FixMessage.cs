using System;
using System.Text;

namespace FixEngine.Codec;

/// <summary>Outcome of a typed field read.</summary>
public enum FixValueStatus : byte
{
    /// <summary>The field is present and well-formed.</summary>
    Ok,

    /// <summary>The tag is not present (in this message or group instance).</summary>
    Missing,

    /// <summary>The field is present but its value does not match the requested type (SessionRejectReason 6).</summary>
    IncorrectDataFormat,
}

/// <summary>
/// Zero-copy read view over one message (or one repeating-group instance): the frame bytes paired with a
/// <see cref="FixMessageIndex"/>.
/// </summary>
/// <remarks>
/// Valid only while the underlying buffer and index are unchanged (for an application callback: until it returns).
/// Not thread-safe (it is a stack-only view). Nothing allocates except <see cref="GetString"/>. Field indices passed
/// to <see cref="GetTag"/> and friends are relative to this view (0..<see cref="Count"/>-1); add
/// <see cref="FirstFieldIndex"/> to get the index in the whole message.
/// </remarks>
public readonly ref struct FixMessage
{
    private readonly ReadOnlySpan<byte> _buffer;
    private readonly FixMessageIndex _index;
    private readonly int _start;
    private readonly int _end;
    private readonly bool _whole;

    /// <summary>Creates a view over a whole message already parsed by <paramref name="index"/>.</summary>
    /// <param name="buffer">The bytes given to <see cref="FixMessageIndex.Parse"/>.</param>
    /// <param name="index">The index built from <paramref name="buffer"/>.</param>
    public FixMessage(ReadOnlySpan<byte> buffer, FixMessageIndex index)
    {
        _buffer = buffer;
        _index = index;
        _start = 0;
        _end = index.Count;
        _whole = true;
    }

    private FixMessage(ReadOnlySpan<byte> buffer, FixMessageIndex index, int start, int end)
    {
        _buffer = buffer;
        _index = index;
        _start = start;
        _end = end;
        _whole = false;
    }

    /// <summary>The message bytes.</summary>
    public ReadOnlySpan<byte> Buffer => _buffer;

    /// <summary>The index behind this view.</summary>
    public FixMessageIndex Index => _index;

    /// <summary>Fields in this view.</summary>
    public int Count => _end - _start;

    /// <summary>Index in the whole message of this view's first field.</summary>
    public int FirstFieldIndex => _start;

    /// <summary>Index in the whole message after this view's last field.</summary>
    public int EndFieldIndex => _end;

    /// <summary>MsgType (35) value, or empty when absent.</summary>
    public ReadOnlySpan<byte> MsgType => TryGetSpan(FixTags.MsgType, out ReadOnlySpan<byte> value) ? value : default;

    /// <summary>BeginString (8) value, or empty when absent.</summary>
    public ReadOnlySpan<byte> BeginString => TryGetSpan(FixTags.BeginString, out ReadOnlySpan<byte> value) ? value : default;

    /// <summary>True when fields 1, 2 and 3 are BeginString (8), BodyLength (9) and MsgType (35), in that order.</summary>
    public bool HasStandardPrefix =>
        _index.Count >= 3 && _index.GetTag(0) == FixTags.BeginString && _index.GetTag(1) == FixTags.BodyLength && _index.GetTag(2) == FixTags.MsgType;

    /// <summary>True when the last field is CheckSum (10).</summary>
    public bool HasCheckSumLast => _index.Count > 0 && _index.GetTag(_index.Count - 1) == FixTags.CheckSum;

    /// <summary>Byte offset of the first field after <c>35=…SOH</c> (the start of the header fields after MsgType), or -1 without a standard prefix.</summary>
    public int BodyStartAfterMsgType
    {
        get
        {
            if (!HasStandardPrefix) return -1;
            return _index.GetValueOffset(2) + _index.GetValueLength(2) + 1;
        }
    }

    /// <summary>Byte offset of the first BodyLength-counted byte (after <c>9=…SOH</c>), or -1 when field 2 is not BodyLength.</summary>
    public int BodyOffset =>
        _index.Count >= 2 && _index.GetTag(1) == FixTags.BodyLength ? _index.GetValueOffset(1) + _index.GetValueLength(1) + 1 : -1;

    /// <summary>Byte offset of the <c>10=</c> trailer field, or -1 when the last field is not CheckSum.</summary>
    public int TrailerOffset => HasCheckSumLast ? _index.GetFieldOffset(_index.Count - 1) : -1;

    /// <summary>Tag of field <paramref name="i"/> of this view.</summary>
    /// <param name="i">0..Count-1.</param>
    /// <returns>The tag.</returns>
    public int GetTag(int i) => _index.GetTag(Absolute(i));

    /// <summary>Value of field <paramref name="i"/> of this view.</summary>
    /// <param name="i">0..Count-1.</param>
    /// <returns>The value bytes (no SOH).</returns>
    public ReadOnlySpan<byte> GetValue(int i)
    {
        int a = Absolute(i);
        return _buffer.Slice(_index.GetValueOffset(a), _index.GetValueLength(a));
    }

    /// <summary>Byte offset of the value of field <paramref name="i"/> of this view.</summary>
    /// <param name="i">0..Count-1.</param>
    /// <returns>The offset in <see cref="Buffer"/>.</returns>
    public int GetValueOffset(int i) => _index.GetValueOffset(Absolute(i));

    /// <summary>Byte offset where field <paramref name="i"/> of this view starts (its tag).</summary>
    /// <param name="i">0..Count-1.</param>
    /// <returns>The offset in <see cref="Buffer"/>.</returns>
    public int GetFieldOffset(int i) => _index.GetFieldOffset(Absolute(i));

    /// <summary>Whole-message index of the first <paramref name="tag"/> in this view, or -1.</summary>
    /// <param name="tag">Tag to find.</param>
    /// <returns>Field index in the whole message, or -1.</returns>
    public int FindField(int tag) => _whole ? _index.IndexOf(tag) : _index.IndexOf(tag, _start, _end);

    /// <summary>True when <paramref name="tag"/> is present in this view.</summary>
    /// <param name="tag">Tag to find.</param>
    /// <returns>True when present.</returns>
    public bool Contains(int tag) => FindField(tag) >= 0;

    /// <summary>A view over whole-message field indices [<paramref name="start"/>, <paramref name="end"/>), for walking a range.</summary>
    /// <param name="start">First whole-message field index.</param>
    /// <param name="end">Whole-message field index after the last.</param>
    /// <returns>A sub-view; lookups in it are linear.</returns>
    public FixMessage GetRange(int start, int end)
    {
        if (start < 0 || end > _index.Count || start > end) Internal.ThrowHelper.ThrowArgumentOutOfRange(nameof(start));
        return new FixMessage(_buffer, _index, start, end);
    }

    /// <summary>Gets the raw value of the first <paramref name="tag"/>.</summary>
    /// <param name="tag">Tag to read.</param>
    /// <param name="value">Value bytes (no SOH).</param>
    /// <returns>False when absent.</returns>
    public bool TryGetSpan(int tag, out ReadOnlySpan<byte> value)
    {
        int i = FindField(tag);
        if (i < 0)
        {
            value = default;
            return false;
        }
        value = _buffer.Slice(_index.GetValueOffset(i), _index.GetValueLength(i));
        return true;
    }

    /// <summary>Value of <paramref name="tag"/> as a new string (allocates; for non-hot paths), or null when absent.</summary>
    /// <param name="tag">Tag to read.</param>
    /// <returns>The Latin-1 decoded value or null.</returns>
    public string? GetString(int tag) => TryGetSpan(tag, out ReadOnlySpan<byte> value) ? Encoding.Latin1.GetString(value) : null;

    /// <summary>Reads a FIX int.</summary>
    /// <param name="tag">Tag to read.</param>
    /// <param name="value">The value.</param>
    /// <returns>Ok, Missing or IncorrectDataFormat.</returns>
    public FixValueStatus TryGetInt(int tag, out int value)
    {
        value = 0;
        if (!TryGetSpan(tag, out ReadOnlySpan<byte> text)) return FixValueStatus.Missing;
        return FixValueParser.TryParseInt(text, out value) ? FixValueStatus.Ok : FixValueStatus.IncorrectDataFormat;
    }

    /// <summary>Reads a 64-bit FIX int (e.g. SeqNum).</summary>
    /// <param name="tag">Tag to read.</param>
    /// <param name="value">The value.</param>
    /// <returns>Ok, Missing or IncorrectDataFormat.</returns>
    public FixValueStatus TryGetLong(int tag, out long value)
    {
        value = 0;
        if (!TryGetSpan(tag, out ReadOnlySpan<byte> text)) return FixValueStatus.Missing;
        return FixValueParser.TryParseLong(text, out value) ? FixValueStatus.Ok : FixValueStatus.IncorrectDataFormat;
    }

    /// <summary>Reads a FIX float/Price/Qty/Amt exactly.</summary>
    /// <param name="tag">Tag to read.</param>
    /// <param name="value">The value.</param>
    /// <returns>Ok, Missing or IncorrectDataFormat ('+' signs, exponents, more than 18 decimals).</returns>
    public FixValueStatus TryGetDecimal(int tag, out FixDecimal value)
    {
        value = default;
        if (!TryGetSpan(tag, out ReadOnlySpan<byte> text)) return FixValueStatus.Missing;
        return FixDecimal.TryParse(text, out value) ? FixValueStatus.Ok : FixValueStatus.IncorrectDataFormat;
    }

    /// <summary>Reads a FIX char (exactly one byte).</summary>
    /// <param name="tag">Tag to read.</param>
    /// <param name="value">The value.</param>
    /// <returns>Ok, Missing or IncorrectDataFormat.</returns>
    public FixValueStatus TryGetChar(int tag, out char value)
    {
        value = '\0';
        if (!TryGetSpan(tag, out ReadOnlySpan<byte> text)) return FixValueStatus.Missing;
        return FixValueParser.TryParseChar(text, out value) ? FixValueStatus.Ok : FixValueStatus.IncorrectDataFormat;
    }

    /// <summary>Reads a FIX Boolean (Y/N).</summary>
    /// <param name="tag">Tag to read.</param>
    /// <param name="value">The value.</param>
    /// <returns>Ok, Missing or IncorrectDataFormat.</returns>
    public FixValueStatus TryGetBool(int tag, out bool value)
    {
        value = false;
        if (!TryGetSpan(tag, out ReadOnlySpan<byte> text)) return FixValueStatus.Missing;
        return FixValueParser.TryParseBool(text, out value) ? FixValueStatus.Ok : FixValueStatus.IncorrectDataFormat;
    }

    /// <summary>Reads a UTCTimestamp as nanoseconds since the Unix epoch.</summary>
    /// <param name="tag">Tag to read.</param>
    /// <param name="epochNs">The value.</param>
    /// <returns>Ok, Missing or IncorrectDataFormat.</returns>
    public FixValueStatus TryGetTimestamp(int tag, out long epochNs)
    {
        epochNs = 0;
        if (!TryGetSpan(tag, out ReadOnlySpan<byte> text)) return FixValueStatus.Missing;
        return FixValueParser.TryParseUtcTimestamp(text, out epochNs) ? FixValueStatus.Ok : FixValueStatus.IncorrectDataFormat;
    }

    /// <summary>Reads a UTCTimeOnly as nanoseconds since midnight.</summary>
    /// <param name="tag">Tag to read.</param>
    /// <param name="nanosOfDay">The value.</param>
    /// <returns>Ok, Missing or IncorrectDataFormat.</returns>
    public FixValueStatus TryGetTimeOnly(int tag, out long nanosOfDay)
    {
        nanosOfDay = 0;
        if (!TryGetSpan(tag, out ReadOnlySpan<byte> text)) return FixValueStatus.Missing;
        return FixValueParser.TryParseUtcTimeOnly(text, out nanosOfDay) ? FixValueStatus.Ok : FixValueStatus.IncorrectDataFormat;
    }

    /// <summary>Reads a UTCDateOnly or LocalMktDate (YYYYMMDD).</summary>
    /// <param name="tag">Tag to read.</param>
    /// <param name="date">The value.</param>
    /// <returns>Ok, Missing or IncorrectDataFormat.</returns>
    public FixValueStatus TryGetDate(int tag, out DateOnly date)
    {
        date = default;
        if (!TryGetSpan(tag, out ReadOnlySpan<byte> text)) return FixValueStatus.Missing;
        return FixValueParser.TryParseDate(text, out date) ? FixValueStatus.Ok : FixValueStatus.IncorrectDataFormat;
    }

    /// <summary>Reads a MonthYear (YYYYMM, YYYYMMDD or YYYYMMwN).</summary>
    /// <param name="tag">Tag to read.</param>
    /// <param name="value">The value.</param>
    /// <returns>Ok, Missing or IncorrectDataFormat.</returns>
    public FixValueStatus TryGetMonthYear(int tag, out FixMonthYear value)
    {
        value = default;
        if (!TryGetSpan(tag, out ReadOnlySpan<byte> text)) return FixValueStatus.Missing;
        return FixValueParser.TryParseMonthYear(text, out value) ? FixValueStatus.Ok : FixValueStatus.IncorrectDataFormat;
    }

    /// <summary>Finds a repeating group in this view and prepares to iterate its instances.</summary>
    /// <param name="definition">Count tag, delimiter and members of the group.</param>
    /// <returns>The group; check <see cref="FixGroup.Status"/>.</returns>
    public FixGroup GetGroup(FixGroupDefinition definition)
    {
        int countIndex = FindField(definition.CountTag);
        if (countIndex < 0) return new FixGroup(_buffer, _index, definition, FixGroupStatus.Missing, -1, 0, 0, -1);
        if (!FixValueParser.TryParseInt(_buffer.Slice(_index.GetValueOffset(countIndex), _index.GetValueLength(countIndex)), out int declared) || declared < 0)
        {
            return new FixGroup(_buffer, _index, definition, FixGroupStatus.IncorrectDataFormat, countIndex, 0, 0, countIndex + 1);
        }
        int limit = _end;
        int j = countIndex + 1;
        int instances = 0;
        while (j < limit && _index.GetTag(j) == definition.DelimiterTag)
        {
            j = FixGroup.ScanInstanceEnd(_index, definition, j, limit);
            instances++;
        }
        FixGroupStatus status = instances == declared ? FixGroupStatus.Ok : FixGroupStatus.CountMismatch;
        return new FixGroup(_buffer, _index, definition, status, countIndex, declared, instances, j);
    }

    /// <summary>The fields of this view as readable text: <c>tag=value</c>, each followed by <c>|</c> in place of SOH,
    /// e.g. <c>8=FIX.4.4|9=65|35=D|...|10=123|</c>. For log lines and debugging.</summary>
    /// <returns>A new string (allocates: keep it off the message path).</returns>
    /// <remarks>Every byte is shown as the Latin-1 character of the same code, so binary DATA fields stay one character
    /// per byte.</remarks>
    public override string ToString()
    {
        var sb = new StringBuilder(_buffer.Length + 8);
        for (int i = 0; i < Count; i++)
        {
            sb.Append(GetTag(i)).Append('=');
            foreach (byte b in GetValue(i)) sb.Append(b == 0x01 ? '|' : (char)b);
            sb.Append('|');
        }
        return sb.ToString();
    }

    /// <summary>An owned copy of the whole message this view belongs to (its own bytes and index), which the caller may
    /// keep after the callback returns and read from any one thread at a time.</summary>
    /// <returns>A new <see cref="OwnedFixMessage"/> (allocates two arrays and an index: keep it off the message path).</returns>
    public OwnedFixMessage ToOwned() => new(_buffer);

    private int Absolute(int i)
    {
        if ((uint)i >= (uint)(_end - _start)) Internal.ThrowHelper.ThrowArgumentOutOfRange(nameof(i));
        return _start + i;
    }

    internal static FixMessage CreateRange(ReadOnlySpan<byte> buffer, FixMessageIndex index, int start, int end) =>
        new(buffer, index, start, end);
}

/// <summary>A FIX message copied out of a callback: it owns its bytes and index, so it stays valid as long as the caller
/// keeps it (a <see cref="FixMessage"/> given to a callback is valid only during the call).</summary>
/// <remarks>Made by <see cref="FixMessage.ToOwned"/> or from bytes. Immutable after construction; <see cref="Message"/>
/// views share one index, so read it from one thread at a time (or make one copy per thread).</remarks>
public sealed class OwnedFixMessage
{
    private readonly byte[] _bytes;
    private readonly FixMessageIndex _index = new();

    /// <summary>Copies <paramref name="message"/> (a whole message, 8=... to 10=...) and indexes the copy.</summary>
    /// <param name="message">The message bytes; copied.</param>
    public OwnedFixMessage(ReadOnlySpan<byte> message)
    {
        _bytes = message.ToArray();
        _index.Parse(_bytes);
    }

    /// <summary>The copied bytes.</summary>
    public ReadOnlyMemory<byte> Bytes => _bytes;

    /// <summary>A read view over the copy, with every <see cref="FixMessage"/> accessor.</summary>
    public FixMessage Message => new(_bytes, _index);

    /// <summary>MsgType(35) as a string.</summary>
    public string MsgType => Encoding.ASCII.GetString(Message.MsgType);

    /// <summary>The message as readable text, SOH shown as <c>|</c> (see <see cref="FixMessage.ToString"/>).</summary>
    /// <returns>A new string.</returns>
    public override string ToString() => Message.ToString();
}
