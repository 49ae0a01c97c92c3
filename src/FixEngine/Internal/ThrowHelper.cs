using System;
using System.Diagnostics.CodeAnalysis;

namespace FixEngine.Internal;

/// <summary>Out-of-line throw sites so hot methods stay small and inlinable.</summary>
internal static class ThrowHelper
{
    [DoesNotReturn]
    public static void ThrowArgumentOutOfRange(string paramName) => throw new ArgumentOutOfRangeException(paramName);

    [DoesNotReturn]
    public static void ThrowArgument(string message, string paramName) => throw new ArgumentException(message, paramName);

    [DoesNotReturn]
    public static void ThrowInvalidOperation(string message) => throw new InvalidOperationException(message);

    [DoesNotReturn]
    public static void ThrowObjectDisposed(string objectName) => throw new ObjectDisposedException(objectName);
}
