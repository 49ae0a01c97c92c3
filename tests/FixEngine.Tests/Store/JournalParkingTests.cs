using System;
using System.IO;
using System.Linq;
using FixEngine.Store;

namespace FixEngine.Tests.Store;

/// <summary>A parked file store holds no descriptor, and opening its journal again on the next operation loses,
/// doubles or misnumbers nothing (Store/FileMessageStore.Parking.cs).</summary>
public sealed class JournalParkingTests : IDisposable
{
    private readonly TempDirectory _directory = new();

    public void Dispose() => _directory.Dispose();

    /// <summary>Descriptors of this process open on files under <paramref name="folder"/> (Linux: /proc/self/fd).</summary>
    internal static int OpenDescriptorsUnder(string folder)
    {
        string full = Path.GetFullPath(folder);
        int count = 0;
        foreach (string fd in Directory.EnumerateFileSystemEntries("/proc/self/fd"))
        {
            string? target;
            try
            {
                target = new FileInfo(fd).LinkTarget;
            }
            catch (IOException)
            {
                continue; // closed meanwhile
            }
            if (target is not null && target.StartsWith(full + Path.DirectorySeparatorChar, StringComparison.Ordinal)) count++;
        }
        return count;
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public void AParkedStoreHoldsNoDescriptorAndCarriesOnWhereItStopped(bool indexCheckpoint)
    {
        if (!OperatingSystem.IsLinux()) return;
        var options = new FileMessageStoreOptions { SyncPolicy = FileStoreSyncPolicy.OS, IndexCheckpoint = indexCheckpoint };
        using (var store = new FileMessageStore(_directory.Path, "park", 5, options))
        {
            for (int seq = 1; seq <= 3; seq++) store.AppendAndIncrement(seq, StoreTestData.Message(seq));
            store.IncrNextTargetMsgSeqNum();
            Assert.Equal(indexCheckpoint ? 2 : 1, OpenDescriptorsUnder(_directory.Path));

            Assert.True(store.TryPark());
            Assert.True(store.IsParked);
            Assert.Equal(0, OpenDescriptorsUnder(_directory.Path));

            // A read opens it again and sees every message; a write carries on from the same sequence numbers.
            Assert.Equal(new[] { 1, 2, 3 }, StoreTestData.ReadAll(store).Select(m => m.SeqNum));
            Assert.False(store.IsParked);
            Assert.True(store.TryPark());
            store.AppendAndIncrement(4, StoreTestData.Message(4));
            Assert.False(store.IsParked);
            Assert.Equal(5, store.NextSenderMsgSeqNum);
            Assert.Equal(2, store.NextTargetMsgSeqNum);
            Assert.True(store.TryPark());
        }
        Assert.Equal(0, OpenDescriptorsUnder(_directory.Path));
        using var reopened = new FileMessageStore(_directory.Path, "park", 5, options);
        Assert.Equal(5, reopened.NextSenderMsgSeqNum);
        Assert.Equal(2, reopened.NextTargetMsgSeqNum);
        var messages = StoreTestData.ReadAll(reopened);
        Assert.Equal(new[] { 1, 2, 3, 4 }, messages.Select(m => m.SeqNum));
        for (int i = 0; i < 4; i++) Assert.Equal(StoreTestData.Message(i + 1), messages[i].Bytes);
    }

    [Fact]
    public void AStoreWithRecordsNotYetOnDiskIsNotParked()
    {
        using var store = new FileMessageStore(_directory.Path, "batched", 5, new FileMessageStoreOptions { SyncPolicy = FileStoreSyncPolicy.Batched, BatchRecordCount = 100 });
        store.AppendAndIncrement(1, StoreTestData.Message(1));
        Assert.False(store.TryPark());
        store.Flush();
        Assert.True(store.TryPark());
    }

    [Fact]
    public void AJournalChangedWhileParkedFaultsTheStoreWithTheReason()
    {
        var options = new FileMessageStoreOptions { SyncPolicy = FileStoreSyncPolicy.OS };
        using var store = new FileMessageStore(_directory.Path, "changed", 5, options);
        store.AppendAndIncrement(1, StoreTestData.Message(1));
        Assert.True(store.TryPark());
        using (FileStream other = File.Open(store.JournalPath, FileMode.Append, FileAccess.Write)) other.Write(new byte[10]);
        var e = Assert.Throws<MessageStoreException>(() => store.AppendAndIncrement(2, StoreTestData.Message(2)));
        Assert.Contains("changed outside the store while it was closed", e.Message, StringComparison.Ordinal);
        Assert.Contains(store.JournalPath, e.Message, StringComparison.Ordinal);
        Assert.True(store.IsFaulted);
    }

    [Fact]
    public void AJournalAnotherStoreOpenedWhileParkedIsNotWrittenByBoth()
    {
        var options = new FileMessageStoreOptions { SyncPolicy = FileStoreSyncPolicy.OS };
        using var store = new FileMessageStore(_directory.Path, "taken", 5, options);
        store.AppendAndIncrement(1, StoreTestData.Message(1));
        Assert.True(store.TryPark());
        using var other = new FileMessageStore(_directory.Path, "taken", 5, options);
        var e = Assert.Throws<MessageStoreException>(() => store.AppendAndIncrement(2, StoreTestData.Message(2)));
        Assert.Contains("cannot be opened again", e.Message, StringComparison.Ordinal);
        Assert.Equal(2, other.NextSenderMsgSeqNum);
    }
}
