using System;
using FixEngine.Codec;

namespace FixEngine.Session;

// Design: the body of each message the session composes on its own, as a small typed value written after the header
// (SessionHeaderWriter) and before the fields the application adds in IApplication.ToAdmin. FixSession.SendAdmin is
// generic over the body type, so each body is a constrained call on a stack value: no boxing, no allocation. Fields are
// written in ascending tag order. The spans a body holds are valid for the call that sends it.

/// <summary>The body of a message the session composes (Logon, Heartbeat, TestRequest, ResendRequest, Logout, Reject,
/// BusinessMessageReject).</summary>
internal interface IAdminMessageBody
{
    /// <summary>The message's MsgType(35).</summary>
    ReadOnlySpan<byte> MsgType { get; }

    /// <summary>Writes the body fields after the header.</summary>
    void WriteTo(ref FixWriter w);
}

/// <summary>Logon(A): 98, 108, 141 when resetting, 789 when enabled, 1137 on FIXT.1.1.</summary>
internal readonly ref struct LogonBody : IAdminMessageBody
{
    private readonly int _heartBtIntSec;
    private readonly bool _resetSeqNumFlag;
    private readonly int _nextExpectedMsgSeqNum;
    private readonly ReadOnlySpan<byte> _defaultApplVerId;

    /// <param name="heartBtIntSec">HeartBtInt(108).</param>
    /// <param name="resetSeqNumFlag">Write ResetSeqNumFlag(141)=Y.</param>
    /// <param name="nextExpectedMsgSeqNum">NextExpectedMsgSeqNum(789), 0 for none.</param>
    /// <param name="defaultApplVerId">DefaultApplVerID(1137), empty for none.</param>
    public LogonBody(int heartBtIntSec, bool resetSeqNumFlag, int nextExpectedMsgSeqNum, ReadOnlySpan<byte> defaultApplVerId)
    {
        _heartBtIntSec = heartBtIntSec;
        _resetSeqNumFlag = resetSeqNumFlag;
        _nextExpectedMsgSeqNum = nextExpectedMsgSeqNum;
        _defaultApplVerId = defaultApplVerId;
    }

    public ReadOnlySpan<byte> MsgType => MsgTypes.Logon;

    public void WriteTo(ref FixWriter w)
    {
        w.Write(FixTags.EncryptMethod, 0);
        w.Write(FixTags.HeartBtInt, _heartBtIntSec);
        if (_resetSeqNumFlag) w.Write(FixTags.ResetSeqNumFlag, 'Y');
        if (_nextExpectedMsgSeqNum != 0) w.Write(FixTags.NextExpectedMsgSeqNum, _nextExpectedMsgSeqNum);
        if (!_defaultApplVerId.IsEmpty) w.Write(FixTags.DefaultApplVerID, _defaultApplVerId);
    }
}

/// <summary>Heartbeat(0): 112 when answering a TestRequest.</summary>
internal readonly ref struct HeartbeatBody : IAdminMessageBody
{
    private readonly ReadOnlySpan<byte> _testReqId;

    /// <param name="testReqId">TestReqID(112) of the TestRequest answered, empty for none.</param>
    public HeartbeatBody(ReadOnlySpan<byte> testReqId) => _testReqId = testReqId;

    public ReadOnlySpan<byte> MsgType => MsgTypes.Heartbeat;

    public void WriteTo(ref FixWriter w)
    {
        if (!_testReqId.IsEmpty) w.Write(FixTags.TestReqID, _testReqId);
    }
}

/// <summary>TestRequest(1): 112.</summary>
internal readonly ref struct TestRequestBody : IAdminMessageBody
{
    private readonly ReadOnlySpan<byte> _testReqId;

    /// <param name="testReqId">TestReqID(112).</param>
    public TestRequestBody(ReadOnlySpan<byte> testReqId) => _testReqId = testReqId;

    public ReadOnlySpan<byte> MsgType => MsgTypes.TestRequest;

    public void WriteTo(ref FixWriter w) => w.Write(FixTags.TestReqID, _testReqId);
}

/// <summary>ResendRequest(2): 7, 16.</summary>
internal readonly ref struct ResendRequestBody : IAdminMessageBody
{
    private readonly int _beginSeqNo;
    private readonly int _endSeqNo;

    /// <param name="beginSeqNo">BeginSeqNo(7).</param>
    /// <param name="endSeqNo">EndSeqNo(16); 0 (999999 before FIX.4.2) means "to the end".</param>
    public ResendRequestBody(int beginSeqNo, int endSeqNo)
    {
        _beginSeqNo = beginSeqNo;
        _endSeqNo = endSeqNo;
    }

    public ReadOnlySpan<byte> MsgType => MsgTypes.ResendRequest;

    public void WriteTo(ref FixWriter w)
    {
        w.Write(FixTags.BeginSeqNo, _beginSeqNo);
        w.Write(FixTags.EndSeqNo, _endSeqNo);
    }
}

