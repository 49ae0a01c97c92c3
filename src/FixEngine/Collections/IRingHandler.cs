using System;

namespace FixEngine.Collections;

/// <summary>Receives items drained from a <see cref="SpscRing{T}"/>.</summary>
/// <typeparam name="T">The item type.</typeparam>
/// <remarks>
/// Implement on a struct and pass it by <c>ref</c> so the JIT specialises the drain loop and no delegate is allocated.
/// </remarks>
public interface IRingHandler<T>
{
    /// <summary>Called once per item, in order, on the consumer thread.</summary>
    /// <param name="item">The item; the ring slot is cleared after the call returns.</param>
    void OnItem(in T item);
}

/// <summary>Receives records read in place from a <see cref="SpscByteRing"/>.</summary>
/// <remarks>
/// Implement on a struct and pass it by <c>ref</c> so no delegate is allocated.
/// </remarks>
public interface IByteRecordHandler
{
    /// <summary>Called once per record, in order, on the consumer thread.</summary>
    /// <param name="record">The record bytes, valid only during the call (the space is released afterwards).</param>
    void OnRecord(ReadOnlySpan<byte> record);
}
