using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using FixEngine.Store;

namespace FixEngine.Tests.Store;

/// <summary>Crash safety and corruption: a journal cut or damaged anywhere never loses a valid record, never rewinds a
/// sequence number, and every recovery is reported (with the original file preserved before any change).</summary>
public sealed class FileMessageStoreRecoveryTests : IDisposable
{
    private const long CreationTimeNs = 1_000_000_000_000L;
    private const long ReopenTimeNs = 999;
    private const int Head = 40;
    private const int Trailer = 40;
    private static readonly FileMessageStoreOptions s_recover = new() { SyncPolicy = FileStoreSyncPolicy.OS, Recovery = StoreRecoveryPolicy.RecoverAndGapFill };
    private static readonly FileMessageStoreOptions s_refuse = new() { SyncPolicy = FileStoreSyncPolicy.OS, Recovery = StoreRecoveryPolicy.Refuse };
    private readonly TempDirectory _directory = new();
    private int _copyCounter;

    /// <summary>The state after a record, and where the record lies.</summary>
    private sealed record Snapshot(long Start, long Boundary, int MessageSeq, int PayloadLength, int Sender, int Target, int Processed, long CreationTimeNs,
        Dictionary<int, byte[]> Messages)
    {
        public long TrailerStart => Boundary - Trailer;
    }

    public void Dispose() => _directory.Dispose();

    /// <summary>Writes a mix of every record type; returns the journal bytes and the state after each record (the first
    /// snapshot is the journal's initial reset record).</summary>
    private (byte[] Journal, List<Snapshot> Snapshots) WriteScript()
    {
        string path = _directory.File("script.journal");
        var snapshots = new List<Snapshot>();
        var messages = new Dictionary<int, byte[]>();
        using (var store = new FileMessageStore(path, CreationTimeNs, s_recover))
        {
            long start = 0;
            void Take(int seq = 0, int length = 0)
            {
                snapshots.Add(new Snapshot(start, store.JournalLengthInBytes, seq, length, store.NextSenderMsgSeqNum, store.NextTargetMsgSeqNum,
                    store.LastProcessedInboundSeqNum, store.CreationTimeEpochNs, new Dictionary<int, byte[]>(messages)));
                start = store.JournalLengthInBytes;
            }
            void Put(int seq, int length, bool increment, int processed = -1)
            {
                byte[] message = StoreTestData.Message(seq, length);
                if (!increment) store.Append(seq, message);
                else if (processed >= 0) store.AppendAndIncrement(seq, message, processed);
                else store.AppendAndIncrement(seq, message);
                messages[seq] = message;
                Take(seq, length);
            }

            Take();
            Put(1, 200, true);
            store.IncrNextTargetMsgSeqNum(); Take();
            Put(2, 13, false);
            store.IncrNextSenderMsgSeqNum(); Take();
            Put(3, 1000, true, processed: 1);
            store.SetNextTargetMsgSeqNum(10); Take();
            Put(4, 0, true);
            store.SetLastProcessedInboundSeqNum(7); Take();
            Put(5, 8, true);
            store.SetNextSenderMsgSeqNum(20); Take();
            Put(20, 333, true, processed: 9);
            store.IncrNextTargetMsgSeqNum(); Take();
        }
        byte[] journal = File.ReadAllBytes(path);
        Assert.Equal(snapshots[^1].Boundary, journal.Length);
        return (journal, snapshots);
    }

    private string CopyOf(ReadOnlySpan<byte> bytes)
    {
        string path = _directory.File($"copy{++_copyCounter}.journal");
        File.WriteAllBytes(path, bytes.ToArray());
        return path;
    }

    private static void AssertState(Snapshot expectedState, IReadOnlyDictionary<int, byte[]> expectedMessages, FileMessageStore store)
    {
        Assert.Equal(expectedState.Sender, store.NextSenderMsgSeqNum);
        Assert.Equal(expectedState.Target, store.NextTargetMsgSeqNum);
        Assert.Equal(expectedState.Processed, store.LastProcessedInboundSeqNum);
        Assert.Equal(expectedState.CreationTimeNs, store.CreationTimeEpochNs);
        List<(int SeqNum, byte[] Bytes)> all = StoreTestData.ReadAll(store);
        Assert.Equal(expectedMessages.Keys.Order(), all.Select(m => m.SeqNum));
        foreach ((int seq, byte[] bytes) in all) Assert.Equal(expectedMessages[seq], bytes);
    }

