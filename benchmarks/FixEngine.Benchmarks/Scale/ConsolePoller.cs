using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Linq;
using System.Net.Http;
using System.Text.Json;
using System.Threading;
using System.Threading.Tasks;

namespace FixEngine.Benchmarks.Scale;

/// <summary><c>--console poll</c>: <c>GET api/sessions</c> of the acceptor's admin console every period, on its own thread,
/// over one kept-alive connection (as an open console page does); each answer read to its end. Records how long each
/// took (request sent to last byte read) and its size; the first answer is parsed once to count the sessions listed.</summary>
internal sealed class ConsolePoller : IDisposable
{
    private readonly HttpClient _http;
    private readonly Uri _sessions;
    private readonly TimeSpan _period;
    private readonly Thread _thread;
    private readonly List<(double Ms, long Bytes)> _samples = [];
    private volatile bool _stop;

    public ConsolePoller(Uri console, double periodSeconds)
    {
        _http = new HttpClient(new SocketsHttpHandler { MaxConnectionsPerServer = 1, PooledConnectionIdleTimeout = TimeSpan.FromMinutes(5) })
        {
            Timeout = TimeSpan.FromSeconds(30),
        };
        _sessions = new Uri(console, "api/sessions");
        _period = TimeSpan.FromSeconds(periodSeconds);
        _thread = new Thread(Run) { IsBackground = true, Name = "console-poller" };
    }

    public int Errors { get; private set; }

    public string? LastError { get; private set; }

    public int? SessionsListed { get; private set; }

    public void Start() => _thread.Start();

    /// <summary>Stops after the poll in flight.</summary>
    public void Stop()
    {
        _stop = true;
        _thread.Join(TimeSpan.FromSeconds(35));
    }

    public List<(double Ms, long Bytes)> Samples()
    {
        lock (_samples) return [.. _samples];
    }

    private void Run()
    {
        var buffer = new byte[64 * 1024];
        long next = Stopwatch.GetTimestamp();
        while (!_stop)
        {
            long wait = next - Stopwatch.GetTimestamp();
            if (wait > 0) Thread.Sleep(TimeSpan.FromSeconds((double)wait / Stopwatch.Frequency));
            if (_stop) return;
            next += (long)(_period.TotalSeconds * Stopwatch.Frequency);
            long start = Stopwatch.GetTimestamp();
            try
            {
                using HttpResponseMessage response = _http.Send(new HttpRequestMessage(HttpMethod.Get, _sessions), HttpCompletionOption.ResponseHeadersRead);
                using System.IO.Stream body = response.Content.ReadAsStream();
                long bytes = 0;
                System.IO.MemoryStream? first = SessionsListed is null ? new System.IO.MemoryStream() : null;
                int n;
                while ((n = body.Read(buffer)) > 0)
                {
                    bytes += n;
                    first?.Write(buffer, 0, n);
                }
                double ms = Stopwatch.GetElapsedTime(start).TotalMilliseconds;
                if (!response.IsSuccessStatusCode)
                {
                    Errors++;
                    LastError = $"HTTP {(int)response.StatusCode}";
                    continue;
                }
                lock (_samples) _samples.Add((ms, bytes));
                if (first is not null)
                {
                    using JsonDocument list = JsonDocument.Parse(first.ToArray());
                    SessionsListed = list.RootElement.GetArrayLength();
                }
            }
            catch (Exception e) when (e is HttpRequestException or System.IO.IOException or TaskCanceledException or JsonException)
            {
                Errors++;
                LastError = e.Message;
            }
        }
    }

    public void Dispose()
    {
        Stop();
        _http.Dispose();
    }

    /// <summary>The median and the largest of <paramref name="values"/>.</summary>
    public static (double Median, double Max) MedianAndMax(IEnumerable<double> values)
    {
        double[] sorted = [.. values.OrderBy(v => v)];
        if (sorted.Length == 0) return (double.NaN, double.NaN);
        double median = sorted.Length % 2 == 1 ? sorted[sorted.Length / 2] : (sorted[sorted.Length / 2 - 1] + sorted[sorted.Length / 2]) / 2;
        return (median, sorted[^1]);
    }
}
