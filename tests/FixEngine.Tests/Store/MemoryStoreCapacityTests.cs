using System;
using System.Collections.Generic;
using FixEngine.Config;
using FixEngine.Store;
using FixEngine.Tests.Infrastructure;

namespace FixEngine.Tests.Store;

/// <summary>The memory store's preallocated capacity: appends within it allocate nothing from the first message on;
/// growth beyond it keeps every message.</summary>
[Collection(nameof(AllocationMeasurement))]
public sealed class MemoryStoreCapacityTests
{
    private const int ChunkSizeInBytes = 64 * 1024;
    private const int MessageLength = 200;
    private const int Capacity = 5_000;
    private const int WarmUp = 100;

    private static MemoryMessageStore CreateSized() =>
        new(1, ChunkSizeInBytes, initialIndexCapacity: Capacity, initialCapacityInBytes: (long)Capacity * MessageLength);

    private static long Append(MemoryMessageStore store, int firstSeqNum, int lastSeqNum, byte[] message)
    {
        long before = GC.GetAllocatedBytesForCurrentThread();
        for (int seq = firstSeqNum; seq <= lastSeqNum; seq++) store.AppendAndIncrement(seq, message);
        return GC.GetAllocatedBytesForCurrentThread() - before;
    }

    [Fact]
    public void FirstFillWithinCapacityAllocatesNothingAfterWarmUp()
    {
        using MemoryMessageStore store = CreateSized();
        byte[] message = StoreTestData.Message(1, MessageLength);
        Append(store, 1, WarmUp, message);

        // 4,900 appends fill 15 of the 16 preallocated 64 KiB chunks and 98% of the index: without preallocation this
        // rents ~15 chunks and doubles the index several times. One window only: a second store's fill could take the
        // first one's returned chunks from the pool without allocating, which would hide a preallocation that stopped
        // working.
        long allocated = Append(store, WarmUp + 1, Capacity, message);

        Assert.Equal(0, allocated);
        Assert.Equal(Capacity, store.MessageCount);
        Assert.Equal(Capacity + 1, store.NextSenderMsgSeqNum);
    }

    [Fact]
    public void ResetKeepsThePreallocatedCapacity()
    {
        using MemoryMessageStore store = CreateSized();
        byte[] message = StoreTestData.Message(1, MessageLength);
        Append(store, 1, Capacity, message);
        long best = Allocations.BestWindow(prepare: () => store.Reset(2), window: () =>
        {
            for (int seq = 1; seq <= Capacity; seq++) store.AppendAndIncrement(seq, message);
        });

        Assert.Equal(0, best);
        Assert.Equal(Capacity, store.MessageCount);
    }

    [Fact]
    public void GrowthBeyondCapacityKeepsEveryMessage()
    {
        // One 4 KiB chunk and 16 index entries preallocated; 3,000 messages of 20..419 bytes, one larger than a chunk.
        using var store = new MemoryMessageStore(1, chunkSizeInBytes: 4096, initialIndexCapacity: 16, initialCapacityInBytes: 4096);
        var expected = new List<byte[]>();
        for (int round = 0; round < 2; round++)
        {
            expected.Clear();
            for (int seq = 1; seq <= 3_000; seq++)
            {
                byte[] message = StoreTestData.Message(seq, seq == 1_500 ? 10_000 : 20 + seq % 400);
                expected.Add(message);
                store.AppendAndIncrement(seq, message);
            }

            List<(int SeqNum, byte[] Bytes)> stored = StoreTestData.ReadAll(store);

            Assert.Equal(3_000, store.MessageCount);
            Assert.Equal(3_000, stored.Count);
            for (int i = 0; i < stored.Count; i++)
            {
                Assert.Equal(i + 1, stored[i].SeqNum);
                Assert.Equal(expected[i], stored[i].Bytes);
            }
            store.Reset(2 + round);
        }
    }

    [Fact]
    public void CapacityInBytesMustNotBeNegative()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => new MemoryMessageStore(1, initialCapacityInBytes: -1));
    }

    [Fact]
    public void SettingsCarryTheCapacity()
    {
        const string Session = """
            [DEFAULT]
            ConnectionType=acceptor
            SocketAcceptPort=5001
            StartTime=00:00:00
            EndTime=00:00:00
            SenderCompID=ISLD
            [SESSION]
            BeginString=FIX.4.2
            TargetCompID=TW
            """;
        Assert.Equal(0, Assert.Single(SettingsFile.Parse(Session)).MemoryStoreCapacityBytes);
        Assert.Equal(300_000_000, Assert.Single(SettingsFile.Parse(Session + "\nMemoryStoreCapacityBytes=300000000")).MemoryStoreCapacityBytes);
        ConfigException e = Assert.Throws<ConfigException>(() => SettingsFile.Parse(Session + "\nMemoryStoreCapacityBytes=-1", "venue.cfg"));
        Assert.Equal("MemoryStoreCapacityBytes", e.Key);
    }
}
