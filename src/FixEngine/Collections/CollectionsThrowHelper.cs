using System;
using System.Diagnostics.CodeAnalysis;

namespace FixEngine.Collections;

/// <summary>Out-of-line throw sites for the collections, so hot members stay small.</summary>
internal static class CollectionsThrowHelper
{
    [DoesNotReturn]
    public static void ThrowCapacityNotPowerOfTwo(string paramName, int capacity, int minimum, int maximum) =>
        throw new ArgumentOutOfRangeException(paramName, capacity,
            $"Capacity must be a power of two between {minimum} and {maximum}.");

    [DoesNotReturn]
    public static void ThrowInvalidOperation(string message) => throw new InvalidOperationException(message);

    [DoesNotReturn]
    public static void ThrowArgumentOutOfRange(string paramName, object actual, string message) =>
        throw new ArgumentOutOfRangeException(paramName, actual, message);
}
