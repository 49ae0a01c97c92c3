namespace FixEngine.Tests.Infrastructure;

/// <summary>
/// The allocation tests run in this collection: one at a time and not beside other test classes, so the threads they
/// measure (the test thread, the engine agents, thread-pool completion threads) are not also doing other tests' work.
/// </summary>
[CollectionDefinition(nameof(AllocationMeasurement), DisableParallelization = true)]
public sealed class AllocationMeasurement;
