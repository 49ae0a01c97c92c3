using System;
using System.Runtime.CompilerServices;
using BenchmarkDotNet.Attributes;
using FixEngine.Codec;
using Fix44 = FixMessages.Fix44;

namespace FixEngine.Benchmarks.Codec;

/// <summary>
/// The ExecutionReport of <see cref="TypedCodecBenchmarks"/> encoded raw and typed with its values read at run time from
/// an object, as an application's values are (prices, quantities, identifiers and times change per message). In
/// <see cref="TypedCodecBenchmarks"/> every value is a constant in the encode method, so where the JIT inlines a number
/// or timestamp formatter it also folds it over the constant, and which side gets that depends on which side has inlining
/// budget left (the typed chain's views and order checks use more of it): the comparison then measures the inliner.
/// Three shapes, as there: a local writer in one method, the body through a <c>ref FixWriter</c> (a Send callback), and
/// that callback copying the writer into a local and back (LocalCopy). Raw is written twice: in tag order (the rows
/// without "DictOrder") and in the dictionary's order (<c>RawDictOrder...</c>), which is the typed writer's order, so those
/// rows write byte for byte the typed rows' message: the like-for-like comparison (the order alone moves raw by several
/// ns). Results: docs/benchmarks/typed-codec.md, rounds 8 and 9.
/// </summary>
[MemoryDiagnoser]
public class TypedCodecRuntimeValuesBenchmarks
{
    private readonly byte[] _buffer = new byte[4096];
    private readonly UtcTimestampCache _cache = new();
    private readonly long _nowNs = CodecBenchmarkMessages.TransactTimeNs + 5_000_000;
    private readonly ReportValues _values = new();

    /// <summary>Checks that every row writes the constant ExecutionReport's fields (same values, same length; typed in
    /// dictionary order, the tag-order raw rows in tag order), and that each DictOrder row writes its typed row's bytes
    /// exactly.</summary>
    [GlobalSetup]
    public void CheckRowsWriteTheSameMessage()
    {
        int expected = CodecBenchmarkMessages.EncodeExecutionReport(_buffer, 4711, _nowNs, _cache);
        Check(nameof(RawEncodeExecutionReportValues), RawEncodeExecutionReportValues());
        Check(nameof(TypedEncodeExecutionReportValues), TypedEncodeExecutionReportValues());
        Check(nameof(RawEncodeExecutionReportValuesInCallback), RawEncodeExecutionReportValuesInCallback());
        Check(nameof(TypedEncodeExecutionReportValuesInCallback), TypedEncodeExecutionReportValuesInCallback());
        Check(nameof(RawLocalCopyEncodeExecutionReportValuesInCallback), RawLocalCopyEncodeExecutionReportValuesInCallback());
        Check(nameof(TypedLocalCopyEncodeExecutionReportValuesInCallback), TypedLocalCopyEncodeExecutionReportValuesInCallback());
        // The dictionary-order raw rows must write their typed rows' bytes, not only as many (so no length check of their own).
        Same(nameof(RawDictOrderEncodeExecutionReportValues), RawDictOrderEncodeExecutionReportValues, nameof(TypedEncodeExecutionReportValues), TypedEncodeExecutionReportValues);
        Same(nameof(RawDictOrderEncodeExecutionReportValuesInCallback), RawDictOrderEncodeExecutionReportValuesInCallback, nameof(TypedEncodeExecutionReportValuesInCallback), TypedEncodeExecutionReportValuesInCallback);
        Same(nameof(RawDictOrderLocalCopyEncodeExecutionReportValuesInCallback), RawDictOrderLocalCopyEncodeExecutionReportValuesInCallback, nameof(TypedLocalCopyEncodeExecutionReportValuesInCallback), TypedLocalCopyEncodeExecutionReportValuesInCallback);

        void Same(string rawRow, Func<int> raw, string typedRow, Func<int> typed)
        {
            byte[] rawBytes = _buffer.AsSpan(0, raw()).ToArray();
            byte[] typedBytes = _buffer.AsSpan(0, typed()).ToArray();
            if (!rawBytes.AsSpan().SequenceEqual(typedBytes))
            {
                throw new InvalidOperationException($"{rawRow} and {typedRow} wrote different messages: {System.Text.Encoding.ASCII.GetString(rawBytes)} | {System.Text.Encoding.ASCII.GetString(typedBytes)}");
            }
        }

        void Check(string row, int length)
        {
            if (expected <= 0 || length != expected)
            {
                throw new InvalidOperationException($"{row} wrote {length} bytes where the constant raw ExecutionReport has {expected}: the rows do not encode the same message.");
            }
        }
    }

