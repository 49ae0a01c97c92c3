using System;
using FixEngine.Codec;
using FixEngine.Tests.Infrastructure;

namespace FixEngine.Tests.Codec;

[Collection(nameof(AllocationMeasurement))]
public class CodecAllocationTests
{
    [Fact]
    public void FrameIndexReadAndEncodeAllocateNothingAfterWarmUp()
    {
        byte[] incoming = CodecSamples.ExecutionReport();
        byte[] outgoing = new byte[1024];
        var index = new FixMessageIndex();
        var cache = new UtcTimestampCache();
        var parties = new FixGroupDefinition(FixTags.NoPartyIDs, FixTags.PartyID, [FixTags.PartyIDSource, FixTags.PartyRole]);

        long checksum = RunLoop(incoming, outgoing, index, cache, parties, 1000);
        long best = Allocations.BestWindow(() => checksum += RunLoop(incoming, outgoing, index, cache, parties, 10_000));

        Assert.Equal(0, best);
        Assert.NotEqual(0, checksum);
    }

    private static long RunLoop(byte[] incoming, byte[] outgoing, FixMessageIndex index, UtcTimestampCache cache, FixGroupDefinition parties, int iterations)
    {
        long acc = 0;
        for (int i = 0; i < iterations; i++)
        {
            FrameResult frame = FixFramer.Frame(incoming, 4096);
            if (!frame.IsComplete) throw new InvalidOperationException(frame.Describe());
            ReadOnlySpan<byte> bytes = incoming.AsSpan(0, frame.Length);
            index.Parse(bytes);
            FixMessage m = index.Bind(bytes);
            acc += m.MsgType[0];
            m.TryGetInt(FixTags.MsgSeqNum, out int seq);
            m.TryGetSpan(FixTags.SenderCompID, out ReadOnlySpan<byte> sender);
            m.TryGetSpan(FixTags.TargetCompID, out ReadOnlySpan<byte> target);
            m.TryGetTimestamp(FixTags.SendingTime, out long sendingTime);
            m.TryGetSpan(FixTags.ClOrdID, out ReadOnlySpan<byte> clOrdId);
            m.TryGetSpan(FixTags.OrderID, out ReadOnlySpan<byte> orderId);
            m.TryGetSpan(FixTags.ExecID, out ReadOnlySpan<byte> execId);
            m.TryGetChar(FixTags.ExecType, out char execType);
            m.TryGetChar(FixTags.OrdStatus, out char ordStatus);
            m.TryGetSpan(FixTags.Symbol, out ReadOnlySpan<byte> symbol);
            m.TryGetChar(FixTags.Side, out char side);
            m.TryGetDecimal(FixTags.LastPx, out FixDecimal lastPx);
            m.TryGetLong(FixTags.LastQty, out long lastQty);
            m.TryGetDecimal(FixTags.LeavesQty, out FixDecimal leaves);
            m.TryGetTimestamp(FixTags.TransactTime, out long transactTime);
            foreach (FixMessage party in m.GetGroup(parties)) acc += party.Count;
            acc += seq + sender.Length + target.Length + sendingTime + clOrdId.Length + orderId.Length + execId.Length + execType + ordStatus
                + symbol.Length + side + lastPx.Mantissa + lastQty + leaves.Mantissa + transactTime;
            acc += CodecSamples.EncodeExecutionReport(outgoing, seq + i, cache);
        }
        return acc;
    }
}
