using System;

namespace FixEngine.Config;

/// <summary>When a session is open, and which session period (the span between two sequence resets) an instant belongs to.</summary>
/// <remarks>
/// Built from StartTime/EndTime (daily, optionally only on some weekdays), plus StartDay/EndDay (weekly), in a time zone;
/// or non-stop. Time is always passed in
/// as nanoseconds since the Unix epoch (UTC) and never read inside. Both ends of a window are inclusive, as in QuickFIX.
/// StartTime == EndTime makes a daily session that is always open and rolls over to a new period at that time each day.
/// A start that falls in a DST gap moves forward by the gap; one that falls in a repeated hour uses its standard-time
/// occurrence. Immutable and thread-safe; the queries do not allocate.
/// </remarks>
public sealed class SessionSchedule
{
    private const long NsPerTick = 100;
    private static readonly long s_epochTicks = DateTime.UnixEpoch.Ticks;

    private readonly TimeOnly _start;
    private readonly TimeOnly _end;
    private readonly TimeZoneInfo _zone;
    private readonly DayOfWeek? _startDay;
    private readonly DayOfWeek? _endDay;
    private readonly int _weekdayMask;

    /// <summary>A session that is always open and never starts a new period.</summary>
    public static SessionSchedule NonStop { get; } = new();

    private SessionSchedule()
    {
        IsNonStop = true;
        _zone = TimeZoneInfo.Utc;
    }

    /// <summary>A daily schedule (both days null) or a weekly one (both days set).</summary>
    /// <param name="startTime">Start of each period, local to <paramref name="timeZone"/>.</param>
    /// <param name="endTime">End of each period (inclusive).</param>
    /// <param name="timeZone">Zone of the times and days.</param>
    /// <param name="startDay">First day of a weekly session, or null.</param>
    /// <param name="endDay">Last day of a weekly session, or null.</param>
    /// <param name="weekdays">Daily sessions only: the days on which a period may start (QuickFIX/n <c>Weekdays</c>); null
    /// or empty for every day.</param>
    /// <exception cref="ArgumentException">Only one of the days is set, or weekdays are given for a weekly schedule.</exception>
    public SessionSchedule(
        TimeOnly startTime, TimeOnly endTime, TimeZoneInfo timeZone, DayOfWeek? startDay = null, DayOfWeek? endDay = null,
        System.Collections.Generic.IReadOnlyList<DayOfWeek>? weekdays = null)
    {
        ArgumentNullException.ThrowIfNull(timeZone);
        if (startDay is null != endDay is null) throw new ArgumentException("StartDay and EndDay must be set together.", nameof(startDay));
        if (weekdays is { Count: > 0 } && startDay is not null) throw new ArgumentException("Weekdays cannot be combined with StartDay/EndDay.", nameof(weekdays));
        if (weekdays is not null)
        {
            foreach (DayOfWeek d in weekdays) _weekdayMask |= 1 << (int)d;
        }
        _start = startTime;
        _end = endTime;
        _zone = timeZone;
        _startDay = startDay;
        _endDay = endDay;
    }

    /// <summary>True for <see cref="NonStop"/>.</summary>
    public bool IsNonStop { get; }

    /// <summary>True for a weekly schedule.</summary>
    public bool IsWeekly => _startDay is not null;

    /// <summary>True when the session is open at <paramref name="utcEpochNs"/>.</summary>
    public bool IsInSession(long utcEpochNs)
    {
        if (IsNonStop) return true;
        long startTicks = PeriodStartTicks(ToUtcTicks(utcEpochNs));
        if (_weekdayMask != 0 && (_weekdayMask & (1 << (int)LocalDayOf(startTicks))) == 0) return false;
        return ToUtcTicks(utcEpochNs) <= PeriodEndTicks(startTicks);
    }

