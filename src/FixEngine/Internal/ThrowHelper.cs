using System;
using System.Diagnostics.CodeAnalysis;

namespace FixEngine.Internal;

/// <summary>The engine's one set of out-of-line throw sites, so hot methods stay small and inlinable: each member builds
/// its exception (and its message) only on the failing path.</summary>
/// <remarks>A throw that needs the state of the object throwing it (a faulted store's journal path, a session's owner
/// thread) stays a private <c>[DoesNotReturn]</c> method of that type.</remarks>
internal static class ThrowHelper
{
    [DoesNotReturn]
    public static void ThrowArgumentOutOfRange(string paramName) => throw new ArgumentOutOfRangeException(paramName);

    [DoesNotReturn]
    public static void ThrowArgumentOutOfRange(string paramName, object actual, string message) =>
        throw new ArgumentOutOfRangeException(paramName, actual, message);

    [DoesNotReturn]
    public static void ThrowInvalidOperation(string message) => throw new InvalidOperationException(message);

    [DoesNotReturn]
    public static void ThrowObjectDisposed(string objectName) => throw new ObjectDisposedException(objectName);

    // Buffers

    [DoesNotReturn]
    public static void ThrowPooledBufferUseAfterReturn() =>
        throw new ObjectDisposedException("PooledBuffer", "The PooledBuffer was already returned to its pool (or is default).");

    [DoesNotReturn]
    public static void ThrowPooledBufferDoubleReturn() =>
        throw new InvalidOperationException("The PooledBuffer's array was returned to the pool twice (a copy of the struct was disposed as well).");

    [DoesNotReturn]
    public static void ThrowNegativeLength(string paramName, int length) =>
        throw new ArgumentOutOfRangeException(paramName, length, "Length must not be negative.");

    // Collections

    [DoesNotReturn]
    public static void ThrowCapacityNotPowerOfTwo(string paramName, int capacity, int minimum, int maximum) =>
        throw new ArgumentOutOfRangeException(paramName, capacity,
            $"Capacity must be a power of two between {minimum} and {maximum}.");

    // Store

    [DoesNotReturn]
    public static void ThrowSeqNumOutOfRange(string paramName, int value) =>
        throw new ArgumentOutOfRangeException(paramName, value, "A FIX sequence number must be at least 1.");

    [DoesNotReturn]
    public static void ThrowProcessedOutOfRange(string paramName, int value) =>
        throw new ArgumentOutOfRangeException(paramName, value, "A processed inbound sequence number must be at least 0.");

    [DoesNotReturn]
    public static void ThrowMessageTooLarge(int length, int maxLength) =>
        throw new ArgumentException($"The message is {length} bytes; the store accepts at most {maxLength} bytes per message.", "message");

    [DoesNotReturn]
    public static void ThrowSeqNumOverflow() =>
        throw new InvalidOperationException("The sequence number cannot be incremented past int.MaxValue.");

    // Transport

    [DoesNotReturn]
    public static void ThrowInvalidTcpOptions(string option, object value, string rule) =>
        throw new ArgumentException($"TcpConnectionOptions.{option} = {value}: {rule}", option);
}
