using System;
using System.Buffers;
using System.Collections.Generic;
using System.Net;
using System.Net.Security;
using System.Net.Sockets;
using System.Runtime.CompilerServices;
using System.Security.Authentication;
using System.Security.Cryptography.X509Certificates;
using System.Threading;
using System.Threading.Tasks;

namespace FixEngine.Transport;

// The send side: the encrypt-and-send loop over the plaintext queue, and the ciphertext buffer (the queue and its lock:
// TransportConnection.Send.cs; design notes in TlsConnection.cs).
internal sealed partial class TlsConnection
{
    /// <summary>Ciphertext sends that did not complete synchronously (the socket's send buffer was full); for tests.</summary>
    internal long PendingSendCount => Volatile.Read(ref _pendingSends);

    private protected override void PrewarmSendUnderLock() => _ciphertext ??= _pool.Rent(CiphertextBufferBytes);

    /// <inheritdoc/>
    public override SendResult TrySend(ReadOnlySpan<byte> message)
    {
        if (message.Length > _sendQueue.Capacity)
        {
            return SendResult.TooLarge;
        }
        lock (_sendLock)
        {
            if (IsClosing)
            {
                return SendResult.Closed;
            }
            if (_sendQueue.Free < message.Length)
            {
                return SendResult.Backpressure;
            }
            // While a writer runs it may be encrypting from the queue's head.
            _sendQueue.Enqueue(message, headInUse: _writing);
            if (_writing)
            {
                // The writer (a pending send's completion, or the thread encrypting) drains what was just queued.
                return SendResult.Queued;
            }
            _writing = true;
            EnterUnchecked();
        }
        WriteLoop(WriteStep.Next);
        return SendResult.Queued;
    }

    /// <summary>What the writer loop does first: nothing pending (Next), or consume the encryption or send that just completed.</summary>
    private enum WriteStep
    {
        Next,
        EncryptCompleted,
        SendCompleted,
    }

    /// <summary>The writer: sends the ciphertext, encrypts the queue's contiguous head into it, and again, until both are
    /// empty, a send (or, rarely, an encryption) is pending (its completion calls this again) or it fails. Holds the
    /// in-flight count taken with the _writing token, and gives both back when it stops.</summary>
    private void WriteLoop(WriteStep step)
    {
        while (true)
        {
            int sent = 0;
            try
            {
                if (step == WriteStep.SendCompleted)
                {
                    sent = _send.GetResult();
                }
                else if (step == WriteStep.EncryptCompleted)
                {
                    _encrypt.GetResult();
                }
            }
            catch (Exception ex)
            {
                StopWritingAfterFailure(ex);
                return;
            }
            byte[] buffer;
            int offset;
            int length;
            bool encrypt;
            // One critical section per step: account for what just completed, then take the next piece of work.
            lock (_sendLock)
            {
                if (step == WriteStep.SendCompleted)
                {
                    OnCiphertextSent(sent);
                }
                else if (step == WriteStep.EncryptCompleted)
                {
                    _sendQueue.Dequeue(_encryptLength);
                }
                if (IsClosing)
                {
                    _writing = false;
                    break;
                }
                if (_ciphertextEnd != _ciphertextStart)
                {
                    buffer = _ciphertext!;
                    offset = _ciphertextStart;
                    length = _ciphertextEnd - _ciphertextStart;
                    encrypt = false;
                    _sendInFlight = true;
                }
                else if (_sendQueue.Count != 0)
                {
                    _sendQueue.Head(MaxPlaintextPerWrite, out buffer, out offset, out length);
                    encrypt = true;
                }
                else
                {
                    _writing = false;
                    break;
                }
            }
            if (encrypt)
            {
                // Encrypts into the ciphertext buffer through TlsSocketStream: completes synchronously unless SslStream
                // must first finish a handshake it is in.
                _encryptLength = length;
                try
                {
                    _encrypt = _ssl.WriteAsync(new ReadOnlyMemory<byte>(buffer, offset, length)).ConfigureAwait(false).GetAwaiter();
                }
                catch (Exception ex)
                {
                    StopWritingAfterFailure(ex);
                    return;
                }
                if (!_encrypt.IsCompleted)
                {
                    _encrypt.UnsafeOnCompleted(_onEncryptCompleted);
                    return;
                }
                step = WriteStep.EncryptCompleted;
                continue;
            }
            try
            {
                _send = _socket.SendAsync(new ReadOnlyMemory<byte>(buffer, offset, length), SocketFlags.None).ConfigureAwait(false).GetAwaiter();
            }
            catch (Exception ex)
            {
                StopWritingAfterFailure(ex);
                return;
            }
            if (!_send.IsCompleted)
            {
                // The writer alone writes it (the token passes under the send lock); tests read it with an acquire read.
                _pendingSends++;
                _send.UnsafeOnCompleted(_onSendCompleted);
                return;
            }
            step = WriteStep.SendCompleted;
        }
        Exit();
    }

