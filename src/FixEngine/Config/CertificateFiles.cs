using System;
using System.Collections.Generic;
using System.IO;
using System.Security.Cryptography;
using System.Security.Cryptography.X509Certificates;
using System.Text;

namespace FixEngine.Config;

/// <summary>Loads TLS certificates the way QuickFIX users keep them: PKCS#12 (.pfx/.p12), PEM in any file (.pem, .crt,
/// .cer) with the private key in the same file or a separate one, encrypted PKCS#8 keys, DER certificates, and CA bundles
/// of many certificates.</summary>
/// <remarks>
/// Start-up only (reads files, allocates); thread-safe. Every failure is a <see cref="ConfigException"/> naming the
/// settings file and line of the key (when the settings came from a file), the key as the user wrote it
/// (<c>ServerCertificateFile</c> or <c>SSLCertificate</c> ...), the certificate file and what is wrong with it.
/// The caller owns (disposes) the certificates returned.
/// </remarks>
internal static class CertificateFiles
{
    /// <summary>Our certificate with its private key, from <see cref="SessionSettings.SSLCertificate"/>,
    /// <see cref="SessionSettings.SSLCertificateKeyFile"/> and <see cref="SessionSettings.SSLCertificatePassword"/>.</summary>
    /// <param name="settings">A session with <see cref="SessionSettings.SSLCertificate"/> set.</param>
    /// <returns>The certificate, with a private key every platform's TLS stack can use.</returns>
    /// <exception cref="ConfigException">A file is missing or unreadable, holds no certificate or key, the key is encrypted
    /// and no (or a wrong) password is set, or the key does not belong to the certificate.</exception>
    public static X509Certificate2 LoadOwnCertificate(SessionSettings settings)
    {
        ArgumentNullException.ThrowIfNull(settings);
        if (string.IsNullOrEmpty(settings.SSLCertificate))
        {
            throw SettingsOrigin.Error(settings, nameof(SessionSettings.SSLCertificate), "missing (a certificate with its private key)");
        }
        string certificateKey = WrittenKey(settings, nameof(SessionSettings.SSLCertificate), "ServerCertificateFile", "ClientCertificateFile");
        string keyFileKey = WrittenKey(settings, nameof(SessionSettings.SSLCertificateKeyFile), "ServerCertificateKeyFile", "ClientCertificateKeyFile");
        try
        {
            return LoadCertificateWithKey(settings.SSLCertificate, settings.SSLCertificateKeyFile, settings.SSLCertificatePassword);
        }
        catch (CertificateFileException e)
        {
            throw SettingsOrigin.Error(settings, e.InKeyFile ? keyFileKey : certificateKey, e.Message);
        }
    }

    /// <summary>The intermediate certificates kept with our own in <see cref="SessionSettings.SSLCertificate"/>: every
    /// certificate after the first in a PEM file, or every certificate without the private key in a PKCS#12 file. They are
    /// sent after ours in the TLS handshake so the peer can build the chain to its root.</summary>
    /// <param name="settings">A session with <see cref="SessionSettings.SSLCertificate"/> set.</param>
    /// <returns>The intermediates (possibly empty); the caller owns them.</returns>
    /// <exception cref="ConfigException">The file cannot be read.</exception>
    public static X509Certificate2Collection LoadOwnCertificateChain(SessionSettings settings)
    {
        ArgumentNullException.ThrowIfNull(settings);
        var chain = new X509Certificate2Collection();
        if (string.IsNullOrEmpty(settings.SSLCertificate)) return chain;
        string certificateKey = WrittenKey(settings, nameof(SessionSettings.SSLCertificate), "ServerCertificateFile", "ClientCertificateFile");
        try
        {
            byte[] bytes = Read(settings.SSLCertificate, inKeyFile: false);
            if (IsPem(bytes))
            {
                bool first = true;
                foreach ((string label, string base64, _) in PemBlocks(Encoding.ASCII.GetString(bytes)))
                {
                    if (label != "CERTIFICATE") continue;
                    if (first)
                    {
                        first = false;
                        continue;
                    }
                    chain.Add(X509CertificateLoader.LoadCertificate(Convert.FromBase64String(base64)));
                }
            }
            else if (IsPkcs12Name(settings.SSLCertificate) || settings.SSLCertificateKeyFile is null)
            {
                X509Certificate2Collection all;
                try
                {
                    all = X509CertificateLoader.LoadPkcs12Collection(bytes, settings.SSLCertificatePassword);
                }
                catch (CryptographicException)
                {
                    return chain; // LoadOwnCertificate reports what is wrong with the file.
                }
                foreach (X509Certificate2 c in all)
                {
                    if (c.HasPrivateKey) c.Dispose();
                    else chain.Add(c);
                }
            }
        }
        catch (CertificateFileException e)
        {
            foreach (X509Certificate2 c in chain) c.Dispose();
            throw SettingsOrigin.Error(settings, certificateKey, e.Message);
        }
        return chain;
    }

