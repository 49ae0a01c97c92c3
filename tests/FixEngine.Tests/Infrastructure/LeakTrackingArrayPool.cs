using System;
using System.Buffers;
using System.Collections.Generic;

namespace FixEngine.Tests.Infrastructure;

/// <summary>An <see cref="ArrayPool{T}"/> wrapper that records rents and returns, flags double returns and reports leaks.</summary>
public sealed class LeakTrackingArrayPool<T> : ArrayPool<T>
{
    private readonly ArrayPool<T> _inner;
    private readonly HashSet<T[]> _outstanding = new(ReferenceEqualityComparer.Instance);
    private readonly List<string> _errors = new();

    public LeakTrackingArrayPool(ArrayPool<T>? inner = null) => _inner = inner ?? ArrayPool<T>.Create();

    public int Rents { get; private set; }

    public int Returns { get; private set; }

    public int Outstanding
    {
        get { lock (_outstanding) { return _outstanding.Count; } }
    }

    public IReadOnlyList<string> Errors
    {
        get { lock (_outstanding) { return _errors.ToArray(); } }
    }

    public override T[] Rent(int minimumLength)
    {
        // Always a fresh-or-pooled non-empty array so identity tracking works for length 0 too.
        T[] array = _inner.Rent(Math.Max(minimumLength, 1));
        lock (_outstanding)
        {
            Rents++;
            if (!_outstanding.Add(array))
            {
                _errors.Add("inner pool handed out an array that is still rented");
            }
        }
        return array;
    }

    public override void Return(T[] array, bool clearArray = false)
    {
        lock (_outstanding)
        {
            Returns++;
            if (!_outstanding.Remove(array))
            {
                _errors.Add($"double return (or foreign array) of length {array.Length}");
                return; // never corrupt the inner pool
            }
        }
        _inner.Return(array, clearArray);
    }

    /// <summary>Throws if any array is still rented or any error was recorded.</summary>
    public void AssertClean()
    {
        lock (_outstanding)
        {
            if (_errors.Count > 0) throw new InvalidOperationException("Pool errors: " + string.Join("; ", _errors));
            if (_outstanding.Count > 0) throw new InvalidOperationException($"{_outstanding.Count} array(s) leaked (rented {Rents}, returned {Returns}).");
        }
    }
}
