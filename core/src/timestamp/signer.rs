//! The TSA's SignerInfo (RFC 5652 §5.3): which certificate signed, and whether the signed
//! attributes bind the TSTInfo and that certificate and carry a valid signature.

use cms::signed_data::{SignerIdentifier, SignerInfo};
use der::asn1::OctetStringRef;
use der::oid::ObjectIdentifier;
use der::Encode;
use x509_cert::attr::Attribute;
use x509_cert::ext::pkix::SubjectKeyIdentifier;

use super::algorithm::{sha1, HashAlgorithm, Signature};
use super::asn1::{SigningCertificate, SigningCertificateV2};
use super::chain::Cert;
use super::token::Token;
use super::{invalid, oid, untrusted};
use crate::Result;

/// Verifies the one SignerInfo of `token`; returns its certificate's index in `pool`.
pub(super) fn verify(token: &Token, pool: &[Cert]) -> Result<usize> {
    let infos = token.signed.signer_infos.0.as_slice();
    let [info] = infos else {
        return Err(invalid(format!(
            "a time-stamp token has exactly one SignerInfo (the TSA's), not {}",
            infos.len()
        )));
    };
    check(info, token, pool).map_err(|e| e.in_index(0).in_key("signer_infos"))
}

fn check(info: &SignerInfo, token: &Token, pool: &[Cert]) -> Result<usize> {
    let digest = HashAlgorithm::from_oid(&info.digest_alg.oid).ok_or_else(|| {
        invalid(format!(
            "the digest algorithm {} is not SHA-256, SHA-384 or SHA-512",
            info.digest_alg.oid
        ))
        .in_key("digest_algorithm")
    })?;
    let Some(attrs) = &info.signed_attrs else {
        return Err(invalid(
            "the SignerInfo has no signed attributes (RFC 5652 §5.3)",
        ));
    };
    let attrs = attrs.as_slice();
    let in_attrs = |e: crate::Error| e.in_key("signed_attrs");

    let content_type = single(attrs, oid::CONTENT_TYPE, "content-type").map_err(in_attrs)?;
    if content_type.decode_as::<ObjectIdentifier>().ok() != Some(oid::TST_INFO) {
        return Err(in_attrs(invalid(
            "the content-type attribute is not id-ct-TSTInfo",
        )));
    }
    let message_digest = single(attrs, oid::MESSAGE_DIGEST, "message-digest").map_err(in_attrs)?;
    let expected = digest.digest(&token.tst_info);
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
        .position(|cert| identifies(&info.sid, cert))
        .ok_or_else(|| {
            untrusted(
                "the signer's certificate is neither in the token nor among the trust's \
                 certificates: ask the TSA for certificates (certReq) or add it to the trust",
            )
        })?;
    let cert = pool
        .get(index)
        .ok_or_else(|| invalid("signer certificate lost"))?;
    signing_certificate(attrs, cert).map_err(in_attrs)?;

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
    // RFC 5652 §5.4: the signature is over the DER of the attributes as a SET OF.
    let signed = info
        .signed_attrs
        .as_ref()
        .map(|attrs| attrs.to_der())
        .transpose()
        .map_err(|e| invalid(format!("cannot encode the signed attributes: {e}")))?
        .unwrap_or_default();
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
fn single<'a>(
    attrs: &'a [Attribute],
    oid: ObjectIdentifier,
    name: &str,
) -> Result<der::AnyRef<'a>> {
    let mut found = attrs.iter().filter(|attr| attr.oid == oid);
    match (found.next(), found.next()) {
        (Some(attr), None) if attr.values.len() == 1 => attr
            .values
            .get(0)
            .map(|value| value.into())
            .ok_or_else(|| invalid(format!("the {name} attribute has no value"))),
        (None, _) => Err(invalid(format!("the signed attributes lack {name}"))),
        _ => Err(invalid(format!(
            "the {name} attribute must appear once with one value"
        ))),
    }
}

fn identifies(sid: &SignerIdentifier, cert: &Cert) -> bool {
    let tbs = cert.cert.tbs_certificate();
    match sid {
        SignerIdentifier::IssuerAndSerialNumber(id) => {
            tbs.issuer() == &id.issuer && tbs.serial_number() == &id.serial_number
        }
        SignerIdentifier::SubjectKeyIdentifier(ski) => matches!(
            tbs.get_extension::<SubjectKeyIdentifier>(),
            Ok(Some((_, own))) if own == *ski
        ),
    }
}

/// The ESS attribute (RFC 3161 §2.4.2 asks for one): signingCertificateV2 (RFC 5816) or
/// signingCertificate; its first ESSCertID must hash to the signer's certificate.
fn signing_certificate(attrs: &[Attribute], cert: &Cert) -> Result<()> {
    let v2 = attrs.iter().any(|a| a.oid == oid::SIGNING_CERTIFICATE_V2);
    let (hash, expected) = if v2 {
        let value = single(attrs, oid::SIGNING_CERTIFICATE_V2, "signingCertificateV2")?;
        let parsed = value.decode_as::<SigningCertificateV2>().map_err(|e| {
            invalid(format!(
                "the signingCertificateV2 attribute is malformed: {e}"
            ))
        })?;
        let first = parsed
            .certs
            .first()
            .ok_or_else(|| invalid("the signingCertificateV2 attribute names no certificate"))?;
        let algorithm = match &first.hash_algorithm {
            None => Some(HashAlgorithm::Sha256),
            Some(id) => HashAlgorithm::from_oid(&id.oid),
        }
        .ok_or_else(|| {
            invalid("the signingCertificateV2 hash is not SHA-256, SHA-384 or SHA-512")
        })?;
        (
            first.cert_hash.as_bytes().to_vec(),
            algorithm.digest(&cert.der),
        )
    } else {
        let value = single(attrs, oid::SIGNING_CERTIFICATE, "signingCertificate")?;
        let parsed = value.decode_as::<SigningCertificate>().map_err(|e| {
            invalid(format!(
                "the signingCertificate attribute is malformed: {e}"
            ))
        })?;
        let first = parsed
            .certs
            .first()
            .ok_or_else(|| invalid("the signingCertificate attribute names no certificate"))?;
        (first.cert_hash.as_bytes().to_vec(), sha1(&cert.der))
    };
    if hash != expected {
        return Err(invalid(
            "the ESS signing-certificate attribute names another certificate than the signer's",
        ));
    }
    Ok(())
}
