//! From the bytes a TSA returns to the SignedData and the TSTInfo's DER: a TimeStampResp
//! (RFC 3161 §2.4.2) whose status grants a token, or the bare TimeStampToken, which is a
//! ContentInfo (RFC 5652 §3) of SignedData (§5.1) with eContentType id-ct-TSTInfo.

use der::asn1::{AnyRef, BitStringRef};
use der::{Decode, Encode, Tag, Tagged as _};

use super::asn1::{ContentInfo, PkiStatusInfo, SignedData, TimeStampResp};
use super::{invalid, oid};
use crate::Result;

/// A token's SignedData and its eContent: the TSTInfo's DER, which the signature covers.
pub(super) struct Token<'a> {
    pub signed: SignedData<'a>,
    pub tst_info: &'a [u8],
}

pub(super) fn parse(der: &[u8]) -> Result<Token<'_>> {
    let content_info = match granted_token(der)? {
        Some(token) => token
            .decode_as::<ContentInfo>()
            .map_err(|e| invalid(format!("the timeStampToken is not a CMS ContentInfo: {e}")))
            .map_err(|e| e.in_key("time_stamp_token"))?,
        None => ContentInfo::from_der(der).map_err(|e| not_a_token(&e))?,
    };
    if content_info.content_type != oid::SIGNED_DATA {
        return Err(invalid(format!(
            "the token's content type is {}, not id-signedData",
            content_info.content_type
        )));
    }
    let signed = content_info
        .content
        .decode_as::<SignedData>()
        .map_err(|e| invalid(format!("the token's SignedData is malformed: {e}")))?;
    let encap = &signed.encap_content_info;
    if encap.econtent_type != oid::TST_INFO {
        return Err(invalid(format!(
            "the token's eContentType is {}, not id-ct-TSTInfo",
            encap.econtent_type
        ))
        .in_key("econtent_type"));
    }
    let tst_info = encap
        .econtent
        .map(|content| content.as_bytes())
        .ok_or_else(|| invalid("the token carries no TSTInfo (eContent)").in_key("econtent"))?;
    Ok(Token { signed, tst_info })
}

/// The timeStampToken of `der` when it is a TimeStampResp that grants one; `None` when it is
/// not a response (a bare token, or nothing: left for the caller to read as a ContentInfo).
fn granted_token(der: &[u8]) -> Result<Option<AnyRef<'_>>> {
    let outer = AnyRef::from_der(der).map_err(|e| not_a_token(&e))?;
    if outer.tag() != Tag::Sequence {
        return Err(not_a_token(&"not a SEQUENCE"));
    }
    // A ContentInfo starts with its content type (an OID), a TimeStampResp with PKIStatusInfo.
    if outer.value().first() != Some(&0x30) {
        return Ok(None);
    }
    let resp = TimeStampResp::from_der(der).map_err(|e| not_a_token(&e))?;
    granted(&resp.status)?;
    resp.time_stamp_token.map(Some).ok_or_else(|| {
        invalid("the TimeStampResp grants a time-stamp but carries no timeStampToken")
    })
}

/// The DER TimeStampToken (RFC 3161 §2.4.2: a CMS ContentInfo of SignedData) a TSA's
/// TimeStampResp carries, without the response's status: the token itself, what a host keeps
/// (and what `openssl ts -reply -token_out` extracts). A bare token is returned as it is.
///
/// Errors: [`crate::Code::TimestampInvalid`] for a response that does not grant a token or
/// is not DER, and for a token that is not a well-formed one (see [`super::verify_token`],
/// which a host calls on the result before keeping it).
pub fn token_of(der: &[u8]) -> Result<Vec<u8>> {
    parse(der)?;
    match granted_token(der)? {
        Some(token) => token
            .to_der()
            .map_err(|e| invalid(format!("the timeStampToken does not encode: {e}"))),
        None => Ok(der.to_vec()),
    }
}

fn not_a_token(cause: &dyn std::fmt::Display) -> crate::Error {
    invalid(format!(
        "not a DER TimeStampResp or TimeStampToken (RFC 3161 §2.4.2): {cause}"
    ))
}

/// PKIStatus granted (0) or grantedWithMods (1); anything else refused with what the TSA said.
fn granted(info: &PkiStatusInfo<'_>) -> Result<()> {
    if info.status <= 1 {
        return Ok(());
    }
    let status = match info.status {
        2 => "rejection",
        3 => "waiting",
        4 => "revocationWarning",
        5 => "revocationNotification",
        _ => "unknown",
    };
    let mut message = format!(
        "the TSA did not grant a time-stamp: PKIStatus {} ({status})",
        info.status
    );
    let failures = info.fail_info.as_ref().map(failures).unwrap_or_default();
    if !failures.is_empty() {
        message.push_str(&format!(", failInfo {}", failures.join(", ")));
    }
    if let Some(texts) = &info.status_string {
        let texts: Vec<&str> = texts.iter().map(|t| t.as_str()).collect();
        message.push_str(&format!(", \"{}\"", texts.join("; ")));
    }
    message.push_str(": check the request's digest algorithm and policy against the TSA's");
    Err(invalid(message).in_key("status"))
}

/// The names of the PKIFailureInfo bits set (RFC 3161 §2.4.2).
fn failures(bits: &BitStringRef<'_>) -> Vec<String> {
    const NAMES: [(usize, &str); 8] = [
        (0, "badAlg"),
        (2, "badRequest"),
        (5, "badDataFormat"),
        (14, "timeNotAvailable"),
        (15, "unacceptedPolicy"),
        (16, "unacceptedExtension"),
        (17, "addInfoNotAvailable"),
        (25, "systemFailure"),
    ];
    (0..bits.bit_len())
        .filter(|&bit| bits.get(bit) == Some(true))
        .map(|bit| match NAMES.iter().find(|(n, _)| *n == bit) {
            Some((_, name)) => (*name).to_owned(),
            None => format!("bit {bit}"),
        })
        .collect()
}
