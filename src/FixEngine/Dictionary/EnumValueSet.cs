using System;
using System.Collections.Generic;

namespace FixEngine.Dictionary;

/// <summary>The enum values of one field, for an allocation-free membership test on a value span.</summary>
/// <remarks>
/// Values of up to 7 bytes are packed into sorted <see cref="ulong"/> keys and binary-searched; longer values
/// (rare: some FIX 5.0 string enums) are compared byte by byte.
/// </remarks>
internal sealed class EnumValueSet
{
    private readonly ulong[] _shortKeys;
    private readonly byte[][] _longValues;

    public EnumValueSet(IEnumerable<string> values)
    {
        var shortKeys = new List<ulong>();
        var longValues = new List<byte[]>();
        foreach (string v in values)
        {
            byte[] bytes = System.Text.Encoding.ASCII.GetBytes(v);
            if (ShortKey.TryPack(bytes, out ulong key))
            {
                shortKeys.Add(key);
            }
            else
            {
                longValues.Add(bytes);
            }
        }
        shortKeys.Sort();
        _shortKeys = shortKeys.ToArray();
        _longValues = longValues.ToArray();
    }

    public bool Contains(ReadOnlySpan<byte> value)
    {
        if (ShortKey.TryPack(value, out ulong key))
        {
            return _shortKeys.AsSpan().BinarySearch(key) >= 0;
        }
        foreach (byte[] candidate in _longValues)
        {
            if (value.SequenceEqual(candidate)) return true;
        }
        return false;
    }
}