    /// <summary>The certificates trusted to sign the peer's certificate: every certificate of
    /// <see cref="SessionSettings.SSLCACertificate"/> and of the files in <see cref="SessionSettings.SSLCACertificateDirectory"/>;
    /// empty when neither is set (the system trust store applies).</summary>
    /// <param name="settings">The session's settings.</param>
    /// <returns>The certificates (possibly empty).</returns>
    /// <exception cref="ConfigException">A file or directory is missing, unreadable or holds no certificate.</exception>
    public static X509Certificate2Collection LoadTrustedCertificates(SessionSettings settings)
    {
        ArgumentNullException.ThrowIfNull(settings);
        var all = new X509Certificate2Collection();
        if (!string.IsNullOrEmpty(settings.SSLCACertificate))
        {
            string key = WrittenKey(settings, nameof(SessionSettings.SSLCACertificate), "CertificationAuthoritiesFile");
            try
            {
                all.AddRange(LoadCertificates(settings.SSLCACertificate));
            }
            catch (CertificateFileException e)
            {
                throw SettingsOrigin.Error(settings, key, e.Message);
            }
        }
        if (!string.IsNullOrEmpty(settings.SSLCACertificateDirectory))
        {
            string key = WrittenKey(settings, nameof(SessionSettings.SSLCACertificateDirectory), "CertificationAuthoritiesDirectory");
            try
            {
                all.AddRange(LoadCertificateDirectory(settings.SSLCACertificateDirectory));
            }
            catch (CertificateFileException e)
            {
                throw SettingsOrigin.Error(settings, key, e.Message);
            }
        }
        return all;
    }

    /// <summary>A certificate and its private key: PKCS#12, or a PEM/DER certificate with a PEM key in
    /// <paramref name="keyPath"/> or (when null) in the certificate file itself.</summary>
    /// <param name="certificatePath">PKCS#12, PEM or DER certificate file.</param>
    /// <param name="keyPath">PEM private key file, or null.</param>
    /// <param name="password">Password of the PKCS#12 file or of an encrypted PEM key, or null.</param>
    /// <returns>The certificate with its key, re-imported through PKCS#12 so every platform's TLS stack can use it.</returns>
    /// <exception cref="CertificateFileException">Names the file and what is wrong.</exception>
    public static X509Certificate2 LoadCertificateWithKey(string certificatePath, string? keyPath, string? password)
    {
        ArgumentNullException.ThrowIfNull(certificatePath);
        byte[] bytes = Read(certificatePath, inKeyFile: false);
        if (!IsPem(bytes))
        {
            if (keyPath is null || IsPkcs12Name(certificatePath)) return LoadPkcs12WithKey(certificatePath, bytes, password);
            using X509Certificate2 der = LoadDer(certificatePath, bytes);
            return Combine(der, certificatePath, keyPath, password);
        }
        string text = Encoding.ASCII.GetString(bytes);
        List<(string Label, string Pem, string Headers)> blocks = PemBlocks(text);
        int certificateIndex = blocks.FindIndex(b => b.Label == "CERTIFICATE");
        if (certificateIndex < 0)
        {
            throw new CertificateFileException($"'{certificatePath}' holds no certificate (no -----BEGIN CERTIFICATE----- block)", false);
        }
        using X509Certificate2 certificate = X509CertificateLoader.LoadCertificate(Convert.FromBase64String(blocks[certificateIndex].Pem));
        return Combine(certificate, certificatePath, keyPath ?? certificatePath, password);
    }

