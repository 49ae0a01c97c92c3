using System;
using System.Collections.Frozen;
using System.Collections.Generic;
using System.Runtime.CompilerServices;

namespace FixEngine.Dictionary;

/// <summary>Immutable set of tags: a bitmap for tags below <see cref="DenseLimit"/>, a frozen hash set above.</summary>
/// <remarks>Membership is O(1) and allocation-free. The bitmap is sized to the largest dense member, so small sets stay small.</remarks>
internal sealed class TagSet
{
    public const int DenseLimit = 1 << 16;

    public static readonly TagSet Empty = new([]);

    private readonly ulong[] _bits;
    private readonly FrozenSet<int>? _sparse;

    public TagSet(IEnumerable<int> tags)
    {
        int max = -1;
        List<int>? sparse = null;
        foreach (int t in tags)
        {
            if ((uint)t < DenseLimit)
            {
                if (t > max) max = t;
            }
            else
            {
                (sparse ??= []).Add(t);
            }
        }
        _bits = new ulong[(max >> 6) + 1];
        foreach (int t in tags)
        {
            if ((uint)t < DenseLimit) _bits[t >> 6] |= 1UL << (t & 63);
        }
        _sparse = sparse?.ToFrozenSet();
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool Contains(int tag)
    {
        uint word = (uint)tag >> 6;
        if (word < (uint)_bits.Length) return (_bits[word] & (1UL << (tag & 63))) != 0;
        return _sparse is not null && _sparse.Contains(tag);
    }
}
