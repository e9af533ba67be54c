//! [`verify_token`]: what a verified time-stamp says, and what it was checked against.

use der::asn1::IntRef;
use der::oid::ObjectIdentifier;
use der::{Decode, Encode, Tag, TagNumber, Tagged as _};
use x509_cert::name::Name;

use super::algorithm::HashAlgorithm;
use super::asn1::TstInfo;
use super::chain::{verify_path, Cert};
use super::{invalid, mismatch, signer, time, token};
use crate::{Error, Result};

/// Certificates a token may carry: a TSA's path is one to three, and the path search tries
/// every certificate named as an issuer, a signature check each.
const MAX_CERTIFICATES: usize = 16;

/// What a time-stamp is checked against: the TSA roots the verifier trusts, and the nonce and
/// policy it expects, when it asked for them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TimestampTrust {
    /// Root certificates (DER) of the TSAs trusted; a token must chain to one of them.
    pub roots: Vec<Vec<u8>>,
    /// More certificates (DER) to build the path from, beside those the token carries
    /// (intermediates, or the TSA's own when it was asked without certReq).
    pub certificates: Vec<Vec<u8>>,
    /// The policy (dotted object identifier) the token must name.
    pub policy: Option<String>,
    /// The nonce the request carried, as an unsigned big-endian integer.
    pub nonce: Option<Vec<u8>>,
}

impl TimestampTrust {
    /// Checks that the trust reads: every certificate DER X.509, the policy a dotted object
    /// identifier ([`crate::Code::InvalidOption`] at `/roots/<i>`, `/certificates/<i>` or
    /// `/policy`), so that a host refuses a malformed configuration when it loads it.
    pub fn check(&self) -> Result<()> {
        self.read().map(|_| ())
    }

    /// The roots, the other certificates and the policy, read.
    fn read(&self) -> Result<(Vec<Cert>, Vec<Cert>, Option<ObjectIdentifier>)> {
        let roots = certificates(&self.roots).map_err(|e| e.in_key("roots"))?;
        let extra = certificates(&self.certificates).map_err(|e| e.in_key("certificates"))?;
        let policy = self
            .policy
            .as_deref()
            .map(|text| {
                ObjectIdentifier::new(text).map_err(|_| {
                    Error::invalid_option("the policy must be a dotted object identifier")
                        .in_key("policy")
                })
            })
            .transpose()?;
        Ok((roots, extra, policy))
    }
}

/// A verified time-stamp (RFC 3161 TSTInfo, §2.4.2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Timestamp {
    /// genTime in ms since the epoch (UTC), digits finer than a millisecond dropped.
    pub gen_time_ms: i64,
    /// genTime as the token writes it (`YYYYMMDDhhmmss[.s...]Z`), every digit kept.
    pub gen_time: String,
    /// The accuracy the TSA states for genTime, in microseconds (RFC 3161 §2.4.2).
    pub accuracy_us: Option<u64>,
    /// The TSA policy under which the token was issued (dotted object identifier).
    pub policy: String,
    /// The token's serial number, lowercase hex without leading zeros.
    pub serial: String,
    /// The TSA certificate's subject, as an RFC 4514 string (`CN=...,O=...`).
    pub tsa_name: String,
    /// The message imprint's digest algorithm.
    pub hash: HashAlgorithm,
    /// The message imprint: the digest of the time-stamped data.
    pub imprint: Vec<u8>,
    /// The nonce, unsigned big-endian without leading zeros, when the token has one.
    pub nonce: Option<Vec<u8>>,
}

