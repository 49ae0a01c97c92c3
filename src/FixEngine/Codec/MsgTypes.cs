using System;

namespace FixEngine.Codec;

/// <summary>MsgType (35) values as ASCII byte spans, plus single-byte codes for switching on one-character types.</summary>
/// <remarks>The spans point at constant data in the assembly image: no allocation, safe from any thread.</remarks>
public static class MsgTypes
{
    /// <summary>MsgType 0: Heartbeat.</summary>
    public static ReadOnlySpan<byte> Heartbeat => "0"u8;
    /// <summary>MsgType 1: TestRequest.</summary>
    public static ReadOnlySpan<byte> TestRequest => "1"u8;
    /// <summary>MsgType 2: ResendRequest.</summary>
    public static ReadOnlySpan<byte> ResendRequest => "2"u8;
    /// <summary>MsgType 3: Reject.</summary>
    public static ReadOnlySpan<byte> Reject => "3"u8;
    /// <summary>MsgType 4: SequenceReset.</summary>
    public static ReadOnlySpan<byte> SequenceReset => "4"u8;
    /// <summary>MsgType 5: Logout.</summary>
    public static ReadOnlySpan<byte> Logout => "5"u8;
    /// <summary>MsgType 6: IndicationOfInterest.</summary>
    public static ReadOnlySpan<byte> IndicationOfInterest => "6"u8;
    /// <summary>MsgType 7: Advertisement.</summary>
    public static ReadOnlySpan<byte> Advertisement => "7"u8;
    /// <summary>MsgType 8: ExecutionReport.</summary>
    public static ReadOnlySpan<byte> ExecutionReport => "8"u8;
    /// <summary>MsgType 9: OrderCancelReject.</summary>
    public static ReadOnlySpan<byte> OrderCancelReject => "9"u8;
    /// <summary>MsgType A: Logon.</summary>
    public static ReadOnlySpan<byte> Logon => "A"u8;
    /// <summary>MsgType B: News.</summary>
    public static ReadOnlySpan<byte> News => "B"u8;
    /// <summary>MsgType C: Email.</summary>
    public static ReadOnlySpan<byte> Email => "C"u8;
    /// <summary>MsgType D: NewOrderSingle.</summary>
    public static ReadOnlySpan<byte> NewOrderSingle => "D"u8;
    /// <summary>MsgType E: NewOrderList.</summary>
    public static ReadOnlySpan<byte> NewOrderList => "E"u8;
    /// <summary>MsgType F: OrderCancelRequest.</summary>
    public static ReadOnlySpan<byte> OrderCancelRequest => "F"u8;
    /// <summary>MsgType G: OrderCancelReplaceRequest.</summary>
    public static ReadOnlySpan<byte> OrderCancelReplaceRequest => "G"u8;
    /// <summary>MsgType H: OrderStatusRequest.</summary>
    public static ReadOnlySpan<byte> OrderStatusRequest => "H"u8;
    /// <summary>MsgType J: AllocationInstruction.</summary>
    public static ReadOnlySpan<byte> AllocationInstruction => "J"u8;
    /// <summary>MsgType K: ListCancelRequest.</summary>
    public static ReadOnlySpan<byte> ListCancelRequest => "K"u8;
    /// <summary>MsgType L: ListExecute.</summary>
    public static ReadOnlySpan<byte> ListExecute => "L"u8;
    /// <summary>MsgType M: ListStatusRequest.</summary>
    public static ReadOnlySpan<byte> ListStatusRequest => "M"u8;
    /// <summary>MsgType N: ListStatus.</summary>
    public static ReadOnlySpan<byte> ListStatus => "N"u8;
    /// <summary>MsgType P: AllocationInstructionAck.</summary>
    public static ReadOnlySpan<byte> AllocationInstructionAck => "P"u8;
    /// <summary>MsgType Q: DontKnowTrade.</summary>
    public static ReadOnlySpan<byte> DontKnowTrade => "Q"u8;
    /// <summary>MsgType R: QuoteRequest.</summary>
    public static ReadOnlySpan<byte> QuoteRequest => "R"u8;
    /// <summary>MsgType S: Quote.</summary>
    public static ReadOnlySpan<byte> Quote => "S"u8;
    /// <summary>MsgType T: SettlementInstructions.</summary>
    public static ReadOnlySpan<byte> SettlementInstructions => "T"u8;
    /// <summary>MsgType V: MarketDataRequest.</summary>
    public static ReadOnlySpan<byte> MarketDataRequest => "V"u8;
    /// <summary>MsgType W: MarketDataSnapshotFullRefresh.</summary>
    public static ReadOnlySpan<byte> MarketDataSnapshotFullRefresh => "W"u8;
    /// <summary>MsgType X: MarketDataIncrementalRefresh.</summary>
    public static ReadOnlySpan<byte> MarketDataIncrementalRefresh => "X"u8;
    /// <summary>MsgType Y: MarketDataRequestReject.</summary>
    public static ReadOnlySpan<byte> MarketDataRequestReject => "Y"u8;
    /// <summary>MsgType Z: QuoteCancel.</summary>
    public static ReadOnlySpan<byte> QuoteCancel => "Z"u8;
    /// <summary>MsgType a: QuoteStatusRequest.</summary>
    public static ReadOnlySpan<byte> QuoteStatusRequest => "a"u8;
    /// <summary>MsgType b: MassQuoteAcknowledgement.</summary>
    public static ReadOnlySpan<byte> MassQuoteAcknowledgement => "b"u8;
    /// <summary>MsgType c: SecurityDefinitionRequest.</summary>
    public static ReadOnlySpan<byte> SecurityDefinitionRequest => "c"u8;
    /// <summary>MsgType d: SecurityDefinition.</summary>
    public static ReadOnlySpan<byte> SecurityDefinition => "d"u8;
    /// <summary>MsgType e: SecurityStatusRequest.</summary>
    public static ReadOnlySpan<byte> SecurityStatusRequest => "e"u8;
    /// <summary>MsgType f: SecurityStatus.</summary>
    public static ReadOnlySpan<byte> SecurityStatus => "f"u8;
    /// <summary>MsgType g: TradingSessionStatusRequest.</summary>
    public static ReadOnlySpan<byte> TradingSessionStatusRequest => "g"u8;
    /// <summary>MsgType h: TradingSessionStatus.</summary>
    public static ReadOnlySpan<byte> TradingSessionStatus => "h"u8;
    /// <summary>MsgType i: MassQuote.</summary>
    public static ReadOnlySpan<byte> MassQuote => "i"u8;
    /// <summary>MsgType j: BusinessMessageReject.</summary>
    public static ReadOnlySpan<byte> BusinessMessageReject => "j"u8;
    /// <summary>MsgType k: BidRequest.</summary>
    public static ReadOnlySpan<byte> BidRequest => "k"u8;
    /// <summary>MsgType l: BidResponse.</summary>
    public static ReadOnlySpan<byte> BidResponse => "l"u8;
    /// <summary>MsgType m: ListStrikePrice.</summary>
    public static ReadOnlySpan<byte> ListStrikePrice => "m"u8;
    /// <summary>MsgType n: XmlMessage.</summary>
    public static ReadOnlySpan<byte> XmlMessage => "n"u8;
    /// <summary>MsgType o: RegistrationInstructions.</summary>
    public static ReadOnlySpan<byte> RegistrationInstructions => "o"u8;
    /// <summary>MsgType p: RegistrationInstructionsResponse.</summary>
    public static ReadOnlySpan<byte> RegistrationInstructionsResponse => "p"u8;
    /// <summary>MsgType q: OrderMassCancelRequest.</summary>
    public static ReadOnlySpan<byte> OrderMassCancelRequest => "q"u8;
    /// <summary>MsgType r: OrderMassCancelReport.</summary>
    public static ReadOnlySpan<byte> OrderMassCancelReport => "r"u8;
    /// <summary>MsgType s: NewOrderCross.</summary>
    public static ReadOnlySpan<byte> NewOrderCross => "s"u8;
    /// <summary>MsgType t: CrossOrderCancelReplaceRequest.</summary>
    public static ReadOnlySpan<byte> CrossOrderCancelReplaceRequest => "t"u8;
    /// <summary>MsgType u: CrossOrderCancelRequest.</summary>
    public static ReadOnlySpan<byte> CrossOrderCancelRequest => "u"u8;
    /// <summary>MsgType v: SecurityTypeRequest.</summary>
    public static ReadOnlySpan<byte> SecurityTypeRequest => "v"u8;
    /// <summary>MsgType w: SecurityTypes.</summary>
    public static ReadOnlySpan<byte> SecurityTypes => "w"u8;
    /// <summary>MsgType x: SecurityListRequest.</summary>
    public static ReadOnlySpan<byte> SecurityListRequest => "x"u8;
    /// <summary>MsgType y: SecurityList.</summary>
    public static ReadOnlySpan<byte> SecurityList => "y"u8;
    /// <summary>MsgType z: DerivativeSecurityListRequest.</summary>
    public static ReadOnlySpan<byte> DerivativeSecurityListRequest => "z"u8;
    /// <summary>MsgType AB: NewOrderMultileg.</summary>
    public static ReadOnlySpan<byte> NewOrderMultileg => "AB"u8;
    /// <summary>MsgType AC: MultilegOrderCancelReplace.</summary>
    public static ReadOnlySpan<byte> MultilegOrderCancelReplace => "AC"u8;
    /// <summary>MsgType AD: TradeCaptureReportRequest.</summary>
    public static ReadOnlySpan<byte> TradeCaptureReportRequest => "AD"u8;
    /// <summary>MsgType AE: TradeCaptureReport.</summary>
    public static ReadOnlySpan<byte> TradeCaptureReport => "AE"u8;
    /// <summary>MsgType AF: OrderMassStatusRequest.</summary>
    public static ReadOnlySpan<byte> OrderMassStatusRequest => "AF"u8;
    /// <summary>MsgType AG: QuoteRequestReject.</summary>
    public static ReadOnlySpan<byte> QuoteRequestReject => "AG"u8;
    /// <summary>MsgType AH: RfqRequest.</summary>
    public static ReadOnlySpan<byte> RfqRequest => "AH"u8;
    /// <summary>MsgType AI: QuoteStatusReport.</summary>
    public static ReadOnlySpan<byte> QuoteStatusReport => "AI"u8;
    /// <summary>MsgType AJ: QuoteResponse.</summary>
    public static ReadOnlySpan<byte> QuoteResponse => "AJ"u8;
    /// <summary>MsgType AK: Confirmation.</summary>
    public static ReadOnlySpan<byte> Confirmation => "AK"u8;
    /// <summary>MsgType AL: PositionMaintenanceRequest.</summary>
    public static ReadOnlySpan<byte> PositionMaintenanceRequest => "AL"u8;
    /// <summary>MsgType AM: PositionMaintenanceReport.</summary>
    public static ReadOnlySpan<byte> PositionMaintenanceReport => "AM"u8;
    /// <summary>MsgType AN: RequestForPositions.</summary>
    public static ReadOnlySpan<byte> RequestForPositions => "AN"u8;
    /// <summary>MsgType AO: RequestForPositionsAck.</summary>
    public static ReadOnlySpan<byte> RequestForPositionsAck => "AO"u8;
    /// <summary>MsgType AP: PositionReport.</summary>
    public static ReadOnlySpan<byte> PositionReport => "AP"u8;
    /// <summary>MsgType AQ: TradeCaptureReportRequestAck.</summary>
    public static ReadOnlySpan<byte> TradeCaptureReportRequestAck => "AQ"u8;
    /// <summary>MsgType AR: TradeCaptureReportAck.</summary>
    public static ReadOnlySpan<byte> TradeCaptureReportAck => "AR"u8;
    /// <summary>MsgType AS: AllocationReport.</summary>
    public static ReadOnlySpan<byte> AllocationReport => "AS"u8;
    /// <summary>MsgType AT: AllocationReportAck.</summary>
    public static ReadOnlySpan<byte> AllocationReportAck => "AT"u8;
    /// <summary>MsgType AU: ConfirmationAck.</summary>
    public static ReadOnlySpan<byte> ConfirmationAck => "AU"u8;
    /// <summary>MsgType AV: SettlementInstructionRequest.</summary>
    public static ReadOnlySpan<byte> SettlementInstructionRequest => "AV"u8;
    /// <summary>MsgType AW: AssignmentReport.</summary>
    public static ReadOnlySpan<byte> AssignmentReport => "AW"u8;
    /// <summary>MsgType AX: CollateralRequest.</summary>
    public static ReadOnlySpan<byte> CollateralRequest => "AX"u8;
    /// <summary>MsgType AY: CollateralAssignment.</summary>
    public static ReadOnlySpan<byte> CollateralAssignment => "AY"u8;
    /// <summary>MsgType AZ: CollateralResponse.</summary>
    public static ReadOnlySpan<byte> CollateralResponse => "AZ"u8;
    /// <summary>MsgType BA: CollateralReport.</summary>
    public static ReadOnlySpan<byte> CollateralReport => "BA"u8;
    /// <summary>MsgType BB: CollateralInquiry.</summary>
    public static ReadOnlySpan<byte> CollateralInquiry => "BB"u8;
    /// <summary>MsgType BC: NetworkCounterpartySystemStatusRequest.</summary>
    public static ReadOnlySpan<byte> NetworkCounterpartySystemStatusRequest => "BC"u8;
    /// <summary>MsgType BD: NetworkCounterpartySystemStatusResponse.</summary>
    public static ReadOnlySpan<byte> NetworkCounterpartySystemStatusResponse => "BD"u8;
    /// <summary>MsgType BE: UserRequest.</summary>
    public static ReadOnlySpan<byte> UserRequest => "BE"u8;
    /// <summary>MsgType BF: UserResponse.</summary>
    public static ReadOnlySpan<byte> UserResponse => "BF"u8;
    /// <summary>MsgType BG: CollateralInquiryAck.</summary>
    public static ReadOnlySpan<byte> CollateralInquiryAck => "BG"u8;
    /// <summary>MsgType BH: ConfirmationRequest.</summary>
    public static ReadOnlySpan<byte> ConfirmationRequest => "BH"u8;
    /// <summary>MsgType BW: ApplicationMessageRequest.</summary>
    public static ReadOnlySpan<byte> ApplicationMessageRequest => "BW"u8;
    /// <summary>MsgType BX: ApplicationMessageRequestAck.</summary>
    public static ReadOnlySpan<byte> ApplicationMessageRequestAck => "BX"u8;
    /// <summary>MsgType BY: ApplicationMessageReport.</summary>
    public static ReadOnlySpan<byte> ApplicationMessageReport => "BY"u8;

