//! The ASN.1 of RFC 3161 §2.4 (TimeStampReq, TimeStampResp, TSTInfo) and of the ESS
//! signing-certificate attributes (RFC 2634 §5.4, RFC 5035 §3), as `der` types.
//!
//! RFC 3161's module uses IMPLICIT tags; `tsa [0] GeneralName` is a CHOICE, hence explicit.

use der::asn1::{AnyRef, BitStringRef, IntRef, OctetStringRef, Utf8StringRef};
use der::oid::ObjectIdentifier;
use der::Sequence;
use x509_cert::ext::Extensions;
use x509_cert::spki::AlgorithmIdentifierRef;

/// MessageImprint (RFC 3161 §2.4.1).
#[derive(Sequence)]
pub(super) struct MessageImprint<'a> {
    pub hash_algorithm: AlgorithmIdentifierRef<'a>,
    pub hashed_message: &'a OctetStringRef,
}

/// TimeStampReq (RFC 3161 §2.4.1).
#[derive(Sequence)]
pub(super) struct TimeStampReq<'a> {
    pub version: u8,
    pub message_imprint: MessageImprint<'a>,
    pub req_policy: Option<ObjectIdentifier>,
    pub nonce: Option<IntRef<'a>>,
    #[asn1(default = "Default::default")]
    pub cert_req: bool,
}

/// PKIStatusInfo (RFC 3161 §2.4.2, from RFC 4210).
#[derive(Sequence)]
pub(super) struct PkiStatusInfo<'a> {
    pub status: u8,
    pub status_string: Option<Vec<Utf8StringRef<'a>>>,
    pub fail_info: Option<BitStringRef<'a>>,
}

/// TimeStampResp (RFC 3161 §2.4.2); the token stays raw for the CMS decoder.
#[derive(Sequence)]
pub(super) struct TimeStampResp<'a> {
    pub status: PkiStatusInfo<'a>,
    pub time_stamp_token: Option<AnyRef<'a>>,
}

/// Accuracy (RFC 3161 §2.4.2).
#[derive(Sequence)]
pub(super) struct Accuracy {
    pub seconds: Option<u64>,
    #[asn1(context_specific = "0", tag_mode = "IMPLICIT", optional = "true")]
    pub millis: Option<u16>,
    #[asn1(context_specific = "1", tag_mode = "IMPLICIT", optional = "true")]
    pub micros: Option<u16>,
}

/// TSTInfo (RFC 3161 §2.4.2). genTime stays raw: it may carry fractional seconds, which
/// `der`'s GeneralizedTime (the RFC 5280 profile) refuses.
#[derive(Sequence)]
pub(super) struct TstInfo<'a> {
    pub version: u8,
    pub policy: ObjectIdentifier,
    pub message_imprint: MessageImprint<'a>,
    pub serial_number: IntRef<'a>,
    pub gen_time: AnyRef<'a>,
    pub accuracy: Option<Accuracy>,
    #[asn1(default = "Default::default")]
    pub ordering: bool,
    pub nonce: Option<IntRef<'a>>,
    #[asn1(context_specific = "0", tag_mode = "EXPLICIT", optional = "true")]
    pub tsa: Option<AnyRef<'a>>,
    #[asn1(context_specific = "1", tag_mode = "IMPLICIT", optional = "true")]
    pub extensions: Option<Extensions>,
}

/// ESSCertID (RFC 2634 §5.4.1): a SHA-1 hash of the whole certificate.
#[derive(Sequence)]
pub(super) struct EssCertId<'a> {
    pub cert_hash: &'a OctetStringRef,
    pub issuer_serial: Option<AnyRef<'a>>,
}

/// SigningCertificate (RFC 2634 §5.4): the first ESSCertID names the signer's certificate.
#[derive(Sequence)]
pub(super) struct SigningCertificate<'a> {
    pub certs: Vec<EssCertId<'a>>,
    pub policies: Option<AnyRef<'a>>,
}

/// ESSCertIDv2 (RFC 5035 §4): hashAlgorithm DEFAULT SHA-256, absent when it is SHA-256.
#[derive(Sequence)]
pub(super) struct EssCertIdV2<'a> {
    pub hash_algorithm: Option<AlgorithmIdentifierRef<'a>>,
    pub cert_hash: &'a OctetStringRef,
    pub issuer_serial: Option<AnyRef<'a>>,
}

/// SigningCertificateV2 (RFC 5035 §3, required of TSAs by RFC 5816 §2.2.1 when not SHA-1).
#[derive(Sequence)]
pub(super) struct SigningCertificateV2<'a> {
    pub certs: Vec<EssCertIdV2<'a>>,
    pub policies: Option<AnyRef<'a>>,
}
