using System;
using System.IO;

namespace FixEngine.Tests.Infrastructure;

/// <summary>Locates the read-only <c>../shared</c> folder that sits beside the repository checkout.</summary>
public static class SharedPaths
{
    private static readonly Lazy<string> s_root = new(Find);

    /// <summary>Absolute path of the shared folder (contains <c>dictionaries/</c> and <c>fix-at/</c>).</summary>
    public static string Root => s_root.Value;

    /// <summary>Path of a QuickFIX data dictionary in shared/dictionaries, e.g. <c>Dictionary("FIX44.xml")</c>.</summary>
    public static string Dictionary(string fileName) => Path.Combine(Root, "dictionaries", fileName);

    /// <summary>Path of the fix-at folder.</summary>
    public static string FixAt => Path.Combine(Root, "fix-at");

    private static string Find()
    {
        // Walk up from the test binary: the repository root is an ancestor, and shared/ is its sibling.
        for (var dir = new DirectoryInfo(AppContext.BaseDirectory); dir is not null; dir = dir.Parent)
        {
            if (File.Exists(Path.Combine(dir.FullName, "FixEngine.sln")))
            {
                string candidate = Path.GetFullPath(Path.Combine(dir.FullName, "..", "shared"));
                if (Directory.Exists(Path.Combine(candidate, "dictionaries"))) return candidate;
                throw new DirectoryNotFoundException($"Expected ../shared beside the repository at '{candidate}'.");
            }
        }
        throw new DirectoryNotFoundException("Could not find the repository root (FixEngine.sln) above " + AppContext.BaseDirectory);
    }
}
