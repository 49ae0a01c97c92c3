using System.Runtime.InteropServices;
using System.Threading;

namespace FixEngine.Collections;

// Design:
// - One 64-bit value in a 128-byte (FalseSharingRange) struct, at offset 64 (CacheLineSize):
//
//     +0 ........ 56 bytes+ of padding ........ +64 value +72 ........ padding ........ +128
//
// - Why 128 bytes suffice for the 64-byte line. The runtime aligns objects, and so this struct inside
//   one, to 8 bytes only. Put the struct at any 8-aligned address B: the line holding the value starts
//   at the 64-aligned address L with B+64-64 < L <= B+64, so L >= B+8 and the line ends at
//   L+64 <= B+128. The value's whole line lies inside [B+8, B+128), i.e. inside the struct: no other
//   field, object header or neighbouring object ever shares the value's line, wherever the GC puts it.
//   (Any offset from 56 to 64 has this property; 64 is the one named by a constant.)
// - Consecutive PaddedLongs (SpscRing keeps six in a row) have their values exactly 128 bytes apart,
//   so they never share a line nor an aligned 128-byte pair of lines: adjacent-line prefetch (x64
//   pulls the 128-byte aligned pair) and cores with 128-byte lines cannot make them falsely share.
// - What it does not guarantee without 128-byte object alignment (which .NET does not offer): the
//   128-byte aligned pair (or 128-byte line) holding the value may extend up to 64 bytes beyond the
//   struct, so a field or object right next to a PaddedLong (not another PaddedLong) can sit in the
//   prefetch partner of the value's line. That costs an occasional extra line transfer, never
//   correctness, and closing it would take 264 bytes per value (docs/benchmarks/toolkit-codec-notes.md).
//   Where such a neighbour is written hot by another thread, put a PaddedLong (or other padding) between them.
// - A struct, so it lives inline in its owner; it must be stored in a non-readonly field and used
//   through that field (or by ref): a copy is a different counter.
// - Value is a plain access (single-writer fields read by their writer); VolatileValue gives
//   acquire/release for publishing to another thread; CompareExchange/IncrementAndGet are full fences.

/// <summary>A 64-bit value alone on its cache line: a 128-byte struct with the value at offset 64.</summary>
/// <remarks>
/// Thread-safety depends on the accessor: <see cref="Value"/> is a plain read/write, <see cref="VolatileValue"/>
/// has acquire/release semantics, <see cref="CompareExchange"/> and <see cref="IncrementAndGet"/> are atomic.
/// Keep it in a mutable field and call members on that field: copying the struct copies the value.
/// Never allocates.
/// <para>Part of FixEngine's reusable low-latency toolkit (with the other types of Buffers, Collections, Timing and
/// Hosting): public and supported for trading code to use on its own threads, independently of the FIX layers.</para>
/// </remarks>
[StructLayout(LayoutKind.Explicit, Size = Padding.FalseSharingRange)]
public struct PaddedLong
{
    /// <summary>Byte offset of the value inside the struct (one cache line: see the design notes).</summary>
    public const int ValueOffset = Padding.CacheLineSize;

    [FieldOffset(ValueOffset)]
    private long _value;

    /// <summary>Creates a padded value holding <paramref name="value"/>.</summary>
    /// <param name="value">Initial value.</param>
    public PaddedLong(long value) => _value = value;

    /// <summary>Plain (non-volatile) access; use from the single writer or when ordering does not matter.</summary>
    public long Value
    {
        readonly get => _value;
        set => _value = value;
    }

    /// <summary>Volatile access: the getter is an acquire read, the setter a release write.</summary>
    public long VolatileValue
    {
        get => Volatile.Read(ref _value);
        set => Volatile.Write(ref _value, value);
    }

    /// <summary>Atomically sets the value to <paramref name="value"/> if it equals <paramref name="comparand"/>.</summary>
    /// <param name="value">The value to store.</param>
    /// <param name="comparand">The value expected to be there.</param>
    /// <returns>The value held before the operation (equals <paramref name="comparand"/> on success).</returns>
    public long CompareExchange(long value, long comparand) => Interlocked.CompareExchange(ref _value, value, comparand);

    /// <summary>Atomically increments the value.</summary>
    /// <returns>The incremented value.</returns>
    public long IncrementAndGet() => Interlocked.Increment(ref _value);

    /// <summary>Atomically adds <paramref name="delta"/> to the value.</summary>
    /// <param name="delta">Amount to add.</param>
    /// <returns>The new value.</returns>
    public long AddAndGet(long delta) => Interlocked.Add(ref _value, delta);

    /// <summary>Returns the value as text (for debugging).</summary>
    /// <returns>The decimal value.</returns>
    public override readonly string ToString() => _value.ToString(System.Globalization.CultureInfo.InvariantCulture);
}
