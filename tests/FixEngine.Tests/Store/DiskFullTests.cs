using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using FixEngine.Store;

namespace FixEngine.Tests.Store;

/// <summary>Runs only where a small tmpfs can be mounted (root on Linux, as in CI containers); says why otherwise.</summary>
public sealed class TmpfsFactAttribute : FactAttribute
{
    public TmpfsFactAttribute()
    {
        if (!OperatingSystem.IsLinux()) Skip = "needs Linux to mount a small tmpfs for a real disk-full";
        else if (Environment.UserName != "root") Skip = "needs root to mount a small tmpfs for a real disk-full (CI runs as root)";
    }
}

/// <summary>Issue 34 items 1 and 7: a real disk-full (a tmpfs filled by the journal itself, so the last write is cut by
/// the kernel wherever ENOSPC strikes), then the operator frees space and the store is reopened: no answered order is
/// left unanswered.</summary>
public sealed class DiskFullTests
{
    private static void Run(string file, params string[] args)
    {
        var info = new ProcessStartInfo(file) { RedirectStandardError = true, UseShellExecute = false };
        foreach (string a in args) info.ArgumentList.Add(a);
        using Process p = Process.Start(info)!;
        string error = p.StandardError.ReadToEnd();
        Assert.True(p.WaitForExit(30_000), file + " finished");
        Assert.True(p.ExitCode == 0, $"{file} {string.Join(' ', args)}: {error}");
    }

    [TmpfsFact]
    public void AJournalCutByARealDiskFullLeavesNoAnsweredOrderUnanswered()
    {
        string mount = Path.Combine(Path.GetTempPath(), "fixengine-tmpfs-" + Guid.NewGuid().ToString("N"));
        Directory.CreateDirectory(mount);
        Run("mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", mount);
        try
        {
            // Room the operator frees later (the preserved copy of the damaged journal needs it too).
            string filler = Path.Combine(mount, "filler");
            File.WriteAllBytes(filler, new byte[160 * 1024]);
            string path = Path.Combine(mount, "s.journal");
            var answers = new Dictionary<int, (int OutSeq, byte[] Reply)>();
            int failedInbound = 0;
            var options = new FileMessageStoreOptions { SyncPolicy = FileStoreSyncPolicy.PerMessage };
            var store = new FileMessageStore(path, 1, options);
            try
            {
                for (int inbound = 1; inbound < 100_000; inbound++)
                {
                    int outSeq = store.NextSenderMsgSeqNum;
                    // Sizes that do not divide a page, so ENOSPC cuts records at varying places.
                    byte[] reply = StoreTestData.Message(outSeq, 300 + inbound * 37 % 700);
                    try
                    {
                        store.AppendAndIncrement(outSeq, reply, inbound);
                    }
                    catch (MessageStoreException)
                    {
                        failedInbound = inbound;
                        break;
                    }
                    // Confirmed (OnSendStored would have fired): this answer must survive.
                    answers[inbound] = (outSeq, reply);
                    try
                    {
                        store.IncrNextTargetMsgSeqNum();
                    }
                    catch (MessageStoreException)
                    {
                        failedInbound = inbound + 1;
                        break;
                    }
                }
            }
            finally
            {
                try
                {
                    store.Dispose();
                }
                catch (MessageStoreException)
                {
                    // Faulted: nothing more to flush.
                }
            }
            Assert.True(failedInbound > 10, "the disk filled after some orders");

            File.Delete(filler);
            using var reopened = new FileMessageStore(path, 2, options);
            var stored = StoreTestData.ReadAll(reopened).ToDictionary(m => m.SeqNum, m => m.Bytes);
            foreach ((int inbound, (int outSeq, byte[] reply)) in answers)
            {
                Assert.True(stored.TryGetValue(outSeq, out byte[]? bytes) && bytes.AsSpan().SequenceEqual(reply),
                    $"the confirmed answer to inbound {inbound} (MsgSeqNum {outSeq}) is gone; {reopened.LastRecoveryReport}");
            }
            // The order whose answer the disk cut comes again: not marked processed, and at or after the next target.
            Assert.True(reopened.LastProcessedInboundSeqNum < failedInbound, $"processed {reopened.LastProcessedInboundSeqNum}, failed at {failedInbound}");
            Assert.True(reopened.NextTargetMsgSeqNum <= failedInbound, $"next target {reopened.NextTargetMsgSeqNum}, failed at {failedInbound}");
            Assert.True(reopened.NextSenderMsgSeqNum > stored.Keys.DefaultIfEmpty(0).Max());
            // The preserved copy of the damaged journal holds only its damaged part: the volume stays usable.
            if (reopened.LastRecoveryReport?.PreservedCopyPath is string copy)
            {
                Assert.Contains(".from-", copy, StringComparison.Ordinal);
                Assert.True(new FileInfo(copy).Length < 4096, $"{new FileInfo(copy).Length} bytes copied");
            }
        }
        finally
        {
            Run("umount", mount);
            Directory.Delete(mount, recursive: true);
        }
    }
}