    /// <summary>The state recovery must reach when <paramref name="record"/>'s body is lost and <paramref name="final"/> is
    /// the last readable state: a processed mark the lost record raised is not kept, and its inbound message is asked for
    /// again (the next target goes back to it).</summary>
    private static Snapshot LostAnswer(Snapshot final, Snapshot before, Snapshot record)
    {
        if (record.Processed <= before.Processed) return final;
        int target = Math.Max(before.Processed + 1, Math.Min(record.Target, record.Processed));
        return final with { Processed = before.Processed, Target = Math.Min(final.Target, target) };
    }

    private static Snapshot Fresh() => new(0, 0, 0, 0, 1, 1, 0, ReopenTimeNs, new Dictionary<int, byte[]>());

    /// <summary>Opens the damaged copy, checks state, messages and report, checks the preserved copy holds the damaged
    /// bytes, then proves the repaired journal reopens clean with the same state and still takes appends.</summary>
    private static StoreRecoveryReport? AssertRecoversTo(string path, Snapshot state, IReadOnlyDictionary<int, byte[]> messages, bool expectReport,
        FileMessageStoreOptions? options = null)
    {
        byte[] damaged = File.ReadAllBytes(path);
        StoreRecoveryReport? report;
        int nextSeq;
        using (var store = new FileMessageStore(path, ReopenTimeNs, options ?? s_recover))
        {
            AssertState(state, messages, store);
            report = store.LastRecoveryReport;
            if (!expectReport)
            {
                Assert.Null(report);
            }
            else
            {
                Assert.NotNull(report);
                Assert.NotEmpty(report.Damages);
                Assert.True(report.FileRepaired);
                Assert.False(report.Refused);
                Assert.Equal(damaged.Length, report.OriginalLengthInBytes);
                Assert.Equal(damaged, File.ReadAllBytes(report.PreservedCopyPath!));
                Assert.Equal(state.Sender, report.NextSenderMsgSeqNum);
                Assert.Equal(state.Target, report.NextTargetMsgSeqNum);
                Assert.Equal(state.Processed, report.LastProcessedInboundSeqNum);
                Assert.Equal(messages.Count, report.MessagesKept);
                Assert.Contains(path, report.ToString());
            }
            Assert.Equal(store.JournalLengthInBytes, new FileInfo(path).Length);
            nextSeq = store.NextSenderMsgSeqNum;
            store.AppendAndIncrement(nextSeq, StoreTestData.Message(nextSeq, 77));
        }
        using (var reopened = new FileMessageStore(path, ReopenTimeNs + 1, s_refuse))
        {
            Assert.Null(reopened.LastRecoveryReport);
            var after = new Dictionary<int, byte[]>(messages) { [nextSeq] = StoreTestData.Message(nextSeq, 77) };
            AssertState(state with { Sender = nextSeq + 1 }, after, reopened);
        }
        return report;
    }

    private static IEnumerable<long> CutsInside(Snapshot record)
    {
        long size = record.Boundary - record.Start;
        long padded = (record.PayloadLength + 7) & ~7;
        foreach (long delta in new long[] { 1, 8, Head - 1, Head, Head + 1, Head + record.PayloadLength / 2, Head + record.PayloadLength, Head + padded, size - 1 })
        {
            if (delta > 0 && delta < size) yield return record.Start + delta;
        }
    }