/// Verifies an RFC 3161 TimeStampResp or TimeStampToken (DER) as a time-stamp of `data`
/// by a TSA chaining to one of `trust.roots` (see the [module](super) for the checks).
///
/// Errors: [`crate::Code::TimestampInvalid`], [`crate::Code::TimestampUntrusted`],
/// [`crate::Code::TimestampMismatch`] in that order of checking, the path naming the part
/// of the token; [`crate::Code::InvalidOption`] for a trust whose certificates or policy are
/// malformed (path `/roots/<i>`, `/certificates/<i>`, `/policy`).
pub fn verify_token(token_der: &[u8], data: &[u8], trust: &TimestampTrust) -> Result<Timestamp> {
    let (roots, extra, policy) = trust.read()?;

    let token = token::parse(token_der)?;
    let tst = TstInfo::from_der(token.tst_info)
        .map_err(|e| invalid(format!("the TSTInfo is malformed: {e}")).in_key("tst_info"))?;
    if tst.version != 1 {
        return Err(invalid("the TSTInfo's version is not 1").in_key("tst_info"));
    }
    let (gen_time_ms, gen_time) =
        time::gen_time(&tst.gen_time).map_err(|e| e.in_key("tst_info"))?;

    let carried = token.signed.certificates.as_ref().map_or(0, Vec::len);
    if carried > MAX_CERTIFICATES {
        return Err(invalid(format!(
            "the token carries {carried} certificates; at most {MAX_CERTIFICATES} are read: a TSA \
             sends its own and the few above it, and each one more could cost a signature check \
             at every step of the path"
        ))
        .in_key("certificates"));
    }
    let mut pool = Vec::new();
    for (i, cert) in token.signed.certificates.iter().flatten().enumerate() {
        // Only X.509 certificates matter; other CertificateChoices are context-tagged.
        if cert.tag() != Tag::Sequence {
            continue;
        }
        let der = cert.to_der().and_then(|der| Cert::from_der(&der));
        pool.push(der.map_err(|e| {
            invalid(format!("a certificate of the token is malformed: {e}"))
                .in_index(i)
                .in_key("certificates")
        })?);
    }
    pool.extend(extra);
    let signer = signer::verify(&token, &pool)?;
    let signer = pool
        .get(signer)
        .ok_or_else(|| invalid("signer certificate lost"))?;
    consistent(&tst, signer).map_err(|e| e.in_key("tst_info"))?;
    verify_path(signer, &pool, &roots, gen_time_ms)?;

    let imprint = &tst.message_imprint;
    let hash = HashAlgorithm::from_oid(&imprint.hash_algorithm.oid).ok_or_else(|| {
        invalid(format!(
            "the message imprint's algorithm {} is not SHA-256, SHA-384 or SHA-512",
            imprint.hash_algorithm.oid
        ))
        .in_key("tst_info")
    })?;
    if hash.digest(data) != imprint.hashed_message.as_bytes() {
        return Err(mismatch(format!(
            "the token time-stamps other data: its {} message imprint is not the digest of the data given",
            hash.name()
        ))
        .in_key("message_imprint"));
    }
    let nonce = tst.nonce.as_ref().map(unsigned);
    if let Some(expected) = &trust.nonce {
        if nonce.as_ref().and_then(|n| n.as_deref()) != Some(strip_zeros(expected)) {
            return Err(mismatch(
                "the token's nonce is not the request's: it answers another request",
            )
            .in_key("nonce"));
        }
    }
    if let Some(expected) = policy {
        if tst.policy != expected {
            return Err(mismatch(format!(
                "the token's policy is {}, not the expected {expected}",
                tst.policy
            ))
            .in_key("policy"));
        }
    }
    Ok(Timestamp {
        gen_time_ms,
        gen_time,
        accuracy_us: tst.accuracy.as_ref().map(|a| {
            a.seconds
                .unwrap_or(0)
                .saturating_mul(1_000_000)
                .saturating_add(u64::from(a.millis.unwrap_or(0)) * 1000)
                .saturating_add(u64::from(a.micros.unwrap_or(0)))
        }),
        policy: tst.policy.to_string(),
        serial: hex(strip_zeros(tst.serial_number.as_bytes())),
        tsa_name: signer.subject(),
        hash,
        imprint: imprint.hashed_message.as_bytes().to_vec(),
        nonce: nonce.flatten(),
    })
}

/// What the TSTInfo says beside the time must not contradict its signer or ask for more than
/// is checked here: its `tsa` name, when a directoryName, is the signer's subject (RFC 3161
/// §2.4.2: "MUST correspond to one of the subject names"; other name forms are a hint only),
/// and it has no critical extension (none is defined for TSTInfo).
fn consistent(tst: &TstInfo<'_>, signer: &Cert) -> Result<()> {
    if let Some(name) = &tst.tsa {
        let directory = Tag::ContextSpecific {
            constructed: true,
            number: TagNumber(4),
        };
        if name.tag() == directory
            && Name::from_der(name.value()).ok().as_ref()
                != Some(signer.cert.tbs_certificate().subject())
        {
            return Err(invalid(
                "the TSTInfo's tsa name is not the subject of the certificate that signed it",
            )
            .in_key("tsa"));
        }
    }
    if let Some(critical) = tst.extensions.iter().flatten().find(|e| e.critical) {
        return Err(invalid(format!(
            "the TSTInfo has a critical extension {} that is not processed here",
            critical.extn_id
        ))
        .in_key("extensions"));
    }
    Ok(())
}

fn certificates(ders: &[Vec<u8>]) -> Result<Vec<Cert>> {
    ders.iter()
        .enumerate()
        .map(|(i, der)| {
            Cert::from_der(der).map_err(|e| {
                Error::invalid_option(format!("not a DER X.509 certificate: {e}")).in_index(i)
            })
        })
        .collect()
}

/// A non-negative INTEGER's magnitude without leading zeros; None when negative.
fn unsigned(value: &IntRef<'_>) -> Option<Vec<u8>> {
    let bytes = value.as_bytes();
    if bytes.first().is_some_and(|&b| b >= 0x80) {
        return None;
    }
    Some(strip_zeros(bytes).to_vec())
}

fn strip_zeros(bytes: &[u8]) -> &[u8] {
    let start = bytes.iter().position(|&b| b != 0).unwrap_or(bytes.len());
    bytes.get(start..).unwrap_or_default()
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(out, "{b:02x}");
    }
    if out.len() > 1 && out.starts_with('0') {
        out.remove(0);
    }
    if out.is_empty() {
        out.push('0');
    }
    out
}
