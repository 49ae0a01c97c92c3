#!/usr/bin/env python3
# Writes the .def scenarios of tests/acceptance/<version>/ (see README.md there): python3 tests/acceptance/generate.py tests/acceptance
# The same scenarios for every version, with the messages each version requires and answers as it writes them.
import os, sys
root = sys.argv[1]
V = [
    ("fix40", "FIX.4.0", "TW40", None, "old", "11=ID{n}|21=1|38=100|40=1|54=1|55=INTC", "33=1|58=hello"),
    ("fix41", "FIX.4.1", "TW41", None, "old", "11=ID{n}|21=1|38=100|40=1|54=1|55=INTC", "148=Head|33=1|58=hello"),
    ("fix43", "FIX.4.3", "TW43", None, "new", "11=ID{n}|21=1|38=100|40=1|54=1|55=INTC|60={t}", "148=Head|33=1|58=hello"),
    ("fix44", "FIX.4.4", "TW44", None, "new", "11=ID{n}|38=100|40=1|54=1|55=INTC|60={t}", "148=Head|33=1|58=hello"),
    ("fix50", "FIXT.1.1", "TW50", "7", "new", "11=ID{n}|38=100|40=1|54=1|55=INTC|60={t}", "148=Head|33=1|58=hello"),
    ("fix50sp1", "FIXT.1.1", "TW50SP1", "8", "new", "11=ID{n}|38=100|40=1|54=1|55=INTC|60={t}", "148=Head|33=1|58=hello"),
    ("fix50sp2", "FIXT.1.1", "TW50SP2", "9", "new", "11=ID{n}|38=100|40=1|54=1|55=INTC|60={t}", "148=Head|33=1|58=hello"),
]