    /// <summary>One owner's memory of a schedule's answer: <see cref="InSession"/> and <see cref="PeriodStartNs"/> hold for
    /// every instant in [<see cref="FromNs"/>, <see cref="UntilNs"/>). The default value holds for no instant.</summary>
    /// <remarks>Not thread-safe: kept by one owner (a session, under its gate) and passed by reference to the cached
    /// queries, which refill it only when asked about an instant outside its span (at most a few times a period, or
    /// when the clock steps back).</remarks>
    internal struct Cache
    {
        /// <summary>First instant (epoch ns, inclusive) the answer holds for.</summary>
        internal long FromNs;

        /// <summary>End of the span (epoch ns, exclusive): the instant at which the answer may next change.</summary>
        internal long UntilNs;

        /// <summary><see cref="SessionPeriodStart(long)"/> throughout the span.</summary>
        internal long PeriodStartNs;

        /// <summary><see cref="IsInSession(long)"/> throughout the span.</summary>
        internal bool InSession;
    }

    /// <summary><see cref="IsInSession(long)"/>, answered from <paramref name="cache"/> while the instant lies in its span:
    /// the time-zone arithmetic runs only when the answer (or the period) may have changed.</summary>
    internal bool IsInSession(long utcEpochNs, ref Cache cache)
    {
        if (IsNonStop) return true;
        if (utcEpochNs < cache.FromNs || utcEpochNs >= cache.UntilNs) Fill(utcEpochNs, ref cache);
        return cache.InSession;
    }

    /// <summary><see cref="SessionPeriodStart(long)"/>, answered from <paramref name="cache"/> as
    /// <see cref="IsInSession(long, ref Cache)"/> is.</summary>
    internal long SessionPeriodStart(long utcEpochNs, ref Cache cache)
    {
        if (IsNonStop) return long.MinValue;
        if (utcEpochNs < cache.FromNs || utcEpochNs >= cache.UntilNs) Fill(utcEpochNs, ref cache);
        return cache.PeriodStartNs;
    }

    // Computes the answer at utcEpochNs and the span over which it cannot change: the period (start s, inclusive end e)
    // stays the same until the next period starts, and within it the answer is "open" up to e and "closed" after it.
    // The next start is the start time one day (one week) after this period's local start day; a check then confirms
    // that the period found for the span's last tick is still s, and shortens the span to any start found before it
    // (the period start only moves forward), so an odd DST rule costs extra refills, never a wrong answer.
    private void Fill(long utcEpochNs, ref Cache cache)
    {
        long t = ToUtcTicks(utcEpochNs);
        long start = PeriodStartTicks(t);
        long end = PeriodEndTicks(start);
        bool dayAllowed = _weekdayMask == 0 || (_weekdayMask & (1 << (int)LocalDayOf(start))) != 0;
        bool open = dayAllowed && t <= end;
        DateTime startDate = TimeZoneInfo.ConvertTimeFromUtc(new DateTime(start, DateTimeKind.Utc), _zone).Date;
        long until = LocalToUtcTicks(startDate.AddDays(IsWeekly ? 7 : 1).Add(_start.ToTimeSpan()));
        if (open && end < until) until = end + 1;
        for (int i = 0; i < 8 && until > t + 1; i++)
        {
            long last = PeriodStartTicks(until - 1);
            if (last == start) break;
            until = last > t && last < until ? last : t + 1;
        }
        if (until <= t || PeriodStartTicks(until - 1) != start) until = t + 1;
        cache.InSession = open;
        cache.PeriodStartNs = (start - s_epochTicks) * NsPerTick;
        cache.FromNs = utcEpochNs;
        // A negative instant's tick is rounded toward zero: hold the answer for that one instant only.
        cache.UntilNs = utcEpochNs < 0 ? utcEpochNs + 1 : (until - s_epochTicks) * NsPerTick;
    }

    // The local calendar day a period starting at startUtcTicks belongs to.
    private DayOfWeek LocalDayOf(long startUtcTicks)
        => TimeZoneInfo.ConvertTimeFromUtc(new DateTime(startUtcTicks, DateTimeKind.Utc), _zone).DayOfWeek;

