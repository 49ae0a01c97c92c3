using System;
using FixEngine.Store;
using FixEngine.Tests.Infrastructure;

namespace FixEngine.Tests.Store;

/// <summary>Steady-state store paths allocate nothing.</summary>
[Collection(nameof(AllocationMeasurement))]
public sealed class StoreAllocationTests : IDisposable
{
    private const int Count = 10_000;
    private readonly TempDirectory _directory = new();
    private readonly byte[] _message = StoreTestData.Message(1, 200);

    public void Dispose() => _directory.Dispose();

    // Each measurement is the best of three windows (Allocations.BestWindow): an allocation per append or per read
    // repeats in every window; a one-off runtime allocation on this thread does not.
    private long AppendLoop(IMessageStore store) => Allocations.BestWindow(prepare: () => store.Reset(2), window: () =>
    {
        for (int seq = 1; seq <= Count; seq++)
        {
            store.Append(seq, _message);
            store.IncrNextSenderMsgSeqNum();
        }
    });

    private static long ReadLoop(IMessageStore store)
    {
        var handler = new SummingHandler();
        // Warm-up reads from the middle, as the measured reads do: a range that starts at the first message never reaches
        // the index's binary search, whose first call builds the runtime's comparer for int (24 B, once per process).
        store.ReadRange(500, 599, ref handler);
        int delivered = 0;
        long best = Allocations.BestWindow(prepare: () => delivered = 0, window: () =>
        {
            for (int i = 0; i < 10; i++) delivered += store.ReadRange(1000 + i * 100, 1099 + i * 100, ref handler);
        });
        Assert.Equal(1000, delivered);
        return best;
    }

    [Fact]
    public void MemoryStoreProcessedMarkPathsAllocateNothing()
    {
        using var store = new MemoryMessageStore(1, chunkSizeInBytes: 4 << 20);
        // Warm up with a whole period: the store grows on demand (chunk table, pooled arena and index), once.
        for (int seq = 1; seq <= Count; seq++) store.AppendAndIncrement(seq, _message, seq);
        store.Reset(2);
        long before = GC.GetAllocatedBytesForCurrentThread();
        for (int seq = 1; seq <= Count; seq++)
        {
            store.AppendAndIncrement(seq, _message, seq);
            store.SetLastProcessedInboundSeqNum(seq);
        }
        Assert.Equal(0, GC.GetAllocatedBytesForCurrentThread() - before);
        Assert.Equal(Count, store.LastProcessedInboundSeqNum);
    }

    [Fact]
    public void MemoryStoreAppendAndReadAllocateNothingAfterWarmUp()
    {
        using var store = new MemoryMessageStore(1, chunkSizeInBytes: 4 << 20);
        AppendLoop(store);
        Assert.Equal(0, AppendLoop(store));
        Assert.Equal(Count + 1, store.NextSenderMsgSeqNum);
        Assert.Equal(0, ReadLoop(store));
    }

    [Fact]
    public void FileStoreWithOsPolicyAppendAndReadAllocateNothingAfterWarmUp()
    {
        using var store = new FileMessageStore(_directory.Path, "alloc", 1, new FileMessageStoreOptions { SyncPolicy = FileStoreSyncPolicy.OS });
        AppendLoop(store);
        Assert.Equal(0, AppendLoop(store));
        Assert.Equal(Count + 1, store.NextSenderMsgSeqNum);
        Assert.Equal(0, ReadLoop(store));
    }

    [Fact]
    public void FileStoreAppendAndIncrementAllocatesNothingAfterWarmUp()
    {
        using var store = new FileMessageStore(_directory.Path, "alloc2", 1, new FileMessageStoreOptions { SyncPolicy = FileStoreSyncPolicy.Batched, BatchRecordCount = 256 });
        for (int seq = 1; seq <= 1000; seq++) store.AppendAndIncrement(seq, _message);
        // Best of three rounds: an allocation per append repeats in every round; a one-off runtime allocation on this
        // thread (tier-up while other tests run in parallel) does not.
        long best = long.MaxValue;
        for (int round = 0; round < 3 && best != 0; round++)
        {
            store.Reset(2);
            long before = GC.GetAllocatedBytesForCurrentThread();
            for (int seq = 1; seq <= 1000; seq++)
            {
                store.AppendAndIncrement(seq, _message);
                store.IncrNextTargetMsgSeqNum();
                store.AppendAndIncrement(seq, _message, processedInboundSeqNum: seq);
                store.SetLastProcessedInboundSeqNum(seq);
                store.DoWork(seq * 1_000_000L);
            }
            best = Math.Min(best, GC.GetAllocatedBytesForCurrentThread() - before);
        }
        Assert.Equal(0, best);
    }

    [Fact]
    public void FileStoreAppendWithResendLayoutAllocatesNothingAfterWarmUp()
    {
        // A message as a session encodes it (BodyLength and CheckSum right): the store records its resend layout, read
        // from the message (TryCompute) or handed over by the encoder (FromEncoder, as FixSession does).
        string body = "35=8\u000134=1\u000149=S\u000152=20261207-23:50:00.000000\u000156=T\u000137=O1\u000117=E1\u0001150=F\u000139=2\u0001";
        string head = "8=FIX.4.4\u00019=" + body.Length + "\u0001";
        int sum = 0;
        foreach (char c in head + body) sum += c;
        byte[] message = System.Text.Encoding.ASCII.GetBytes(head + body + "10=" + (sum % 256).ToString("D3") + "\u0001");
        Assert.True(ResendLayout.TryCompute(message, out ResendLayout at));
        using var store = new FileMessageStore(_directory.Path, "alloc3", 1, new FileMessageStoreOptions { SyncPolicy = FileStoreSyncPolicy.OS });
        for (int seq = 1; seq <= 1000; seq++) store.AppendAndIncrement(seq, message);
        long best = Allocations.BestWindow(prepare: () => store.Reset(2), window: () =>
        {
            for (int seq = 1; seq <= 1000; seq++)
            {
                store.AppendAndIncrement(seq, message);
                ResendLayout layout = ResendLayout.FromEncoder(message, at.MsgTypeStart, at.MsgTypeLength, at.SendingTimeStart, at.SendingTimeLength, at.BodyStart);
                Assert.True(layout.IsKnown);
                store.AppendAndIncrement(seq + 1000, message, 0, layout);
            }
        });
        Assert.Equal(0, best);
    }
}
