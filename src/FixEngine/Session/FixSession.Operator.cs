using System;
using FixEngine.Dictionary;

namespace FixEngine.Session;

// Role: what an operator (the admin console of FixEngine.AspNetCore) asks of the session, beyond the public Logout and
// Disconnect. Every member runs on the session's thread: the engine's session commands (EngineRuntime.Admin) call them
// inside the session's scope, never the console's own threads.
public sealed partial class FixSession
{
    /// <summary>The header/trailer/admin dictionary the session validates with, or null (field names for displays).</summary>
    internal DataDictionary? SessionDictionary => _sessionDictionary;

    /// <summary>The application dictionary of a FIXT session (its DefaultApplVerID's), or null.</summary>
    internal DataDictionary? ApplicationDictionary { get; }

    /// <summary>A FIXT.1.1 session with several application versions (<c>AppDataDictionary.&lt;version&gt;</c>): every
    /// application dictionary by ApplVerID(1128); null otherwise (field names for displays).</summary>
    internal ApplicationDictionaries? ApplicationVersions => _appVersions;

    /// <summary>With <see cref="ApplicationVersions"/>: the application dictionary of the counterparty's
    /// DefaultApplVerID(1137) from its last Logon (ours before one; null when that version has none), which its
    /// messages without ApplVerID(1128) are validated against. Read from any thread, for displays.</summary>
    internal DataDictionary? CounterpartyApplicationDictionary => System.Threading.Volatile.Read(ref _counterpartyAppDictionary);

    /// <summary>When the session last handed a message to its connection (epoch ns; 0 before the first connection).</summary>
    internal long LastSentEpochNs => _heartbeat.LastSentEpochNs;

    /// <summary>When the counterparty was last heard (epoch ns; 0 before the first connection).</summary>
    internal long LastReceivedEpochNs => _heartbeat.LastReceivedEpochNs;

    /// <summary>An operator's sequence reset. Logged on (FIX.4.1 and later): an in-session reset, FIX's way: both numbers
    /// go back to 1 and a Logon with ResetSeqNumFlag(141)=Y and MsgSeqNum 1 goes out; the counterparty answers with its
    /// own such Logon (logged "Counterparty accepted the sequence reset"). Not connected: the numbers go back to 1 now and
    /// an initiator's next Logon carries ResetSeqNumFlag(141)=Y.</summary>
    /// <returns>What was done, for the operator.</returns>
    internal string ResetSequenceNumbersInSession(long epochNs)
    {
        if (_held || _storeFault is not null)
        {
            throw new InvalidOperationException("the message store cannot take writes (" + (_storeHold ?? _storeFault)?.Message + "); nothing was reset");
        }
        if (_state == SessionState.LoggedOn && _beginStringVersion >= 41)
        {
            ResetStore(epochNs);
            _sentResetSeqNumFlag = true;
            try
            {
                SendLogon(epochNs, true, _heartbeat.HeartBtIntSec);
            }
            catch (Store.MessageStoreException e)
            {
                OnStoreFailed(e, epochNs);
                throw;
            }
            return "sequence numbers reset to 1; Logon with ResetSeqNumFlag(141)=Y sent, waiting for the counterparty's";
        }
        if (_connection is not null)
        {
            throw new InvalidOperationException("the session is connected but not logged on (" + _state + "): log it out or disconnect it first");
        }
        ResetStore(epochNs);
        _resetOnNextLogon = _isInitiator;
        return _isInitiator
            ? "sequence numbers reset to 1; the next Logon carries ResetSeqNumFlag(141)=Y"
            : "sequence numbers reset to 1; the counterparty must reset too (its Logon with ResetSeqNumFlag(141)=Y or MsgSeqNum 1)";
    }

    /// <summary>An operator sets the next sender and/or target MsgSeqNum. While not connected both take effect at the next
    /// Logon. While logged on only a higher sender number is allowed: the counterparty sees the gap, sends a ResendRequest
    /// and gets a SequenceReset-GapFill over the skipped numbers (nothing is stored there); anything else needs a Logout
    /// first (the counterparty would log out on a number lower than it expects).</summary>
    /// <returns>What was done, for the operator.</returns>
    internal string SetNextSequenceNumbers(int? sender, int? target, long epochNs)
    {
        if (sender is < 1 or > MaxUsableMsgSeqNum) throw new ArgumentOutOfRangeException(nameof(sender), sender, "the next sender MsgSeqNum must be between 1 and " + MaxUsableMsgSeqNum);
        if (target is < 1 or > MaxUsableMsgSeqNum) throw new ArgumentOutOfRangeException(nameof(target), target, "the next target MsgSeqNum must be between 1 and " + MaxUsableMsgSeqNum);
        if (_held || _storeFault is not null)
        {
            throw new InvalidOperationException("the message store cannot take writes (" + (_storeHold ?? _storeFault)?.Message + "); nothing was changed");
        }
        if (_connection is not null)
        {
            if (target is not null && target != _store.NextTargetMsgSeqNum)
            {
                throw new InvalidOperationException("the next target number can only be set while the session is not connected: log it out first (it takes effect at the next Logon)");
            }
            if (_state != SessionState.LoggedOn)
            {
                throw new InvalidOperationException("the session is connected but not logged on (" + _state + "): log it out or disconnect it first");
            }
            if (sender is int s && s < _store.NextSenderMsgSeqNum)
            {
                throw new InvalidOperationException("the next sender number can only go down while the session is not connected (the counterparty logs out on a MsgSeqNum lower than it expects): log it out first");
            }
        }
        int oldSender = _store.NextSenderMsgSeqNum;
        int oldTarget = _store.NextTargetMsgSeqNum;
        if (sender is int ns) _store.SetNextSenderMsgSeqNum(ns);
        if (target is int nt)
        {
            _store.SetNextTargetMsgSeqNum(nt);
            _interruptedInbound = 0;
        }
        ForgetRecovery();
        string done = "next sender " + oldSender + " -> " + _store.NextSenderMsgSeqNum + ", next target " + oldTarget + " -> " + _store.NextTargetMsgSeqNum;
        return _connection is not null
            ? done + "; the counterparty sees a gap and its ResendRequest is answered with SequenceReset-GapFill"
            : done + "; takes effect at the next Logon";
    }
}
