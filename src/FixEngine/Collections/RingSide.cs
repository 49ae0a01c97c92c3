using System.Runtime.InteropServices;

namespace FixEngine.Collections;

// Design:
// - The state one side of an SPSC ring owns: its own position (published to the other side) and its
//   stale copy of the other side's position (never read by the other side).
// - Both fields are written only by the owning side, so they share one cache line; FalseSharingRange
//   bytes of padding on each side keep the other side's state, the ring's read-only fields and
//   neighbouring objects away from it. This is PaddedLong with a second owner-private slot beside
//   the value: the owner touches one line per operation instead of two.

/// <summary>One side's state in an SPSC ring: its position and its cached copy of the other side's position.</summary>
[StructLayout(LayoutKind.Explicit, Size = PositionOffset + 2 * sizeof(long) + Padding.FalseSharingRange)]
internal struct RingSide
{
    public const int PositionOffset = Padding.FalseSharingRange;

    /// <summary>This side's position; written by the owner (release), read by the other side (acquire).</summary>
    [FieldOffset(PositionOffset)]
    public long Position;

    /// <summary>Owner-private stale copy of the other side's position; refreshed only when it blocks progress.</summary>
    [FieldOffset(PositionOffset + sizeof(long))]
    public long OtherCache;
}
