//! The TSA's SignerInfo (RFC 5652 §5.3): which certificate signed, and whether the signed
//! attributes bind the TSTInfo and that certificate and carry a valid signature.

use der::asn1::{AnyRef, OctetStringRef};
use der::oid::ObjectIdentifier;
use der::{Tag, TagNumber, Tagged as _};
use x509_cert::ext::pkix::SubjectKeyIdentifier;

use super::algorithm::{sha1, HashAlgorithm, Signature};
use super::asn1::{elements, Attribute, IssuerAndSerialNumber, SignerInfo, SigningCertificate};
use super::chain::Cert;
use super::token::Token;
use super::{invalid, oid, untrusted};
use crate::Result;

const fn context(number: u32, constructed: bool) -> Tag {
    Tag::ContextSpecific {
        constructed,
        number: TagNumber(number),
    }
}

/// Verifies the one SignerInfo of `token`; returns its certificate's index in `pool`.
pub(super) fn verify(token: &Token<'_>, pool: &[Cert]) -> Result<usize> {
    let infos = token.signed.signer_infos;
    let infos = Some(infos)
        .filter(|set| set.tag() == Tag::Set)
        .and_then(|set| elements::<SignerInfo>(set).ok())
        .ok_or_else(|| invalid("the token's SignerInfos are malformed"))?;
    let [info] = infos.as_slice() else {
        return Err(invalid(format!(
            "a time-stamp token has exactly one SignerInfo (the TSA's), not {}",
            infos.len()
        )));
    };
    check(info, token, pool).map_err(|e| e.in_index(0).in_key("signer_infos"))
}

fn check(info: &SignerInfo<'_>, token: &Token<'_>, pool: &[Cert]) -> Result<usize> {
    let digest = HashAlgorithm::from_oid(&info.digest_algorithm.oid).ok_or_else(|| {
        invalid(format!(
            "the digest algorithm {} is not SHA-256, SHA-384 or SHA-512",
            info.digest_algorithm.oid
        ))
        .in_key("digest_algorithm")
    })?;
    let in_attrs = |e: crate::Error| e.in_key("signed_attrs");
    if info.signed_attrs.tag() != context(0, true) {
        return Err(in_attrs(invalid(
            "the SignerInfo has no signed attributes (RFC 5652 §5.3)",
        )));
    }
    let attrs = elements::<Attribute>(info.signed_attrs)
        .map_err(|e| in_attrs(invalid(format!("the signed attributes are malformed: {e}"))))?;

    let content_type = single(&attrs, oid::CONTENT_TYPE, "content-type").map_err(in_attrs)?;
    if content_type.decode_as::<ObjectIdentifier>().ok() != Some(oid::TST_INFO) {
        return Err(in_attrs(invalid(
            "the content-type attribute is not id-ct-TSTInfo",
        )));
    }
    let message_digest = single(&attrs, oid::MESSAGE_DIGEST, "message-digest").map_err(in_attrs)?;
    let expected = digest.digest(token.tst_info);
    if message_digest
        .decode_as::<&OctetStringRef>()
        .ok()
        .map(|o| o.as_bytes())
        != Some(expected.as_slice())
    {
        return Err(in_attrs(invalid(
            "the message-digest attribute is not the digest of the TSTInfo: the token was altered",
        )));
    }

    let index = pool
        .iter()
        .position(|cert| identifies(info.sid, cert))
        .ok_or_else(|| {
            untrusted(
                "the signer's certificate is neither in the token nor among the trust's \
                 certificates: ask the TSA for certificates (certReq) or add it to the trust",
            )
        })?;
    let cert = pool
        .get(index)
        .ok_or_else(|| invalid("signer certificate lost"))?;
    signing_certificate(&attrs, cert).map_err(in_attrs)?;

    let algorithm = Signature::from_oid(&info.signature_algorithm.oid, Some(digest))
        .filter(|algorithm| algorithm.hash() == digest)
        .ok_or_else(|| {
            invalid(format!(
                "the signature algorithm {} is not RSA PKCS#1 v1.5 or ECDSA with the SignerInfo's \
                 digest algorithm",
                info.signature_algorithm.oid
            ))
            .in_key("signature_algorithm")
        })?;
    // RFC 5652 §5.4: the signature is over the attributes' encoding with the SET OF tag in
    // place of [0]; the length and content stay as they came.
    let mut signed = Vec::new();
    der::Encode::encode_to_vec(&info.signed_attrs, &mut signed)
        .map_err(|e| invalid(format!("cannot encode the signed attributes: {e}")))?;
    if let Some(tag) = signed.first_mut() {
        *tag = 0x31;
    }
    let key = cert.cert.tbs_certificate().subject_public_key_info();
    if !algorithm.verify(key, &signed, info.signature.as_bytes()) {
        return Err(invalid(
            "the TSA's signature does not verify with its certificate's key: the token was altered",
        )
        .in_key("signature"));
    }
    Ok(index)
}