    /// <summary>Every certificate in <paramref name="path"/>: all CERTIFICATE blocks of a PEM file (a CA bundle), a DER
    /// certificate, or the certificates of a PKCS#12 file.</summary>
    /// <param name="path">The file.</param>
    /// <returns>At least one certificate.</returns>
    /// <exception cref="CertificateFileException">Names the file and what is wrong.</exception>
    public static X509Certificate2Collection LoadCertificates(string path)
    {
        ArgumentNullException.ThrowIfNull(path);
        byte[] bytes = Read(path, inKeyFile: false);
        return LoadCertificates(path, bytes) ?? throw new CertificateFileException(
            $"'{path}' holds no certificate (neither PEM CERTIFICATE blocks, nor a DER certificate, nor PKCS#12)", false);
    }

    /// <summary>Every certificate in the files of <paramref name="directory"/> (not recursive; files holding no
    /// certificate, such as CRLs, are skipped).</summary>
    /// <param name="directory">The directory.</param>
    /// <returns>At least one certificate.</returns>
    /// <exception cref="CertificateFileException">The directory is missing or holds no certificate.</exception>
    public static X509Certificate2Collection LoadCertificateDirectory(string directory)
    {
        ArgumentNullException.ThrowIfNull(directory);
        if (!Directory.Exists(directory)) throw new CertificateFileException($"'{directory}' is not a directory", false);
        var all = new X509Certificate2Collection();
        string[] files = Directory.GetFiles(directory);
        Array.Sort(files, StringComparer.Ordinal);
        foreach (string file in files)
        {
            if (LoadCertificates(file, Read(file, inKeyFile: false)) is X509Certificate2Collection found) all.AddRange(found);
        }
        if (all.Count == 0) throw new CertificateFileException($"'{directory}' holds no certificate file", false);
        return all;
    }

    private static X509Certificate2Collection? LoadCertificates(string path, byte[] bytes)
    {
        if (IsPem(bytes))
        {
            var pem = new X509Certificate2Collection();
            foreach ((string label, string base64, _) in PemBlocks(Encoding.ASCII.GetString(bytes)))
            {
                if (label is not ("CERTIFICATE" or "TRUSTED CERTIFICATE")) continue;
                try
                {
                    pem.Add(X509CertificateLoader.LoadCertificate(Convert.FromBase64String(base64)));
                }
                catch (Exception e) when (e is CryptographicException or FormatException)
                {
                    throw new CertificateFileException($"certificate {pem.Count + 1} in '{path}' is corrupt: {e.Message}", false);
                }
            }
            return pem.Count == 0 ? null : pem;
        }
        try
        {
            return [X509CertificateLoader.LoadCertificate(bytes)];
        }
        catch (CryptographicException)
        {
            // Not DER: PKCS#12 (without a password: trust bundles are not secret) is the last format tried.
        }
        try
        {
            X509Certificate2Collection collection = X509CertificateLoader.LoadPkcs12Collection(bytes, null);
            return collection.Count == 0 ? null : collection;
        }
        catch (CryptographicException)
        {
            return null;
        }
    }