    /// <summary>
    /// Start (ns since the epoch, UTC) of the latest period that began at or before <paramref name="utcEpochNs"/>;
    /// <see cref="long.MinValue"/> for a non-stop session.
    /// </summary>
    public long SessionPeriodStart(long utcEpochNs)
        => IsNonStop ? long.MinValue : (PeriodStartTicks(ToUtcTicks(utcEpochNs)) - s_epochTicks) * NsPerTick;

    /// <summary>End (ns since the epoch, UTC, inclusive) of the period that starts at <paramref name="periodStartNs"/> (from <see cref="SessionPeriodStart(long)"/>).</summary>
    public long SessionPeriodEnd(long periodStartNs)
        => IsNonStop ? long.MaxValue : (PeriodEndTicks(ToUtcTicks(periodStartNs)) - s_epochTicks) * NsPerTick;

    /// <summary>True when both instants belong to the same period (the session layer resets sequence numbers when they do not).</summary>
    public bool IsSameSessionPeriod(long utcEpochNsA, long utcEpochNsB) => SessionPeriodStart(utcEpochNsA) == SessionPeriodStart(utcEpochNsB);

    private static long ToUtcTicks(long epochNs) => s_epochTicks + epochNs / NsPerTick;

    private long PeriodStartTicks(long utcTicks)
    {
        DateTime local = TimeZoneInfo.ConvertTimeFromUtc(new DateTime(utcTicks, DateTimeKind.Utc), _zone);
        DateTime date = local.Date;
        if (_startDay is DayOfWeek startDay)
        {
            date = date.AddDays(-(((int)date.DayOfWeek - (int)startDay + 7) % 7));
        }
        long start = LocalToUtcTicks(date.Add(_start.ToTimeSpan()));
        if (start > utcTicks)
        {
            start = LocalToUtcTicks(date.AddDays(IsWeekly ? -7 : -1).Add(_start.ToTimeSpan()));
        }
        return start;
    }

    private long PeriodEndTicks(long startUtcTicks)
    {
        DateTime startLocal = TimeZoneInfo.ConvertTimeFromUtc(new DateTime(startUtcTicks, DateTimeKind.Utc), _zone);
        // The local calendar day the period started on (a start moved by a DST gap stays on its day).
        DateTime startDate = startLocal.Date;
        int days = IsWeekly ? ((int)_endDay!.Value - (int)_startDay!.Value + 7) % 7 : 0;
        DateTime endLocal = startDate.AddDays(days).Add(_end.ToTimeSpan());
        long end = LocalToUtcTicks(endLocal);
        if (end <= startUtcTicks) end = LocalToUtcTicks(endLocal.AddDays(IsWeekly ? 7 : 1));
        return end;
    }

    private long LocalToUtcTicks(DateTime local)
    {
        // PERF: GetUtcOffset on an unspecified DateTime reads the zone's cached rules and does not allocate (checked by
        // SessionScheduleTests.QueriesDoNotAllocate). Ambiguous times get the standard offset; invalid (gap) times get
        // the offset before the gap, which lands after the gap.
        DateTime unspecified = DateTime.SpecifyKind(local, DateTimeKind.Unspecified);
        TimeSpan offset = _zone.IsInvalidTime(unspecified) ? _zone.GetUtcOffset(unspecified.AddHours(-3)) : _zone.GetUtcOffset(unspecified);
        return unspecified.Ticks - offset.Ticks;
    }

    /// <inheritdoc/>
    public override string ToString()
        => IsNonStop ? "NonStop"
            : IsWeekly ? $"{_startDay} {_start}-{_endDay} {_end} {_zone.Id}"
            : _weekdayMask != 0 ? $"{_start}-{_end} {_zone.Id} on {WeekdayList()}"
            : $"{_start}-{_end} {_zone.Id}";

    private string WeekdayList()
    {
        var days = new System.Collections.Generic.List<string>();
        for (int d = 0; d < 7; d++)
        {
            if ((_weekdayMask & (1 << d)) != 0) days.Add(((DayOfWeek)d).ToString().Substring(0, 3));
        }
        return string.Join(",", days);
    }
}
