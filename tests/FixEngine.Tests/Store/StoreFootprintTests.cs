using System;
using System.Collections.Generic;
using FixEngine.Store;
using FixEngine.Tests.Infrastructure;

namespace FixEngine.Tests.Store;

/// <summary>A store holds memory in proportion to what it stores: a fresh one reserves a few KB, not megabytes, and
/// growth from a warm pool allocates nothing.</summary>
[Collection(nameof(AllocationMeasurement))]
public sealed class StoreFootprintTests : IDisposable
{
    private const int Stores = 1_000;
    private readonly TempDirectory _directory = new();

    public void Dispose() => _directory.Dispose();

    [Fact]
    public void AThousandFreshMemoryStoresReserveAFewKilobytesEach()
    {
        var stores = new List<MemoryMessageStore>(Stores);
        long before = GC.GetAllocatedBytesForCurrentThread();
        for (int i = 0; i < Stores; i++) stores.Add(new MemoryMessageStore(1));
        long perStore = (GC.GetAllocatedBytesForCurrentThread() - before) / Stores;
        try
        {
            // Before: a 1 MiB arena chunk and a 65,536-entry index (1 MiB) per store.
            Assert.InRange(perStore, 1, 1024);
            foreach (MemoryMessageStore store in stores) Assert.Equal(0, store.RetainedBytes);
            // One message rents a 4 KiB chunk and a 16-entry index, not a megabyte.
            stores[0].AppendAndIncrement(1, StoreTestData.Message(1, 200));
            Assert.InRange(stores[0].RetainedBytes, 1, 8 * 1024);
        }
        finally
        {
            foreach (MemoryMessageStore store in stores) store.Dispose();
        }
    }

    [Fact]
    public void AThousandFreshFileStoresReserveAFewKilobytesEach()
    {
        var options = new FileMessageStoreOptions { SyncPolicy = FileStoreSyncPolicy.OS, IndexCheckpoint = true };
        var stores = new List<FileMessageStore>(Stores);
        try
        {
            long before = GC.GetAllocatedBytesForCurrentThread();
            for (int i = 0; i < Stores; i++) stores.Add(new FileMessageStore(_directory.Path, "S" + i, 1, options));
            long perStore = (GC.GetAllocatedBytesForCurrentThread() - before) / Stores;
            // Before: a 65,536-entry index (1 MiB) and a 64 KiB read window per store. Now: the 4 KiB write buffer and
            // the objects, paths and handles of the journal and its checkpoint.
            Assert.InRange(perStore, 1, 12 * 1024);
            foreach (FileMessageStore store in stores) Assert.Equal(0, store.IndexRetainedBytes);
            for (int seq = 1; seq <= 10; seq++) stores[0].AppendAndIncrement(seq, StoreTestData.Message(seq, 200));
            Assert.Equal(JournalIndex.SegmentSize * 3, stores[0].IndexRetainedBytes);
        }
        finally
        {
            foreach (FileMessageStore store in stores) store.Dispose();
        }
    }

    [Fact]
    public void MemoryStoreGrowthFromAWarmPoolAllocatesNothing()
    {
        // No reservation: every period grows the arena (4 KiB doubling to 64 KiB chunks) and the index from the pool.
        using var store = new MemoryMessageStore(1, chunkSizeInBytes: 64 * 1024);
        byte[] message = StoreTestData.Message(1, 200);
        long best = Allocations.BestWindow(prepare: () => store.Reset(2), window: () =>
        {
            for (int seq = 1; seq <= 5_000; seq++) store.AppendAndIncrement(seq, message);
        });
        Assert.Equal(0, best);
        Assert.Equal(5_000, store.MessageCount);
        Assert.InRange(store.RetainedBytes, 5_000 * 200, 5_000 * 200 * 2 + 5_000 * 16 * 2);
        store.Reset(3);
        Assert.Equal(0, store.RetainedBytes);
    }

    [Fact]
    public void FileStoreGrowthFromAWarmPoolAllocatesNothing()
    {
        using var store = new FileMessageStore(_directory.Path, "growth", 1, new FileMessageStoreOptions { SyncPolicy = FileStoreSyncPolicy.OS, IndexCheckpoint = true });
        byte[] message = StoreTestData.Message(1, 200);
        // 5,000 messages: five index segments and five checkpoint blocks per period, all rented from (and returned to)
        // the pool; the first window warms it.
        long best = Allocations.BestWindow(prepare: () => store.Reset(2), window: () =>
        {
            for (int seq = 1; seq <= 5_000; seq++) store.AppendAndIncrement(seq, message);
        });
        Assert.Equal(0, best);
        Assert.Equal(5 * JournalIndex.SegmentSize * 3, store.IndexRetainedBytes);
        store.Reset(3);
        Assert.Equal(0, store.IndexRetainedBytes);
    }
}