/// The one value of the one attribute of type `oid` (RFC 5652 §11.1, §11.2).
fn single<'a>(attrs: &[Attribute<'a>], oid: ObjectIdentifier, name: &str) -> Result<AnyRef<'a>> {
    let mut found = attrs.iter().filter(|attr| attr.oid == oid);
    let (Some(attr), None) = (found.next(), found.next()) else {
        return Err(invalid(format!(
            "the signed attributes must have one {name} attribute"
        )));
    };
    match elements::<AnyRef>(attr.values).ok().as_deref() {
        Some([value]) if attr.values.tag() == Tag::Set => Ok(*value),
        _ => Err(invalid(format!(
            "the {name} attribute must have exactly one value"
        ))),
    }
}

/// Whether `sid` (RFC 5652 §5.3 SignerIdentifier) names `cert`.
fn identifies(sid: AnyRef<'_>, cert: &Cert) -> bool {
    let tbs = cert.cert.tbs_certificate();
    if sid.tag() == context(0, false) {
        return matches!(
            tbs.get_extension::<SubjectKeyIdentifier>(),
            Ok(Some((_, own))) if own.0.as_bytes() == sid.value()
        );
    }
    match sid.decode_as::<IssuerAndSerialNumber>() {
        Ok(id) => tbs.issuer() == &id.issuer && tbs.serial_number() == &id.serial_number,
        Err(_) => false,
    }
}

/// The ESS attribute (RFC 3161 §2.4.2 asks for one): signingCertificateV2 (RFC 5816) or
/// signingCertificate; its first certificate identifier must hash to the signer's certificate.
fn signing_certificate(attrs: &[Attribute<'_>], cert: &Cert) -> Result<()> {
    let v2 = attrs.iter().any(|a| a.oid == oid::SIGNING_CERTIFICATE_V2);
    let (oid, name) = if v2 {
        (oid::SIGNING_CERTIFICATE_V2, "signingCertificateV2")
    } else {
        (oid::SIGNING_CERTIFICATE, "signingCertificate")
    };
    let parsed = single(attrs, oid, name)?
        .decode_as::<SigningCertificate>()
        .map_err(|e| invalid(format!("the {name} attribute is malformed: {e}")))?;
    let first = parsed
        .certs
        .first()
        .ok_or_else(|| invalid(format!("the {name} attribute names no certificate")))?;
    let expected = match (v2, &first.hash_algorithm) {
        (false, None) => Some(sha1(&cert.der)),
        (true, None) => Some(HashAlgorithm::Sha256.digest(&cert.der)),
        (true, Some(id)) => HashAlgorithm::from_oid(&id.oid).map(|hash| hash.digest(&cert.der)),
        (false, Some(_)) => None,
    }
    .ok_or_else(|| {
        invalid(format!(
            "the {name} hash is not SHA-256, SHA-384 or SHA-512"
        ))
    })?;
    if first.cert_hash.as_bytes() != expected.as_slice() {
        return Err(invalid(
            "the ESS signing-certificate attribute names another certificate than the signer's",
        ));
    }
    Ok(())
}
