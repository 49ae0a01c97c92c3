using System.Threading;

namespace FixEngine.Store;

/// <summary>Counts the open journals of the file stores that share it (any thread) and says when one more is above
/// <see cref="Cap"/>: a store that opened its parked journal above the cap closes it again as soon as its owner leaves
/// the session (see Engine/JournalHandleBudget.cs).</summary>
internal sealed class JournalOpenLimit
{
    private int _open;

    /// <param name="cap">Journals that may be open at once before each further one is closed right after its use.</param>
    public JournalOpenLimit(int cap) => Cap = cap;

    /// <summary>Journals that may be open at once.</summary>
    public int Cap { get; }

    /// <summary>Journals open now.</summary>
    public int Open => Volatile.Read(ref _open);

    /// <summary>A journal was opened again; true when that puts the count above <see cref="Cap"/>.</summary>
    public bool OnOpened() => Interlocked.Increment(ref _open) > Cap;

    /// <summary>A counted journal was closed.</summary>
    public void OnClosed() => Interlocked.Decrement(ref _open);
}
