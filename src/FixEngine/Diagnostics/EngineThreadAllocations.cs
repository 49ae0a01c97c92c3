using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;
using System.Threading;

namespace FixEngine.Diagnostics;

/// <summary>
/// What each of the engine's own threads (agent, dedicated receive, send drain, log drain) has allocated, so a
/// measurement can tell the engine's allocation from the rest of its process (the benchmark harness's round-trip
/// windows). Off unless the process starts with <c>FIXENGINE_THREAD_ALLOCATIONS=1</c>.
/// </summary>
/// <remarks>
/// Each thread publishes its own <see cref="GC.GetAllocatedBytesForCurrentThread"/> with <see cref="Publish"/> once per
/// loop pass, before it blocks or parks, so a reader between passes sees the thread's current count. When off,
/// <see cref="Enabled"/> is a constant false to the JIT once this class is initialised, and <see cref="Publish"/>
/// compiles to nothing on the engine's paths. A thread's first publication registers it (allocates, once per thread).
/// </remarks>
internal static class EngineThreadAllocations
{
    /// <summary>Whether engine threads publish (the environment variable <c>FIXENGINE_THREAD_ALLOCATIONS=1</c> at start-up).</summary>
    internal static readonly bool Enabled = Environment.GetEnvironmentVariable("FIXENGINE_THREAD_ALLOCATIONS") == "1";

    private static readonly object s_lock = new();
    private static Entry[] s_entries = [];

    [ThreadStatic]
    private static Entry? t_entry;

    /// <summary>Publishes the calling engine thread's allocated bytes (nothing when not <see cref="Enabled"/>).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal static void Publish()
    {
        if (Enabled)
        {
            PublishNow();
        }
    }

    /// <summary>The registered threads and their last published counts (a copy; allocates).</summary>
    internal static IReadOnlyList<(string Thread, long Bytes)> Snapshot()
    {
        Entry[] entries = Volatile.Read(ref s_entries);
        var list = new List<(string, long)>(entries.Length);
        foreach (Entry e in entries)
        {
            list.Add((e.Name, Volatile.Read(ref e.Bytes)));
        }
        return list;
    }

    /// <summary>Publishes the calling thread's allocated bytes whether or not <see cref="Enabled"/> (registers the thread the first time).</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    internal static void PublishNow()
    {
        Entry? entry = t_entry;
        if (entry is null)
        {
            entry = new Entry($"{Thread.CurrentThread.Name ?? "?"} ({Environment.CurrentManagedThreadId})");
            lock (s_lock)
            {
                s_entries = [.. s_entries, entry];
            }
            t_entry = entry;
        }
        Volatile.Write(ref entry.Bytes, GC.GetAllocatedBytesForCurrentThread());
    }

    private sealed class Entry(string name)
    {
        public readonly string Name = name;
        public long Bytes;
    }
}
