using System.Runtime.InteropServices;
using System.Threading;

namespace FixEngine.Collections;

// Design:
// - One 64-bit value with FalseSharingRange (128) bytes of padding on each side, so whatever sits
//   before or after this struct (other fields of the owning object, the object header, a neighbouring
//   object) is never within 128 bytes of the value. Size = 128 + 8 + 128 = 264.
// - A struct, so it lives inline in its owner; it must be stored in a non-readonly field and used
//   through that field (or by ref): a copy is a different counter.
// - Value is a plain access (single-writer fields read by their writer); VolatileValue gives
//   acquire/release for publishing to another thread; CompareExchange/IncrementAndGet are full fences.

/// <summary>A 64-bit value isolated from its neighbours by false-sharing padding on both sides.</summary>
/// <remarks>
/// Thread-safety depends on the accessor: <see cref="Value"/> is a plain read/write, <see cref="VolatileValue"/>
/// has acquire/release semantics, <see cref="CompareExchange"/> and <see cref="IncrementAndGet"/> are atomic.
/// Keep it in a mutable field and call members on that field: copying the struct copies the value.
/// Never allocates.
/// </remarks>
[StructLayout(LayoutKind.Explicit, Size = ValueOffset + sizeof(long) + Padding.FalseSharingRange)]
public struct PaddedLong
{
    /// <summary>Byte offset of the value inside the struct (the padding before it).</summary>
    public const int ValueOffset = Padding.FalseSharingRange;

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
