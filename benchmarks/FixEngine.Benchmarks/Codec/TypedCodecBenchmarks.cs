using System;
using System.Runtime.CompilerServices;
using BenchmarkDotNet.Attributes;
using FixEngine.Codec;
using Fix44 = FixMessages.Fix44;

namespace FixEngine.Benchmarks.Codec;

/// <summary>
/// The generated typed API against the raw API on the same messages: encode and decode of the NewOrderSingle and the
/// ExecutionReport of <see cref="CodecBenchmarkMessages"/> (target: typed within 10% of raw, 0 B both). Typed encodes
/// through the body writer (X.Begin ... End, the party group entry by entry; TypedSpanGroup: the group as a span of
/// entry structs) and, as TypedArgs, through the named-argument Write; the InCallback rows
/// write the body through a `ref FixWriter` parameter as a Send callback does (LocalCopy: the callback copies the writer
/// into a local, writes through it and copies it back). Results: docs/benchmarks/typed-codec.md.
/// </summary>
[MemoryDiagnoser]
public class TypedCodecBenchmarks
{
    private static readonly Fix44.Groups.NoPartyIDs.Data[] s_parties =
    [
        new("BROKER-DESK-1"u8.ToArray()) { PartyIDSource = Fix44.PartyIDSource.Proprietary, PartyRole = Fix44.PartyRole.ExecutingFirm },
        new("CLIENT-TRADER-9"u8.ToArray()) { PartyIDSource = Fix44.PartyIDSource.Proprietary, PartyRole = (Fix44.PartyRole)11 },
        new("XNAS"u8.ToArray()) { PartyIDSource = Fix44.PartyIDSource.Mic, PartyRole = (Fix44.PartyRole)22 },
    ];

    private readonly byte[] _buffer = new byte[4096];
    private readonly UtcTimestampCache _cache = new();
    private readonly long _nowNs = CodecBenchmarkMessages.TransactTimeNs + 5_000_000;
    private readonly FixMessageIndex _index = new();
    private readonly FixGroupDefinition _parties = new(FixTags.NoPartyIDs, FixTags.PartyID, [FixTags.PartyIDSource, FixTags.PartyRole]);

    /// <summary>
    /// Checks that every encode row writes a whole message of the raw row's length: a typed body that End refused leaves
    /// the writer failed, and Finish then returns 0 without computing BodyLength and CheckSum, a shorter path that would
    /// pass for a faster encoder (a probe that drops an order-state update can do that; docs/benchmarks/typed-codec.md, round 6).
    /// </summary>
    [GlobalSetup]
    public void CheckRowsWriteTheSameMessage()
    {
        int order = RawEncodeNewOrderSingle();
        int report = RawEncodeExecutionReport();
        Check(nameof(TypedEncodeNewOrderSingle), TypedEncodeNewOrderSingle(), order);
        Check(nameof(TypedArgsEncodeNewOrderSingle), TypedArgsEncodeNewOrderSingle(), order);
        Check(nameof(RawEncodeNewOrderSingleInCallback), RawEncodeNewOrderSingleInCallback(), order);
        Check(nameof(TypedEncodeNewOrderSingleInCallback), TypedEncodeNewOrderSingleInCallback(), order);
        Check(nameof(TypedEncodeExecutionReport), TypedEncodeExecutionReport(), report);
        Check(nameof(TypedSpanGroupEncodeExecutionReport), TypedSpanGroupEncodeExecutionReport(), report);
        Check(nameof(TypedArgsEncodeExecutionReport), TypedArgsEncodeExecutionReport(), report);
        Check(nameof(RawEncodeExecutionReportInCallback), RawEncodeExecutionReportInCallback(), report);
        Check(nameof(TypedEncodeExecutionReportInCallback), TypedEncodeExecutionReportInCallback(), report);
        Check(nameof(RawLocalCopyEncodeExecutionReportInCallback), RawLocalCopyEncodeExecutionReportInCallback(), report);
        Check(nameof(TypedLocalCopyEncodeExecutionReportInCallback), TypedLocalCopyEncodeExecutionReportInCallback(), report);

        static void Check(string row, int length, int rawLength)
        {
            if (rawLength <= 0 || length != rawLength)
            {
                throw new InvalidOperationException($"{row} wrote {length} bytes where the raw row wrote {rawLength}: the rows do not encode the same message.");
            }
        }
    }

