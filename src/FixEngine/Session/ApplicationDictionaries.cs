using System;
using System.Collections.Generic;
using System.Text;
using FixEngine.Dictionary;

namespace FixEngine.Session;

/// <summary>The application dictionaries of a FIXT.1.1 session with more than one application version
/// (<c>AppDataDictionary</c> and <c>AppDataDictionary.&lt;version&gt;</c>), by ApplVerID(1128) value.</summary>
/// <remarks>Immutable; thread-safe. <see cref="Find"/> compares bytes against a handful of keys: no allocation.</remarks>
internal sealed class ApplicationDictionaries
{
    private readonly byte[][] _keys;
    private readonly DataDictionary[] _dictionaries;

    /// <summary>Creates the table.</summary>
    /// <param name="byApplVerId">Each dictionary under its ApplVerID(1128) enum value (<c>"6"</c> for FIX.4.4 ...).</param>
    public ApplicationDictionaries(IReadOnlyDictionary<string, DataDictionary> byApplVerId)
    {
        ArgumentNullException.ThrowIfNull(byApplVerId);
        var keys = new List<string>(byApplVerId.Keys);
        keys.Sort(StringComparer.Ordinal);
        _keys = new byte[keys.Count][];
        _dictionaries = new DataDictionary[keys.Count];
        for (int i = 0; i < keys.Count; i++)
        {
            _keys[i] = Encoding.ASCII.GetBytes(keys[i]);
            _dictionaries[i] = byApplVerId[keys[i]];
        }
        Versions = string.Join(", ", keys);
    }

    /// <summary>The ApplVerID values that have a dictionary, e.g. <c>6, 9</c> (for log lines).</summary>
    public string Versions { get; }

    /// <summary>The dictionary of the application version <paramref name="applVerId"/>, or null when it has none.</summary>
    /// <param name="applVerId">An ApplVerID(1128) or DefaultApplVerID(1137) value as received.</param>
    /// <returns>The dictionary, or null.</returns>
    public DataDictionary? Find(ReadOnlySpan<byte> applVerId)
    {
        for (int i = 0; i < _keys.Length; i++)
        {
            if (applVerId.SequenceEqual(_keys[i])) return _dictionaries[i];
        }
        return null;
    }
}
