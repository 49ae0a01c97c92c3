using System;
using System.IO;
using FixEngine.Store;
using Microsoft.Win32.SafeHandles;

namespace FixEngine.Tests.Store;

/// <summary>File system failures surface as <see cref="MessageStoreException"/> naming the file and the operation, with
/// real errors from the kernel: /dev/full (ENOSPC), a folder under a regular file (ENOTDIR), /proc (no new folders), a
/// read-only folder.</summary>
public sealed class FileMessageStoreIoErrorTests : IDisposable
{
    private static readonly FileMessageStoreOptions s_os = new() { SyncPolicy = FileStoreSyncPolicy.OS };
    private readonly TempDirectory _directory = new();

    public void Dispose() => _directory.Dispose();

    private static bool HasDevFull => !OperatingSystem.IsWindows() && File.Exists("/dev/full");

    [Fact]
    public void AFolderThatCannotBeCreatedIsAMessageStoreExceptionNamingTheJournal()
    {
        string blocker = _directory.File("not-a-folder");
        File.WriteAllText(blocker, "x");
        string journal = Path.Combine(blocker, "sub", "s.journal");
        MessageStoreException error = Assert.Throws<MessageStoreException>(() => new FileMessageStore(journal, 1, s_os));
        Assert.Equal(MessageStoreOperation.Open, error.Operation);
        Assert.Equal(journal, error.StorePath);
        Assert.Contains(journal, error.Message);
        Assert.NotNull(error.InnerException);
        Assert.IsAssignableFrom<IOException>(error);
    }

    [Fact]
    public void AnUnwritableLocationIsAMessageStoreExceptionNotAnUnauthorizedAccessException()
    {
        if (OperatingSystem.IsWindows()) return;
        // /proc refuses new folders even to root.
        string journal = "/proc/fixengine-store-test-" + Guid.NewGuid().ToString("N") + "/s.journal";
        MessageStoreException error = Assert.Throws<MessageStoreException>(() => new FileMessageStore(journal, 1, s_os));
        Assert.Equal(MessageStoreOperation.Open, error.Operation);
        Assert.True(error.InnerException is IOException or UnauthorizedAccessException, error.InnerException?.GetType().Name);
    }

    [Fact]
    public void AReadOnlyFolderIsAMessageStoreException()
    {
        if (OperatingSystem.IsWindows() || Environment.UserName == "root") return; // root ignores permission bits
        string folder = _directory.File("readonly");
        Directory.CreateDirectory(folder);
        File.SetUnixFileMode(folder, UnixFileMode.UserRead | UnixFileMode.UserExecute);
        try
        {
            MessageStoreException error = Assert.Throws<MessageStoreException>(() => new FileMessageStore(folder, "s", 1, s_os));
            Assert.Equal(MessageStoreOperation.Open, error.Operation);
            Assert.IsType<UnauthorizedAccessException>(error.InnerException);
        }
        finally
        {
            File.SetUnixFileMode(folder, UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute);
        }
    }

    [Fact]
    public void ADiskFullOnOpenIsAMessageStoreException()
    {
        if (!HasDevFull) return;
        // A new journal starts with a reset record; /dev/full refuses it with ENOSPC.
        MessageStoreException error = Assert.Throws<MessageStoreException>(() => new FileMessageStore("/dev/full", 1, s_os));
        Assert.Equal(MessageStoreOperation.Open, error.Operation);
        Assert.Equal("/dev/full", error.StorePath);
        Assert.IsAssignableFrom<IOException>(error.InnerException);
    }

    [Theory]
    [InlineData(FileStoreSyncPolicy.OS)]
    [InlineData(FileStoreSyncPolicy.PerMessage)]
    public void ADiskFullOnAppendFaultsTheStoreWithoutMovingItsStateAndAReopenRecovers(FileStoreSyncPolicy policy)
    {
        if (!HasDevFull) return;
        var options = new FileMessageStoreOptions { SyncPolicy = policy };
        string path;
        using (var store = new FileMessageStore(_directory.Path, "full", 1, options))
        {
            path = store.JournalPath;
            for (int seq = 1; seq <= 3; seq++) store.AppendAndIncrement(seq, StoreTestData.Message(seq), seq);
            store.IncrNextTargetMsgSeqNum();
            using SafeFileHandle full = File.OpenHandle("/dev/full", FileMode.Open, FileAccess.ReadWrite);
            SafeFileHandle journal = store.SwapHandleForTesting(full);
            try
            {
                MessageStoreException error = Assert.Throws<MessageStoreException>(() => store.AppendAndIncrement(4, StoreTestData.Message(4), 4));
                Assert.Equal(MessageStoreOperation.Append, error.Operation);
                Assert.Equal(path, error.StorePath);
                Assert.Contains(path, error.Message);
                Assert.IsAssignableFrom<IOException>(error.InnerException);
                Assert.True(store.IsFaulted);
                Assert.Equal(4, store.NextSenderMsgSeqNum);
                Assert.Equal(3, store.LastProcessedInboundSeqNum);

                // Faulted: every later write is refused with the same exception type, whatever the operation.
                Assert.Equal(MessageStoreOperation.UpdateState, Assert.Throws<MessageStoreException>(store.IncrNextTargetMsgSeqNum).Operation);
                Assert.Equal(MessageStoreOperation.Append, Assert.Throws<MessageStoreException>(() => store.Append(9, StoreTestData.Message(9))).Operation);
                Assert.Equal(MessageStoreOperation.Flush, Assert.Throws<MessageStoreException>(store.Flush).Operation);
                Assert.Equal(MessageStoreOperation.Reset, Assert.Throws<MessageStoreException>(() => store.Reset(2)).Operation);
                Assert.Equal(2, store.NextTargetMsgSeqNum);
            }
            finally
            {
                store.SwapHandleForTesting(journal);
            }
        }
        using var reopened = new FileMessageStore(path, 1, options);
        Assert.Null(reopened.LastRecoveryReport);
        Assert.Equal(4, reopened.NextSenderMsgSeqNum);
        Assert.Equal(2, reopened.NextTargetMsgSeqNum);
        Assert.Equal(3, reopened.LastProcessedInboundSeqNum);
        Assert.Equal(3, StoreTestData.ReadAll(reopened).Count);
        reopened.AppendAndIncrement(4, StoreTestData.Message(4), 4);
        Assert.Equal(5, reopened.NextSenderMsgSeqNum);
    }
}
