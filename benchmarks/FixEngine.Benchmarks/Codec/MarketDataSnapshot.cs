using System;
using System.Runtime.CompilerServices;
using FixEngine.Codec;

namespace FixEngine.Benchmarks.Codec;

/// <summary>Large messages for the codec benchmarks: a FIX.4.4 MarketDataSnapshotFullRefresh (35=W) whose
/// NoMDEntries(268) group holds N book entries, each MDEntryType(269, bid/offer alternating), MDEntryPx(270),
/// MDEntrySize(271) and MDEntryPositionNo(290): 4 fields per entry, so 1,000 entries are 4,000+ fields (~27 KB).
/// Shared (linked) with the QuickFIX/n codec comparison, so both engines handle the same bytes.</summary>
public static class MarketDataSnapshot
{
    /// <summary>MDReqID.</summary>
    public const int MDReqID = 262;

    /// <summary>NoMDEntries (NumInGroup).</summary>
    public const int NoMDEntries = 268;

    /// <summary>MDEntryType: 0 bid, 1 offer.</summary>
    public const int MDEntryType = 269;

    /// <summary>MDEntryPx.</summary>
    public const int MDEntryPx = 270;

    /// <summary>MDEntrySize.</summary>
    public const int MDEntrySize = 271;

    /// <summary>MDEntryPositionNo.</summary>
    public const int MDEntryPositionNo = 290;

    /// <summary>The group's layout for <see cref="FixMessage.GetGroup"/>.</summary>
    public static readonly FixGroupDefinition Entries = new(NoMDEntries, MDEntryType,
        [MDEntryType, MDEntryPx, MDEntrySize, MDEntryPositionNo]);

    /// <summary>Fields in a snapshot of <paramref name="entries"/> entries (header, body, trailer).</summary>
    public static int FieldCount(int entries) => 11 + 4 * entries;

    /// <summary>A buffer large enough for a snapshot of <paramref name="entries"/> entries.</summary>
    public static int MaxLength(int entries) => 256 + 40 * entries;

    /// <summary>Entry i: bid (269=0) for even i, offer (269=1) for odd i, price 200.01 - 0.02 x level (bid) or 200.03 + 0.02 x level (offer; an odd last digit, so
    /// every engine reads the same scale back), size
    /// 100 x (level + 1), level i / 2 + 1.</summary>
    public static (char Type, FixDecimal Price, long Size, int Position) Entry(int i)
    {
        int level = i / 2;
        bool bid = (i & 1) == 0;
        return (bid ? '0' : '1', new FixDecimal(bid ? 20001 - 2 * level : 20003 + 2 * level, 2), 100L * (level + 1), level + 1);
    }

    /// <summary>Encodes the snapshot into <paramref name="buffer"/> (BodyLength and CheckSum computed); returns its
    /// length (0 when it does not fit).</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Encode(Span<byte> buffer, int entries, int seqNum, long nowNs, UtcTimestampCache cache)
    {
        var w = new FixWriter(buffer);
        w.Begin(BeginStrings.Fix44, MsgTypes.MarketDataSnapshotFullRefresh);
        w.Write(FixTags.MsgSeqNum, seqNum);
        w.Write(FixTags.SenderCompID, "MDSERVER"u8);
        w.WriteTimestamp(FixTags.SendingTime, nowNs, TimestampPrecision.Millis, cache);
        w.Write(FixTags.TargetCompID, "CLIENT12"u8);
        w.Write(MDReqID, "MDREQ-0001"u8);
        w.Write(FixTags.Symbol, "MSFT"u8);
        w.Write(NoMDEntries, entries);
        for (int i = 0; i < entries; i++)
        {
            int level = i >> 1;
            bool bid = (i & 1) == 0;
            w.Write(MDEntryType, bid ? '0' : '1');
            w.Write(MDEntryPx, new FixDecimal(bid ? 20001 - 2 * level : 20003 + 2 * level, 2));
            w.Write(MDEntrySize, 100L * (level + 1));
            w.Write(MDEntryPositionNo, level + 1);
        }
        return w.Finish();
    }

    /// <summary>Frames and indexes <paramref name="message"/>, then reads every entry's type, price and size through
    /// the group view; returns a checksum of what it read (0 when the message does not frame or index cleanly).</summary>
    /// <param name="message">The snapshot's bytes.</param>
    /// <param name="index">An index with room for <see cref="FieldCount"/> fields.</param>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static long Parse(ReadOnlySpan<byte> message, FixMessageIndex index)
    {
        FrameResult frame = FixFramer.Frame(message, message.Length);
        if (!frame.IsComplete) return 0;
        ReadOnlySpan<byte> bytes = message.Slice(0, frame.Length);
        if (!index.Parse(bytes)) return 0;
        FixMessage m = index.Bind(bytes);
        long acc = 0;
        if (m.TryGetSpan(FixTags.Symbol, out ReadOnlySpan<byte> symbol)) acc += symbol.Length;
        FixGroup group = m.GetGroup(Entries);
        if (group.Status != FixGroupStatus.Ok) return 0;
        foreach (FixMessage entry in group)
        {
            if (entry.TryGetChar(MDEntryType, out char type) == FixValueStatus.Ok) acc += type;
            if (entry.TryGetDecimal(MDEntryPx, out FixDecimal px) == FixValueStatus.Ok) acc += px.Mantissa;
            if (entry.TryGetLong(MDEntrySize, out long size) == FixValueStatus.Ok) acc += size;
        }
        return acc;
    }

    /// <summary>What <see cref="Parse"/> returns for a snapshot of <paramref name="entries"/> entries.</summary>
    public static long ExpectedParseSum(int entries)
    {
        long acc = 4; // "MSFT"
        for (int i = 0; i < entries; i++)
        {
            (char type, FixDecimal price, long size, _) = Entry(i);
            acc += type + price.Mantissa + size;
        }
        return acc;
    }
}