    /// <summary>Single-byte code of Heartbeat (35=0).</summary>
    public const byte HeartbeatCode = (byte)'0';
    /// <summary>Single-byte code of TestRequest (35=1).</summary>
    public const byte TestRequestCode = (byte)'1';
    /// <summary>Single-byte code of ResendRequest (35=2).</summary>
    public const byte ResendRequestCode = (byte)'2';
    /// <summary>Single-byte code of Reject (35=3).</summary>
    public const byte RejectCode = (byte)'3';
    /// <summary>Single-byte code of SequenceReset (35=4).</summary>
    public const byte SequenceResetCode = (byte)'4';
    /// <summary>Single-byte code of Logout (35=5).</summary>
    public const byte LogoutCode = (byte)'5';
    /// <summary>Single-byte code of IndicationOfInterest (35=6).</summary>
    public const byte IndicationOfInterestCode = (byte)'6';
    /// <summary>Single-byte code of Advertisement (35=7).</summary>
    public const byte AdvertisementCode = (byte)'7';
    /// <summary>Single-byte code of ExecutionReport (35=8).</summary>
    public const byte ExecutionReportCode = (byte)'8';
    /// <summary>Single-byte code of OrderCancelReject (35=9).</summary>
    public const byte OrderCancelRejectCode = (byte)'9';
    /// <summary>Single-byte code of Logon (35=A).</summary>
    public const byte LogonCode = (byte)'A';
    /// <summary>Single-byte code of News (35=B).</summary>
    public const byte NewsCode = (byte)'B';
    /// <summary>Single-byte code of Email (35=C).</summary>
    public const byte EmailCode = (byte)'C';
    /// <summary>Single-byte code of NewOrderSingle (35=D).</summary>
    public const byte NewOrderSingleCode = (byte)'D';
    /// <summary>Single-byte code of NewOrderList (35=E).</summary>
    public const byte NewOrderListCode = (byte)'E';
    /// <summary>Single-byte code of OrderCancelRequest (35=F).</summary>
    public const byte OrderCancelRequestCode = (byte)'F';
    /// <summary>Single-byte code of OrderCancelReplaceRequest (35=G).</summary>
    public const byte OrderCancelReplaceRequestCode = (byte)'G';
    /// <summary>Single-byte code of OrderStatusRequest (35=H).</summary>
    public const byte OrderStatusRequestCode = (byte)'H';
    /// <summary>Single-byte code of AllocationInstruction (35=J).</summary>
    public const byte AllocationInstructionCode = (byte)'J';
    /// <summary>Single-byte code of ListCancelRequest (35=K).</summary>
    public const byte ListCancelRequestCode = (byte)'K';
    /// <summary>Single-byte code of ListExecute (35=L).</summary>
    public const byte ListExecuteCode = (byte)'L';
    /// <summary>Single-byte code of ListStatusRequest (35=M).</summary>
    public const byte ListStatusRequestCode = (byte)'M';
    /// <summary>Single-byte code of ListStatus (35=N).</summary>
    public const byte ListStatusCode = (byte)'N';
    /// <summary>Single-byte code of AllocationInstructionAck (35=P).</summary>
    public const byte AllocationInstructionAckCode = (byte)'P';
    /// <summary>Single-byte code of DontKnowTrade (35=Q).</summary>
    public const byte DontKnowTradeCode = (byte)'Q';
    /// <summary>Single-byte code of QuoteRequest (35=R).</summary>
    public const byte QuoteRequestCode = (byte)'R';
    /// <summary>Single-byte code of Quote (35=S).</summary>
    public const byte QuoteCode = (byte)'S';
    /// <summary>Single-byte code of SettlementInstructions (35=T).</summary>
    public const byte SettlementInstructionsCode = (byte)'T';
    /// <summary>Single-byte code of MarketDataRequest (35=V).</summary>
    public const byte MarketDataRequestCode = (byte)'V';
    /// <summary>Single-byte code of MarketDataSnapshotFullRefresh (35=W).</summary>
    public const byte MarketDataSnapshotFullRefreshCode = (byte)'W';
    /// <summary>Single-byte code of MarketDataIncrementalRefresh (35=X).</summary>
    public const byte MarketDataIncrementalRefreshCode = (byte)'X';
    /// <summary>Single-byte code of MarketDataRequestReject (35=Y).</summary>
    public const byte MarketDataRequestRejectCode = (byte)'Y';
    /// <summary>Single-byte code of QuoteCancel (35=Z).</summary>
    public const byte QuoteCancelCode = (byte)'Z';
    /// <summary>Single-byte code of QuoteStatusRequest (35=a).</summary>
    public const byte QuoteStatusRequestCode = (byte)'a';
    /// <summary>Single-byte code of MassQuoteAcknowledgement (35=b).</summary>
    public const byte MassQuoteAcknowledgementCode = (byte)'b';
    /// <summary>Single-byte code of SecurityDefinitionRequest (35=c).</summary>
    public const byte SecurityDefinitionRequestCode = (byte)'c';
    /// <summary>Single-byte code of SecurityDefinition (35=d).</summary>
    public const byte SecurityDefinitionCode = (byte)'d';
    /// <summary>Single-byte code of SecurityStatusRequest (35=e).</summary>
    public const byte SecurityStatusRequestCode = (byte)'e';
    /// <summary>Single-byte code of SecurityStatus (35=f).</summary>
    public const byte SecurityStatusCode = (byte)'f';
    /// <summary>Single-byte code of TradingSessionStatusRequest (35=g).</summary>
    public const byte TradingSessionStatusRequestCode = (byte)'g';
    /// <summary>Single-byte code of TradingSessionStatus (35=h).</summary>
    public const byte TradingSessionStatusCode = (byte)'h';
    /// <summary>Single-byte code of MassQuote (35=i).</summary>
    public const byte MassQuoteCode = (byte)'i';
    /// <summary>Single-byte code of BusinessMessageReject (35=j).</summary>
    public const byte BusinessMessageRejectCode = (byte)'j';
    /// <summary>Single-byte code of BidRequest (35=k).</summary>
    public const byte BidRequestCode = (byte)'k';
    /// <summary>Single-byte code of BidResponse (35=l).</summary>
    public const byte BidResponseCode = (byte)'l';
    /// <summary>Single-byte code of ListStrikePrice (35=m).</summary>
    public const byte ListStrikePriceCode = (byte)'m';
    /// <summary>Single-byte code of XmlMessage (35=n).</summary>
    public const byte XmlMessageCode = (byte)'n';
    /// <summary>Single-byte code of RegistrationInstructions (35=o).</summary>
    public const byte RegistrationInstructionsCode = (byte)'o';
    /// <summary>Single-byte code of RegistrationInstructionsResponse (35=p).</summary>
    public const byte RegistrationInstructionsResponseCode = (byte)'p';
    /// <summary>Single-byte code of OrderMassCancelRequest (35=q).</summary>
    public const byte OrderMassCancelRequestCode = (byte)'q';
    /// <summary>Single-byte code of OrderMassCancelReport (35=r).</summary>
    public const byte OrderMassCancelReportCode = (byte)'r';
    /// <summary>Single-byte code of NewOrderCross (35=s).</summary>
    public const byte NewOrderCrossCode = (byte)'s';
    /// <summary>Single-byte code of CrossOrderCancelReplaceRequest (35=t).</summary>
    public const byte CrossOrderCancelReplaceRequestCode = (byte)'t';
    /// <summary>Single-byte code of CrossOrderCancelRequest (35=u).</summary>
    public const byte CrossOrderCancelRequestCode = (byte)'u';
    /// <summary>Single-byte code of SecurityTypeRequest (35=v).</summary>
    public const byte SecurityTypeRequestCode = (byte)'v';
    /// <summary>Single-byte code of SecurityTypes (35=w).</summary>
    public const byte SecurityTypesCode = (byte)'w';
    /// <summary>Single-byte code of SecurityListRequest (35=x).</summary>
    public const byte SecurityListRequestCode = (byte)'x';
    /// <summary>Single-byte code of SecurityList (35=y).</summary>
    public const byte SecurityListCode = (byte)'y';
    /// <summary>Single-byte code of DerivativeSecurityListRequest (35=z).</summary>
    public const byte DerivativeSecurityListRequestCode = (byte)'z';

    /// <summary>True for the session-level (admin) types 0, 1, 2, 3, 4, 5 and A.</summary>
    /// <param name="msgType">The MsgType value bytes.</param>
    public static bool IsAdmin(ReadOnlySpan<byte> msgType) =>
        msgType.Length == 1 && (msgType[0] is >= (byte)'0' and <= (byte)'5' or (byte)'A');
}
