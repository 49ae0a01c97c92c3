using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using FixEngine.Store;

namespace FixEngine.Tests.Store;

/// <summary>Issue 34 item 1: a journal cut anywhere inside its last records (head, body, padding, trailer) never leaves an
/// answered inbound order unanswered: either its answer is still stored, or its processed mark is gone and it is asked
/// for again (the next expected inbound MsgSeqNum is at or below it).</summary>
public sealed class TornAnswerTests : IDisposable
{
    private const long CreationTimeNs = 1_000_000_000_000L;
    private readonly TempDirectory _directory = new();

    public void Dispose() => _directory.Dispose();

    /// <summary>Writes what a session writes for an order flow: each inbound order answered with an execution report
    /// stored with its processed mark (AppendAndIncrement), then the inbound number persisted; every fifth inbound is
    /// answered by nothing; the journal ends with the answer to the last order (its inbound number not yet persisted).</summary>
    private (byte[] Journal, long LastRecordsStart, Dictionary<int, (int OutSeq, byte[] Reply, long End)> Answers) WriteOrderFlow(int orders,
        FileStoreSyncPolicy sync)
    {
        string path = _directory.File("flow.journal");
        var answers = new Dictionary<int, (int, byte[], long)>();
        long lastRecordsStart = 0;
        using (var store = new FileMessageStore(path, CreationTimeNs, new FileMessageStoreOptions { SyncPolicy = sync }))
        {
            for (int inbound = 1; inbound <= orders; inbound++)
            {
                Assert.Equal(inbound, store.NextTargetMsgSeqNum);
                if (inbound == orders) lastRecordsStart = store.JournalLengthInBytes;
                if (inbound % 5 != 0)
                {
                    int outSeq = store.NextSenderMsgSeqNum;
                    byte[] reply = StoreTestData.Message(outSeq, 90 + inbound * 7 % 41);
                    store.AppendAndIncrement(outSeq, reply, inbound);
                    answers[inbound] = (outSeq, reply, store.JournalLengthInBytes);
                }
                if (inbound != orders) store.IncrNextTargetMsgSeqNum();
            }
        }
        return (File.ReadAllBytes(path), lastRecordsStart, answers);
    }

    [Theory]
    [InlineData(StoreRecoveryPolicy.Refuse)]
    [InlineData(StoreRecoveryPolicy.RecoverAndGapFill)]
    public void ACutAtEveryByteOfTheLastRecordsLeavesNoAnsweredOrderUnanswered(StoreRecoveryPolicy policy)
    {
        const int Orders = 12;
        (byte[] journal, long lastStart, Dictionary<int, (int OutSeq, byte[] Reply, long End)> answers) = WriteOrderFlow(Orders, FileStoreSyncPolicy.OS);
        // From the start of the second-last answer to the end (answers, State records between them): every byte offset.
        var secondLast = answers[answers.Keys.OrderDescending().ElementAt(1)];
        long from = secondLast.End - RecordSize(secondLast.Reply);
        Assert.True(from < lastStart);
        int cases = 0;
        int redelivered = 0;
        for (long cut = from; cut <= journal.Length; cut++)
        {
            cases++;
            string path = _directory.File($"cut{cut}.journal");
            File.WriteAllBytes(path, journal.AsSpan(0, (int)cut).ToArray());
            using var store = new FileMessageStore(path, 5, new FileMessageStoreOptions { SyncPolicy = FileStoreSyncPolicy.OS, Recovery = policy });
            var stored = StoreTestData.ReadAll(store).ToDictionary(m => m.SeqNum, m => m.Bytes);
            int target = store.NextTargetMsgSeqNum;
            int processed = store.LastProcessedInboundSeqNum;
            for (int inbound = 1; inbound <= Orders; inbound++)
            {
                if (!answers.TryGetValue(inbound, out var answer)) continue;
                bool answerStored = stored.TryGetValue(answer.OutSeq, out byte[]? bytes) && bytes.AsSpan().SequenceEqual(answer.Reply);
                bool askedAgain = inbound >= target && inbound > processed;
                if (answer.End <= cut)
                {
                    // Written whole before the cut: a confirmed answer is never lost.
                    Assert.True(answerStored, $"cut {cut}: the confirmed answer to inbound {inbound} (MsgSeqNum {answer.OutSeq}) is gone");
                }
                else
                {
                    // Its answer is torn or missing: the inbound order must come again, never be taken as processed.
                    Assert.True(answerStored || askedAgain,
                        $"cut {cut}: inbound {inbound} lost its answer but is neither answered nor asked for again (next target {target}, processed {processed})");
                    if (!answerStored) redelivered++;
                }
            }
            // Never rewinds an outbound number that reached the file: the next sender is past every stored answer.
            Assert.True(stored.Count == 0 || store.NextSenderMsgSeqNum > stored.Keys.Max(), $"cut {cut}");
            // The recovery says what it did with a lost answer's mark.
            if (store.LastRecoveryReport is StoreRecoveryReport report && report.Damages.Any(d => d.ProcessedInboundNotKept != 0))
            {
                Assert.Contains("is not kept, it is asked for again", report.ToString());
            }
        }
        Assert.True(cases > 200, $"{cases} cuts");
        Assert.True(redelivered > 100, $"{redelivered} cuts asked for an order again");
    }

    private static long RecordSize(byte[] reply) => 80 + ((reply.Length + 7) & ~7);

    [Fact]
    public void TheIssueCaseFourRepliesTheFourthCutToItsHeadPlusTenBytes()
    {
        string path = _directory.File("four.journal");
        long fourthStart;
        using (var store = new FileMessageStore(path, CreationTimeNs, new FileMessageStoreOptions { SyncPolicy = FileStoreSyncPolicy.OS }))
        {
            fourthStart = 0;
            for (int inbound = 1; inbound <= 4; inbound++)
            {
                if (inbound == 4) fourthStart = store.JournalLengthInBytes;
                store.AppendAndIncrement(inbound, StoreTestData.Message(inbound, 200), inbound);
                if (inbound != 4) store.IncrNextTargetMsgSeqNum();
            }
        }
        byte[] journal = File.ReadAllBytes(path);
        File.WriteAllBytes(path, journal.AsSpan(0, (int)fourthStart + 40 + 10).ToArray());
        using var reopened = new FileMessageStore(path, 5, new FileMessageStoreOptions { SyncPolicy = FileStoreSyncPolicy.OS });
        Assert.Equal(3, reopened.LastProcessedInboundSeqNum);
        Assert.Equal(4, reopened.NextTargetMsgSeqNum);
        Assert.Equal(5, reopened.NextSenderMsgSeqNum);
        Assert.Equal([1, 2, 3], StoreTestData.ReadAll(reopened).Select(m => m.SeqNum));
        JournalDamage damage = Assert.Single(reopened.LastRecoveryReport!.Damages);
        Assert.Equal(4, damage.LostMessageSeqNum);
        Assert.Equal(4, damage.ProcessedInboundNotKept);
        Assert.Contains("the answer to inbound MsgSeqNum 4 may be lost", reopened.LastRecoveryReport.ToString());
    }
}
