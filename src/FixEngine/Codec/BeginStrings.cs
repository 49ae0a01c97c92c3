using System;

namespace FixEngine.Codec;

/// <summary>BeginString (8) values as ASCII byte spans.</summary>
/// <remarks>Constant data in the assembly image: no allocation, safe from any thread.</remarks>
public static class BeginStrings
{
    /// <summary><c>FIX.4.0</c>.</summary>
    public static ReadOnlySpan<byte> Fix40 => "FIX.4.0"u8;

    /// <summary><c>FIX.4.1</c>.</summary>
    public static ReadOnlySpan<byte> Fix41 => "FIX.4.1"u8;

    /// <summary><c>FIX.4.2</c>.</summary>
    public static ReadOnlySpan<byte> Fix42 => "FIX.4.2"u8;

    /// <summary><c>FIX.4.3</c>.</summary>
    public static ReadOnlySpan<byte> Fix43 => "FIX.4.3"u8;

    /// <summary><c>FIX.4.4</c>.</summary>
    public static ReadOnlySpan<byte> Fix44 => "FIX.4.4"u8;

    /// <summary><c>FIXT.1.1</c>, the FIX 5.0+ session transport.</summary>
    public static ReadOnlySpan<byte> Fixt11 => "FIXT.1.1"u8;
}
