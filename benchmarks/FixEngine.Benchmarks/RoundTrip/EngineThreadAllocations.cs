using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;
using System.Threading;
using FixEngine.Hosting;

namespace FixEngine.Benchmarks.RoundTrip;

/// <summary>
/// What each of the engine's own threads (agent, dedicated receive, send drain, log drain) has allocated, so a
/// measurement can tell the engine's allocation from the rest of its process (the benchmark harness's round-trip
/// windows). Off unless the process starts with <c>FIXENGINE_THREAD_ALLOCATIONS=1</c>, when <see cref="InstallIfEnabled"/>
/// installs <see cref="PublishNow"/> as the engine's <see cref="EngineThreadProbe"/>.
/// </summary>
/// <remarks>
/// Each engine thread publishes its own <see cref="GC.GetAllocatedBytesForCurrentThread"/> through the probe once per
/// loop pass, before it blocks or parks, so a reader between passes sees the thread's current count. When off, nothing
/// is installed and the engine's threads only test the probe for null. A thread's first publication registers it (allocates, once per thread)
/// and drops the entries of threads that have ended, so the ledger holds the live engine threads (plus ended ones until
/// the next registration), not every thread a long-running process ever started. Each entry has an id that is never
/// reused (managed thread ids and names are), so readers pair two snapshots by id.
/// </remarks>
internal static class EngineThreadAllocations
{
    /// <summary>Whether engine threads publish (the environment variable <c>FIXENGINE_THREAD_ALLOCATIONS=1</c> at start-up).</summary>
    internal static readonly bool Enabled = Environment.GetEnvironmentVariable("FIXENGINE_THREAD_ALLOCATIONS") == "1";

    private static readonly object s_lock = new();
    private static Entry[] s_entries = [];
    private static long s_lastId;

    [ThreadStatic]
    private static Entry? t_entry;

    /// <summary>Installs the ledger as the engine threads' probe when <see cref="Enabled"/>; call once, before an engine
    /// starts.</summary>
    internal static void InstallIfEnabled()
    {
        if (Enabled)
        {
            EngineThreadProbe.Install(PublishNow);
        }
    }

    /// <summary>The registered threads (in registration order) and their last published counts (a copy; allocates).</summary>
    internal static IReadOnlyList<(long Id, string Thread, long Bytes)> Snapshot()
    {
        Entry[] entries = Volatile.Read(ref s_entries);
        var list = new List<(long, string, long)>(entries.Length);
        foreach (Entry e in entries)
        {
            list.Add((e.Id, e.Name, Volatile.Read(ref e.Bytes)));
        }
        return list;
    }

    /// <summary>Publishes the calling thread's allocated bytes (registers the thread the first time).</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    internal static void PublishNow()
    {
        Entry? entry = t_entry;
        if (entry is null)
        {
            Thread current = Thread.CurrentThread;
            lock (s_lock)
            {
                entry = new Entry(++s_lastId, $"{current.Name ?? "?"} ({current.ManagedThreadId})", current);
                var live = new List<Entry>(s_entries.Length + 1);
                foreach (Entry e in s_entries)
                {
                    if (e.Owner.IsAlive) live.Add(e);
                }
                live.Add(entry);
                s_entries = [.. live];
            }
            t_entry = entry;
        }
        Volatile.Write(ref entry.Bytes, GC.GetAllocatedBytesForCurrentThread());
    }

    private sealed class Entry(long id, string name, Thread owner)
    {
        public readonly long Id = id;
        public readonly string Name = name;
        public readonly Thread Owner = owner;
        public long Bytes;
    }
}