/// <summary>Logout(5): 58 when there is a reason.</summary>
internal readonly ref struct LogoutBody : IAdminMessageBody
{
    private readonly ReadOnlySpan<byte> _text;

    /// <param name="text">Text(58), empty for none.</param>
    public LogoutBody(ReadOnlySpan<byte> text) => _text = text;

    public ReadOnlySpan<byte> MsgType => MsgTypes.Logout;

    public void WriteTo(ref FixWriter w)
    {
        if (!_text.IsEmpty) w.Write(FixTags.Text, _text);
    }
}

/// <summary>Reject(3): 45, 58, 371, 372, 373, each only when known.</summary>
internal readonly ref struct RejectBody : IAdminMessageBody
{
    private readonly int _refSeqNum;
    private readonly ReadOnlySpan<byte> _text;
    private readonly int _refTagId;
    private readonly ReadOnlySpan<byte> _refMsgType;
    private readonly int _sessionRejectReason;

    /// <param name="refSeqNum">RefSeqNum(45), negative for none.</param>
    /// <param name="text">Text(58), empty for none.</param>
    /// <param name="refTagId">RefTagID(371), <see cref="int.MinValue"/> for none.</param>
    /// <param name="refMsgType">RefMsgType(372), empty for none.</param>
    /// <param name="sessionRejectReason">SessionRejectReason(373), negative for none.</param>
    public RejectBody(int refSeqNum, ReadOnlySpan<byte> text, int refTagId, ReadOnlySpan<byte> refMsgType, int sessionRejectReason)
    {
        _refSeqNum = refSeqNum;
        _text = text;
        _refTagId = refTagId;
        _refMsgType = refMsgType;
        _sessionRejectReason = sessionRejectReason;
    }

    public ReadOnlySpan<byte> MsgType => MsgTypes.Reject;

    public void WriteTo(ref FixWriter w)
    {
        if (_refSeqNum >= 0) w.Write(FixTags.RefSeqNum, _refSeqNum);
        if (!_text.IsEmpty) w.Write(FixTags.Text, _text);
        if (_refTagId != int.MinValue) w.Write(FixTags.RefTagID, _refTagId);
        if (!_refMsgType.IsEmpty) w.Write(FixTags.RefMsgType, _refMsgType);
        if (_sessionRejectReason >= 0) w.Write(FixTags.SessionRejectReason, _sessionRejectReason);
    }
}

/// <summary>BusinessMessageReject(j): 45, 58, 372, 380, and on FIXT.1.1 the session's DefaultApplVerID(1137).</summary>
/// <remarks>BusinessMessageReject is the one application-level message the session composes on its own. On a FIXT.1.1
/// session it names the application version it is written in, as the QuickFIX reference engines do (their
/// BusinessMessageReject ends with <c>380=3|1137=...</c>).</remarks>
internal readonly ref struct BusinessMessageRejectBody : IAdminMessageBody
{
    private readonly int _refSeqNum;
    private readonly ReadOnlySpan<byte> _text;
    private readonly ReadOnlySpan<byte> _refMsgType;
    private readonly int _businessRejectReason;
    private readonly ReadOnlySpan<byte> _defaultApplVerId;

    /// <param name="refSeqNum">RefSeqNum(45), negative for none.</param>
    /// <param name="text">Text(58).</param>
    /// <param name="refMsgType">RefMsgType(372).</param>
    /// <param name="businessRejectReason">BusinessRejectReason(380).</param>
    /// <param name="defaultApplVerId">DefaultApplVerID(1137) on FIXT.1.1, empty otherwise.</param>
    public BusinessMessageRejectBody(int refSeqNum, ReadOnlySpan<byte> text, ReadOnlySpan<byte> refMsgType, int businessRejectReason,
        ReadOnlySpan<byte> defaultApplVerId)
    {
        _refSeqNum = refSeqNum;
        _text = text;
        _refMsgType = refMsgType;
        _businessRejectReason = businessRejectReason;
        _defaultApplVerId = defaultApplVerId;
    }

    public ReadOnlySpan<byte> MsgType => MsgTypes.BusinessMessageReject;

    public void WriteTo(ref FixWriter w)
    {
        if (_refSeqNum >= 0) w.Write(FixTags.RefSeqNum, _refSeqNum);
        w.Write(FixTags.Text, _text);
        w.Write(FixTags.RefMsgType, _refMsgType);
        w.Write(FixTags.BusinessRejectReason, _businessRejectReason);
        if (!_defaultApplVerId.IsEmpty) w.Write(FixTags.DefaultApplVerID, _defaultApplVerId);
    }
}
