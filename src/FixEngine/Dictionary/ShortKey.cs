using System;
using System.Runtime.CompilerServices;

namespace FixEngine.Dictionary;

/// <summary>Packs a value of up to 7 bytes into a <see cref="ulong"/> key: bytes little-endian, length in the top byte.</summary>
/// <remarks>Two different byte strings of at most 7 bytes always give different keys, so equality of keys is equality of values.</remarks>
internal static class ShortKey
{
    public const int MaxLength = 7;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static bool TryPack(ReadOnlySpan<byte> value, out ulong key)
    {
        if ((uint)value.Length > MaxLength)
        {
            key = 0;
            return false;
        }
        ulong k = (ulong)value.Length << 56;
        for (int i = 0; i < value.Length; i++)
        {
            k |= (ulong)value[i] << (8 * i);
        }
        key = k;
        return true;
    }
}
