using System;
using System.Diagnostics.CodeAnalysis;

namespace FixEngine.Buffers;

/// <summary>Out-of-line throw sites for the buffer types.</summary>
internal static class BuffersThrowHelper
{
    [DoesNotReturn]
    public static void ThrowUseAfterReturn() =>
        throw new ObjectDisposedException(nameof(PooledBuffer), "The PooledBuffer was already returned to its pool (or is default).");

    [DoesNotReturn]
    public static void ThrowDoubleReturn() =>
        throw new InvalidOperationException("The PooledBuffer's array was returned to the pool twice (a copy of the struct was disposed as well).");

    [DoesNotReturn]
    public static void ThrowNegativeLength(string paramName, int length) =>
        throw new ArgumentOutOfRangeException(paramName, length, "Length must not be negative.");

    [DoesNotReturn]
    public static void ThrowInvalidOperation(string message) => throw new InvalidOperationException(message);

    [DoesNotReturn]
    public static void ThrowArgumentOutOfRange(string paramName, object actual, string message) =>
        throw new ArgumentOutOfRangeException(paramName, actual, message);
}