    [Benchmark(Baseline = true)]
    public int RawEncodeExecutionReportValues() => EncodeRaw(_buffer, 4711, _nowNs, _cache, _values);

    /// <summary>Raw, local writer, fields in the dictionary's order (the typed row's bytes).</summary>
    [Benchmark]
    public int RawDictOrderEncodeExecutionReportValues() => EncodeRawDictOrder(_buffer, 4711, _nowNs, _cache, _values);

    [Benchmark]
    public int TypedEncodeExecutionReportValues() => EncodeTyped(_buffer, 4711, _nowNs, _cache, _values);

    [Benchmark]
    public int RawEncodeExecutionReportValuesInCallback() => EncodeInCallback(_buffer, 4711, _nowNs, _cache, _values, Shape.RawRef);

    /// <summary>Raw through a <c>ref FixWriter</c>, fields in the dictionary's order (the typed row's bytes).</summary>
    [Benchmark]
    public int RawDictOrderEncodeExecutionReportValuesInCallback() => EncodeInCallback(_buffer, 4711, _nowNs, _cache, _values, Shape.RawDictOrderRef);

    [Benchmark]
    public int TypedEncodeExecutionReportValuesInCallback() => EncodeInCallback(_buffer, 4711, _nowNs, _cache, _values, Shape.TypedRef);

    [Benchmark]
    public int RawLocalCopyEncodeExecutionReportValuesInCallback() => EncodeInCallback(_buffer, 4711, _nowNs, _cache, _values, Shape.RawLocalCopy);

    /// <summary>Raw, callback with a local copy, fields in the dictionary's order (the typed row's bytes).</summary>
    [Benchmark]
    public int RawDictOrderLocalCopyEncodeExecutionReportValuesInCallback() => EncodeInCallback(_buffer, 4711, _nowNs, _cache, _values, Shape.RawDictOrderLocalCopy);

    [Benchmark]
    public int TypedLocalCopyEncodeExecutionReportValuesInCallback() => EncodeInCallback(_buffer, 4711, _nowNs, _cache, _values, Shape.TypedLocalCopy);

    private enum Shape
    {
        RawRef,
        RawDictOrderRef,
        TypedRef,
        RawLocalCopy,
        RawDictOrderLocalCopy,
        TypedLocalCopy,
    }