    [Fact]
    public void TruncationAtEveryRecordBoundaryAndInsideRecordsKeepsEveryCompleteRecordAndNeverRewinds()
    {
        (byte[] journal, List<Snapshot> snapshots) = WriteScript();
        int cases = 0;
        // A cut at 0 is an empty file: a new journal.
        AssertRecoversTo(CopyOf(journal.AsSpan(0, 0)), Fresh(), Fresh().Messages, expectReport: false);
        for (int r = 0; r < snapshots.Count; r++)
        {
            Snapshot record = snapshots[r];
            Snapshot before = r == 0 ? Fresh() : snapshots[r - 1];
            AssertRecoversTo(CopyOf(journal.AsSpan(0, (int)record.Boundary)), record, record.Messages, expectReport: false);
            foreach (long cut in CutsInside(record))
            {
                cases++;
                long kept = cut - record.Start;
                string path = CopyOf(journal.AsSpan(0, (int)cut));
                StoreRecoveryReport report;
                if (kept < Head)
                {
                    // The head itself is torn: the state is that of the previous complete record.
                    report = AssertRecoversTo(path, before, before.Messages, expectReport: true)!;
                    Assert.Equal(JournalDamageResolution.TailTruncated, report.Damages[0].Resolution);
                }
                else if (kept >= Head + record.PayloadLength)
                {
                    // Only (part of) the trailer is missing: the whole record is kept and its trailer rewritten.
                    report = AssertRecoversTo(path, record, record.Messages, expectReport: true)!;
                    Assert.Equal(JournalDamageResolution.RecordRepaired, report.Damages[0].Resolution);
                    Assert.False(report.LostData);
                }
                else
                {
                    // The head survived, the body did not: the sequence state is kept, the body is lost, and a processed
                    // mark the record raised is not (its inbound message is asked for again).
                    report = AssertRecoversTo(path, LostAnswer(record, before, record), before.Messages, expectReport: true)!;
                    Assert.Equal(record.Processed > before.Processed ? record.Processed : 0, report.Damages[0].ProcessedInboundNotKept);
                    Assert.Equal(JournalDamageResolution.TailTruncated, report.Damages[0].Resolution);
                    Assert.Equal(record.MessageSeq, report.Damages[0].LostMessageSeqNum);
                }
                JournalDamage damage = Assert.Single(report.Damages);
                Assert.Equal(JournalDamageReason.TornTail, damage.Reason);
                Assert.Equal(record.Start, damage.Offset);
                Assert.Equal(r + 1, damage.RecordNumber);
            }
        }
        Assert.True(cases > 80, $"{cases} cuts");
    }

    /// <summary>Byte offsets, relative to a record's start, of every head and trailer field and of payload bytes.</summary>
    private static IEnumerable<(long Offset, string Where)> FlipOffsets(Snapshot record)
    {
        int[] fields = [0, 3, 4, 12, 20, 24, 32, 39];
        foreach (int f in fields) yield return (record.Start + f, "head");
        if (record.PayloadLength > 0)
        {
            foreach (int p in new[] { 0, record.PayloadLength / 2, record.PayloadLength - 1 }.Distinct()) yield return (record.Start + Head + p, "payload");
        }
        foreach (int f in fields) yield return (record.TrailerStart + f, "trailer");
    }

    [Fact]
    public void AFlippedByteInAnyHeadPayloadCrcOrTrailerLosesAtMostThatMessagesBody()
    {
        (byte[] journal, List<Snapshot> snapshots) = WriteScript();
        int cases = 0;
        for (int r = 0; r < snapshots.Count; r++)
        {
            Snapshot record = snapshots[r];
            foreach ((long offset, string where) in FlipOffsets(record))
            {
                foreach (bool lastRecord in new[] { false, true })
                {
                    cases++;
                    Snapshot final = lastRecord ? record : snapshots[^1];
                    byte[] damaged = journal.AsSpan(0, (int)final.Boundary).ToArray();
                    damaged[offset] ^= 0x5A;
                    var expectedMessages = new Dictionary<int, byte[]>(final.Messages);
                    Snapshot expected = final;
                    if (where == "payload")
                    {
                        expectedMessages.Remove(record.MessageSeq);
                        expected = LostAnswer(final, snapshots[r - 1], record);
                    }
                    StoreRecoveryReport report = AssertRecoversTo(CopyOf(damaged), expected, expectedMessages, expectReport: true)!;
                    JournalDamage damage = Assert.Single(report.Damages);
                    Assert.Equal(r + 1, damage.RecordNumber);
                    switch (where)
                    {
                        case "head":
                            Assert.Equal(JournalDamageReason.BadHead, damage.Reason);
                            Assert.Equal(JournalDamageResolution.RecordRepaired, damage.Resolution);
                            Assert.Equal(record.Start, damage.Offset);
                            break;
                        case "trailer":
                            Assert.Equal(JournalDamageReason.BadTrailer, damage.Reason);
                            Assert.Equal(JournalDamageResolution.RecordRepaired, damage.Resolution);
                            Assert.Equal(record.TrailerStart, damage.Offset);
                            break;
                        default:
                            Assert.Equal(JournalDamageReason.BadPayload, damage.Reason);
                            Assert.Equal(JournalDamageResolution.BodyLost, damage.Resolution);
                            Assert.Equal(record.MessageSeq, damage.LostMessageSeqNum);
                            Assert.Equal(record.Start, damage.Offset);
                            Assert.True(report.LostData);
                            break;
                    }
                }
            }
        }
        Assert.True(cases > 300, $"{cases} flips");
    }

