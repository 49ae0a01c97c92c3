using System;
using System.Buffers.Binary;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Threading;
using FixEngine.Collections;
using FixEngine.Tests.Infrastructure;

namespace FixEngine.Tests.Collections;

public class SpscByteRingTests
{
    [Fact]
    public void RejectsBadCapacity()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => new SpscByteRing(32));
        Assert.Throws<ArgumentOutOfRangeException>(() => new SpscByteRing(100));
    }

    [Fact]
    public void TooLargeClaimFailsWithClearStatus()
    {
        var ring = new SpscByteRing(256);
        Assert.Equal(256 / 2 - SpscByteRing.HeaderLength, ring.MaxRecordLength);
        Assert.Equal(ByteRingClaimStatus.TooLarge, ring.Claim(ring.MaxRecordLength + 1, out _));
        Assert.Equal(ByteRingClaimStatus.TooLarge, ring.Claim(-1, out _));
        Assert.False(ring.TryClaim(ring.MaxRecordLength + 1, out _));
        Assert.Equal(ByteRingClaimStatus.Claimed, ring.Claim(ring.MaxRecordLength, out Span<byte> span));
        Assert.Equal(ring.MaxRecordLength, span.Length);
        ring.Commit();
    }

    [Fact]
    public void EmptyRingReadsNothing()
    {
        var ring = new SpscByteRing(64);
        Assert.False(ring.TryRead(out ReadOnlySpan<byte> record));
        Assert.True(record.IsEmpty);
    }

    [Fact]
    public void FullRingReportsFullThenAcceptsAfterRelease()
    {
        var ring = new SpscByteRing(64);
        // 64 bytes = four records of 16 (8 header + 8 payload).
        for (int i = 0; i < 4; i++) Write(ring, (byte)i, 8);
        Assert.Equal(64, ring.UsedBytes);
        Assert.Equal(ByteRingClaimStatus.Full, ring.Claim(1, out _));
        Assert.True(ring.TryRead(out ReadOnlySpan<byte> record));
        Assert.Equal(0, record[0]);
        ring.Release();
        Write(ring, 4, 8);
        for (byte expected = 1; expected <= 4; expected++)
        {
            Assert.True(ring.TryRead(out record));
            Assert.Equal(8, record.Length);
            Assert.Equal(expected, record[7]);
            ring.Release();
        }
        Assert.False(ring.TryRead(out _));
    }

    [Fact]
    public void RecordThatWouldCrossTheEndWrapsBehindPadding()
    {
        var ring = new SpscByteRing(128);
        Write(ring, 1, 48);       // [0,56)
        Write(ring, 2, 40);       // [56,104)
        ReadAndCheck(ring, 1, 48);
        ReadAndCheck(ring, 2, 40);
        // 24 bytes to the end; a 24-byte payload needs 32: padding [104,128), record [0,32).
        Write(ring, 3, 24);
        Assert.Equal(24 + 32, ring.UsedBytes);
        ReadAndCheck(ring, 3, 24);
        Assert.Equal(0, ring.UsedBytes);
    }

    [Fact]
    public void WrapPaddingCountsTowardsFullness()
    {
        var ring = new SpscByteRing(128);
        Write(ring, 1, 48);       // [0,56)
        Write(ring, 2, 40);       // [56,104)
        ReadAndCheck(ring, 1, 48);
        // Tail at 104, 24 to the end; a 48-byte payload (56) needs 24 padding + 56 = 80 of the 80 free.
        Write(ring, 3, 48);
        Assert.Equal(128, ring.UsedBytes);
        Assert.Equal(ByteRingClaimStatus.Full, ring.Claim(0, out _));
        ReadAndCheck(ring, 2, 40);
        ReadAndCheck(ring, 3, 48);
        Assert.Equal(0, ring.UsedBytes);
    }

    [Fact]
    public void CommitCanShortenTheRecord()
    {
        var ring = new SpscByteRing(128);
        Assert.True(ring.TryClaim(40, out Span<byte> span));
        span[..5].Fill(7);
        ring.Commit(5);
        Assert.Equal(SpscByteRing.RecordSize(5), ring.UsedBytes);
        ReadAndCheck(ring, 7, 5);
        Assert.Throws<InvalidOperationException>(() => ring.Commit());
    }

    [Fact]
    public void ClaimWithoutCommitAndReadWithoutReleaseAreCaught()
    {
        var ring = new SpscByteRing(128);
        Assert.True(ring.TryClaim(4, out _));
        Assert.Throws<InvalidOperationException>(() => ring.TryClaim(4, out _));
        ring.Commit();
        Assert.True(ring.TryRead(out _));
        Assert.Throws<InvalidOperationException>(() => ring.TryRead(out _));
        ring.Release();
        Assert.Throws<InvalidOperationException>(() => ring.Release());
    }

    [Fact]
    public void UnreadGivesTheSameRecordBackWithoutFreeingItsSpace()
    {
        var ring = new SpscByteRing(128);
        Assert.Throws<InvalidOperationException>(() => ring.Unread());
        Assert.True(ring.TryClaim(4, out Span<byte> first));
        first.Fill(1);
        ring.Commit();
        Assert.True(ring.TryClaim(4, out Span<byte> second));
        second.Fill(2);
        ring.Commit();
        int used = ring.UsedBytes;
        Assert.True(ring.TryRead(out ReadOnlySpan<byte> record));
        Assert.Equal(1, record[0]);
        ring.Unread();
        Assert.Equal(used, ring.UsedBytes);
        Assert.Throws<InvalidOperationException>(() => ring.Release());
        Assert.True(ring.TryRead(out record));
        Assert.Equal(1, record[0]);
        ring.Release();
        Assert.True(ring.TryRead(out record));
        Assert.Equal(2, record[0]);
        ring.Release();
        Assert.False(ring.TryRead(out _));
    }

    [Fact]
    public void VaryingLengthsAcrossManyWrapsArriveIntactAndInOrder()
    {
        var ring = new SpscByteRing(256);
        var rng = new Random(42);
        int written = 0, read = 0;
        var handler = new CheckHandler();
        for (int round = 0; round < 20_000; round++)
        {
            int length = rng.Next(0, ring.MaxRecordLength + 1);
            if (ring.TryClaim(length, out Span<byte> span))
            {
                Fill(span, written++);
                ring.Commit();
            }
            if (rng.Next(3) == 0)
            {
                handler.Next = read;
                read += ring.Read(ref handler, rng.Next(1, 4));
                Assert.Equal(0, handler.Errors);
            }
        }
        handler.Next = read;
        read += ring.Read(ref handler, int.MaxValue);
        Assert.Equal(0, handler.Errors);
        Assert.Equal(written, read);
        Assert.True(written > 5_000);
    }

    [Fact]
    public void FixedSizeClaimWritesInPlaceWrapsAndReportsFull()
    {
        var ring = new SpscByteRing(128);
        // A 24-byte record occupies 32 bytes: four fit, the fifth finds the ring full.
        for (long i = 0; i < 4; i++)
        {
            ref Fixed24 slot = ref ring.ClaimRefOrNullRef<Fixed24>();
            Assert.False(Unsafe.IsNullRef(ref slot));
            slot = new Fixed24 { A = i, B = i * 10, C = -i };
            ring.Commit();
        }
        Assert.Equal(128, ring.UsedBytes);
        Assert.True(Unsafe.IsNullRef(ref ring.ClaimRefOrNullRef<Fixed24>()));
        ReadFixed(ring, 0);
        ReadFixed(ring, 1);
        ReadFixed(ring, 2);
        // Tail at 128 = offset 0 again; head at 96. One record fits in [0,32).
        ref Fixed24 wrapped = ref ring.ClaimRefOrNullRef<Fixed24>();
        Assert.False(Unsafe.IsNullRef(ref wrapped));
        wrapped = new Fixed24 { A = 4, B = 40, C = -4 };
        ring.Commit();
        ReadFixed(ring, 3);
        ReadFixed(ring, 4);

        // A 48-byte record (56 aligned) at offset 32 fits before the end; the next one needs wrap padding.
        var odd = new SpscByteRing(128);
        Assert.True(odd.TryClaim(20, out _)); // record [0,32)
        odd.Commit();
        Assert.True(odd.TryRead(out _));
        odd.Release();
        ref Fixed48 first = ref odd.ClaimRefOrNullRef<Fixed48>(); // [32,88)
        first.A = 1;
        odd.Commit();
        // Padding [88,128) + record [0,56) = 96 bytes: does not fit while [32,88) is unread.
        Assert.True(Unsafe.IsNullRef(ref odd.ClaimRefOrNullRef<Fixed48>()));
        Assert.True(odd.TryRead(out ReadOnlySpan<byte> r1));
        Assert.Equal(1, MemoryMarshal.Read<Fixed48>(r1).A);
        odd.Release();
        ref Fixed48 second = ref odd.ClaimRefOrNullRef<Fixed48>();
        Assert.False(Unsafe.IsNullRef(ref second));
        second.A = 2;
        odd.Commit();
        Assert.Equal(40 + 56, odd.UsedBytes);
        Assert.True(odd.TryRead(out ReadOnlySpan<byte> r2));
        Assert.Equal(48, r2.Length);
        Assert.Equal(2, MemoryMarshal.Read<Fixed48>(r2).A);
        odd.Release();
        Assert.Equal(0, odd.UsedBytes);
    }

    [Fact]
    public void FixedSizeClaimIsCheckedLikeAClaim()
    {
        var ring = new SpscByteRing(64); // MaxRecordLength 24
        Assert.False(Unsafe.IsNullRef(ref ring.ClaimRefOrNullRef<Fixed24>()));
        Assert.Throws<InvalidOperationException>(() => ring.ClaimRefOrNullRef<Fixed24>());
        ring.Commit();
        Assert.Throws<ArgumentOutOfRangeException>(() => ring.ClaimRefOrNullRef<Fixed48>());
    }

    [Fact]
    public void DiscardAllReleasesEverythingPublished()
    {
        var ring = new SpscByteRing(128);
        Write(ring, 1, 8);
        Write(ring, 2, 40);
        Assert.True(ring.TryClaim(8, out _)); // claimed, not published: not discarded
        Assert.Equal(16 + 48, ring.DiscardAll());
        Assert.False(ring.TryRead(out _));
        ring.Commit();
        Assert.Equal(16, ring.UsedBytes);
        ReadAndCheck(ring, 0, 8);
        Assert.Equal(0, ring.DiscardAll());
        Write(ring, 3, 8);
        Assert.True(ring.TryRead(out _));
        Assert.Throws<InvalidOperationException>(() => ring.DiscardAll());
    }

    private static void ReadFixed(SpscByteRing ring, long i)
    {
        Assert.True(ring.TryRead(out ReadOnlySpan<byte> record));
        Assert.Equal(Unsafe.SizeOf<Fixed24>(), record.Length);
        Fixed24 value = MemoryMarshal.Read<Fixed24>(record);
        Assert.Equal((i, i * 10, -i), (value.A, value.B, value.C));
        ring.Release();
    }

    private struct Fixed24
    {
        public long A;
        public long B;
        public long C;
    }

    private struct Fixed48
    {
        public long A;
        public long B;
        public long C;
        public long D;
        public long E;
        public long F;
    }

    [Fact]
    public void ClaimCommitAndReadAllocateNothing()
    {
        var ring = new SpscByteRing(1024);
        var handler = new CheckHandler();
        int seq = 0;
        long bytes = Allocations.Measure(() =>
        {
            if (ring.TryClaim(20, out Span<byte> span))
            {
                Fill(span, seq++);
                ring.Commit();
            }
            if (ring.TryRead(out _)) ring.Release();
            ring.Read(ref handler, 4);
        });
        Assert.Equal(0, bytes);
    }

    [Fact]
    public void TwoMillionVariableRecordsCrossThreadsCompleteAndInOrder()
    {
        // Two million records of 4-63 bytes wrap the 64 KiB ring about 1,000 times. The join limit detects a hang; it is
        // not a speed limit (beside a CPU hog on both cores each full or empty turn costs a waiting thread a slice).
        const int Total = 2_000_000;
        var ring = new SpscByteRing(1 << 16);
        int received = 0;
        long errors = 0;
        var consumer = new Thread(() =>
        {
            var spin = new SpinWait();
            var handler = new CheckHandler();
            while (handler.Next < Total)
            {
                int n = ring.Read(ref handler, 256);
                if (n == 0) spin.SpinOnce(sleep1Threshold: -1); else spin.Reset();
            }
            received = handler.Next;
            errors = handler.Errors;
        }) { IsBackground = true, Name = "bytering-consumer" };
        var producer = new Thread(() =>
        {
            var spin = new SpinWait();
            for (int i = 0; i < Total; i++)
            {
                int length = 4 + (int)((uint)(i * 2654435761u) % 60); // 4..63 bytes, varying
                Span<byte> span;
                while (!ring.TryClaim(length, out span)) spin.SpinOnce(sleep1Threshold: -1);
                Fill(span, i);
                ring.Commit();
            }
        }) { IsBackground = true, Name = "bytering-producer" };
        consumer.Start();
        producer.Start();
        Assert.True(producer.Join(TimeSpan.FromMinutes(5)), "producer did not finish within 5 minutes (hung)");
        Assert.True(consumer.Join(TimeSpan.FromMinutes(5)), "consumer did not finish within 5 minutes (hung)");
        Assert.Equal(0, errors);
        Assert.Equal(Total, received);
    }

    // Record content: 4-byte sequence number (if room) then bytes derived from it.
    private static void Fill(Span<byte> span, int seq)
    {
        if (span.Length >= 4) BinaryPrimitives.WriteInt32LittleEndian(span, seq);
        for (int i = 4; i < span.Length; i++) span[i] = (byte)(seq + i);
    }

    private struct CheckHandler : IByteRecordHandler
    {
        public int Next;
        public long Errors;

        public void OnRecord(ReadOnlySpan<byte> record)
        {
            if (record.Length >= 4 && BinaryPrimitives.ReadInt32LittleEndian(record) != Next) Errors++;
            for (int i = 4; i < record.Length; i++)
            {
                if (record[i] != (byte)(Next + i)) { Errors++; break; }
            }
            Next++;
        }
    }

    private static void Write(SpscByteRing ring, byte value, int length)
    {
        Assert.Equal(ByteRingClaimStatus.Claimed, ring.Claim(length, out Span<byte> span));
        span.Fill(value);
        ring.Commit();
    }

    private static void ReadAndCheck(SpscByteRing ring, byte value, int length)
    {
        Assert.True(ring.TryRead(out ReadOnlySpan<byte> record));
        Assert.Equal(length, record.Length);
        foreach (byte b in record) Assert.Equal(value, b);
        ring.Release();
    }
}
