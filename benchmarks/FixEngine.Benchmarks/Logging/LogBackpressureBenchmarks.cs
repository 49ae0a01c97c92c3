using System;
using System.IO;
using BenchmarkDotNet.Attributes;
using FixEngine.Logging;

namespace FixEngine.Benchmarks.Logging;

/// <summary>
/// The caller's cost per message-log entry when it outruns the drain: a 64 KiB ring, a real drain thread formatting
/// into <see cref="TextWriter.Null"/>, 20,000 FIX-message entries per invocation. <see cref="LogFullPolicy.Wait"/> (the
/// default, lossless) runs the caller at the drain's speed; <see cref="LogFullPolicy.Drop"/> returns at once and loses
/// what does not fit (the count lost per invocation is printed after the run).
/// </summary>
[MemoryDiagnoser]
public class LogBackpressureBenchmarks
{
    private const int Batch = 20_000;
    private readonly byte[] _message = "8=FIX.4.4\u00019=87\u000135=D\u000134=96\u000149=CLIENT\u000152=20261125-21:23:56.541\u000156=EXEC\u000111=94\u000155=EURUSD\u000154=1\u000138=100\u000140=1\u000110=131\u0001"u8.ToArray();
    private FixLog _log = null!;
    private LogProducer _producer = null!;
    private int _event;

    [Params(LogFullPolicy.Wait, LogFullPolicy.Drop)]
    public LogFullPolicy Policy { get; set; }

    [GlobalSetup]
    public void Setup()
    {
        _log = new FixLog(TextWriter.Null, new FixLogOptions { RingCapacityBytes = 64 * 1024, FullPolicy = Policy, SohReplacement = '|' });
        _event = _log.RegisterEvent("< {payload}");
        _producer = _log.CreateProducer("FIX.4.4:EXEC->CLIENT");
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        Console.WriteLine($"// {Policy}: dropped {_producer.DroppedCount} entries, waited {_producer.WaitCount} times");
        _log.Dispose();
    }

    [Benchmark(OperationsPerInvoke = Batch)]
    public void LogIncomingMessages()
    {
        for (int i = 0; i < Batch; i++)
        {
            _producer.Log(LogLevel.Information, _event, _message);
        }
    }
}
