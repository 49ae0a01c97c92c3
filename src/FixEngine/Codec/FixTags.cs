namespace FixEngine.Codec;

/// <summary>Tag numbers of the standard FIX.4.2/4.4/5.0 header, trailer, session and common application fields.</summary>
/// <remarks>Plain constants: thread-safe and allocation-free. Names follow the FIX specification.</remarks>
public static class FixTags
{
    /// <summary>Account mnemonic. Tag 1.</summary>
    public const int Account = 1;
    /// <summary>Advertisement identifier. Tag 2.</summary>
    public const int AdvId = 2;
    /// <summary>Average fill price. Tag 6.</summary>
    public const int AvgPx = 6;
    /// <summary>First sequence number of a ResendRequest range. Tag 7.</summary>
    public const int BeginSeqNo = 7;
    /// <summary>Protocol version; always the first field. Tag 8.</summary>
    public const int BeginString = 8;
    /// <summary>Body length in bytes; always the second field. Tag 9.</summary>
    public const int BodyLength = 9;
    /// <summary>Three-digit checksum; always the last field. Tag 10.</summary>
    public const int CheckSum = 10;
    /// <summary>Client order identifier. Tag 11.</summary>
    public const int ClOrdID = 11;
    /// <summary>Commission amount. Tag 12.</summary>
    public const int Commission = 12;
    /// <summary>Commission type. Tag 13.</summary>
    public const int CommType = 13;
    /// <summary>Total quantity filled. Tag 14.</summary>
    public const int CumQty = 14;
    /// <summary>Currency code. Tag 15.</summary>
    public const int Currency = 15;
    /// <summary>Last sequence number of a ResendRequest range (0 = infinity). Tag 16.</summary>
    public const int EndSeqNo = 16;
    /// <summary>Execution identifier. Tag 17.</summary>
    public const int ExecID = 17;
    /// <summary>Execution instructions. Tag 18.</summary>
    public const int ExecInst = 18;
    /// <summary>Reference to an earlier ExecID. Tag 19.</summary>
    public const int ExecRefID = 19;
    /// <summary>Execution transaction type (FIX.4.2). Tag 20.</summary>
    public const int ExecTransType = 20;
    /// <summary>Handling instructions. Tag 21.</summary>
    public const int HandlInst = 21;
    /// <summary>Source of SecurityID. Tag 22.</summary>
    public const int SecurityIDSource = 22;
    /// <summary>Indication of interest identifier. Tag 23.</summary>
    public const int IOIID = 23;
    /// <summary>Market of the last fill. Tag 30.</summary>
    public const int LastMkt = 30;
    /// <summary>Price of the last fill. Tag 31.</summary>
    public const int LastPx = 31;
    /// <summary>Quantity of the last fill. Tag 32.</summary>
    public const int LastQty = 32;
    /// <summary>Number of repeating Text lines (News). Tag 33.</summary>
    public const int LinesOfText = 33;
    /// <summary>Message sequence number. Tag 34.</summary>
    public const int MsgSeqNum = 34;
    /// <summary>Message type; always the third field. Tag 35.</summary>
    public const int MsgType = 35;
    /// <summary>New sequence number (SequenceReset). Tag 36.</summary>
    public const int NewSeqNo = 36;
    /// <summary>Order identifier assigned by the sell side. Tag 37.</summary>
    public const int OrderID = 37;
    /// <summary>Order quantity. Tag 38.</summary>
    public const int OrderQty = 38;
    /// <summary>Order status. Tag 39.</summary>
    public const int OrdStatus = 39;
    /// <summary>Order type. Tag 40.</summary>
    public const int OrdType = 40;
    /// <summary>ClOrdID of the order being replaced or cancelled. Tag 41.</summary>
    public const int OrigClOrdID = 41;
    /// <summary>Time of the original message (News). Tag 42.</summary>
    public const int OrigTime = 42;
    /// <summary>Possible duplicate flag. Tag 43.</summary>
    public const int PossDupFlag = 43;
    /// <summary>Limit price. Tag 44.</summary>
    public const int Price = 44;
    /// <summary>Sequence number of the rejected message. Tag 45.</summary>
    public const int RefSeqNum = 45;
    /// <summary>Security identifier. Tag 48.</summary>
    public const int SecurityID = 48;
    /// <summary>Sender company identifier. Tag 49.</summary>
    public const int SenderCompID = 49;
    /// <summary>Sender sub-identifier. Tag 50.</summary>
    public const int SenderSubID = 50;
    /// <summary>Time the message was sent (UTCTimestamp). Tag 52.</summary>
    public const int SendingTime = 52;
    /// <summary>Quantity (IOI). Tag 53.</summary>
    public const int Quantity = 53;
    /// <summary>Side of the order. Tag 54.</summary>
    public const int Side = 54;
    /// <summary>Ticker symbol. Tag 55.</summary>
    public const int Symbol = 55;
    /// <summary>Target company identifier. Tag 56.</summary>
    public const int TargetCompID = 56;
    /// <summary>Target sub-identifier. Tag 57.</summary>
    public const int TargetSubID = 57;
    /// <summary>Free text. Tag 58.</summary>
    public const int Text = 58;
    /// <summary>Time in force. Tag 59.</summary>
    public const int TimeInForce = 59;
    /// <summary>Time the transaction happened (UTCTimestamp). Tag 60.</summary>
    public const int TransactTime = 60;
    /// <summary>Urgency flag (News). Tag 61.</summary>
    public const int Urgency = 61;
    /// <summary>Time the quote or IOI expires. Tag 62.</summary>
    public const int ValidUntilTime = 62;
    /// <summary>Settlement type. Tag 63.</summary>
    public const int SettlType = 63;
    /// <summary>Settlement date. Tag 64.</summary>
    public const int SettlDate = 64;
    /// <summary>Symbol suffix. Tag 65.</summary>
    public const int SymbolSfx = 65;
    /// <summary>List identifier. Tag 66.</summary>
    public const int ListID = 66;
    /// <summary>Sequence of an order within a list. Tag 67.</summary>
    public const int ListSeqNo = 67;
    /// <summary>Total number of list orders. Tag 68.</summary>
    public const int TotNoOrders = 68;
    /// <summary>Allocation identifier. Tag 70.</summary>
    public const int AllocID = 70;
    /// <summary>Allocation transaction type. Tag 71.</summary>
    public const int AllocTransType = 71;
    /// <summary>Number of orders in the group. Tag 73.</summary>
    public const int NoOrders = 73;
    /// <summary>Trade date. Tag 75.</summary>
    public const int TradeDate = 75;
    /// <summary>Position effect. Tag 77.</summary>
    public const int PositionEffect = 77;
    /// <summary>Number of allocation instances. Tag 78.</summary>
    public const int NoAllocs = 78;
    /// <summary>Allocation account. Tag 79.</summary>
    public const int AllocAccount = 79;
    /// <summary>Allocated quantity. Tag 80.</summary>
    public const int AllocQty = 80;
    /// <summary>Electronic signature (data). Tag 89.</summary>
    public const int Signature = 89;
    /// <summary>Length of SecureData. Tag 90.</summary>
    public const int SecureDataLen = 90;
    /// <summary>Encrypted data (data). Tag 91.</summary>
    public const int SecureData = 91;
    /// <summary>Length of Signature. Tag 93.</summary>
    public const int SignatureLength = 93;
    /// <summary>Email type. Tag 94.</summary>
    public const int EmailType = 94;
    /// <summary>Length of RawData. Tag 95.</summary>
    public const int RawDataLength = 95;
    /// <summary>Unformatted raw data (data). Tag 96.</summary>
    public const int RawData = 96;
    /// <summary>Possible resend flag. Tag 97.</summary>
    public const int PossResend = 97;
    /// <summary>Encryption method (Logon). Tag 98.</summary>
    public const int EncryptMethod = 98;
    /// <summary>Stop price. Tag 99.</summary>
    public const int StopPx = 99;
    /// <summary>Execution destination. Tag 100.</summary>
    public const int ExDestination = 100;
    /// <summary>Cancel reject reason. Tag 102.</summary>
    public const int CxlRejReason = 102;
    /// <summary>Order reject reason. Tag 103.</summary>
    public const int OrdRejReason = 103;
    /// <summary>Issue date. Tag 106.</summary>
    public const int IssueDate = 106;
    /// <summary>Security description. Tag 107.</summary>
    public const int SecurityDesc = 107;
    /// <summary>Heartbeat interval in seconds (Logon). Tag 108.</summary>
    public const int HeartBtInt = 108;
    /// <summary>Minimum quantity. Tag 110.</summary>
    public const int MinQty = 110;
    /// <summary>Maximum displayed quantity. Tag 111.</summary>
    public const int MaxFloor = 111;
    /// <summary>Test request identifier. Tag 112.</summary>
    public const int TestReqID = 112;
    /// <summary>Original sender company identifier (third-party routing). Tag 115.</summary>
    public const int OnBehalfOfCompID = 115;
    /// <summary>Original sender sub-identifier. Tag 116.</summary>
    public const int OnBehalfOfSubID = 116;
    /// <summary>Quote identifier. Tag 117.</summary>
    public const int QuoteID = 117;
    /// <summary>Settlement currency amount. Tag 119.</summary>
    public const int SettlCurrAmt = 119;
    /// <summary>Settlement currency. Tag 120.</summary>
    public const int SettlCurrency = 120;
    /// <summary>Original SendingTime of a resent message. Tag 122.</summary>
    public const int OrigSendingTime = 122;
    /// <summary>Gap fill flag (SequenceReset). Tag 123.</summary>
    public const int GapFillFlag = 123;
    /// <summary>Expiry time. Tag 126.</summary>
    public const int ExpireTime = 126;
    /// <summary>Final target company identifier (third-party routing). Tag 128.</summary>
    public const int DeliverToCompID = 128;
    /// <summary>Final target sub-identifier. Tag 129.</summary>
    public const int DeliverToSubID = 129;
    /// <summary>Quote request identifier. Tag 131.</summary>
    public const int QuoteReqID = 131;
    /// <summary>Bid price. Tag 132.</summary>
    public const int BidPx = 132;
    /// <summary>Offer price. Tag 133.</summary>
    public const int OfferPx = 133;
    /// <summary>Bid size. Tag 134.</summary>
    public const int BidSize = 134;
    /// <summary>Offer size. Tag 135.</summary>
    public const int OfferSize = 135;
    /// <summary>Reset sequence numbers flag (Logon). Tag 141.</summary>
    public const int ResetSeqNumFlag = 141;
    /// <summary>Sender location identifier. Tag 142.</summary>
    public const int SenderLocationID = 142;
    /// <summary>Target location identifier. Tag 143.</summary>
    public const int TargetLocationID = 143;
    /// <summary>Original sender location identifier. Tag 144.</summary>
    public const int OnBehalfOfLocationID = 144;
    /// <summary>Final target location identifier. Tag 145.</summary>
    public const int DeliverToLocationID = 145;
    /// <summary>Number of related symbols. Tag 146.</summary>
    public const int NoRelatedSym = 146;
    /// <summary>News headline. Tag 148.</summary>
    public const int Headline = 148;
    /// <summary>Execution type. Tag 150.</summary>
    public const int ExecType = 150;
    /// <summary>Quantity open for further execution. Tag 151.</summary>
    public const int LeavesQty = 151;
    /// <summary>Order quantity as cash amount. Tag 152.</summary>
    public const int CashOrderQty = 152;
    /// <summary>Security type. Tag 167.</summary>
    public const int SecurityType = 167;
    /// <summary>Effective time. Tag 168.</summary>
    public const int EffectiveTime = 168;
    /// <summary>Secondary order identifier. Tag 198.</summary>
    public const int SecondaryOrderID = 198;
    /// <summary>Maturity month and year (MonthYear). Tag 200.</summary>
    public const int MaturityMonthYear = 200;
    /// <summary>Put or call (FIX.4.2). Tag 201.</summary>
    public const int PutOrCall = 201;
    /// <summary>Strike price. Tag 202.</summary>
    public const int StrikePrice = 202;
    /// <summary>Maturity day (FIX.4.2). Tag 205.</summary>
    public const int MaturityDay = 205;
    /// <summary>Security exchange. Tag 207.</summary>
    public const int SecurityExchange = 207;
    /// <summary>Length of XmlData. Tag 212.</summary>
    public const int XmlDataLen = 212;
    /// <summary>XML data (data). Tag 213.</summary>
    public const int XmlData = 213;
    /// <summary>Trading session identifier. Tag 336.</summary>
    public const int TradingSessionID = 336;
    /// <summary>Length of EncodedIssuer. Tag 348.</summary>
    public const int EncodedIssuerLen = 348;
    /// <summary>Encoded issuer (data). Tag 349.</summary>
    public const int EncodedIssuer = 349;
    /// <summary>Length of EncodedSecurityDesc. Tag 350.</summary>
    public const int EncodedSecurityDescLen = 350;
    /// <summary>Encoded security description (data). Tag 351.</summary>
    public const int EncodedSecurityDesc = 351;
    /// <summary>Length of EncodedListExecInst. Tag 352.</summary>
    public const int EncodedListExecInstLen = 352;
    /// <summary>Encoded list execution instructions (data). Tag 353.</summary>
    public const int EncodedListExecInst = 353;
    /// <summary>Length of EncodedText. Tag 354.</summary>
    public const int EncodedTextLen = 354;
    /// <summary>Encoded text (data). Tag 355.</summary>
    public const int EncodedText = 355;
    /// <summary>Length of EncodedSubject. Tag 356.</summary>
    public const int EncodedSubjectLen = 356;
    /// <summary>Encoded subject (data). Tag 357.</summary>
    public const int EncodedSubject = 357;
    /// <summary>Length of EncodedHeadline. Tag 358.</summary>
    public const int EncodedHeadlineLen = 358;
    /// <summary>Encoded headline (data). Tag 359.</summary>
    public const int EncodedHeadline = 359;
    /// <summary>Length of EncodedAllocText. Tag 360.</summary>
    public const int EncodedAllocTextLen = 360;
    /// <summary>Encoded allocation text (data). Tag 361.</summary>
    public const int EncodedAllocText = 361;
    /// <summary>Length of EncodedUnderlyingIssuer. Tag 362.</summary>
    public const int EncodedUnderlyingIssuerLen = 362;
    /// <summary>Encoded underlying issuer (data). Tag 363.</summary>
    public const int EncodedUnderlyingIssuer = 363;
    /// <summary>Length of EncodedUnderlyingSecurityDesc. Tag 364.</summary>
    public const int EncodedUnderlyingSecurityDescLen = 364;
    /// <summary>Encoded underlying security description (data). Tag 365.</summary>
    public const int EncodedUnderlyingSecurityDesc = 365;
    /// <summary>Last MsgSeqNum processed by the sender. Tag 369.</summary>
    public const int LastMsgSeqNumProcessed = 369;
    /// <summary>Original SendingTime for third-party routing. Tag 370.</summary>
    public const int OnBehalfOfSendingTime = 370;
    /// <summary>Tag number of the field being rejected. Tag 371.</summary>
    public const int RefTagID = 371;
    /// <summary>MsgType of the rejected message. Tag 372.</summary>
    public const int RefMsgType = 372;
    /// <summary>Session-level reject reason code. Tag 373.</summary>
    public const int SessionRejectReason = 373;
    /// <summary>Contra broker. Tag 375.</summary>
    public const int ContraBroker = 375;
    /// <summary>Business-level identifier of the rejected message. Tag 379.</summary>
    public const int BusinessRejectRefID = 379;
    /// <summary>Business reject reason code. Tag 380.</summary>
    public const int BusinessRejectReason = 380;
    /// <summary>Gross trade amount. Tag 381.</summary>
    public const int GrossTradeAmt = 381;
    /// <summary>Number of contra brokers. Tag 382.</summary>
    public const int NoContraBrokers = 382;
    /// <summary>Maximum message size (Logon). Tag 383.</summary>
    public const int MaxMessageSize = 383;
    /// <summary>Number of MsgTypes in a Logon. Tag 384.</summary>
    public const int NoMsgTypes = 384;
    /// <summary>Message direction (Logon NoMsgTypes group). Tag 385.</summary>
    public const int MsgDirection = 385;
    /// <summary>Expiry date (LocalMktDate). Tag 432.</summary>
    public const int ExpireDate = 432;
    /// <summary>Length of EncodedListStatusText. Tag 445.</summary>
    public const int EncodedListStatusTextLen = 445;
    /// <summary>Encoded list status text (data). Tag 446.</summary>
    public const int EncodedListStatusText = 446;
    /// <summary>Party identifier source. Tag 447.</summary>
    public const int PartyIDSource = 447;
    /// <summary>Party identifier. Tag 448.</summary>
    public const int PartyID = 448;
    /// <summary>Party role. Tag 452.</summary>
    public const int PartyRole = 452;
    /// <summary>Number of party instances. Tag 453.</summary>
    public const int NoPartyIDs = 453;
    /// <summary>Test message indicator. Tag 464.</summary>
    public const int TestMessageIndicator = 464;
    /// <summary>Party sub-identifier. Tag 523.</summary>
    public const int PartySubID = 523;
    /// <summary>Secondary execution identifier. Tag 527.</summary>
    public const int SecondaryExecID = 527;
    /// <summary>Order capacity. Tag 528.</summary>
    public const int OrderCapacity = 528;
    /// <summary>Maturity date (LocalMktDate). Tag 541.</summary>
    public const int MaturityDate = 541;
    /// <summary>User name (Logon). Tag 553.</summary>
    public const int Username = 553;
    /// <summary>Password (Logon). Tag 554.</summary>
    public const int Password = 554;
    /// <summary>Number of legs. Tag 555.</summary>
    public const int NoLegs = 555;
    /// <summary>Mass status request identifier. Tag 584.</summary>
    public const int MassStatusReqID = 584;
    /// <summary>Leg symbol. Tag 600.</summary>
    public const int LegSymbol = 600;
    /// <summary>Length of EncodedLegIssuer. Tag 618.</summary>
    public const int EncodedLegIssuerLen = 618;
    /// <summary>Encoded leg issuer (data). Tag 619.</summary>
    public const int EncodedLegIssuer = 619;
    /// <summary>Length of EncodedLegSecurityDesc. Tag 621.</summary>
    public const int EncodedLegSecurityDescLen = 621;
    /// <summary>Encoded leg security description (data). Tag 622.</summary>
    public const int EncodedLegSecurityDesc = 622;
    /// <summary>Leg side. Tag 624.</summary>
    public const int LegSide = 624;
    /// <summary>Next MsgSeqNum the sender expects to receive (Logon). Tag 789.</summary>
    public const int NextExpectedMsgSeqNum = 789;
    /// <summary>Number of party sub-identifiers. Tag 802.</summary>
    public const int NoPartySubIDs = 802;
    /// <summary>Party sub-identifier type. Tag 803.</summary>
    public const int PartySubIDType = 803;
    /// <summary>Liquidity indicator of the last fill. Tag 851.</summary>
    public const int LastLiquidityInd = 851;
    /// <summary>New password (Logon). Tag 925.</summary>
    public const int NewPassword = 925;
    /// <summary>Application version of the message (FIXT.1.1). Tag 1128.</summary>
    public const int ApplVerID = 1128;
    /// <summary>Custom application version. Tag 1129.</summary>
    public const int CstmApplVerID = 1129;
    /// <summary>Default application version of the session (FIXT.1.1 Logon). Tag 1137.</summary>
    public const int DefaultApplVerID = 1137;
    /// <summary>Application extension identifier. Tag 1156.</summary>
    public const int ApplExtID = 1156;
    /// <summary>Length of SecurityXML. Tag 1184.</summary>
    public const int SecurityXMLLen = 1184;
    /// <summary>Security XML (data). Tag 1185.</summary>
    public const int SecurityXML = 1185;
    /// <summary>Number of fill instances. Tag 1362.</summary>
    public const int NoFills = 1362;
    /// <summary>Fill execution identifier. Tag 1363.</summary>
    public const int FillExecID = 1363;
    /// <summary>Fill price. Tag 1364.</summary>
    public const int FillPx = 1364;
    /// <summary>Fill quantity. Tag 1365.</summary>
    public const int FillQty = 1365;
    /// <summary>Encrypted password method. Tag 1400.</summary>
    public const int EncryptedPasswordMethod = 1400;
    /// <summary>Length of EncryptedPassword. Tag 1401.</summary>
    public const int EncryptedPasswordLen = 1401;
    /// <summary>Encrypted password (data). Tag 1402.</summary>
    public const int EncryptedPassword = 1402;
    /// <summary>Length of EncryptedNewPassword. Tag 1403.</summary>
    public const int EncryptedNewPasswordLen = 1403;
    /// <summary>Encrypted new password (data). Tag 1404.</summary>
    public const int EncryptedNewPassword = 1404;
    /// <summary>Default application extension identifier. Tag 1407.</summary>
    public const int DefaultApplExtID = 1407;
    /// <summary>Default custom application version. Tag 1408.</summary>
    public const int DefaultCstmApplVerID = 1408;
    /// <summary>Session status (Logon). Tag 1409.</summary>
    public const int SessionStatus = 1409;
}
