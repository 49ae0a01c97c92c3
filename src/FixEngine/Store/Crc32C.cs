using System;
using System.Buffers.Binary;
using System.Numerics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics;
using System.Runtime.Intrinsics.X86;

namespace FixEngine.Store;

/// <summary>CRC-32C (Castagnoli) over byte spans, used to detect torn or corrupt journal records.</summary>
/// <remarks>
/// Built on <see cref="BitOperations.Crc32C(uint, ulong)"/>, which uses the SSE4.2 / ARMv8 CRC instructions and falls
/// back to a software table elsewhere; System.IO.Hashing is not referenced. Stateless and thread-safe.
/// PERF: one CRC instruction depends on the previous one's result (3 cycles of latency, one issued per cycle), so a
/// single chain runs at a third of the instruction's throughput. Where carry-less multiplication is available (x64
/// PCLMULQDQ) a span of 96 bytes or more is cut into three equal runs of 8-byte words whose CRCs are computed side by
/// side (three independent chains) and then combined: the CRC state is linear, so the state after A, B, C is
/// shift(a, |B|+|C|) xor shift(b, |C|) xor c, where a starts from the running state, b and c from zero, and shift(s, n)
/// (the state after n zero bytes) is s times x^(8n) modulo the polynomial, one carry-less multiply by a precomputed
/// constant reduced by one CRC instruction.
/// </remarks>
internal static class Crc32C
{
    // Bytes per run at most in one round of three (longer spans take several rounds); and at least (shorter spans take
    // the single chain, where the combination's cost is not repaid).
    private const int MaxRunWords = 64;
    private const int MinRunWords = 4;

    // The reflected Castagnoli polynomial.
    private const uint Polynomial = 0x82F63B78;

    // ShiftConstants[w] = x^(64w - 33) mod P (reflected), for w = 1 .. 2 * MaxRunWords: the multiplier that shifts a state
    // by w 8-byte words (see Shift).
    private static readonly uint[] ShiftConstants = BuildShiftConstants();

    /// <summary>Continues a running (non-finalised) CRC over <paramref name="data"/>; start from <see cref="uint.MaxValue"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    public static uint Update(uint crc, ReadOnlySpan<byte> data)
    {
        if (Pclmulqdq.IsSupported && data.Length >= 3 * 8 * MinRunWords)
        {
            crc = UpdateThreeWay(crc, data, out int consumed);
            data = data.Slice(consumed);
        }
        while (data.Length >= 8)
        {
            crc = BitOperations.Crc32C(crc, BinaryPrimitives.ReadUInt64LittleEndian(data));
            data = data.Slice(8);
        }
        foreach (byte b in data) crc = BitOperations.Crc32C(crc, b);
        return crc;
    }

    // Rounds of three interleaved runs while at least 3 * MinRunWords words are left; `consumed` is the bytes they took
    // (an out count, not the span by ref: a span passed by ref would stay in memory in the caller's serial loop).
    // Internal for ReplayCompilation (compiled ahead with the file store's read path).
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    internal static uint UpdateThreeWay(uint crc, ReadOnlySpan<byte> data, out int consumed)
    {
        uint[] constants = ShiftConstants;
        int length = data.Length;
        while (data.Length >= 3 * 8 * MinRunWords)
        {
            int words = Math.Min(data.Length / 24, MaxRunWords);
            int run = words * 8;
            ref byte a = ref MemoryMarshal.GetReference(data);
            ref byte b = ref Unsafe.Add(ref a, run);
            ref byte c = ref Unsafe.Add(ref a, 2 * run);
            uint ca = crc;
            uint cb = 0;
            uint cc = 0;
            for (int at = 0; at < run; at += 8)
            {
                ca = BitOperations.Crc32C(ca, Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref a, at)));
                cb = BitOperations.Crc32C(cb, Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref b, at)));
                cc = BitOperations.Crc32C(cc, Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref c, at)));
            }
            // shift(ca, 2 runs) xor shift(cb, 1 run) xor cc; the two products reduce together (the reduction is linear).
            ulong product = CarrylessMultiply(ca, constants[2 * words]) ^ CarrylessMultiply(cb, constants[words]);
            crc = BitOperations.Crc32C(0u, product) ^ cc;
            data = data.Slice(3 * run);
        }
        consumed = length - data.Length;
        return crc;
    }

    // The 63-bit carry-less product of two 32-bit values. For reflected operands s and k it is, read as a 64-bit reflected
    // polynomial, s * k * x; a CRC instruction over it from state 0 multiplies by x^32 and reduces: s * k * x^33 mod P.
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ulong CarrylessMultiply(uint s, uint k) =>
        Pclmulqdq.CarrylessMultiply(Vector128.CreateScalarUnsafe((ulong)s), Vector128.CreateScalarUnsafe((ulong)k), 0x00).ToScalar();

    private static uint[] BuildShiftConstants()
    {
        var constants = new uint[2 * MaxRunWords + 1];
        // x^0 in the reflected form is the top bit; each step multiplies by x modulo P.
        uint power = 1u << 31;
        int exponent = 0;
        for (int w = 1; w < constants.Length; w++)
        {
            int target = 64 * w - 33;
            for (; exponent < target; exponent++) power = (power & 1) != 0 ? (power >> 1) ^ Polynomial : power >> 1;
            constants[w] = power;
        }
        return constants;
    }

    /// <summary>The finished CRC-32C of <paramref name="data"/> (initial value and final XOR of all ones).</summary>
    public static uint Compute(ReadOnlySpan<byte> data) => ~Update(uint.MaxValue, data);
}
