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
// - Every index is created with the same options (the standard length/data pairs; 1,024 fields, or more after Grow),
//   so any session can use any of them; Parse resets an index completely.
// - A message with more fields than its index holds (a market-data snapshot with thousands of entries) makes the
//   session swap its index for one sized to the message (Grow) and drop the small one, so the larger one is what goes
//   back to the thread's slot: a thread that meets large messages allocates once per larger size, not per message.
// - Only indexes up to RetainMaxFields are kept when given back: a larger one (a message of tens of thousands of fields,
//   up to MaxMessageSize; a hostile peer can send one) is dropped after its message, so no thread holds megabytes of
//   index for the rest of its life. A session that really receives messages that large allocates an index per message.

/// <summary>The indexes sessions read inbound and stored messages with, shared by all sessions of the process.</summary>
internal static class FixMessageIndexPool
{
    private const int SharedCapacity = 32;

    /// <summary>The largest index kept for reuse (16 times the default: a 1,000-entry market-data snapshot fits; about 0.7 MB
    /// of tables); larger ones are dropped when given back.</summary>
    internal const int RetainMaxFields = 16 * FixMessageIndex.DefaultMaxFields;

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
        if (index.MaxFields > RetainMaxFields) return;
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

    /// <summary>A new index with room for every field of <paramref name="message"/> (at least twice the capacity of
    /// <paramref name="current"/>), for a message <paramref name="current"/> indexed with
    /// <see cref="FixDefectKind.TooManyFields"/>. The caller uses it in place of <paramref name="current"/>, which it
    /// drops (not returned: the larger one takes its place in the pool when given back).</summary>
    public static FixMessageIndex Grow(FixMessageIndex current, ReadOnlySpan<byte> message)
    {
        // Each field ends at an SOH (the last one may not: + 1); the frame is at most MaxMessageSize bytes.
        int fields = message.Count(AsciiParsing.Soh) + 1;
        return new FixMessageIndex((int)Math.Min(int.MaxValue / 4, Math.Max(fields, 2L * current.MaxFields)));
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