    [Fact]
    public void EitherCheckpointSlotOfTheLastRecordAloneRestoresTheSequenceNumbers()
    {
        (byte[] journal, List<Snapshot> snapshots) = WriteScript();
        // Every record is a checkpoint: wipe its head slot or its trailer slot, one at a time, with the record last.
        for (int r = 0; r < snapshots.Count; r++)
        {
            Snapshot record = snapshots[r];
            foreach (long slot in new[] { record.Start, record.TrailerStart })
            {
                byte[] damaged = journal.AsSpan(0, (int)record.Boundary).ToArray();
                damaged.AsSpan((int)slot, Head).Fill(0xEE);
                StoreRecoveryReport report = AssertRecoversTo(CopyOf(damaged), record, record.Messages, expectReport: true)!;
                Assert.False(report.LostData);
            }
        }
    }

    [Fact]
    public void BothSlotsOfTheLastRecordDestroyedFallBackToThePreviousRecordAndSayWhat()
    {
        (byte[] journal, List<Snapshot> snapshots) = WriteScript();
        // The documented limit: two independent damages in the last record lose its state (and its body).
        Snapshot last = snapshots[^1];
        Snapshot before = snapshots[^2];
        byte[] damaged = journal.ToArray();
        damaged.AsSpan((int)last.Start, Head).Clear();
        damaged.AsSpan((int)last.TrailerStart, Trailer).Clear();
        StoreRecoveryReport report = AssertRecoversTo(CopyOf(damaged), before, before.Messages, expectReport: true)!;
        JournalDamage damage = Assert.Single(report.Damages);
        Assert.Equal(JournalDamageResolution.TailTruncated, damage.Resolution);
        Assert.Equal(last.Start, damage.Offset);
        Assert.Equal(20, damage.LastMessageSeqNumBefore);
    }

    [Fact]
    public void SeveralDamagedMessagesInTheMiddleLoseOnlyTheirBodies()
    {
        (byte[] journal, List<Snapshot> snapshots) = WriteScript();
        Snapshot[] hit = snapshots.Where(s => s.MessageSeq is 1 or 3 or 5).ToArray();
        byte[] damaged = journal.ToArray();
        foreach (Snapshot s in hit) damaged[s.Start + Head + s.PayloadLength / 2] ^= 0x01;
        var expected = new Dictionary<int, byte[]>(snapshots[^1].Messages);
        foreach (Snapshot s in hit) expected.Remove(s.MessageSeq);
        // Message 3 raised the processed mark from 0 to 1: with its body lost, the mark goes back to 0 and inbound 1 is
        // asked for again.
        Snapshot three = hit[1];
        Snapshot state = LostAnswer(snapshots[^1], snapshots[snapshots.IndexOf(three) - 1], three);
        Assert.Equal((0, 1), (state.Processed, state.Target));
        StoreRecoveryReport report = AssertRecoversTo(CopyOf(damaged), state, expected, expectReport: true)!;
        Assert.Equal([0, 1, 0], report.Damages.Select(d => d.ProcessedInboundNotKept));
        Assert.Equal([1, 3, 5], report.Damages.Select(d => d.LostMessageSeqNum));
        Assert.All(report.Damages, d => Assert.Equal(JournalDamageResolution.BodyLost, d.Resolution));
    }