    /// <summary>TlsSocketStream: SslStream wrote these records (on the writer's thread inside <see cref="WriteLoop"/>, or on its
    /// own inside a read); appends them to the ciphertext buffer for the writer to send.</summary>
    internal void CaptureCiphertext(ReadOnlySpan<byte> records)
    {
        lock (_sendLock)
        {
            if (IsClosing)
            {
                // Nothing more is sent; the buffer may already be going back to the pool.
                return;
            }
            int end = _ciphertextEnd + records.Length;
            byte[] ciphertext = _ciphertext ??= _pool.Rent(Math.Max(CiphertextBufferBytes, end));
            if (ciphertext.Length < end)
            {
                ciphertext = GrowCiphertext(end);
            }
            records.CopyTo(ciphertext.AsSpan(_ciphertextEnd));
            _ciphertextEnd = end;
            _ciphertextPending = end - _ciphertextStart;
            if (_writing)
            {
                // The writer (maybe this very thread, encrypting) sends it.
                return;
            }
            // SslStream wrote on its own, inside a read: this thread is in SslStream, so the writer runs on the pool.
            _writing = true;
            EnterUnchecked();
        }
        ThreadPool.UnsafeQueueUserWorkItem(_flushWorkItem, preferLocal: false);
    }

    /// <summary>A bigger ciphertext buffer; the old one goes back to the pool unless a send still reads it. Under the lock.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private byte[] GrowCiphertext(int needed)
    {
        byte[] old = _ciphertext!;
        byte[] bigger = _pool.Rent(Math.Max(needed, old.Length * 2));
        Buffer.BlockCopy(old, 0, bigger, 0, _ciphertextEnd);
        _ciphertext = bigger;
        if (_sendInFlight)
        {
            (_retiredCiphertext ??= []).Add(old);
        }
        else
        {
            _pool.Return(old);
        }
        return bigger;
    }

    /// <summary>A send of the ciphertext completed. Under the lock.</summary>
    private void OnCiphertextSent(int sent)
    {
        _sendInFlight = false;
        _ciphertextStart += sent;
        if (_ciphertextStart == _ciphertextEnd)
        {
            _ciphertextStart = 0;
            _ciphertextEnd = 0;
        }
        _ciphertextPending = _ciphertextEnd - _ciphertextStart;
        ReturnRetiredCiphertext();
    }

    private void ReturnRetiredCiphertext()
    {
        if (_retiredCiphertext is { Count: > 0 } retired)
        {
            foreach (byte[] array in retired)
            {
                _pool.Return(array);
            }
            retired.Clear();
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private void StopWritingAfterFailure(Exception ex)
    {
        // Close first: a send that then finds the token free also finds the connection closing, so no writer follows.
        CloseForException(ex, "send");
        lock (_sendLock)
        {
            _writing = false;
            // A failed send has completed: nothing reads the buffers any more.
            _sendInFlight = false;
        }
        Exit();
    }
}
