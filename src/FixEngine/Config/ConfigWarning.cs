namespace FixEngine.Config;

/// <summary>A settings key that was accepted but cannot apply as written (or a setting worth a second look): names the
/// file, the line, the key and why.</summary>
/// <param name="FileName">The settings file's path or display name; null for settings built in code.</param>
/// <param name="LineNumber">1-based line of the key (of the section header when the key was not written); 0 without a file.</param>
/// <param name="Key">The key.</param>
/// <param name="Reason">What FixEngine does instead.</param>
public sealed record ConfigWarning(string? FileName, int LineNumber, string Key, string Reason)
{
    /// <summary><c>file(line): key: reason</c>, the same shape as a <see cref="ConfigException"/> message.</summary>
    public override string ToString() => FileName is null ? $"{Key}: {Reason}" : $"{FileName}({LineNumber}): {Key}: {Reason}";
}