    /// <summary>An ExecutionReport's values as an application holds them (the same as the constant rows').</summary>
    private sealed class ReportValues
    {
        public readonly byte[] OrderId = "OID-000000009"u8.ToArray();
        public readonly byte[] ClOrdId = "ORD-000123"u8.ToArray();
        public readonly byte[] ExecId = "EXEC-0000077"u8.ToArray();
        public readonly byte[] Account = "ACCOUNT-01"u8.ToArray();
        public readonly byte[] Symbol = "MSFT"u8.ToArray();
        public readonly byte[] Text = "partial fill on venue"u8.ToArray();
        public readonly byte[] Party1 = "BROKER-DESK-1"u8.ToArray();
        public readonly byte[] Party2 = "CLIENT-TRADER-9"u8.ToArray();
        public readonly byte[] Party3 = "XNAS"u8.ToArray();
        public Fix44.PartyIDSource Source1 = Fix44.PartyIDSource.Proprietary, Source2 = Fix44.PartyIDSource.Proprietary, Source3 = Fix44.PartyIDSource.Mic;
        public Fix44.PartyRole Role1 = Fix44.PartyRole.ExecutingFirm, Role2 = (Fix44.PartyRole)11, Role3 = (Fix44.PartyRole)22;
        public Fix44.ExecType ExecType = Fix44.ExecType.Trade;
        public Fix44.OrdStatus OrdStatus = Fix44.OrdStatus.PartiallyFilled;
        public Fix44.Side Side = Fix44.Side.Buy;
        public Fix44.OrdType OrdType = Fix44.OrdType.Limit;
        public Fix44.TimeInForce TimeInForce = Fix44.TimeInForce.Day;
        public FixDecimal Price = new(10125, 2), LastPx = new(10125, 2), AvgPx = new(10125, 2);
        public int OrderQty = 1000, LastQty = 400, LeavesQty = 600, CumQty = 400;
        public long TransactTimeNs = CodecBenchmarkMessages.TransactTimeNs;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void Header(ref FixWriter w, int seqNum, long nowNs, UtcTimestampCache cache)
    {
        w.Begin(BeginStrings.Fix44, Fix44.ExecutionReport.MsgType);
        w.Write(FixTags.MsgSeqNum, seqNum);
        w.Write(FixTags.SenderCompID, "BROKER"u8);
        w.WriteTimestamp(FixTags.SendingTime, nowNs, TimestampPrecision.Millis, cache);
        w.Write(FixTags.TargetCompID, "CLIENT12"u8);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int EncodeRaw(Span<byte> buffer, int seqNum, long nowNs, UtcTimestampCache cache, ReportValues v)
    {
        var w = new FixWriter(buffer);
        Header(ref w, seqNum, nowNs, cache);
        RawBody(ref w, v);
        return w.Finish();
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int EncodeRawDictOrder(Span<byte> buffer, int seqNum, long nowNs, UtcTimestampCache cache, ReportValues v)
    {
        var w = new FixWriter(buffer);
        Header(ref w, seqNum, nowNs, cache);
        RawDictOrderBody(ref w, v);
        return w.Finish();
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int EncodeTyped(Span<byte> buffer, int seqNum, long nowNs, UtcTimestampCache cache, ReportValues v)
    {
        var w = new FixWriter(buffer);
        Header(ref w, seqNum, nowNs, cache);
        TypedBody(ref w, v);
        return w.Finish();
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int EncodeInCallback(Span<byte> buffer, int seqNum, long nowNs, UtcTimestampCache cache, ReportValues v, Shape shape)
    {
        var w = new FixWriter(buffer);
        Header(ref w, seqNum, nowNs, cache);
        switch (shape)
        {
            case Shape.RawRef: RawBodyRef(ref w, v); break;
            case Shape.RawDictOrderRef: RawDictOrderBodyRef(ref w, v); break;
            case Shape.TypedRef: TypedBodyRef(ref w, v); break;
            case Shape.RawLocalCopy: RawBodyLocalCopy(ref w, v); break;
            case Shape.RawDictOrderLocalCopy: RawDictOrderBodyLocalCopy(ref w, v); break;
            default: TypedBodyLocalCopy(ref w, v); break;
        }
        return w.Finish();
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void RawBodyRef(ref FixWriter w, ReportValues v) => RawBody(ref w, v);

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void RawDictOrderBodyRef(ref FixWriter w, ReportValues v) => RawDictOrderBody(ref w, v);

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void TypedBodyRef(ref FixWriter w, ReportValues v) => TypedBody(ref w, v);

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void RawBodyLocalCopy(ref FixWriter writer, ReportValues v)
    {
        var w = writer;
        RawBody(ref w, v);
        writer = w;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void RawDictOrderBodyLocalCopy(ref FixWriter writer, ReportValues v)
    {
        var w = writer;
        RawDictOrderBody(ref w, v);
        writer = w;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void TypedBodyLocalCopy(ref FixWriter writer, ReportValues v)
    {
        var w = writer;
        TypedBody(ref w, v);
        writer = w;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void RawBody(ref FixWriter w, ReportValues v)
    {
        w.Write(FixTags.Account, v.Account);
        w.Write(FixTags.AvgPx, v.AvgPx);
        w.Write(FixTags.ClOrdID, v.ClOrdId);
        w.Write(FixTags.CumQty, v.CumQty);
        w.Write(FixTags.ExecID, v.ExecId);
        w.Write(FixTags.LastPx, v.LastPx);
        w.Write(FixTags.LastQty, v.LastQty);
        w.Write(FixTags.OrderID, v.OrderId);
        w.Write(FixTags.OrderQty, v.OrderQty);
        w.Write(FixTags.OrdStatus, (char)(byte)v.OrdStatus);
        w.Write(FixTags.OrdType, (char)(byte)v.OrdType);
        w.Write(FixTags.Price, v.Price);
        w.Write(FixTags.Side, (char)(byte)v.Side);
        w.Write(FixTags.Symbol, v.Symbol);
        w.Write(FixTags.TimeInForce, (char)(byte)v.TimeInForce);
        w.WriteTimestamp(FixTags.TransactTime, v.TransactTimeNs, TimestampPrecision.Millis);
        w.Write(FixTags.ExecType, (char)(byte)v.ExecType);
        w.Write(FixTags.LeavesQty, v.LeavesQty);
        w.Write(FixTags.NoPartyIDs, 3);
        w.Write(FixTags.PartyID, v.Party1);
        w.Write(FixTags.PartyIDSource, (char)(byte)v.Source1);
        w.Write(FixTags.PartyRole, (int)v.Role1);
        w.Write(FixTags.PartyID, v.Party2);
        w.Write(FixTags.PartyIDSource, (char)(byte)v.Source2);
        w.Write(FixTags.PartyRole, (int)v.Role2);
        w.Write(FixTags.PartyID, v.Party3);
        w.Write(FixTags.PartyIDSource, (char)(byte)v.Source3);
        w.Write(FixTags.PartyRole, (int)v.Role3);
        w.Write(FixTags.Text, v.Text);
    }

    /// <summary>The raw body in the dictionary's order, as <see cref="TypedBody"/> writes it.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void RawDictOrderBody(ref FixWriter w, ReportValues v)
    {
        w.Write(FixTags.OrderID, v.OrderId);
        w.Write(FixTags.ClOrdID, v.ClOrdId);
        w.Write(FixTags.NoPartyIDs, 3);
        w.Write(FixTags.PartyID, v.Party1);
        w.Write(FixTags.PartyIDSource, (char)(byte)v.Source1);
        w.Write(FixTags.PartyRole, (int)v.Role1);
        w.Write(FixTags.PartyID, v.Party2);
        w.Write(FixTags.PartyIDSource, (char)(byte)v.Source2);
        w.Write(FixTags.PartyRole, (int)v.Role2);
        w.Write(FixTags.PartyID, v.Party3);
        w.Write(FixTags.PartyIDSource, (char)(byte)v.Source3);
        w.Write(FixTags.PartyRole, (int)v.Role3);
        w.Write(FixTags.ExecID, v.ExecId);
        w.Write(FixTags.ExecType, (char)(byte)v.ExecType);
        w.Write(FixTags.OrdStatus, (char)(byte)v.OrdStatus);
        w.Write(FixTags.Account, v.Account);
        w.Write(FixTags.Symbol, v.Symbol);
        w.Write(FixTags.Side, (char)(byte)v.Side);
        w.Write(FixTags.OrderQty, v.OrderQty);
        w.Write(FixTags.OrdType, (char)(byte)v.OrdType);
        w.Write(FixTags.Price, v.Price);
        w.Write(FixTags.TimeInForce, (char)(byte)v.TimeInForce);
        w.Write(FixTags.LastQty, v.LastQty);
        w.Write(FixTags.LastPx, v.LastPx);
        w.Write(FixTags.LeavesQty, v.LeavesQty);
        w.Write(FixTags.CumQty, v.CumQty);
        w.Write(FixTags.AvgPx, v.AvgPx);
        w.WriteTimestamp(FixTags.TransactTime, v.TransactTimeNs, TimestampPrecision.Millis);
        w.Write(FixTags.Text, v.Text);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void TypedBody(ref FixWriter w, ReportValues v) =>
        Fix44.ExecutionReport.Begin(ref w)
            .OrderID(v.OrderId)
            .ClOrdID(v.ClOrdId)
            .NoPartyIDs(3)
                .PartyID(v.Party1).PartyIDSource(v.Source1).PartyRole(v.Role1)
                .PartyID(v.Party2).PartyIDSource(v.Source2).PartyRole(v.Role2)
                .PartyID(v.Party3).PartyIDSource(v.Source3).PartyRole(v.Role3)
                .EndNoPartyIDs()
            .ExecID(v.ExecId)
            .ExecType(v.ExecType)
            .OrdStatus(v.OrdStatus)
            .Account(v.Account)
            .Symbol(v.Symbol)
            .Side(v.Side)
            .OrderQty(v.OrderQty)
            .OrdType(v.OrdType)
            .Price(v.Price)
            .TimeInForce(v.TimeInForce)
            .LastQty(v.LastQty)
            .LastPx(v.LastPx)
            .LeavesQty(v.LeavesQty)
            .CumQty(v.CumQty)
            .AvgPx(v.AvgPx)
            .TransactTime(FixTimestamp.FromUnixNanoseconds(v.TransactTimeNs))
            .Text(v.Text)
            .End();
}
