//! The ASN.1 of RFC 3161 §2.4 (TimeStampReq, TimeStampResp, TSTInfo), of the parts of CMS
//! SignedData a token uses (RFC 5652 §3, §5) and of the ESS signing-certificate attributes
//! (RFC 2634 §5.4, RFC 5035 §3), as `der` types that borrow from the token.
//!
//! RFC 3161's module uses IMPLICIT tags; `tsa [0] GeneralName` is a CHOICE, hence explicit.
//! SignedData is declared here rather than taken from the `cms` crate: a token needs a small
//! part of it, kept raw where the bytes matter (signed attributes, certificates), and the
//! whole crate's decoders cost the WebAssembly build far more than these few types.

use der::asn1::{AnyRef, BitStringRef, IntRef, OctetStringRef, Utf8StringRef};
use der::oid::ObjectIdentifier;
use der::{Decode, Reader as _, Sequence, SliceReader};
use x509_cert::ext::Extensions;
use x509_cert::name::Name;
use x509_cert::serial_number::SerialNumber;
use x509_cert::spki::AlgorithmIdentifierRef;

/// The elements of a SET OF or SEQUENCE OF kept raw (their order is not checked: openssl
/// writes a token's certificates unsorted, and nothing signs that set).
pub(super) fn elements<'a, T: Decode<'a, Error = der::Error>>(
    any: AnyRef<'a>,
) -> der::Result<Vec<T>> {
    let mut reader = SliceReader::new(any.value())?;
    let mut out = Vec::new();
    while !reader.is_finished() {
        out.push(T::decode(&mut reader)?);
    }
    Ok(out)
}

/// ContentInfo (RFC 5652 §3).
#[derive(Sequence)]
pub(super) struct ContentInfo<'a> {
    pub content_type: ObjectIdentifier,
    #[asn1(context_specific = "0", tag_mode = "EXPLICIT")]
    pub content: AnyRef<'a>,
}

/// SignedData (RFC 5652 §5.1): the certificates as they came, the SignerInfos raw.
#[derive(Sequence)]
pub(super) struct SignedData<'a> {
    pub version: u8,
    pub digest_algorithms: AnyRef<'a>,
    pub encap_content_info: EncapsulatedContentInfo<'a>,
    #[asn1(
        context_specific = "0",
        tag_mode = "IMPLICIT",
        optional = "true",
        constructed = "true"
    )]
    pub certificates: Option<Vec<AnyRef<'a>>>,
    #[asn1(
        context_specific = "1",
        tag_mode = "IMPLICIT",
        optional = "true",
        constructed = "true"
    )]
    pub crls: Option<Vec<AnyRef<'a>>>,
    pub signer_infos: AnyRef<'a>,
}

/// EncapsulatedContentInfo (RFC 5652 §5.2).
#[derive(Sequence)]
pub(super) struct EncapsulatedContentInfo<'a> {
    pub econtent_type: ObjectIdentifier,
    #[asn1(context_specific = "0", tag_mode = "EXPLICIT", optional = "true")]
    pub econtent: Option<&'a OctetStringRef>,
}

/// SignerInfo (RFC 5652 §5.3). `sid` is a CHOICE of IssuerAndSerialNumber or
/// `[0] SubjectKeyIdentifier`; `signed_attrs` is the `[0] IMPLICIT SET OF Attribute` as it
/// came (a time-stamp token must have them, so the field is not optional here).
#[derive(Sequence)]
pub(super) struct SignerInfo<'a> {
    pub version: u8,
    pub sid: AnyRef<'a>,
    pub digest_algorithm: AlgorithmIdentifierRef<'a>,
    pub signed_attrs: AnyRef<'a>,
    pub signature_algorithm: AlgorithmIdentifierRef<'a>,
    pub signature: &'a OctetStringRef,
    #[asn1(
        context_specific = "1",
        tag_mode = "IMPLICIT",
        optional = "true",
        constructed = "true"
    )]
    pub unsigned_attrs: Option<Vec<AnyRef<'a>>>,
}

/// IssuerAndSerialNumber (RFC 5652 §10.2.4).
#[derive(Sequence)]
pub(super) struct IssuerAndSerialNumber {
    pub issuer: Name,
    pub serial_number: SerialNumber,
}

/// Attribute (RFC 5652 §5.3), its SET OF values raw.
#[derive(Sequence)]
pub(super) struct Attribute<'a> {
    pub oid: ObjectIdentifier,
    pub values: AnyRef<'a>,
}

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

/// ESSCertID (RFC 2634 §5.4.1) and ESSCertIDv2 (RFC 5035 §4) in one: version 1 has no
/// hashAlgorithm (its hash is SHA-1); in version 2 it defaults to SHA-256 and is then absent.
#[derive(Sequence)]
pub(super) struct EssCertId<'a> {
    pub hash_algorithm: Option<AlgorithmIdentifierRef<'a>>,
    pub cert_hash: &'a OctetStringRef,
    pub issuer_serial: Option<AnyRef<'a>>,
}

/// SigningCertificate (RFC 2634 §5.4) or SigningCertificateV2 (RFC 5035 §3, which RFC 5816
/// lets a TSA use): the first certificate identifier names the signer's certificate.
#[derive(Sequence)]
pub(super) struct SigningCertificate<'a> {
    pub certs: Vec<EssCertId<'a>>,
    pub policies: Option<AnyRef<'a>>,
}
