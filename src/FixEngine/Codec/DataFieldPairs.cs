using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;

namespace FixEngine.Codec;

/// <summary>
/// Length/data field pairs (e.g. RawDataLength 95 / RawData 96): the data field is read by the length in the
/// preceding length field, so it may contain SOH.
/// </summary>
/// <remarks>
/// Build it once at start-up (<see cref="CreateStandard"/> then <see cref="Add"/>), then share it read-only between
/// any number of <see cref="FixMessageIndex"/> instances and threads. Lookups never allocate; <see cref="Add"/>
/// is not thread-safe and must not race with parsing.
/// </remarks>
public sealed class DataFieldPairs
{
    /// <summary>Length tags below <see cref="FixMessageIndex.DirectLookupTags"/> are kept in a direct table.</summary>
    private const int DirectTags = FixMessageIndex.DirectLookupTags;

    private readonly int[] _dataTagByLengthTag = new int[DirectTags];
    private readonly List<(int LengthTag, int DataTag)> _large = [];
    private (int LengthTag, int DataTag)[] _largeSnapshot = [];

    /// <summary>The standard FIX 4.x/5.0 pairs, shared and read-only (calling <see cref="Add"/> on it throws).</summary>
    public static DataFieldPairs Standard { get; } = CreateStandardCore(frozen: true);

    private bool _frozen;
    private int _version;

    /// <summary>Creates an empty table (no pairs at all).</summary>
    public DataFieldPairs()
    {
    }

    /// <summary>Creates a new, extendable table pre-filled with the standard pairs.</summary>
    /// <returns>A table the caller may <see cref="Add"/> custom pairs to.</returns>
    public static DataFieldPairs CreateStandard() => CreateStandardCore(frozen: false);

    private static DataFieldPairs CreateStandardCore(bool frozen)
    {
        var pairs = new DataFieldPairs();
        ReadOnlySpan<int> standard =
        [
            FixTags.SecureDataLen, FixTags.SecureData,
            FixTags.SignatureLength, FixTags.Signature,
            FixTags.RawDataLength, FixTags.RawData,
            FixTags.XmlDataLen, FixTags.XmlData,
            FixTags.EncodedIssuerLen, FixTags.EncodedIssuer,
            FixTags.EncodedSecurityDescLen, FixTags.EncodedSecurityDesc,
            FixTags.EncodedListExecInstLen, FixTags.EncodedListExecInst,
            FixTags.EncodedTextLen, FixTags.EncodedText,
            FixTags.EncodedSubjectLen, FixTags.EncodedSubject,
            FixTags.EncodedHeadlineLen, FixTags.EncodedHeadline,
            FixTags.EncodedAllocTextLen, FixTags.EncodedAllocText,
            FixTags.EncodedUnderlyingIssuerLen, FixTags.EncodedUnderlyingIssuer,
            FixTags.EncodedUnderlyingSecurityDescLen, FixTags.EncodedUnderlyingSecurityDesc,
            FixTags.EncodedListStatusTextLen, FixTags.EncodedListStatusText,
            FixTags.EncodedLegIssuerLen, FixTags.EncodedLegIssuer,
            FixTags.EncodedLegSecurityDescLen, FixTags.EncodedLegSecurityDesc,
            FixTags.SecurityXMLLen, FixTags.SecurityXML,
            1277, 1278, // DerivativeEncodedIssuerLen / DerivativeEncodedIssuer
            1280, 1281, // DerivativeEncodedSecurityDescLen / DerivativeEncodedSecurityDesc
            1282, 1283, // DerivativeSecurityXMLLen / DerivativeSecurityXML
            1397, 1398, // EncodedMktSegmDescLen / EncodedMktSegmDesc
            FixTags.EncryptedPasswordLen, FixTags.EncryptedPassword,
            FixTags.EncryptedNewPasswordLen, FixTags.EncryptedNewPassword,
            1468, 1469, // EncodedSecurityListDescLen / EncodedSecurityListDesc
            1525, 1527, // EncodedDocumentationTextLen / EncodedDocumentationText
            1578, 1579, // EncodedEventTextLen / EncodedEventText
            1620, 1621, // InstrumentScopeEncodedSecurityDescLen / InstrumentScopeEncodedSecurityDesc
            1664, 1665, // EncodedRejectTextLen / EncodedRejectText
            1733, 1734, // EncodedFirmAllocTextLen / EncodedFirmAllocText
            1871, 1872, // LegSecurityXMLLen / LegSecurityXML
            1874, 1875, // UnderlyingSecurityXMLLen / UnderlyingSecurityXML
        ];
        for (int i = 0; i < standard.Length; i += 2) pairs.Add(standard[i], standard[i + 1]);
        pairs._frozen = frozen;
        return pairs;
    }

    /// <summary>Registers a length tag and the data tag that follows it.</summary>
    /// <param name="lengthTag">Tag of the LENGTH field.</param>
    /// <param name="dataTag">Tag of the DATA field.</param>
    /// <exception cref="ArgumentOutOfRangeException">A tag is not positive.</exception>
    /// <exception cref="InvalidOperationException">This is the shared <see cref="Standard"/> table.</exception>
    public void Add(int lengthTag, int dataTag)
    {
        if (_frozen) Internal.ThrowHelper.ThrowInvalidOperation("DataFieldPairs.Standard is shared and read-only; use CreateStandard() to extend it.");
        if (lengthTag <= 0) Internal.ThrowHelper.ThrowArgumentOutOfRange(nameof(lengthTag));
        if (dataTag <= 0) Internal.ThrowHelper.ThrowArgumentOutOfRange(nameof(dataTag));
        _version++;
        if (lengthTag < DirectTags)
        {
            _dataTagByLengthTag[lengthTag] = dataTag;
            return;
        }
        _large.RemoveAll(p => p.LengthTag == lengthTag);
        _large.Add((lengthTag, dataTag));
        _largeSnapshot = _large.ToArray();
    }

    /// <summary>Direct table: data tag by length tag, for tags below <see cref="FixMessageIndex.DirectLookupTags"/>.</summary>
    internal int[] DirectTable => _dataTagByLengthTag;

    /// <summary>Changes on every <see cref="Add"/>, so an index can tell that its copy of the length tags is stale.</summary>
    internal int Version => _version;

    /// <summary>Data tag announced by <paramref name="lengthTag"/>, or 0 when it is not a registered length tag.</summary>
    /// <param name="lengthTag">Any tag.</param>
    /// <returns>The data tag, or 0.</returns>
    // Inlined: the direct table serves every tag below DirectTags (the per-field checks of parsing and of a resend's
    // header read); the rest take the list.
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public int GetDataTag(int lengthTag) => (uint)lengthTag < DirectTags ? _dataTagByLengthTag[lengthTag] : GetLargeDataTag(lengthTag);

    private int GetLargeDataTag(int lengthTag)
    {
        foreach ((int LengthTag, int DataTag) pair in _largeSnapshot)
        {
            if (pair.LengthTag == lengthTag) return pair.DataTag;
        }
        return 0;
    }
}
