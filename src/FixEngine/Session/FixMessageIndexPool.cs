using System;
using System.Threading;
using FixEngine.Codec;

namespace FixEngine.Session;

// Design:
// - A session needs a FixMessageIndex (about 60 KiB of tables) only while one of its inbound or stored messages is being
//   read, so sessions rent one for that and give it back, instead of each holding two for its whole life: an engine
//   with thousands of mostly idle sessions then holds about one per thread that processes messages.
// - Rent takes the calling thread's cached index, else one from a small shared stack, else a new one; Return puts it
//   back in the thread's slot, else on the shared stack, else drops it. A thread that processes messages keeps reusing
//   its own: allocation-free after the first message on each thread. A nested rent on the same thread (a callback that
//   makes another session process a message synchronously) finds the slot empty and gets another index, so two
//   messages never share one.
// - Every index is created with the same options (the defaults: 1,024 fields, the standard length/data pairs), so
//   any session can use any of them; Parse resets an index completely.

/// <summary>The indexes sessions read inbound and stored messages with, shared by all sessions of the process.</summary>
internal static class FixMessageIndexPool
{
    private const int SharedCapacity = 32;

    [ThreadStatic]
    private static FixMessageIndex? t_cached;

    private static readonly Lock s_lock = new();
    private static readonly FixMessageIndex?[] s_shared = new FixMessageIndex?[SharedCapacity];
    private static int s_sharedCount;

    /// <summary>An index for the calling thread's use until <see cref="Return"/>.</summary>
    public static FixMessageIndex Rent()
    {
        FixMessageIndex? index = t_cached;
        if (index is not null)
        {
            t_cached = null;
            return index;
        }
        return RentShared();
    }

    /// <summary>Gives back an index from <see cref="Rent"/> (no message read through it may be used afterwards).</summary>
    public static void Return(FixMessageIndex index)
    {
        if (t_cached is null)
        {
            t_cached = index;
            return;
        }
        lock (s_lock)
        {
            if (s_sharedCount < SharedCapacity) s_shared[s_sharedCount++] = index;
        }
    }

    private static FixMessageIndex RentShared()
    {
        lock (s_lock)
        {
            if (s_sharedCount > 0)
            {
                FixMessageIndex index = s_shared[--s_sharedCount]!;
                s_shared[s_sharedCount] = null;
                return index;
            }
        }
        return new FixMessageIndex();
    }
}