    private static X509Certificate2 LoadPkcs12WithKey(string path, byte[] bytes, string? password)
    {
        X509Certificate2 certificate;
        try
        {
            certificate = X509CertificateLoader.LoadPkcs12(bytes, password);
        }
        catch (CryptographicException e)
        {
            throw new CertificateFileException(
                $"'{path}' is neither PEM nor a PKCS#12 file that opens with the configured password ({e.Message.TrimEnd('.')}); check the file and SSLCertificatePassword",
                false);
        }
        if (!certificate.HasPrivateKey)
        {
            certificate.Dispose();
            throw new CertificateFileException($"'{path}' holds a certificate but no private key", false);
        }
        return certificate;
    }

    private static X509Certificate2 LoadDer(string path, byte[] bytes)
    {
        try
        {
            return X509CertificateLoader.LoadCertificate(bytes);
        }
        catch (CryptographicException e)
        {
            throw new CertificateFileException($"'{path}' is neither PEM nor a DER certificate: {e.Message}", false);
        }
    }

    // Pairs the certificate with the private key found in keyPath (a PEM file; may be the certificate file itself).
    private static X509Certificate2 Combine(X509Certificate2 certificate, string certificatePath, string keyPath, string? password)
    {
        bool separate = !string.Equals(keyPath, certificatePath, StringComparison.Ordinal);
        byte[] keyBytes = separate ? Read(keyPath, inKeyFile: true) : File.ReadAllBytes(certificatePath);
        if (!IsPem(keyBytes)) throw new CertificateFileException($"'{keyPath}' is not a PEM private key file", separate);
        List<(string Label, string Pem, string Headers)> blocks = PemBlocks(Encoding.ASCII.GetString(keyBytes));
        int keyIndex = blocks.FindIndex(b => b.Label.EndsWith("PRIVATE KEY", StringComparison.Ordinal));
        if (keyIndex < 0)
        {
            throw new CertificateFileException(separate
                ? $"'{keyPath}' holds no private key (no -----BEGIN ... PRIVATE KEY----- block)"
                : $"'{certificatePath}' holds no private key: put it in the file or name the key file (SSLCertificateKeyFile, or ServerCertificateKeyFile/ClientCertificateKeyFile)",
                separate);
        }
        (string label, string base64, string headers) = blocks[keyIndex];
        if (headers.Contains("ENCRYPTED", StringComparison.OrdinalIgnoreCase))
        {
            throw new CertificateFileException(
                $"the private key in '{keyPath}' uses OpenSSL's legacy encryption (Proc-Type: 4,ENCRYPTED), which .NET cannot read: convert it to encrypted PKCS#8 (openssl pkcs8 -topk8 -in old.key -out new.key)",
                separate);
        }
        bool encrypted = label == "ENCRYPTED PRIVATE KEY";
        if (encrypted && string.IsNullOrEmpty(password))
        {
            throw new CertificateFileException($"the private key in '{keyPath}' is encrypted: set SSLCertificatePassword", separate);
        }
        string keyPem = PemEncoding.WriteString(label, Convert.FromBase64String(base64));
        string certificatePem = PemEncoding.WriteString("CERTIFICATE", certificate.RawData);
        X509Certificate2 ephemeral;
        try
        {
            ephemeral = encrypted
                ? X509Certificate2.CreateFromEncryptedPem(certificatePem, keyPem, password)
                : X509Certificate2.CreateFromPem(certificatePem, keyPem);
        }
        catch (Exception e) when (e is CryptographicException or ArgumentException)
        {
            if (encrypted && !CanDecrypt(keyPem, password!))
            {
                throw new CertificateFileException($"cannot decrypt the private key in '{keyPath}' with SSLCertificatePassword (wrong password?)", separate);
            }
            throw new CertificateFileException(
                $"the private key in '{keyPath}' does not belong to the certificate in '{certificatePath}' (or is of an unsupported kind: {e.Message.TrimEnd('.')})",
                separate);
        }
        using (ephemeral)
        {
            return X509CertificateLoader.LoadPkcs12(ephemeral.Export(X509ContentType.Pkcs12), null);
        }
    }