    [Benchmark(Baseline = true)]
    public int RawEncodeNewOrderSingle() => CodecBenchmarkMessages.EncodeNewOrderSingle(_buffer, 215, _nowNs, _cache);

    [Benchmark]
    public int TypedEncodeNewOrderSingle() => EncodeTypedNewOrderSingle(_buffer, 215, _nowNs, _cache);

    [Benchmark]
    public int TypedArgsEncodeNewOrderSingle() => EncodeTypedArgsNewOrderSingle(_buffer, 215, _nowNs, _cache);

    [Benchmark]
    public int RawEncodeExecutionReport() => CodecBenchmarkMessages.EncodeExecutionReport(_buffer, 4711, _nowNs, _cache);

    [Benchmark]
    public int TypedEncodeExecutionReport() => EncodeTypedExecutionReport(_buffer, 4711, _nowNs, _cache);

    [Benchmark]
    public int TypedSpanGroupEncodeExecutionReport() => EncodeTypedSpanGroupExecutionReport(_buffer, 4711, _nowNs, _cache);

    [Benchmark]
    public int TypedArgsEncodeExecutionReport() => EncodeTypedArgsExecutionReport(_buffer, 4711, _nowNs, _cache);

    // The body written through a `ref FixWriter` parameter, as in a session's Send callback (BodyWriter<TState>): there
    // the raw writer is in memory too, as the typed body writer's chain keeps it.
    [Benchmark]
    public int RawEncodeNewOrderSingleInCallback() => EncodeInCallback(_buffer, Fix44.NewOrderSingle.MsgType, 215, _nowNs, _cache, typed: false);

    [Benchmark]
    public int TypedEncodeNewOrderSingleInCallback() => EncodeInCallback(_buffer, Fix44.NewOrderSingle.MsgType, 215, _nowNs, _cache, typed: true);

    [Benchmark]
    public int RawEncodeExecutionReportInCallback() => EncodeInCallback(_buffer, Fix44.ExecutionReport.MsgType, 4711, _nowNs, _cache, typed: false);

    [Benchmark]
    public int TypedEncodeExecutionReportInCallback() => EncodeInCallback(_buffer, Fix44.ExecutionReport.MsgType, 4711, _nowNs, _cache, typed: true);

    [Benchmark]
    public int RawLocalCopyEncodeExecutionReportInCallback() => EncodeReportInLocalCopyCallback(_buffer, 4711, _nowNs, _cache, typed: false);

    [Benchmark]
    public int TypedLocalCopyEncodeExecutionReportInCallback() => EncodeReportInLocalCopyCallback(_buffer, 4711, _nowNs, _cache, typed: true);

    [Benchmark]
    public long RawDecodeNewOrderSingle() => RawDecodeOrder(CodecBenchmarkMessages.NewOrderSingle, _index);

    [Benchmark]
    public long TypedDecodeNewOrderSingle() => TypedDecodeOrder(CodecBenchmarkMessages.NewOrderSingle, _index);

    [Benchmark]
    public long RawDecodeExecutionReport() => RawDecodeReport(CodecBenchmarkMessages.ExecutionReport, _index, _parties);

    [Benchmark]
    public long TypedDecodeExecutionReport() => TypedDecodeReport(CodecBenchmarkMessages.ExecutionReport, _index);

