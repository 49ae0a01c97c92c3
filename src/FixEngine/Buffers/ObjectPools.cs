using System;
using Microsoft.Extensions.ObjectPool;

namespace FixEngine.Buffers;

/// <summary>A pooled-object policy built from a factory and a reset hook.</summary>
/// <typeparam name="T">The pooled type.</typeparam>
/// <remarks>
/// Used with <see cref="DefaultObjectPool{T}"/> (see <see cref="ObjectPools.Create"/>). The reset hook runs on
/// the returning thread; an object whose reset returns <see langword="false"/> is dropped, not pooled.
/// Thread-safe if the delegates are. Allocates only in <c>Create</c>.
/// </remarks>
public sealed class ResettingPooledObjectPolicy<T> : PooledObjectPolicy<T>
    where T : class
{
    private readonly Func<T> _create;
    private readonly Func<T, bool>? _reset;

    /// <summary>Creates the policy.</summary>
    /// <param name="create">Makes a new object when the pool is empty.</param>
    /// <param name="reset">Clears an object being returned; return <see langword="false"/> to discard it. Null keeps every object as is.</param>
    public ResettingPooledObjectPolicy(Func<T> create, Func<T, bool>? reset = null)
    {
        ArgumentNullException.ThrowIfNull(create);
        _create = create;
        _reset = reset;
    }

    /// <summary>Makes a new object.</summary>
    /// <returns>The new object.</returns>
    public override T Create() => _create();

    /// <summary>Resets an object being returned.</summary>
    /// <param name="obj">The object.</param>
    /// <returns>Whether to keep it in the pool.</returns>
    public override bool Return(T obj) => _reset is null || _reset(obj);
}

/// <summary>Factory helpers for <see cref="ObjectPool{T}"/> instances used by the engine (e.g. the transport's SocketAsyncEventArgs).</summary>
/// <remarks>
/// The pools are <see cref="DefaultObjectPool{T}"/>: thread-safe, lock-free on the fast path, allocation-free in
/// steady state (an object is created only when the pool is empty). Types implementing
/// <see cref="IResettable"/> can instead use <see cref="DefaultPooledObjectPolicy{T}"/>, which calls <c>TryReset</c>.
/// </remarks>
public static class ObjectPools
{
    /// <summary>The default number of idle objects kept per pool.</summary>
    public const int DefaultMaximumRetained = 64;

    /// <summary>Creates a bounded pool with a factory and a reset hook.</summary>
    /// <typeparam name="T">The pooled type.</typeparam>
    /// <param name="create">Makes a new object when the pool is empty.</param>
    /// <param name="reset">Clears an object being returned; return <see langword="false"/> to discard it.</param>
    /// <param name="maximumRetained">Most idle objects kept; extra returns are dropped (and disposed if <see cref="IDisposable"/>
    /// only when the caller does so; the pool does not dispose).</param>
    /// <returns>The pool.</returns>
    public static ObjectPool<T> Create<T>(Func<T> create, Func<T, bool>? reset = null, int maximumRetained = DefaultMaximumRetained)
        where T : class
    {
        if (maximumRetained < 1)
        {
            BuffersThrowHelper.ThrowArgumentOutOfRange(nameof(maximumRetained), maximumRetained, "maximumRetained must be at least 1.");
        }
        return new DefaultObjectPool<T>(new ResettingPooledObjectPolicy<T>(create, reset), maximumRetained);
    }
}
