using System;
using System.Buffers.Binary;
using System.Numerics;
using System.Runtime.CompilerServices;

namespace FixEngine.Store;

/// <summary>CRC-32C (Castagnoli) over byte spans, used to detect torn or corrupt journal records.</summary>
/// <remarks>
/// Built on <see cref="BitOperations.Crc32C(uint, ulong)"/>, which uses the SSE4.2 / ARMv8 CRC instructions and falls
/// back to a software table elsewhere; System.IO.Hashing is not referenced. Stateless and thread-safe.
/// </remarks>
internal static class Crc32C
{
    /// <summary>Continues a running (non-finalised) CRC over <paramref name="data"/>; start from <see cref="uint.MaxValue"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    public static uint Update(uint crc, ReadOnlySpan<byte> data)
    {
        while (data.Length >= 8)
        {
            crc = BitOperations.Crc32C(crc, BinaryPrimitives.ReadUInt64LittleEndian(data));
            data = data.Slice(8);
        }
        foreach (byte b in data) crc = BitOperations.Crc32C(crc, b);
        return crc;
    }

    /// <summary>The finished CRC-32C of <paramref name="data"/> (initial value and final XOR of all ones).</summary>
    public static uint Compute(ReadOnlySpan<byte> data) => ~Update(uint.MaxValue, data);
}
