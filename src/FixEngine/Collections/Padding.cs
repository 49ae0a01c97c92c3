namespace FixEngine.Collections;

/// <summary>Cache-line constants used to keep independently written fields apart.</summary>
/// <remarks>
/// Constants only; used in <c>FieldOffset</c> attributes, so they must be compile-time values and
/// therefore take the larger of the x64 and ARM64 answers.
/// <para>Part of FixEngine's reusable low-latency toolkit (with the other types of Buffers, Collections, Timing and
/// Hosting): public and supported for trading code to use on its own threads, independently of the FIX layers.</para>
/// </remarks>
public static class Padding
{
    /// <summary>Size in bytes of one cache line on x64 and most ARM64 cores.</summary>
    public const int CacheLineSize = 64;

    /// <summary>
    /// Distance in bytes that two independently written fields keep from each other to avoid false sharing.
    /// </summary>
    /// <remarks>
    /// 128 on x64 because the adjacent-line prefetcher pulls cache lines in 128-byte aligned pairs, and
    /// 128 on ARM64 where some cores (Apple M-series, Neoverse with 128-byte lines) use 128-byte lines.
    /// </remarks>
    public const int FalseSharingRange = 128;
}
