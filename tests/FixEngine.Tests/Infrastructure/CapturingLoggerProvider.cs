using System;
using System.Collections.Generic;
using Microsoft.Extensions.Logging;

namespace FixEngine.Tests.Infrastructure;

/// <summary>An <see cref="ILoggerProvider"/> that records every line (category, level, text) from any thread.</summary>
internal sealed class CapturingLoggerProvider : ILoggerProvider, ILoggerFactory
{
    private readonly List<(string Category, LogLevel Level, string Text)> _lines = [];

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
            lock (owner._lines) owner._lines.Add((category, logLevel, formatter(state, exception)));
        }
    }
}
