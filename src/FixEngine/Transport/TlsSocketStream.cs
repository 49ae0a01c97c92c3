using System;
using System.IO;
using System.Net.Sockets;
using System.Threading;
using System.Threading.Tasks;

namespace FixEngine.Transport;

// Design: the stream an SslStream of a TlsConnection runs over (instead of a NetworkStream). Reads go straight to the
// socket (Socket.ReceiveAsync: its ValueTask is backed by the socket's cached event args, so a pending read allocates
// nothing). Writes go straight to the socket until Attach (the handshake); from then on they are handed to the
// connection, which copies the ciphertext into its buffer and sends it itself: every SslStream write then completes
// synchronously, so SslStream never suspends its write methods (whose async state machines would allocate per pending
// write). _owner is written once (Attach, before the connection receives or sends) and read by SslStream's callers.

/// <summary>The inner stream of a <see cref="TlsConnection"/>'s SslStream: socket reads, and writes captured by the connection once attached.</summary>
/// <remarks>Not thread-safe beyond what SslStream needs (one read and one write at a time). Owns the socket.</remarks>
internal sealed class TlsSocketStream : Stream
{
    private readonly Socket _socket;
    private TlsConnection? _owner;

    public TlsSocketStream(Socket socket) => _socket = socket;

    public override bool CanRead => true;

    public override bool CanWrite => true;

    public override bool CanSeek => false;

    public override long Length => throw new NotSupportedException();

    public override long Position
    {
        get => throw new NotSupportedException();
        set => throw new NotSupportedException();
    }

    /// <summary>From now on, writes go to <paramref name="owner"/>'s ciphertext buffer.</summary>
    public void Attach(TlsConnection owner) => Volatile.Write(ref _owner, owner);

    public override int Read(byte[] buffer, int offset, int count) => _socket.Receive(buffer, offset, count, SocketFlags.None);

    public override int Read(Span<byte> buffer) => _socket.Receive(buffer, SocketFlags.None);

    public override Task<int> ReadAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken) =>
        _socket.ReceiveAsync(new Memory<byte>(buffer, offset, count), SocketFlags.None, cancellationToken).AsTask();

    public override ValueTask<int> ReadAsync(Memory<byte> buffer, CancellationToken cancellationToken = default) =>
        _socket.ReceiveAsync(buffer, SocketFlags.None, cancellationToken);

    public override void Write(byte[] buffer, int offset, int count) => Write(new ReadOnlySpan<byte>(buffer, offset, count));

    public override void Write(ReadOnlySpan<byte> buffer)
    {
        TlsConnection? owner = Volatile.Read(ref _owner);
        if (owner is not null)
        {
            owner.CaptureCiphertext(buffer);
            return;
        }
        while (!buffer.IsEmpty)
        {
            buffer = buffer.Slice(_socket.Send(buffer, SocketFlags.None));
        }
    }

    public override Task WriteAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken) =>
        WriteAsync(new ReadOnlyMemory<byte>(buffer, offset, count), cancellationToken).AsTask();

    public override ValueTask WriteAsync(ReadOnlyMemory<byte> buffer, CancellationToken cancellationToken = default)
    {
        TlsConnection? owner = Volatile.Read(ref _owner);
        if (owner is not null)
        {
            owner.CaptureCiphertext(buffer.Span);
            return default;
        }
        return SendAllAsync(buffer, cancellationToken);
    }

    public override void Flush()
    {
    }

    public override Task FlushAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

    public override void SetLength(long value) => throw new NotSupportedException();

    protected override void Dispose(bool disposing)
    {
        if (disposing)
        {
            _socket.Dispose();
        }
        base.Dispose(disposing);
    }

    /// <summary>Handshake writes (before <see cref="Attach"/>): the whole buffer, as a NetworkStream would.</summary>
    private async ValueTask SendAllAsync(ReadOnlyMemory<byte> buffer, CancellationToken cancellationToken)
    {
        while (!buffer.IsEmpty)
        {
            int sent = await _socket.SendAsync(buffer, SocketFlags.None, cancellationToken).ConfigureAwait(false);
            buffer = buffer.Slice(sent);
        }
    }
}
