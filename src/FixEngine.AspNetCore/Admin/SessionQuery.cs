using System;
using System.Globalization;
using System.Linq;
using FixEngine.Engine;
using FixEngine.Session;
using Microsoft.AspNetCore.Http;

namespace FixEngine.AspNetCore;

/// <summary>Which sessions <c>api/sessions</c> writes: those that match a filter (states, enabled or not, a text in the
/// session id), and of them a page (<see cref="Offset"/>, <see cref="Limit"/>) when one is asked for (docs/console.md,
/// "API").</summary>
/// <remarks>Immutable; matching reads what a session publishes for other threads and allocates nothing.</remarks>
internal sealed class SessionQuery
{
    /// <summary>The most sessions one page may ask for.</summary>
    public const int MaxLimit = 1_000;

    /// <summary>Longest text filter accepted.</summary>
    public const int MaxTextLength = 200;

    private static readonly string s_stateNames = string.Join(", ", Enum.GetNames<SessionState>());
    private static readonly string[] s_parameters = ["offset", "limit", "state", "enabled", "q"];

    /// <summary>Every session, as one array (no page).</summary>
    public static SessionQuery All { get; } = new();

    /// <summary>Matching sessions skipped before the first one written (paged).</summary>
    public int Offset { get; init; }

    /// <summary>At most this many matching sessions written.</summary>
    public int Limit { get; init; } = int.MaxValue;

    /// <summary>True when offset or limit was given: the answer is a page object (offset, limit, sessions, total,
    /// sessionCount) rather than a plain array.</summary>
    public bool Paged { get; init; }

    /// <summary>One bit per <see cref="SessionState"/> a session may be in; 0: any.</summary>
    public uint States { get; init; }

    /// <summary>Only enabled (true) or only disabled (false) sessions; null: both.</summary>
    public bool? Enabled { get; init; }

    /// <summary>A text the session id (<c>BeginString:SenderCompID-&gt;TargetCompID[:Qualifier]</c>) must contain,
    /// ignoring case; null: any.</summary>
    public string? Text { get; init; }

    /// <summary>True when the session in <paramref name="slot"/>, whose id text is <paramref name="id"/>, passes the
    /// filter (not the page).</summary>
    public bool Matches(SessionSlot slot, string id)
    {
        if (States != 0 && (States & (1u << (int)slot.Session.State)) == 0) return false;
        if (Enabled is bool enabled && enabled == slot.Disabled) return false;
        return Text is null || id.Contains(Text, StringComparison.OrdinalIgnoreCase);
    }

    /// <summary>Reads <c>offset</c>, <c>limit</c>, <c>state</c> (names, comma-separated), <c>enabled</c> (true/false)
    /// and <c>q</c> (text); a bad or unknown parameter is a 400 naming it.</summary>
    /// <exception cref="AdminRequestException">A parameter is not valid.</exception>
    public static SessionQuery Parse(IQueryCollection query)
    {
        if (query.Count == 0) return All;
        foreach (string key in query.Keys)
        {
            if (!s_parameters.Contains(key, StringComparer.OrdinalIgnoreCase))
            {
                throw new AdminRequestException(400, key + ": unknown parameter (api/sessions takes " + string.Join(", ", s_parameters) + ")");
            }
        }
        string? offsetText = Single(query, "offset");
        string? limitText = Single(query, "limit");
        int offset = offsetText is null ? 0 : Number(offsetText, "offset", 0, int.MaxValue, "a whole number of 0 or more");
        int? limit = limitText is null ? null : Number(limitText, "limit", 1, MaxLimit, "a whole number from 1 to " + MaxLimit.ToString(CultureInfo.InvariantCulture));
        bool paged = offsetText is not null || limitText is not null;

        uint states = 0;
        if (Single(query, "state") is string stateText)
        {
            foreach (string part in stateText.Split(','))
            {
                string name = part.Trim();
                if (name.Length == 0 || name.Any(c => !char.IsAsciiLetter(c))
                    || !Enum.TryParse(name, ignoreCase: true, out SessionState state) || !Enum.IsDefined(state))
                {
                    throw new AdminRequestException(400, "state: '" + part + "' is not a session state (" + s_stateNames + "; several separated by commas)");
                }
                states |= 1u << (int)state;
            }
        }

        bool? enabled = null;
        if (Single(query, "enabled") is string enabledText)
        {
            enabled = bool.TryParse(enabledText, out bool e) ? e
                : throw new AdminRequestException(400, "enabled: '" + enabledText + "' is not true or false");
        }

        string? text = Single(query, "q")?.Trim();
        if (text is { Length: > MaxTextLength })
        {
            throw new AdminRequestException(400, "q: " + text.Length.ToString(CultureInfo.InvariantCulture) + " characters; at most " + MaxTextLength.ToString(CultureInfo.InvariantCulture));
        }
        return new SessionQuery
        {
            Offset = offset,
            // A page without a limit: 100 sessions.
            Limit = limit ?? (paged ? 100 : int.MaxValue),
            Paged = paged,
            States = states,
            Enabled = enabled,
            Text = string.IsNullOrEmpty(text) ? null : text,
        };
    }

    // The value of a parameter given at most once (null when absent).
    private static string? Single(IQueryCollection query, string name)
    {
        if (!query.TryGetValue(name, out Microsoft.Extensions.Primitives.StringValues values) || values.Count == 0) return null;
        if (values.Count > 1) throw new AdminRequestException(400, name + ": given " + values.Count.ToString(CultureInfo.InvariantCulture) + " times; give it once");
        // Empty (a form's "any"): as if absent.
        return string.IsNullOrEmpty(values[0]) ? null : values[0];
    }

    private static int Number(string text, string name, int min, int max, string what)
    {
        if (!int.TryParse(text, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out int n) || n < min || n > max)
        {
            throw new AdminRequestException(400, name + ": '" + text + "' is not " + what);
        }
        return n;
    }
}
