using System;
using System.Diagnostics.CodeAnalysis;

namespace FixEngine.Transport;

/// <summary>Out-of-line throw sites for the transport.</summary>
internal static class TransportThrowHelper
{
    [DoesNotReturn]
    public static void ThrowArgumentOutOfRange(string paramName, object actual, string message) =>
        throw new ArgumentOutOfRangeException(paramName, actual, message);

    [DoesNotReturn]
    public static void ThrowInvalidOperation(string message) => throw new InvalidOperationException(message);

    [DoesNotReturn]
    public static void ThrowInvalidOptions(string option, object value, string rule) =>
        throw new ArgumentException($"TcpConnectionOptions.{option} = {value}: {rule}", option);
}
