using System;
using System.Linq;
using System.Text;
using FixEngine.Dictionary;
using FixEngine.Tests.Infrastructure;

namespace FixEngine.Tests.Dictionary;

[Collection(nameof(AllocationMeasurement))]
public sealed class DataDictionaryAllocationTests
{
    [Fact]
    public void LookupsDoNotAllocate()
    {
        DataDictionary dd = SharedDictionaryTests.Fix44;
        byte[] msgType = Encoding.ASCII.GetBytes("D");
        byte[] longMsgType = Encoding.ASCII.GetBytes("XXXXXXXXXXX");
        byte[] side = Encoding.ASCII.GetBytes("1");
        byte[] execInst = Encoding.ASCII.GetBytes("1 2 G");
        byte[] timestamp = Encoding.ASCII.GetBytes("20240102-03:04:05.678");
        // The warm-up runs as long as a measured window, so the loop's on-stack replacement and tier-up happen in it;
        // a one-time runtime effect can still land in one window, a per-lookup
        // allocation lands in all three: the least must be 0.
        int count = Run(dd, msgType, longMsgType, side, execInst, timestamp, 100_000);
        long[] allocated = new long[3];
        for (int w = 0; w < allocated.Length; w++)
        {
            long before = GC.GetAllocatedBytesForCurrentThread();
            count += Run(dd, msgType, longMsgType, side, execInst, timestamp, 100_000);
            allocated[w] = GC.GetAllocatedBytesForCurrentThread() - before;
        }

        Assert.True(allocated.Min() == 0, $"bytes allocated per 100,000-iteration window: {string.Join(", ", allocated)}");
        Assert.Equal(400_000 * 9, count);
    }

    private static int Run(DataDictionary dd, byte[] msgType, byte[] longMsgType, byte[] side, byte[] execInst, byte[] timestamp, int iterations)
    {
        int hits = 0;
        for (int i = 0; i < iterations; i++)
        {
            if (dd.IsDefinedField(11)) hits++;
            if (!dd.IsDefinedField(70000 + i)) hits++;
            MessageDefinition? m = dd.GetMessage(msgType);
            if (m is not null && m.IsAllowed(54)) hits++;
            if (dd.GetMessage(longMsgType) is null) hits++;
            if (dd.IsValidEnumValue(54, side)) hits++;
            if (dd.IsValidEnumValue(18, execInst)) hits++;
            if (m!.GetGroup(453) is not null) hits++;
            if (dd.IsHeaderField(52)) hits++;
            if (DataDictionary.ValidateFieldValueFormat(FixFieldType.UtcTimestamp, timestamp)) hits++;
        }
        return hits;
    }
}