    // NoInlining on each: the same compilation-root reason as CodecBenchmarkMessages.EncodeNewOrderSingle.
    // The typed body writer (X.Begin ... End), the fast typed path.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int EncodeTypedNewOrderSingle(Span<byte> buffer, int seqNum, long nowNs, UtcTimestampCache cache)
    {
        var w = new FixWriter(buffer);
        w.Begin(BeginStrings.Fix44, Fix44.NewOrderSingle.MsgType);
        w.Write(FixTags.MsgSeqNum, seqNum);
        w.Write(FixTags.SenderCompID, "CLIENT12"u8);
        w.WriteTimestamp(FixTags.SendingTime, nowNs, TimestampPrecision.Millis, cache);
        w.Write(FixTags.TargetCompID, "BROKER"u8);
        Fix44.NewOrderSingle.Begin(ref w)
            .ClOrdID("ORD-000123"u8)
            .Account("ACCOUNT-01"u8)
            .HandlInst(Fix44.HandlInst.AutomatedExecutionNoIntervention)
            .Symbol("MSFT"u8)
            .Side(Fix44.Side.Buy)
            .TransactTime(CodecBenchmarkMessages.TransactTime)
            .OrderQty(1000)
            .OrdType(Fix44.OrdType.Limit)
            .Price(new FixDecimal(10125, 2))
            .TimeInForce(Fix44.TimeInForce.Day)
            .End();
        return w.Finish();
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int EncodeTypedExecutionReport(Span<byte> buffer, int seqNum, long nowNs, UtcTimestampCache cache)
    {
        var w = new FixWriter(buffer);
        w.Begin(BeginStrings.Fix44, Fix44.ExecutionReport.MsgType);
        w.Write(FixTags.MsgSeqNum, seqNum);
        w.Write(FixTags.SenderCompID, "BROKER"u8);
        w.WriteTimestamp(FixTags.SendingTime, nowNs, TimestampPrecision.Millis, cache);
        w.Write(FixTags.TargetCompID, "CLIENT12"u8);
        Fix44.ExecutionReport.Begin(ref w)
            .OrderID("OID-000000009"u8)
            .ClOrdID("ORD-000123"u8)
            .NoPartyIDs(3)
                .PartyID("BROKER-DESK-1"u8).PartyIDSource(Fix44.PartyIDSource.Proprietary).PartyRole(Fix44.PartyRole.ExecutingFirm)
                .PartyID("CLIENT-TRADER-9"u8).PartyIDSource(Fix44.PartyIDSource.Proprietary).PartyRole((Fix44.PartyRole)11)
                .PartyID("XNAS"u8).PartyIDSource(Fix44.PartyIDSource.Mic).PartyRole((Fix44.PartyRole)22)
                .EndNoPartyIDs()
            .ExecID("EXEC-0000077"u8)
            .ExecType(Fix44.ExecType.Trade)
            .OrdStatus(Fix44.OrdStatus.PartiallyFilled)
            .Account("ACCOUNT-01"u8)
            .Symbol("MSFT"u8)
            .Side(Fix44.Side.Buy)
            .OrderQty(1000)
            .OrdType(Fix44.OrdType.Limit)
            .Price(new FixDecimal(10125, 2))
            .TimeInForce(Fix44.TimeInForce.Day)
            .LastQty(400)
            .LastPx(new FixDecimal(10125, 2))
            .LeavesQty(600)
            .CumQty(400)
            .AvgPx(new FixDecimal(10125, 2))
            .TransactTime(CodecBenchmarkMessages.TransactTime)
            .Text("partial fill on venue"u8)
            .End();
        return w.Finish();
    }

    // The party group as a span of entry structs (Groups.NoPartyIDs.Data), written by the generated WriteGroup loop.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int EncodeTypedSpanGroupExecutionReport(Span<byte> buffer, int seqNum, long nowNs, UtcTimestampCache cache)
    {
        var w = new FixWriter(buffer);
        w.Begin(BeginStrings.Fix44, Fix44.ExecutionReport.MsgType);
        w.Write(FixTags.MsgSeqNum, seqNum);
        w.Write(FixTags.SenderCompID, "BROKER"u8);
        w.WriteTimestamp(FixTags.SendingTime, nowNs, TimestampPrecision.Millis, cache);
        w.Write(FixTags.TargetCompID, "CLIENT12"u8);
        Fix44.ExecutionReport.Begin(ref w)
            .OrderID("OID-000000009"u8)
            .ClOrdID("ORD-000123"u8)
            .NoPartyIDs(s_parties)
            .ExecID("EXEC-0000077"u8)
            .ExecType(Fix44.ExecType.Trade)
            .OrdStatus(Fix44.OrdStatus.PartiallyFilled)
            .Account("ACCOUNT-01"u8)
            .Symbol("MSFT"u8)
            .Side(Fix44.Side.Buy)
            .OrderQty(1000)
            .OrdType(Fix44.OrdType.Limit)
            .Price(new FixDecimal(10125, 2))
            .TimeInForce(Fix44.TimeInForce.Day)
            .LastQty(400)
            .LastPx(new FixDecimal(10125, 2))
            .LeavesQty(600)
            .CumQty(400)
            .AvgPx(new FixDecimal(10125, 2))
            .TransactTime(CodecBenchmarkMessages.TransactTime)
            .Text("partial fill on venue"u8)
            .End();
        return w.Finish();
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int EncodeInCallback(Span<byte> buffer, ReadOnlySpan<byte> msgType, int seqNum, long nowNs, UtcTimestampCache cache, bool typed)
    {
        var w = new FixWriter(buffer);
        w.Begin(BeginStrings.Fix44, msgType);
        w.Write(FixTags.MsgSeqNum, seqNum);
        w.Write(FixTags.SenderCompID, "BROKER"u8);
        w.WriteTimestamp(FixTags.SendingTime, nowNs, TimestampPrecision.Millis, cache);
        w.Write(FixTags.TargetCompID, "CLIENT12"u8);
        bool isOrder = msgType[0] == (byte)'D';
        if (typed)
        {
            if (isOrder) TypedOrderBody(ref w);
            else TypedReportBody(ref w);
        }
        else
        {
            if (isOrder) RawOrderBody(ref w);
            else RawReportBody(ref w);
        }
        return w.Finish();
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int EncodeReportInLocalCopyCallback(Span<byte> buffer, int seqNum, long nowNs, UtcTimestampCache cache, bool typed)
    {
        var w = new FixWriter(buffer);
        w.Begin(BeginStrings.Fix44, Fix44.ExecutionReport.MsgType);
        w.Write(FixTags.MsgSeqNum, seqNum);
        w.Write(FixTags.SenderCompID, "BROKER"u8);
        w.WriteTimestamp(FixTags.SendingTime, nowNs, TimestampPrecision.Millis, cache);
        w.Write(FixTags.TargetCompID, "CLIENT12"u8);
        if (typed) TypedReportBodyLocal(ref w);
        else RawReportBodyLocal(ref w);
        return w.Finish();
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void RawOrderBody(ref FixWriter w)
    {
        w.Write(FixTags.Account, "ACCOUNT-01"u8);
        w.Write(FixTags.ClOrdID, "ORD-000123"u8);
        w.Write(FixTags.HandlInst, '1');
        w.Write(FixTags.OrderQty, 1000);
        w.Write(FixTags.OrdType, '2');
        w.Write(FixTags.Price, new FixDecimal(10125, 2));
        w.Write(FixTags.Side, '1');
        w.Write(FixTags.Symbol, "MSFT"u8);
        w.Write(FixTags.TimeInForce, '0');
        w.WriteTimestamp(FixTags.TransactTime, CodecBenchmarkMessages.TransactTimeNs, TimestampPrecision.Millis);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void TypedOrderBody(ref FixWriter w) =>
        Fix44.NewOrderSingle.Begin(ref w)
            .ClOrdID("ORD-000123"u8)
            .Account("ACCOUNT-01"u8)
            .HandlInst(Fix44.HandlInst.AutomatedExecutionNoIntervention)
            .Symbol("MSFT"u8)
            .Side(Fix44.Side.Buy)
            .TransactTime(CodecBenchmarkMessages.TransactTime)
            .OrderQty(1000)
            .OrdType(Fix44.OrdType.Limit)
            .Price(new FixDecimal(10125, 2))
            .TimeInForce(Fix44.TimeInForce.Day)
            .End();

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void RawReportBody(ref FixWriter w) => RawReportChain(ref w);

    // The local-copy shape (round 8): the callee copies the writer into a local, writes the body through the local and
    // copies it back, so the body's writes work on a local the JIT can keep in registers.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void RawReportBodyLocal(ref FixWriter writer)
    {
        var w = writer;
        RawReportChain(ref w);
        writer = w;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void TypedReportBodyLocal(ref FixWriter writer)
    {
        var w = writer;
        TypedReportChain(ref w);
        writer = w;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void RawReportChain(ref FixWriter w)
    {
        w.Write(FixTags.Account, "ACCOUNT-01"u8);
        w.Write(FixTags.AvgPx, new FixDecimal(10125, 2));
        w.Write(FixTags.ClOrdID, "ORD-000123"u8);
        w.Write(FixTags.CumQty, 400);
        w.Write(FixTags.ExecID, "EXEC-0000077"u8);
        w.Write(FixTags.LastPx, new FixDecimal(10125, 2));
        w.Write(FixTags.LastQty, 400);
        w.Write(FixTags.OrderID, "OID-000000009"u8);
        w.Write(FixTags.OrderQty, 1000);
        w.Write(FixTags.OrdStatus, '1');
        w.Write(FixTags.OrdType, '2');
        w.Write(FixTags.Price, new FixDecimal(10125, 2));
        w.Write(FixTags.Side, '1');
        w.Write(FixTags.Symbol, "MSFT"u8);
        w.Write(FixTags.TimeInForce, '0');
        w.WriteTimestamp(FixTags.TransactTime, CodecBenchmarkMessages.TransactTimeNs, TimestampPrecision.Millis);
        w.Write(FixTags.ExecType, 'F');
        w.Write(FixTags.LeavesQty, 600);
        w.Write(FixTags.NoPartyIDs, 3);
        w.Write(FixTags.PartyID, "BROKER-DESK-1"u8);
        w.Write(FixTags.PartyIDSource, 'D');
        w.Write(FixTags.PartyRole, 1);
        w.Write(FixTags.PartyID, "CLIENT-TRADER-9"u8);
        w.Write(FixTags.PartyIDSource, 'D');
        w.Write(FixTags.PartyRole, 11);
        w.Write(FixTags.PartyID, "XNAS"u8);
        w.Write(FixTags.PartyIDSource, 'G');
        w.Write(FixTags.PartyRole, 22);
        w.Write(FixTags.Text, "partial fill on venue"u8);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void TypedReportBody(ref FixWriter w) => TypedReportChain(ref w);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void TypedReportChain(ref FixWriter w) =>
        Fix44.ExecutionReport.Begin(ref w)
            .OrderID("OID-000000009"u8)
            .ClOrdID("ORD-000123"u8)
            .NoPartyIDs(3)
                .PartyID("BROKER-DESK-1"u8).PartyIDSource(Fix44.PartyIDSource.Proprietary).PartyRole(Fix44.PartyRole.ExecutingFirm)
                .PartyID("CLIENT-TRADER-9"u8).PartyIDSource(Fix44.PartyIDSource.Proprietary).PartyRole((Fix44.PartyRole)11)
                .PartyID("XNAS"u8).PartyIDSource(Fix44.PartyIDSource.Mic).PartyRole((Fix44.PartyRole)22)
                .EndNoPartyIDs()
            .ExecID("EXEC-0000077"u8)
            .ExecType(Fix44.ExecType.Trade)
            .OrdStatus(Fix44.OrdStatus.PartiallyFilled)
            .Account("ACCOUNT-01"u8)
            .Symbol("MSFT"u8)
            .Side(Fix44.Side.Buy)
            .OrderQty(1000)
            .OrdType(Fix44.OrdType.Limit)
            .Price(new FixDecimal(10125, 2))
            .TimeInForce(Fix44.TimeInForce.Day)
            .LastQty(400)
            .LastPx(new FixDecimal(10125, 2))
            .LeavesQty(600)
            .CumQty(400)
            .AvgPx(new FixDecimal(10125, 2))
            .TransactTime(CodecBenchmarkMessages.TransactTime)
            .Text("partial fill on venue"u8)
            .End();

    // The named-argument Write (every optional field is a parameter): the API the body writer was added beside.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int EncodeTypedArgsNewOrderSingle(Span<byte> buffer, int seqNum, long nowNs, UtcTimestampCache cache)
    {
        var w = new FixWriter(buffer);
        w.Begin(BeginStrings.Fix44, Fix44.NewOrderSingle.MsgType);
        w.Write(FixTags.MsgSeqNum, seqNum);
        w.Write(FixTags.SenderCompID, "CLIENT12"u8);
        w.WriteTimestamp(FixTags.SendingTime, nowNs, TimestampPrecision.Millis, cache);
        w.Write(FixTags.TargetCompID, "BROKER"u8);
        Fix44.NewOrderSingle.Write(ref w, clOrdID: "ORD-000123"u8, side: Fix44.Side.Buy, transactTime: CodecBenchmarkMessages.TransactTime,
            ordType: Fix44.OrdType.Limit, account: "ACCOUNT-01"u8, handlInst: Fix44.HandlInst.AutomatedExecutionNoIntervention,
            symbol: "MSFT"u8, orderQty: new FixDecimal(1000, 0), price: new FixDecimal(10125, 2), timeInForce: Fix44.TimeInForce.Day);
        return w.Finish();
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int EncodeTypedArgsExecutionReport(Span<byte> buffer, int seqNum, long nowNs, UtcTimestampCache cache)
    {
        var w = new FixWriter(buffer);
        w.Begin(BeginStrings.Fix44, Fix44.ExecutionReport.MsgType);
        w.Write(FixTags.MsgSeqNum, seqNum);
        w.Write(FixTags.SenderCompID, "BROKER"u8);
        w.WriteTimestamp(FixTags.SendingTime, nowNs, TimestampPrecision.Millis, cache);
        w.Write(FixTags.TargetCompID, "CLIENT12"u8);
        Fix44.ExecutionReport.Write(ref w, orderID: "OID-000000009"u8, execID: "EXEC-0000077"u8, execType: Fix44.ExecType.Trade,
            ordStatus: Fix44.OrdStatus.PartiallyFilled, side: Fix44.Side.Buy, leavesQty: new FixDecimal(600, 0), cumQty: new FixDecimal(400, 0),
            avgPx: new FixDecimal(10125, 2), clOrdID: "ORD-000123"u8, noPartyIDs: s_parties, account: "ACCOUNT-01"u8, symbol: "MSFT"u8,
            orderQty: new FixDecimal(1000, 0), ordType: Fix44.OrdType.Limit, price: new FixDecimal(10125, 2), timeInForce: Fix44.TimeInForce.Day,
            lastQty: new FixDecimal(400, 0), lastPx: new FixDecimal(10125, 2), transactTime: CodecBenchmarkMessages.TransactTime,
            text: "partial fill on venue"u8);
        return w.Finish();
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static long RawDecodeOrder(byte[] bytes, FixMessageIndex index)
    {
        index.Parse(bytes);
        FixMessage m = index.Bind(bytes);
        m.TryGetSpan(FixTags.ClOrdID, out ReadOnlySpan<byte> clOrdId);
        m.TryGetSpan(FixTags.Account, out ReadOnlySpan<byte> account);
        m.TryGetSpan(FixTags.Symbol, out ReadOnlySpan<byte> symbol);
        m.TryGetChar(FixTags.Side, out char side);
        m.TryGetChar(FixTags.OrdType, out char ordType);
        m.TryGetChar(FixTags.TimeInForce, out char tif);
        m.TryGetDecimal(FixTags.OrderQty, out FixDecimal qty);
        m.TryGetDecimal(FixTags.Price, out FixDecimal price);
        m.TryGetTimestamp(FixTags.TransactTime, out long transact);
        m.TryGetInt(FixTags.MsgSeqNum, out int seq);
        return clOrdId.Length + account.Length + symbol.Length + side + ordType + tif + qty.Mantissa + price.Mantissa + transact + seq;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static long TypedDecodeOrder(byte[] bytes, FixMessageIndex index)
    {
        index.Parse(bytes);
        var m = new Fix44.NewOrderSingle.Reader(index.Bind(bytes));
        return m.ClOrdID.Length + m.Account.Length + m.Symbol.Length + (byte)m.Side + (byte)m.OrdType + (byte)m.TimeInForce.GetValueOrDefault()
            + m.OrderQty.GetValueOrDefault().Mantissa + m.Price.GetValueOrDefault().Mantissa + m.TransactTimeNs + m.Header.MsgSeqNum;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static long RawDecodeReport(byte[] bytes, FixMessageIndex index, FixGroupDefinition parties)
    {
        index.Parse(bytes);
        FixMessage m = index.Bind(bytes);
        m.TryGetSpan(FixTags.ClOrdID, out ReadOnlySpan<byte> clOrdId);
        m.TryGetSpan(FixTags.OrderID, out ReadOnlySpan<byte> orderId);
        m.TryGetSpan(FixTags.ExecID, out ReadOnlySpan<byte> execId);
        m.TryGetChar(FixTags.ExecType, out char execType);
        m.TryGetChar(FixTags.OrdStatus, out char ordStatus);
        m.TryGetChar(FixTags.Side, out char side);
        m.TryGetDecimal(FixTags.LastPx, out FixDecimal lastPx);
        m.TryGetDecimal(FixTags.LastQty, out FixDecimal lastQty);
        m.TryGetDecimal(FixTags.LeavesQty, out FixDecimal leaves);
        m.TryGetTimestamp(FixTags.TransactTime, out long transact);
        long sum = clOrdId.Length + orderId.Length + execId.Length + execType + ordStatus + side + lastPx.Mantissa + lastQty.Mantissa + leaves.Mantissa + transact;
        foreach (FixMessage party in m.GetGroup(parties))
        {
            party.TryGetSpan(FixTags.PartyID, out ReadOnlySpan<byte> id);
            party.TryGetInt(FixTags.PartyRole, out int role);
            sum += id.Length + role;
        }
        return sum;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static long TypedDecodeReport(byte[] bytes, FixMessageIndex index)
    {
        index.Parse(bytes);
        var m = new Fix44.ExecutionReport.Reader(index.Bind(bytes));
        long sum = m.ClOrdID.Length + m.OrderID.Length + m.ExecID.Length + (byte)m.ExecType + (byte)m.OrdStatus + (byte)m.Side
            + m.LastPx.GetValueOrDefault().Mantissa + m.LastQty.GetValueOrDefault().Mantissa + m.LeavesQty.Mantissa + m.TransactTimeNs.GetValueOrDefault();
        foreach (Fix44.Groups.NoPartyIDs.Entry party in m.NoPartyIDs) sum += party.PartyID.Length + (int)party.PartyRole.GetValueOrDefault();
        return sum;
    }
}
