using System.Collections.Generic;
using BenchmarkDotNet.Attributes;
using FixEngine.Collections;

namespace FixEngine.Benchmarks.Collections;

/// <summary>Keeping 64 live records by id: SlabPool rent/return vs new objects in a Dictionary.</summary>
[MemoryDiagnoser]
public class SlabPoolBenchmarks
{
    private const int Batch = 64;
    private readonly int[] _ids = new int[Batch];
    private SlabPool<OrderRecord> _pool = null!;
    private Dictionary<int, OrderObject> _dictionary = null!;

    public struct OrderRecord
    {
        public long OrderId;
        public long Price;
        public long Quantity;
    }

    public sealed class OrderObject
    {
        public long OrderId;
        public long Price;
        public long Quantity;
    }

    [GlobalSetup]
    public void Setup()
    {
        _pool = new SlabPool<OrderRecord>(initialCapacity: Batch);
        _dictionary = new Dictionary<int, OrderObject>(Batch);
    }

    [Benchmark(Baseline = true, OperationsPerInvoke = Batch)]
    public long NewInDictionary()
    {
        for (int i = 0; i < Batch; i++) _dictionary[i] = new OrderObject { OrderId = i, Price = 100, Quantity = 5 };
        long sum = 0;
        for (int i = 0; i < Batch; i++) sum += _dictionary[i].Price;
        for (int i = 0; i < Batch; i++) _dictionary.Remove(i);
        return sum;
    }

    [Benchmark(OperationsPerInvoke = Batch)]
    public long SlabPool()
    {
        for (int i = 0; i < Batch; i++)
        {
            ref OrderRecord order = ref _pool.Rent(out _ids[i]);
            order.OrderId = i;
            order.Price = 100;
            order.Quantity = 5;
        }
        long sum = 0;
        for (int i = 0; i < Batch; i++) sum += _pool[_ids[i]].Price;
        for (int i = 0; i < Batch; i++) _pool.Return(_ids[i]);
        return sum;
    }
}
