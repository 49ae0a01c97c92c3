using System;
using System.Runtime.CompilerServices;

namespace FixEngine.Collections;

/// <summary>A pool of fixed-size <typeparamref name="T"/> slots addressed by stable integer ids.</summary>
/// <typeparam name="T">The unmanaged record type kept in each slot.</typeparam>
/// <remarks>
/// <para>Slots live in chunks of <c>1 &lt;&lt; chunkShift</c> elements; a chunk is allocated when all
/// existing slots are live and is never moved or freed, so a <c>ref T</c> stays valid for the life of the
/// pool (the value is meaningless after <see cref="Return"/>). An id is <c>chunk &lt;&lt; chunkShift | index</c>.</para>
/// <para><see cref="Rent"/>, <see cref="Return"/> and the indexer are O(1) and allocate nothing once
/// enough chunks exist (growth allocates a chunk and, rarely, grows the chunk table and live list).
/// Live slots are listed densely in <see cref="LiveIds"/> (swap-remove on return).</para>
/// <para>Not thread-safe: use from one thread, or guard externally.</para>
/// <para>Part of FixEngine's reusable low-latency toolkit (with the other types of Buffers, Collections, Timing and
/// Hosting): public and supported for trading code to use on its own threads, independently of the FIX layers.</para>
/// </remarks>
public sealed class SlabPool<T>
    where T : unmanaged
{
    /// <summary>Default log2 of the chunk size (1024 slots per chunk).</summary>
    public const int DefaultChunkShift = 10;

    private const int Free = -1;

    private readonly int _chunkShift;
    private readonly int _chunkMask;
    private Slot[][] _chunks;
    private int _chunkCount;
    private int _allocatedSlots;
    private int _freeHead = Free;
    private int[] _live;
    private int _liveCount;

    /// <summary>Creates an empty pool.</summary>
    /// <param name="chunkShift">Log2 of slots per chunk, 1 to 20.</param>
    /// <param name="initialCapacity">Slots to allocate up front (rounded up to whole chunks).</param>
    /// <exception cref="ArgumentOutOfRangeException">An argument is out of range.</exception>
    public SlabPool(int chunkShift = DefaultChunkShift, int initialCapacity = 0)
    {
        if (chunkShift < 1 || chunkShift > 20)
        {
            Internal.ThrowHelper.ThrowArgumentOutOfRange(nameof(chunkShift), chunkShift, "chunkShift must be between 1 and 20.");
        }
        if (initialCapacity < 0)
        {
            Internal.ThrowHelper.ThrowArgumentOutOfRange(nameof(initialCapacity), initialCapacity, "initialCapacity must not be negative.");
        }
        _chunkShift = chunkShift;
        _chunkMask = (1 << chunkShift) - 1;
        _chunks = new Slot[4][];
        _live = new int[Math.Max(initialCapacity, 16)];
        while (_chunkCount << _chunkShift < initialCapacity)
        {
            AddChunk();
        }
    }

    /// <summary>Number of live (rented) slots.</summary>
    public int Count => _liveCount;

    /// <summary>Number of slots allocated so far (live plus free).</summary>
    public int Capacity => _chunkCount << _chunkShift;

    /// <summary>Ids of the live slots, densely packed, in no particular order.</summary>
    /// <remarks>
    /// Valid until the next <see cref="Rent"/> or <see cref="Return"/>. To return slots while walking,
    /// walk from the end: a return moves the last id into the returned id's place.
    /// </remarks>
    public ReadOnlySpan<int> LiveIds => new(_live, 0, _liveCount);

    /// <summary>Rents a slot, cleared to <c>default</c>.</summary>
    /// <param name="id">The slot's id, for <see cref="Return"/> and the indexer.</param>
    /// <returns>A reference to the slot's value.</returns>
    public ref T Rent(out int id)
    {
        if (_freeHead != Free)
        {
            id = _freeHead;
            ref Slot reused = ref SlotAt(id);
            _freeHead = reused.NextFree;
            return ref Activate(ref reused, id);
        }
        if (_allocatedSlots == _chunkCount << _chunkShift)
        {
            AddChunk();
        }
        id = _allocatedSlots++;
        ref Slot slot = ref SlotAt(id);
        slot.Id = id;
        return ref Activate(ref slot, id);
    }

    /// <summary>Returns a live slot to the pool.</summary>
    /// <param name="id">An id obtained from <see cref="Rent"/>.</param>
    /// <exception cref="ArgumentOutOfRangeException">The id was never issued by this pool.</exception>
    /// <exception cref="InvalidOperationException">The slot is not live (double return).</exception>
    public void Return(int id)
    {
        ref Slot slot = ref CheckedSlot(id);
        int position = slot.LivePosition;
        if (position == Free)
        {
            ThrowNotLive(id, "returned twice");
        }
        int lastId = _live[--_liveCount];
        _live[position] = lastId;
        SlotAt(lastId).LivePosition = position;
        slot.LivePosition = Free;
        slot.NextFree = _freeHead;
        _freeHead = id;
    }

    /// <summary>The value of a live slot.</summary>
    /// <param name="id">An id obtained from <see cref="Rent"/> and not yet returned.</param>
    /// <exception cref="ArgumentOutOfRangeException">The id was never issued by this pool.</exception>
    /// <exception cref="InvalidOperationException">The slot is not live.</exception>
    public ref T this[int id]
    {
        get
        {
            ref Slot slot = ref CheckedSlot(id);
            if (slot.LivePosition == Free)
            {
                ThrowNotLive(id, "accessed after return");
            }
            return ref slot.Value;
        }
    }

    /// <summary>Whether <paramref name="id"/> names a live slot of this pool.</summary>
    /// <param name="id">Any integer.</param>
    /// <returns><see langword="true"/> if the slot is rented.</returns>
    public bool IsLive(int id) => (uint)id < (uint)_allocatedSlots && SlotAt(id).LivePosition != Free;

    private ref T Activate(ref Slot slot, int id)
    {
        if (_liveCount == _live.Length)
        {
            GrowLive();
        }
        slot.LivePosition = _liveCount;
        _live[_liveCount++] = id;
        slot.Value = default;
        return ref slot.Value;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private ref Slot SlotAt(int id) => ref _chunks[id >> _chunkShift][id & _chunkMask];

    private ref Slot CheckedSlot(int id)
    {
        if ((uint)id >= (uint)_allocatedSlots)
        {
            Internal.ThrowHelper.ThrowArgumentOutOfRange(nameof(id), id, "The id was not issued by this SlabPool.");
        }
        return ref SlotAt(id);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private void AddChunk()
    {
        if ((long)(_chunkCount + 1) << _chunkShift > int.MaxValue)
        {
            Internal.ThrowHelper.ThrowInvalidOperation("SlabPool is full: ids would overflow Int32.");
        }
        if (_chunkCount == _chunks.Length)
        {
            Array.Resize(ref _chunks, _chunks.Length * 2);
        }
        _chunks[_chunkCount++] = new Slot[1 << _chunkShift];
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private void GrowLive() => Array.Resize(ref _live, _live.Length * 2);

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void ThrowNotLive(int id, string what) =>
        Internal.ThrowHelper.ThrowInvalidOperation($"SlabPool slot {id} is not live: {what}.");

    private struct Slot
    {
        public T Value;
        public int Id;
        /// <summary>Index in the live list, or Free.</summary>
        public int LivePosition;
        public int NextFree;
    }
}
