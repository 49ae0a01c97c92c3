using System;
using System.Diagnostics.CodeAnalysis;

namespace FixEngine.Store;

/// <summary>Out-of-line throw sites for the store, so the append paths stay small.</summary>
internal static class StoreThrowHelper
{
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
    public static void ThrowDisposed(string typeName) => throw new ObjectDisposedException(typeName);

    [DoesNotReturn]
    public static void ThrowSeqNumOverflow() =>
        throw new InvalidOperationException("The sequence number cannot be incremented past int.MaxValue.");
}