    // Tells a wrong password (nothing decrypts) from a key that decrypts but does not fit the certificate.
    private static bool CanDecrypt(string keyPem, string password)
    {
        try
        {
            using RSA rsa = RSA.Create();
            rsa.ImportFromEncryptedPem(keyPem, password);
            return true;
        }
        catch (Exception e) when (e is CryptographicException or ArgumentException)
        {
            // Not an RSA key, or the password is wrong: try EC.
        }
        try
        {
            using ECDsa ec = ECDsa.Create();
            ec.ImportFromEncryptedPem(keyPem, password);
            return true;
        }
        catch (Exception e) when (e is CryptographicException or ArgumentException)
        {
            return false;
        }
    }

    private static byte[] Read(string path, bool inKeyFile)
    {
        try
        {
            return File.ReadAllBytes(path);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or ArgumentException or NotSupportedException)
        {
            string hint = path.StartsWith("CN=", StringComparison.OrdinalIgnoreCase)
                ? " (certificate store lookups by subject name are not supported: give a file)"
                : "";
            throw new CertificateFileException($"cannot read '{path}': {e.Message.TrimEnd('.')}{hint}", inKeyFile);
        }
    }

    private static bool IsPkcs12Name(string path)
        => path.EndsWith(".pfx", StringComparison.OrdinalIgnoreCase) || path.EndsWith(".p12", StringComparison.OrdinalIgnoreCase);

    private static bool IsPem(byte[] bytes) => bytes.AsSpan().IndexOf("-----BEGIN "u8) >= 0;

    // The PEM blocks of text: label, base64 body, and the RFC 1421 headers (Proc-Type ...) between the BEGIN line and the body.
    private static List<(string Label, string Pem, string Headers)> PemBlocks(string text)
    {
        var blocks = new List<(string, string, string)>();
        int offset = 0;
        while (offset < text.Length)
        {
            int begin = text.IndexOf("-----BEGIN ", offset, StringComparison.Ordinal);
            if (begin < 0) break;
            int labelEnd = text.IndexOf("-----", begin + 11, StringComparison.Ordinal);
            if (labelEnd < 0) break;
            string label = text.Substring(begin + 11, labelEnd - begin - 11);
            string endMarker = "-----END " + label + "-----";
            int end = text.IndexOf(endMarker, labelEnd, StringComparison.Ordinal);
            if (end < 0) break;
            string inner = text.Substring(labelEnd + 5, end - labelEnd - 5);
            string headers = "";
            int blank = inner.IndexOf("\n\n", StringComparison.Ordinal) is int b && b >= 0 ? b : inner.IndexOf("\r\n\r\n", StringComparison.Ordinal);
            if (inner.Contains(':', StringComparison.Ordinal) && blank >= 0)
            {
                headers = inner.Substring(0, blank);
                inner = inner.Substring(blank);
            }
            var base64 = new StringBuilder(inner.Length);
            foreach (char c in inner)
            {
                if (!char.IsWhiteSpace(c)) base64.Append(c);
            }
            blocks.Add((label, base64.ToString(), headers));
            offset = end + endMarker.Length;
        }
        return blocks;
    }

    // The key the user wrote for a setting: ours, or the QuickFIX spelling that set it.
    private static string WrittenKey(SessionSettings settings, string ours, params string[] theirs)
    {
        if (settings.Origin is SettingsOrigin origin && !origin.Has(ours))
        {
            foreach (string key in theirs)
            {
                if (origin.Has(key)) return key;
            }
        }
        return ours;
    }
}

/// <summary>A certificate or key file that cannot be used; the message names the file and what is wrong.</summary>
internal sealed class CertificateFileException : Exception
{
    /// <summary>Creates the exception.</summary>
    /// <param name="message">Names the file and the problem.</param>
    /// <param name="inKeyFile">The problem is in the separate private key file.</param>
    public CertificateFileException(string message, bool inKeyFile)
        : base(message)
        => InKeyFile = inKeyFile;

    /// <summary>The problem is in the separate private key file rather than the certificate file.</summary>
    public bool InKeyFile { get; }
}
