using System;
using System.Threading;

namespace FixEngine.Benchmarks.Collections;

/// <summary>A dedicated thread that runs one preallocated action each time it is signalled (no allocation per run).</summary>
public sealed class BackgroundWorker : IDisposable
{
    private readonly Action _work;
    private readonly SemaphoreSlim _go = new(0);
    private readonly SemaphoreSlim _done = new(0);
    private readonly Thread _thread;
    private volatile bool _stop;

    public BackgroundWorker(string name, Action work)
    {
        _work = work;
        _thread = new Thread(Run) { IsBackground = true, Name = name };
        _thread.Start();
    }

    public void Start() => _go.Release();

    public void WaitDone() => _done.Wait();

    public void Dispose()
    {
        _stop = true;
        _go.Release();
        _thread.Join();
    }

    private void Run()
    {
        while (true)
        {
            _go.Wait();
            if (_stop) return;
            _work();
            _done.Release();
        }
    }
}
