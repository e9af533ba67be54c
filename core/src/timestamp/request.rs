//! TimeStampReq (RFC 3161 §2.4.1) for the digest of some data.

use der::asn1::{IntRef, OctetStringRef};
use der::oid::ObjectIdentifier;
use der::Encode;
use x509_cert::spki::AlgorithmIdentifierRef;

use super::asn1::{MessageImprint, TimeStampReq};
use super::HashAlgorithm;
use crate::{Error, Result};

/// What a time-stamp request asks for besides the data's digest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request<'a> {
    /// The message imprint's digest algorithm (SHA-256 unless the TSA needs another).
    pub hash: HashAlgorithm,
    /// The nonce, as an unsigned big-endian integer: random bytes from the host (64 bits or
    /// more, RFC 3161 §2.4.1), which the token must repeat.
    pub nonce: Option<&'a [u8]>,
    /// The TSA policy asked for, as a dotted object identifier (`reqPolicy`).
    pub policy: Option<&'a str>,
}

impl Default for Request<'_> {
    fn default() -> Self {
        Request {
            hash: HashAlgorithm::Sha256,
            nonce: None,
            policy: None,
        }
    }
}

/// The DER TimeStampReq for `data`: version 1, the message imprint, the nonce and policy
/// when given, and certReq true so that the token carries the TSA's certificate. The
/// digest algorithm's parameters are absent (RFC 5754 §2).
///
/// Errors: [`crate::Code::InvalidOption`] for a policy that is not an object identifier or
/// an empty nonce (path `/policy` or `/nonce`).
pub fn request(data: &[u8], options: &Request<'_>) -> Result<Vec<u8>> {
    let policy = options
        .policy
        .map(|text| {
            ObjectIdentifier::new(text).map_err(|_| {
                Error::invalid_option(
                    "the policy must be a dotted object identifier such as 1.2.3.4",
                )
                .in_key("policy")
            })
        })
        .transpose()?;
    let nonce = options.nonce.map(unsigned_integer).transpose()?;
    let digest = options.hash.digest(data);
    let encode = || {
        TimeStampReq {
            version: 1,
            message_imprint: MessageImprint {
                hash_algorithm: AlgorithmIdentifierRef {
                    oid: options.hash.oid(),
                    parameters: None,
                },
                hashed_message: OctetStringRef::new(&digest)?,
            },
            req_policy: policy,
            nonce: nonce.as_ref().map(|bytes| IntRef::new(bytes)).transpose()?,
            cert_req: true,
        }
        .to_der()
    };
    encode().map_err(|e| Error::invalid_option(format!("cannot encode the request: {e}")))
}

/// A DER INTEGER's content for an unsigned big-endian number: no redundant leading zeros,
/// one zero byte before a first byte with the high bit set (X.690 §8.3.2).
fn unsigned_integer(bytes: &[u8]) -> Result<Vec<u8>> {
    let start = bytes.iter().position(|&b| b != 0).unwrap_or(bytes.len());
    let Some(rest) = bytes.get(start..).filter(|rest| !rest.is_empty()) else {
        return Err(Error::invalid_option("the nonce must be a non-zero number").in_key("nonce"));
    };
    let mut out = Vec::with_capacity(rest.len() + 1);
    if rest.first().is_some_and(|&b| b >= 0x80) {
        out.push(0);
    }
    out.extend_from_slice(rest);
    Ok(out)
}
