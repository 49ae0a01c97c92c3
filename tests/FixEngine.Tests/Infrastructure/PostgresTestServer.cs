using System;
using System.Collections.Generic;
using System.Linq;
using FixEngine.PostgreSQL;
using Xunit.Abstractions;
using Xunit.Sdk;

namespace FixEngine.Tests.Infrastructure;

/// <summary>The PostgreSQL server the store tests use: <c>FIXENGINE_TEST_POSTGRES</c>, set by .ci/postgres.sh.</summary>
/// <remarks>
/// Absent on a developer's quick loop: the tests that need the server are skipped with <see cref="SkipReason"/>. With
/// CI=true they are never skipped: they run and fail, naming the missing variable.
/// </remarks>
public static class PostgresTestServer
{
    public const string Variable = "FIXENGINE_TEST_POSTGRES";

    public static string? SkipReason =>
        !string.IsNullOrEmpty(Environment.GetEnvironmentVariable(Variable)) || IsCi
            ? null
            : $"needs a PostgreSQL server: {Variable} is not set (run 'bash .ci/postgres.sh start' and export the line it prints; CI sets it)";

    private static bool IsCi => string.Equals(Environment.GetEnvironmentVariable("CI"), "true", StringComparison.OrdinalIgnoreCase);

    public static string ConnectionString =>
        Environment.GetEnvironmentVariable(Variable) is { Length: > 0 } cs
            ? cs
            : throw new InvalidOperationException(
                $"CI=true but {Variable} is not set: .ci/run must start the throwaway server (.ci/postgres.sh) before the tests.");
}

/// <summary>A fact that needs the PostgreSQL server (skipped with a reason when it is absent, outside CI).</summary>
public sealed class PostgresFactAttribute : FactAttribute
{
    public PostgresFactAttribute()
    {
        if (PostgresTestServer.SkipReason is string reason) Skip = reason;
    }
}

/// <summary>Marks a test class whose inherited <see cref="StoreFactAttribute"/>/<see cref="StoreTheoryAttribute"/> tests need
/// the PostgreSQL server.</summary>
[AttributeUsage(AttributeTargets.Class)]
public sealed class RequiresPostgresAttribute : Attribute;

/// <summary>A fact in a contract base class: skipped (outside CI, without the server) in subclasses marked
/// <see cref="RequiresPostgresAttribute"/>, run everywhere else.</summary>
[XunitTestCaseDiscoverer("FixEngine.Tests.Infrastructure.StoreFactDiscoverer", "FixEngine.Tests")]
public sealed class StoreFactAttribute : FactAttribute;

/// <summary>The theory counterpart of <see cref="StoreFactAttribute"/>.</summary>
[XunitTestCaseDiscoverer("FixEngine.Tests.Infrastructure.StoreTheoryDiscoverer", "FixEngine.Tests")]
public sealed class StoreTheoryAttribute : TheoryAttribute;

internal static class StoreSkip
{
    public static string? For(ITestMethod testMethod) =>
        testMethod.TestClass.Class.GetCustomAttributes(typeof(RequiresPostgresAttribute)).Any() ? PostgresTestServer.SkipReason : null;
}

public sealed class StoreFactDiscoverer(IMessageSink diagnosticMessageSink) : FactDiscoverer(diagnosticMessageSink)
{
    public override IEnumerable<IXunitTestCase> Discover(ITestFrameworkDiscoveryOptions discoveryOptions, ITestMethod testMethod, IAttributeInfo factAttribute)
    {
        if (StoreSkip.For(testMethod) is string reason)
        {
            return [new SkippedStoreTestCase(DiagnosticMessageSink, discoveryOptions.MethodDisplayOrDefault(), discoveryOptions.MethodDisplayOptionsOrDefault(), testMethod, reason)];
        }
        return base.Discover(discoveryOptions, testMethod, factAttribute);
    }
}

public sealed class StoreTheoryDiscoverer(IMessageSink diagnosticMessageSink) : TheoryDiscoverer(diagnosticMessageSink)
{
    public override IEnumerable<IXunitTestCase> Discover(ITestFrameworkDiscoveryOptions discoveryOptions, ITestMethod testMethod, IAttributeInfo theoryAttribute)
    {
        if (StoreSkip.For(testMethod) is string reason)
        {
            return [new SkippedStoreTestCase(DiagnosticMessageSink, discoveryOptions.MethodDisplayOrDefault(), discoveryOptions.MethodDisplayOptionsOrDefault(), testMethod, reason)];
        }
        return base.Discover(discoveryOptions, testMethod, theoryAttribute);
    }
}

/// <summary>A test case reported as skipped with a reason decided at discovery.</summary>
public sealed class SkippedStoreTestCase : XunitTestCase
{
    private string _reason = "";

    [Obsolete("Called by the de-serializer; should only be called by deriving classes for de-serialization purposes")]
    public SkippedStoreTestCase()
    {
    }

    public SkippedStoreTestCase(IMessageSink sink, TestMethodDisplay display, TestMethodDisplayOptions options, ITestMethod testMethod, string reason)
        : base(sink, display, options, testMethod)
    {
        _reason = reason;
    }

    protected override string GetSkipReason(IAttributeInfo factAttribute) => _reason;

    public override void Serialize(IXunitSerializationInfo data)
    {
        base.Serialize(data);
        data.AddValue("SkipReasonText", _reason);
    }

    public override void Deserialize(IXunitSerializationInfo data)
    {
        _reason = data.GetValue<string>("SkipReasonText");
        base.Deserialize(data);
    }
}

/// <summary>A theory that needs the PostgreSQL server (skipped with a reason when it is absent, outside CI).</summary>
public sealed class PostgresTheoryAttribute : TheoryAttribute
{
    public PostgresTheoryAttribute()
    {
        if (PostgresTestServer.SkipReason is string reason) Skip = reason;
    }
}
