using System;
using System.Collections.Generic;
using System.Text;
using FixEngine.Buffers;
using FixEngine.Codec;
using FixEngine.Config;
using FixEngine.Dictionary;
using FixEngine.Store;

namespace FixEngine.Session;

// Starting the sequence numbers over: a reset, or a reload of a store another instance wrote (RefreshOnLogon).
public sealed partial class FixSession
{
    /// <summary>Resets both sequence numbers to 1 and drops stored messages (a new session incarnation).</summary>
    /// <param name="epochNs">Now, epoch nanoseconds (the store's new creation time).</param>
    public void ResetSequenceNumbers(long epochNs) => ResetStore(epochNs);

    private void ResetStore(long epochNs)
    {
        _store.Reset(epochNs);
        _interruptedInbound = 0;
        _tailMayBeLost = false;
        ForgetRecovery();
        _flow.Clear("Sequence numbers reset", epochNs, release: false);
        Raise(SessionEventKind.SequenceReset, Logging.LogLevel.Warning, "Sequence numbers reset", epochNs);
    }

    // RefreshOnLogon: another instance (the previous primary) may have written the store since we loaded it; reload
    // sequence numbers and stored messages before the Logon so this instance resumes where the store is.
    private void RefreshStore(long epochNs)
    {
        _store.Refresh();
        _interruptedInbound = _store.NextTargetMsgSeqNum;
        ForgetRecovery();
        Raise(SessionEventKind.Other, Logging.LogLevel.Information, "Store refreshed on logon: next sender " + _store.NextSenderMsgSeqNum + ", next target " + _store.NextTargetMsgSeqNum, epochNs);
        if (_store.LastRecoveryReport is Store.StoreRecoveryReport report && !ReferenceEquals(report, _raisedRecovery))
        {
            Raise(SessionEventKind.Other, report.LostData ? Logging.LogLevel.Warning : Logging.LogLevel.Information, report.ToString(), epochNs);
            RaiseStoreRecovered();
        }
    }
}