    [Fact]
    public void GarbageOverSeveralRecordsIsSkippedAndEveryRecordAfterItIsKept()
    {
        (byte[] journal, List<Snapshot> snapshots) = WriteScript();
        Snapshot first = snapshots.Single(s => s.MessageSeq == 2);
        Snapshot lastHit = snapshots.Single(s => s.MessageSeq == 4);
        byte[] damaged = journal.ToArray();
        long from = first.Start + 5;
        long to = lastHit.Start + 10;
        new Random(13).NextBytes(damaged.AsSpan((int)from, (int)(to - from)));
        var expected = new Dictionary<int, byte[]>(snapshots[^1].Messages);
        expected.Remove(2);
        expected.Remove(3);
        // Message 4 (empty body) keeps its trailer, so it is restored whole. The skipped records raised the processed
        // mark (message 3 answered inbound 1): it is not kept, inbound 1 is asked for again.
        StoreRecoveryReport report = AssertRecoversTo(CopyOf(damaged), snapshots[^1] with { Processed = 0, Target = 1 }, expected, expectReport: true)!;
        JournalDamage skipped = report.Damages.First(d => d.Resolution == JournalDamageResolution.RegionSkipped);
        Assert.Equal(1, skipped.ProcessedInboundNotKept);
        Assert.Equal(first.Start, skipped.Offset);
        Assert.Equal(1, skipped.LastMessageSeqNumBefore);
        Assert.Equal(4, skipped.FirstMessageSeqNumAfter);
        Assert.Contains(report.Damages, d => d.Resolution == JournalDamageResolution.RecordRepaired && d.Offset == lastHit.Start);
    }

    [Fact]
    public void RefusePolicyNamesFileOffsetAndRecordAndChangesNothing()
    {
        (byte[] journal, List<Snapshot> snapshots) = WriteScript();
        Snapshot hit = snapshots.Single(s => s.MessageSeq == 3);
        int recordNumber = snapshots.IndexOf(hit) + 1;
        byte[] damaged = journal.ToArray();
        damaged[hit.Start + Head + 500] ^= 0x10;
        string path = CopyOf(damaged);
        MessageStoreException error = Assert.Throws<MessageStoreException>(() => new FileMessageStore(path, ReopenTimeNs, s_refuse));
        Assert.Equal(MessageStoreOperation.Open, error.Operation);
        Assert.Equal(path, error.StorePath);
        Assert.Contains(path, error.Message);
        Assert.Contains($"byte offset {hit.Start}", error.Message);
        Assert.Contains($"record {recordNumber}", error.Message);
        Assert.Contains("FileStoreRecovery=RecoverAndGapFill", error.Message);
        StoreRecoveryReport report = error.RecoveryReport!;
        Assert.True(report.Refused);
        Assert.False(report.FileRepaired);
        Assert.Null(report.PreservedCopyPath);
        JournalDamage damage = Assert.Single(report.Damages);
        Assert.Equal((2, 4), (damage.LastMessageSeqNumBefore, damage.FirstMessageSeqNumAfter));
        Assert.Equal(damaged, File.ReadAllBytes(path));
        Assert.Empty(Directory.GetFiles(_directory.Path, Path.GetFileName(path) + ".corrupt-*"));

        // The operator switches the policy: every other record is kept, the lost body is reported.
        var expected = new Dictionary<int, byte[]>(snapshots[^1].Messages);
        expected.Remove(3);
        AssertRecoversTo(path, LostAnswer(snapshots[^1], snapshots[snapshots.IndexOf(hit) - 1], hit), expected, expectReport: true);
    }

