using System;
using System.Collections.Generic;
using Microsoft.Extensions.Logging;

namespace FixEngine.Tests.Infrastructure;

/// <summary>An <see cref="ILoggerProvider"/> that records every line (category, level, text) from any thread.</summary>
internal sealed class CapturingLoggerProvider : ILoggerProvider, ILoggerFactory
{
    private readonly List<(string Category, LogLevel Level, string Text)> _lines = [];
    private readonly List<(EventId Id, LogLevel Level, string Text, IReadOnlyList<KeyValuePair<string, object?>> Properties)> _records = [];

    /// <summary>Every line with its EventId and its named properties (the state's key/value pairs).</summary>
    public IReadOnlyList<(EventId Id, LogLevel Level, string Text, IReadOnlyList<KeyValuePair<string, object?>> Properties)> Records
    {
        get
        {
            lock (_lines) return [.. _records];
        }
    }

    public IReadOnlyList<(string Category, LogLevel Level, string Text)> Lines
    {
        get
        {
            lock (_lines) return [.. _lines];
        }
    }

    public ILogger CreateLogger(string categoryName) => new Logger(this, categoryName);

    public void AddProvider(ILoggerProvider provider) => throw new NotSupportedException();

    public void Dispose()
    {
    }

    private sealed class Logger(CapturingLoggerProvider owner, string category) : ILogger
    {
        public IDisposable? BeginScope<TState>(TState state) where TState : notnull => null;

        public bool IsEnabled(LogLevel logLevel) => true;

        public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter)
        {
            string text = formatter(state, exception);
            IReadOnlyList<KeyValuePair<string, object?>> properties = state is IReadOnlyList<KeyValuePair<string, object?>> list ? [.. list] : [];
            lock (owner._lines)
            {
                owner._lines.Add((category, logLevel, text));
                owner._records.Add((eventId, logLevel, text, properties));
            }
        }
    }
}
