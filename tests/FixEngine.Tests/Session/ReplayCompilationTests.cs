using System.Collections.Generic;
using FixEngine.Logging;
using FixEngine.Session;

namespace FixEngine.Tests.Session;

[CollectionDefinition(nameof(ReplayCompilationState), DisableParallelization = true)]
public sealed class ReplayCompilationState;

/// <summary>A replay method that cannot be compiled ahead is no longer dropped silently: the failure is counted and the
/// first one is raised once, as a warning event, by the next session that answers a ResendRequest.</summary>
[Collection(nameof(ReplayCompilationState))]
public sealed class ReplayCompilationTests
{
    [Fact]
    public void AMethodThatCannotBeCompiledAheadIsReportedOnceByTheNextSessionThatResends()
    {
        ReplayCompilation.TakeFailureReport();
        int failures = ReplayCompilation.Failures;
        // A method of an open generic type: PrepareMethod refuses it without an instantiation.
        ReplayCompilation.Compile([typeof(List<>).GetMethod(nameof(List<int>.Add))!]);
        Assert.Equal(failures + 1, ReplayCompilation.Failures);

        var log = new RecordingSessionLog();
        using var h = new SessionHarness("FIX.4.4", s => s with { ResetOnLogon = false }, log: log);
        h.Logon();
        h.Receive("35=2|34=2|7=1|16=0");
        Assert.Contains(log.Events, e => e.Level == LogLevel.Warning && e.Text.Contains("List`1.Add was not compiled ahead", System.StringComparison.Ordinal));
        Assert.Null(ReplayCompilation.TakeFailureReport());
        int warnings = log.Events.Count;
        h.Receive("35=2|34=3|7=1|16=0");
        Assert.DoesNotContain(log.Events.GetRange(warnings, log.Events.Count - warnings), e => e.Text.Contains("not compiled ahead", System.StringComparison.Ordinal));
    }
}