    [Fact]
    public void RefusePolicyStillRepairsWhatLosesNothingAndATornTail()
    {
        (byte[] journal, List<Snapshot> snapshots) = WriteScript();
        // The head of message 3 and the trailer of message 5 are restored from their twins; the last record lost 7
        // bytes of its trailer (a torn write) and is rewritten whole.
        Snapshot three = snapshots.Single(s => s.MessageSeq == 3);
        Snapshot five = snapshots.Single(s => s.MessageSeq == 5);
        byte[] damaged = journal.AsSpan(0, journal.Length - 7).ToArray();
        damaged[three.Start + 12] ^= 0x01;
        damaged[five.TrailerStart + 20] ^= 0x01;
        StoreRecoveryReport report = AssertRecoversTo(CopyOf(damaged), snapshots[^1], snapshots[^1].Messages, expectReport: true, s_refuse)!;
        Assert.Equal(
            [JournalDamageResolution.RecordRepaired, JournalDamageResolution.RecordRepaired, JournalDamageResolution.RecordRepaired],
            report.Damages.Select(d => d.Resolution));
        Assert.Equal(JournalDamageReason.TornTail, report.Damages[^1].Reason);
    }

    [Theory]
    [InlineData(1, false)]
    [InlineData(7, false)]
    [InlineData(40, false)]
    [InlineData(100, false)]
    [InlineData(70_000, false)]
    [InlineData(16, true)]
    [InlineData(4096, true)]
    public void GarbageOrZeroTailIsCutAndReported(int tailLength, bool zeros)
    {
        (byte[] journal, List<Snapshot> snapshots) = WriteScript();
        byte[] tail = new byte[tailLength];
        if (!zeros) new Random(tailLength).NextBytes(tail);
        StoreRecoveryReport report = AssertRecoversTo(CopyOf([.. journal, .. tail]), snapshots[^1], snapshots[^1].Messages, expectReport: true, s_refuse)!;
        JournalDamage damage = Assert.Single(report.Damages);
        Assert.Equal(JournalDamageResolution.TailTruncated, damage.Resolution);
        Assert.Equal(journal.Length, damage.Offset);
        Assert.Equal(tailLength, damage.Length);
    }

    [Fact]
    public void AFormatOneJournalIsReadAndContinuedInFormatTwo()
    {
        var v1 = new List<byte>();
        void Record(byte type, int seq, byte[] payload)
        {
            byte[] record = new byte[16 + ((payload.Length + 7) & ~7)];
            BitConverter.TryWriteBytes(record.AsSpan(0), payload.Length);
            record[4] = type;
            BitConverter.TryWriteBytes(record.AsSpan(8), seq);
            payload.CopyTo(record, 16);
            uint crc = ~Crc32C.Update(Crc32C.Update(uint.MaxValue, record.AsSpan(0, 12)), record.AsSpan(16));
            BitConverter.TryWriteBytes(record.AsSpan(12), crc);
            v1.AddRange(record);
        }
        Record(5, 1, BitConverter.GetBytes(CreationTimeNs));
        Record(2, 1, StoreTestData.Message(1));
        Record(1, 2, StoreTestData.Message(2, 33));
        Record(3, 3, []);
        Record(4, 6, []);
        string path = CopyOf(v1.ToArray());
        using (var store = new FileMessageStore(path, ReopenTimeNs, s_refuse))
        {
            Assert.Null(store.LastRecoveryReport);
            Assert.Equal((3, 6, CreationTimeNs), (store.NextSenderMsgSeqNum, store.NextTargetMsgSeqNum, store.CreationTimeEpochNs));
            Assert.Equal([1, 2], StoreTestData.ReadAll(store).Select(m => m.SeqNum));
            store.AppendAndIncrement(3, StoreTestData.Message(3), 5);
        }
        using (var store = new FileMessageStore(path, ReopenTimeNs, s_refuse))
        {
            Assert.Null(store.LastRecoveryReport);
            Assert.Equal((4, 6, 5), (store.NextSenderMsgSeqNum, store.NextTargetMsgSeqNum, store.LastProcessedInboundSeqNum));
            Assert.Equal(StoreTestData.Message(2, 33), StoreTestData.ReadAll(store, 2, 2).Single().Bytes);
            Assert.Equal(StoreTestData.Message(3), StoreTestData.ReadAll(store, 3, 3).Single().Bytes);
        }
    }