def gen(d, begin, target, appl, style, order, news):
    old = style == "old"
    ts = "00000000-00:00:00" if old else "00000000-00:00:00.000"
    inf = "999999" if old else "0"
    def I(seq, body, extra_hdr="", sender=None, tgt="ISLD"):
        return f"I8={begin}|35={body.split('|',1)[0]}|34={seq}|{extra_hdr}49={sender or target}|52=<TIME>|56={tgt}|" + (body.split('|',1)[1] + "|" if '|' in body else "")
    def E(seq, body, extra_hdr=""):
        mt, rest = (body.split('|',1) + [""])[:2]
        return f"E8={begin}|35={mt}|34={seq}|{extra_hdr}49=ISLD|52={ts}|56={target}|" + (rest + "|" if rest else "")
    lext = f"|1137={appl}" if appl else ""
    def logon():
        return ["iCONNECT", I(1, "A|98=0|108=30" + lext), E(1, "A|98=0|108=30" + lext)]
    def logout(inseq, outseq):
        return [I(inseq, "5"), E(outseq, "5"), "eDISCONNECT"]
    def o(n):
        return order.format(n=n, t="<TIME>")
    def oe(n):
        return order.format(n=n, t="00000000-00:00:00")
    def reject(refseq, text, tag=None, refmsgtype=None, reason=None):
        if old:
            t = text + (f" ({tag})" if tag is not None else "")
            return f"3|45={refseq}|58={t}"
        s = f"3|45={refseq}|58={text}"
        if tag is not None: s += f"|371={tag}"
        s += f"|372={refmsgtype}"
        if reason is not None: s += f"|373={reason}"
        return s
    S = {}
    S["01_LogonAndLogout"] = ["# A valid Logon is answered with a Logon (same HeartBtInt); a Logout with a Logout, then the acceptor disconnects"] + logon() + logout(2, 2)
    S["02_MsgSeqNumTooHighResendAndGapFill"] = ["# A message above the expected MsgSeqNum gets a ResendRequest for the gap; a GapFill closes it and the queued message is then processed"] + logon() + [
        I(4, "1|112=QUEUED"),
        E(2, f"2|7=2|16={inf}"),
        f"I8={begin}|35=4|34=2|43=Y|49={target}|52=<TIME>|56=ISLD|122=<TIME>|36=4|123=Y|",
    ]
    S["02_MsgSeqNumTooHighResendAndGapFill"] += [E(3, "0|112=QUEUED")] + [I(5, "1|112=AFTER"), E(4, "0|112=AFTER")] + logout(6, 5)
    S["03_MsgSeqNumTooLowLogout"] = ["# A message below the expected MsgSeqNum without PossDupFlag ends the session with a Logout naming both numbers"] + logon() + [
        I(2, "0"), I(3, "0"), I(2, "0"),
        E(2, "5|58=MsgSeqNum too low, expecting 4 but received 2"), "eDISCONNECT"]
    S["04_PossDupAlreadyReceivedIgnored"] = ["# A PossDupFlag=Y copy of a message already received is ignored"] + logon() + [
        I(2, "1|112=FIRST"), E(2, "0|112=FIRST"),
        f"I8={begin}|35=1|34=2|43=Y|49={target}|52=<TIME>|56=ISLD|122=<TIME>|112=FIRST|",
        I(3, "1|112=SECOND"), E(3, "0|112=SECOND")] + logout(4, 4)
    S["05_ResendRequestForAdminMessagesGetsOneGapFill"] = ["# A ResendRequest over admin messages only is answered with one SequenceReset-GapFill"] + logon() + [
        I(2, "1|112=T"), E(2, "0|112=T"),
        I(3, f"2|7=1|16={inf}"),
        f"E8={begin}|35=4|34=1|43=Y|49=ISLD|52={ts}|56={target}|122={ts}|36=3|123=Y|",
        I(4, "1|112=U"), E(3, "0|112=U")] + logout(5, 4)
    S["06_ResendRequestResendsApplicationMessages"] = ["# Application messages are resent with PossDupFlag=Y and OrigSendingTime; admin messages before them become a GapFill"] + logon() + [
        I(2, "D|" + o(1)), E(2, "D|" + oe(1)),
        I(3, f"2|7=1|16={inf}"),
        f"E8={begin}|35=4|34=1|43=Y|49=ISLD|52={ts}|56={target}|122={ts}|36=2|123=Y|",
        f"E8={begin}|35=D|34=2|43=Y|49=ISLD|52={ts}|56={target}|122={ts}|" + oe(1) + "|",
        I(4, "1|112=V"), E(3, "0|112=V")] + logout(5, 4)
    S["07_SequenceResetResetMovesTheInboundNumber"] = ["# SequenceReset-Reset moves the expected inbound MsgSeqNum forward; its own MsgSeqNum does not count"] + logon() + [
        I(2, "4|36=20"), I(20, "1|112=R"), E(2, "0|112=R")] + logout(21, 3)
    S["08_GarbledMessagesAreIgnored"] = ["# A wrong CheckSum or BodyLength makes a message garbled: ignored, its number requested again"] + logon() + [
        f"I8={begin}|35=1|34=2|49={target}|52=<TIME>|56=ISLD|112=BADSUM|10=256|",
        I(3, "1|112=NEXT"),
        E(2, f"2|7=2|16={inf}"),
        I(2, "1|112=AGAIN"), E(3, "0|112=AGAIN"), E(4, "0|112=NEXT")] + logout(4, 5)
    S["09_RejectInvalidTagNumber"] = ["# An undefined tag gets a session Reject (the reason as this version writes it) and the number is consumed"] + logon() + [
        I(2, "0|999=X"), E(2, reject(2, "Invalid tag number", 999, "0", 0)),
        I(3, "1|112=OK"), E(3, "0|112=OK")] + logout(4, 4)
    S["10_RejectRequiredTagMissing"] = ["# A TestRequest without TestReqID(112) gets a Reject for the missing tag"] + logon() + [
        I(2, "1"), E(2, reject(2, "Required tag missing", 112, "1", 1)),
        I(3, "1|112=OK"), E(3, "0|112=OK")] + logout(4, 4)
    S["11_RejectInvalidMsgType"] = ["# A MsgType the dictionary does not define gets a Reject Invalid MsgType"] + logon() + [
        I(2, "*"), E(2, reject(2, "Invalid MsgType", None, "*", 11)),
        I(3, "1|112=OK"), E(3, "0|112=OK")] + logout(4, 4)
    if old:
        unsupported = "3|45=2|58=Unsupported message type"
    else:
        unsupported = "j|45=2|58=Unsupported Message Type|372=B|380=3" + (f"|1137={appl}" if appl else "")
    S["12_UnsupportedMessageType"] = ["# A valid application message the application does not handle: BusinessMessageReject from FIX.4.2 on, a Reject before"] + logon() + [
        I(2, "B|" + news), E(2, unsupported),
        I(3, "1|112=OK"), E(3, "0|112=OK")] + logout(4, 4)
    S["13_TestRequestAndHeartbeat"] = ["# A TestRequest is answered with a Heartbeat carrying its TestReqID; Heartbeats are accepted silently"] + logon() + [
        I(2, "0"), I(3, "1|112=PING"), E(2, "0|112=PING")] + logout(4, 3)
    S["14_CompIDProblemRejectAndLogout"] = ["# A message with the wrong SenderCompID after logon gets a Reject (CompID problem) and a Logout"] + logon() + [
        f"I8={begin}|35=0|34=2|49=WRONG|52=<TIME>|56=ISLD|",
        E(2, reject(2, "CompID problem", None, "0", 9)), E(3, "5"),
        I(3, "5"), "eDISCONNECT"]
    S["15_FirstMessageNotLogon"] = ["# A first message that is not a Logon ends the connection without an answer", "iCONNECT", I(1, "0"), "eDISCONNECT"]
    S["16_RejectIncorrectDataFormat"] = ["# A badly formatted value (OrderQty +100) gets a Reject for its tag"] + logon() + [
        I(2, "D|" + o(1).replace("38=100", "38=+100")), E(2, reject(2, "Incorrect data format for value", 38, "D", 6)),
        I(3, "1|112=OK"), E(3, "0|112=OK")] + logout(4, 4)
    if appl:
        S["17_LogonWithoutDefaultApplVerID"] = ["# A FIXT.1.1 Logon without DefaultApplVerID(1137) is refused: disconnect", "iCONNECT", I(1, "A|98=0|108=30"), "eDISCONNECT"]
    if begin in ("FIX.4.4", "FIXT.1.1"):
        S["18_GroupCountCheckedBeforeValues"] = ["# NoPartyIDs says 2 but 3 entries follow, one with a PartyIDSource outside its enum: the count is reported (373=16 on 453)"] + logon() + [
            I(2, "D|" + o(1).replace("|38=", "|453=2|448=P1|447=D|452=1|448=P2|447=@|452=1|448=P3|447=D|452=1|38=")),
            E(2, reject(2, "Incorrect NumInGroup count for repeating group", 453, "D", 16)),
            I(3, "1|112=OK"), E(3, "0|112=OK")] + logout(4, 4)
    if begin != "FIX.4.0":
        S["19_ResetSeqNumFlagLogonMidSession"] = ["# A Logon with ResetSeqNumFlag(141)=Y and MsgSeqNum 1 mid-session resets both sides; the answer carries 141=Y"] + logon() + [
            I(2, "1|112=A"), E(2, "0|112=A"),
            I(1, "A|98=0|108=30|141=Y" + lext), E(1, "A|98=0|108=30|141=Y" + lext),
            I(2, "1|112=B"), E(2, "0|112=B")] + logout(3, 3)
    # Several defects at once: the one QuickFIX C++ reports (its body fields by tag, not in message order; a group's
    # count with the top-level fields, before anything inside the entries). Checked against libquickfix with
    # tests/quickfix-probe (the same messages are in tests/FixEngine.Tests/Session/QuickFixValidationCases.txt).
    S["20_SeveralDefectsTheLowestTagIsReported"] = ["# Side(54)=Z is outside its enum and Price(44)=abc, later in the message, is not a price: the lower tag, 44, is reported"] + logon() + [
        I(2, "D|" + o(1).replace("54=1", "54=Z") + "|44=abc"), E(2, reject(2, "Incorrect data format for value", 44, "D", 6)),
        I(3, "1|112=OK"), E(3, "0|112=OK")] + logout(4, 4)
    if begin == "FIX.4.0":
        several = ("B|33=2|58=hello|61=9", "Value is incorrect (out of range) for this tag", 61, "B", 5,
                   "News with LinesOfText(33)=2 (a plain field in FIX.4.0) and Urgency(61)=9: the value is reported")
    elif begin == "FIX.4.1":
        several = ("B|148=Head|33=2|58=hello|61=9", "Incorrect NumInGroup count for repeating group", 33, "B", 16,
                   "News whose LinesOfText(33) says 2 for one line, then Urgency(61)=9: the count (lower tag) is reported")
    else:
        several = ("D|" + o(1) + "|453=2|448=P1|447=D|452=1|59=x", "Value is incorrect (out of range) for this tag", 59, "D", 5,
                   "NoPartyIDs(453) says 2 for one entry, then TimeInForce(59)=x after the group: the lower tag, 59, is reported")
    S["21_SeveralDefectsAroundAGroup"] = ["# " + several[5]] + logon() + [
        I(2, several[0]), E(2, reject(2, several[1], several[2], several[3], several[4])),
        I(3, "1|112=OK"), E(3, "0|112=OK")] + logout(4, 4)
    # A required header field missing after Logon (QuickFIX C++'s Session: SenderCompID/TargetCompID are looked up
    # before validation, SendingTime and MsgSeqNum by its verify step). Checked against QuickFIX itself (qfat).
    if old:
        nocomp = reject(2, "Required tag missing", 56)
    else:
        nocomp = "j|45=2|58=Conditionally Required Field Missing (56)|372=D|380=5" + (f"|1137={appl}" if appl else "")
    S["22_ApplicationMessageWithoutTargetCompID"] = ["# An order without TargetCompID(56): BusinessMessageReject 380=5 from FIX.4.2 on (a Reject 373=1 before), the number consumed"] + logon() + [
        f"I8={begin}|35=D|34=2|49={target}|52=<TIME>|" + o(1) + "|", E(2, nocomp),
        I(3, "1|112=OK"), E(3, "0|112=OK")] + logout(4, 4)
    S["23_MessageWithoutSendingTimeEndsTheConnection"] = ["# An order without SendingTime(52) ends the connection without an answer (its number is not consumed)"] + logon() + [
        f"I8={begin}|35=D|34=2|49={target}|56=ISLD|" + o(1) + "|", "eDISCONNECT"]
    os.makedirs(os.path.join(root, d), exist_ok=True)
    for name, lines in S.items():
        with open(os.path.join(root, d, name + ".def"), "w") as f:
            f.write("\n".join(lines) + "\n")

for v in V:
    gen(*v)
