using System;
using FixEngine.DependencyInjection;
using FixEngine.Diagnostics;
using FixEngine.Samples.Acceptor;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using OpenTelemetry.Metrics;
using OpenTelemetry.Resources;
using OpenTelemetry.Trace;

// A FIX acceptor inside the .NET generic host: sessions from appsettings.json ("FixEngine" section, a Default block
// inherited by every entry of Sessions), the application from DI, engine and session events through ILogger, metrics
// and traces to an OpenTelemetry collector over OTLP, the engine's health check, and a graceful Logout of every session
// when the host stops (Ctrl+C or SIGTERM).
//   dotnet run --project samples/HostedService
// Override any key from the command line or the environment, e.g. FixEngine__Default__SocketAcceptPort=6001.
// The OTLP endpoint is the exporter's: OTEL_EXPORTER_OTLP_ENDPOINT (default http://localhost:4317, gRPC); without a
// collector there the exporter drops what it cannot send and the engine runs on.
HostApplicationBuilder builder = Host.CreateApplicationBuilder(new HostApplicationBuilderSettings { Args = args, ContentRootPath = AppContext.BaseDirectory });
builder.Services.AddFixEngine<FillApplication>(builder.Configuration.GetSection("FixEngine"));
// Per-session health (docs/operations.md, "Health checks"); an ASP.NET Core app would add MapHealthChecks("/health").
builder.Services.AddHealthChecks().AddFixEngineHealthChecks();
builder.Services.AddOpenTelemetry()
    .ConfigureResource(resource => resource.AddService("fixengine-hosted-sample"))
    // The fix.* instruments (docs/operations.md, "Metrics"), durations in seconds.
    .WithMetrics(metrics => metrics.AddMeter(FixEngineMetrics.MeterName).AddOtlpExporter())
    // Session lifecycle events (source "FixEngine") always; inbound messages and their replies (source
    // "FixEngine.MessageTraces") as the sampler decides: here 1 in 1,000 traces. Each sampled message allocates its
    // activities; an unsampled one costs what the runtime and the SDK allocate to ask the sampler (about 400 B per
    // message, measured). Leave out the message source to trace the lifecycle alone at no cost per message
    // (docs/operations.md, "Tracing").
    .WithTracing(tracing => tracing
        .AddSource(FixEngineMetrics.ActivitySourceName, FixEngineMetrics.MessageActivitySourceName)
        .SetSampler(new LifecycleAndRatioSampler(0.001))
        .AddOtlpExporter());
using IHost host = builder.Build();
await host.RunAsync();

/// <summary>Keeps every session lifecycle activity (fix.session.*) and a ratio of the message traces (by trace id, so a
/// reply's fix.send follows its fix.receive).</summary>
internal sealed class LifecycleAndRatioSampler(double ratio) : Sampler
{
    private readonly TraceIdRatioBasedSampler _messages = new(ratio);

    public override SamplingResult ShouldSample(in SamplingParameters samplingParameters) =>
        samplingParameters.Name.StartsWith("fix.session.", StringComparison.Ordinal)
            ? new SamplingResult(SamplingDecision.RecordAndSample)
            : _messages.ShouldSample(samplingParameters);
}
