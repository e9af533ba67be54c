//! RFC 3161 trusted time: time-stamp requests, and verification of time-stamp tokens
//! against configured root certificates. No I/O: the host sends the request to its TSA
//! (RFC 3161 §3.4, HTTP POST `application/timestamp-query`) and hands the answer here.
//!
//! [`request`] builds a TimeStampReq (RFC 3161 §2.4.1). [`verify_token`] takes a
//! TimeStampResp (§2.4.2) or a bare TimeStampToken (a CMS SignedData, RFC 5652 §5, whose
//! content is a TSTInfo) and checks, in this order, so that each code says one thing:
//!
//! 1. integrity ([`Code::TimestampInvalid`]): the status is granted; the structure; the
//!    signed attributes (content-type id-ct-TSTInfo and message-digest of the TSTInfo,
//!    RFC 5652 §5.3, §11; ESS signingCertificate or signingCertificateV2 naming the signer's
//!    certificate, RFC 3161 §2.4.2 with RFC 2634 §5.4 and RFC 5816); the signature over
//!    the DER of the signed attributes (RFC 5652 §5.4) with RSA PKCS#1 v1.5 (2048 to 8192
//!    bits) or ECDSA P-256/P-384 over SHA-256/384/512; the TSTInfo's `tsa` name, when a
//!    directoryName, is the signer's subject, and it has no critical extension;
//! 2. trust ([`Code::TimestampUntrusted`]): a certificate path from the signer to one of the
//!    roots, every certificate's signature and validity at genTime, basicConstraints cA
//!    (and pathLenConstraint) on the issuers, no critical extension this check does not
//!    know (RFC 5280 §4.2), and the signer's extendedKeyUsage exactly id-kp-timeStamping
//!    and critical (RFC 3161 §2.3);
//! 3. content ([`Code::TimestampMismatch`]): the message imprint is the digest of the
//!    expected data, and the nonce and policy are the expected ones, when given.
//!
//! [`token_of`] takes the bare token out of a TSA's response, for a host to keep.
//!
//! Not checked: revocation (the roots are the caller's own, for a TSA it runs or chose), the
//! keyUsage bits, and an ESSCertID's optional issuerSerial (its certificate hash already
//! names the exact certificate).
//! Ed25519 tokens are not accepted: `openssl ts` cannot make them (PKCS#7 has no EdDSA), so
//! none could be tested against an independent implementation.

mod algorithm;
mod asn1;
mod chain;
mod name;
mod oid;
mod request;
mod signer;
pub(crate) mod time;
mod token;
mod verify;

pub use algorithm::HashAlgorithm;
pub use request::{request, Request};
pub use token::token_of;
pub use verify::{verify_token, Timestamp, TimestampTrust};

use crate::{Code, Error};

fn invalid(message: impl Into<String>) -> Error {
    Error::new(Code::TimestampInvalid, message)
}

fn untrusted(message: impl Into<String>) -> Error {
    Error::new(Code::TimestampUntrusted, message)
}

fn mismatch(message: impl Into<String>) -> Error {
    Error::new(Code::TimestampMismatch, message)
}
