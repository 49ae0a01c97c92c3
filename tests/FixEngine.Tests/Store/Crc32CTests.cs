using System;
using FixEngine.Store;

namespace FixEngine.Tests.Store;

/// <summary>CRC-32C: the standard check values, and the three-run interleaved path against a bit-at-a-time reference for
/// every length that takes it (and the single chain below it), whole and continued across arbitrary splits.</summary>
public sealed class Crc32CTests
{
    // The definition, one bit at a time (reflected polynomial 0x82F63B78): independent of the instructions Crc32C uses.
    private static uint Reference(uint crc, ReadOnlySpan<byte> data)
    {
        foreach (byte b in data)
        {
            crc ^= b;
            for (int k = 0; k < 8; k++) crc = (crc & 1) != 0 ? (crc >> 1) ^ 0x82F63B78u : crc >> 1;
        }
        return crc;
    }

    private static byte[] RandomBytes(int length, int seed)
    {
        var bytes = new byte[length];
        new Random(seed).NextBytes(bytes);
        return bytes;
    }

    [Fact]
    public void MatchesTheStandardCheckValues()
    {
        Assert.Equal(0xE3069283u, Crc32C.Compute("123456789"u8));
        Assert.Equal(0u, Crc32C.Compute(ReadOnlySpan<byte>.Empty));
        // RFC 3720, B.4: 32 bytes of zeros, of ones, ascending and descending.
        Assert.Equal(0x8A9136AAu, Crc32C.Compute(new byte[32]));
        byte[] ones = new byte[32];
        Array.Fill(ones, (byte)0xFF);
        Assert.Equal(0x62A8AB43u, Crc32C.Compute(ones));
        byte[] ascending = new byte[32];
        byte[] descending = new byte[32];
        for (int i = 0; i < 32; i++)
        {
            ascending[i] = (byte)i;
            descending[i] = (byte)(31 - i);
        }
        Assert.Equal(0x46DD794Eu, Crc32C.Compute(ascending));
        Assert.Equal(0x113FDB5Cu, Crc32C.Compute(descending));
    }

    [Fact]
    public void EveryLengthUpToSeveralRoundsMatchesTheReference()
    {
        // 0 .. 3 * 3 * 512 + 100 bytes: the single chain, one round of three runs of every size, several rounds, tails.
        byte[] data = RandomBytes(3 * 3 * 512 + 100, 35);
        for (int length = 0; length <= data.Length; length++)
        {
            ReadOnlySpan<byte> span = data.AsSpan(0, length);
            Assert.True(~Reference(uint.MaxValue, span) == Crc32C.Compute(span), $"length {length}");
        }
    }

    [Fact]
    public void ARunningStateContinuesAcrossSplitsAndOffsets()
    {
        byte[] data = RandomBytes(5000, 7);
        var random = new Random(11);
        for (int trial = 0; trial < 2000; trial++)
        {
            int offset = random.Next(0, 64);
            int length = random.Next(0, data.Length - offset);
            int split = random.Next(0, length + 1);
            uint start = (uint)random.Next() ^ ((uint)random.Next() << 16);
            ReadOnlySpan<byte> span = data.AsSpan(offset, length);
            uint expected = Reference(start, span);
            Assert.Equal(expected, Crc32C.Update(start, span));
            Assert.Equal(expected, Crc32C.Update(Crc32C.Update(start, span.Slice(0, split)), span.Slice(split)));
        }
    }

    [Fact]
    public void ACorruptedByteInAnyRunChangesTheCrc()
    {
        byte[] data = RandomBytes(300, 3);
        uint good = Crc32C.Compute(data);
        for (int i = 0; i < data.Length; i++)
        {
            data[i] ^= 0x10;
            Assert.NotEqual(good, Crc32C.Compute(data));
            data[i] ^= 0x10;
        }
        Assert.Equal(good, Crc32C.Compute(data));
    }
}