    [Fact]
    public void JournalTruncatedMidRecordAfterTheWriterDiedKeepsTheSequenceNumber()
    {
        string path = _directory.File("killed.journal");
        long boundaryAfterNine;
        using (var store = new FileMessageStore(path, CreationTimeNs, new FileMessageStoreOptions { SyncPolicy = FileStoreSyncPolicy.PerMessage }))
        {
            for (int seq = 1; seq <= 9; seq++) store.AppendAndIncrement(seq, StoreTestData.Message(seq, 500));
            boundaryAfterNine = store.JournalLengthInBytes;
            store.AppendAndIncrement(10, StoreTestData.Message(10, 500));
        }
        // The machine "dies" half way through writing record 10: its head reached the disk, most of its body did not.
        using (var file = new FileStream(path, FileMode.Open, FileAccess.ReadWrite))
        {
            file.SetLength(boundaryAfterNine + 300);
        }
        using (var store = new FileMessageStore(path, ReopenTimeNs, s_refuse))
        {
            JournalDamage damage = Assert.Single(store.LastRecoveryReport!.Damages);
            Assert.Equal(JournalDamageReason.TornTail, damage.Reason);
            Assert.Equal(10, damage.LostMessageSeqNum);
            Assert.Equal(300, damage.Length);
            Assert.Equal(11, store.NextSenderMsgSeqNum);
            Assert.Equal(9, StoreTestData.ReadAll(store).Count);
        }
        using (var store = new FileMessageStore(path, ReopenTimeNs, s_refuse))
        {
            Assert.Null(store.LastRecoveryReport);
            Assert.Equal(11, store.NextSenderMsgSeqNum);
            Assert.Empty(StoreTestData.ReadAll(store, 10, 10));
        }
    }

    [Fact]
    public void ResetCompactsTheJournalAndACutAfterItRecoversThePostResetState()
    {
        string path = _directory.File("reset.journal");
        long afterReset;
        using (var store = new FileMessageStore(path, CreationTimeNs, s_recover))
        {
            for (int seq = 1; seq <= 20; seq++) store.AppendAndIncrement(seq, StoreTestData.Message(seq), seq);
            store.Reset(CreationTimeNs + 7);
            afterReset = store.JournalLengthInBytes;
            Assert.Equal(80, afterReset);
            store.AppendAndIncrement(1, StoreTestData.Message(1, 50));
        }
        byte[] journal = File.ReadAllBytes(path);
        // Cut inside the message's head: the post-reset state, no message.
        var expected = new Snapshot(0, afterReset, 0, 0, 1, 1, 0, CreationTimeNs + 7, new Dictionary<int, byte[]>());
        AssertRecoversTo(CopyOf(journal.AsSpan(0, (int)afterReset + 20)), expected, expected.Messages, expectReport: true);
    }

    [Theory]
    [InlineData(0, false)]
    [InlineData(1, false)]
    [InlineData(40, false)]
    [InlineData(79, false)]
    [InlineData(80, true)]
    public void AResetNotForcedToDiskLeavesAJournalThatOpensAsAFreshIncarnation(int keep, bool zeros)
    {
        // Under the OS policy a reset is not forced to disk (FileMessageStoreTests), so a power loss may leave the
        // truncated journal with the reset record missing, cut anywhere, or allocated but never written (zeros). Each
        // opens, even under Refuse, with the sequence numbers of a fresh incarnation and no message.
        string path = _directory.File("reset-lost.journal");
        using (var store = new FileMessageStore(path, CreationTimeNs, s_refuse))
        {
            for (int seq = 1; seq <= 20; seq++) store.AppendAndIncrement(seq, StoreTestData.Message(seq), seq);
            store.Reset(CreationTimeNs + 7);
            Assert.Equal(80, store.JournalLengthInBytes);
        }
        byte[] journal = File.ReadAllBytes(path);
        string copy = CopyOf(zeros ? new byte[keep] : journal.AsSpan(0, keep));
        using var reopened = new FileMessageStore(copy, ReopenTimeNs, s_refuse);
        Assert.Equal((1, 1, 0), (reopened.NextSenderMsgSeqNum, reopened.NextTargetMsgSeqNum, reopened.LastProcessedInboundSeqNum));
        Assert.Empty(StoreTestData.ReadAll(reopened));
        reopened.AppendAndIncrement(1, StoreTestData.Message(1));
        Assert.Equal(2, reopened.NextSenderMsgSeqNum);
    }
}
