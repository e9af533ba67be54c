//! The certificate path from the TSA's certificate to a configured root (RFC 5280 §6.1,
//! the parts a time-stamp needs): each certificate's signature by the next, each valid at
//! genTime, issuers with basicConstraints cA (and their pathLenConstraint), and the TSA's
//! certificate with extendedKeyUsage exactly id-kp-timeStamping, critical (RFC 3161 §2.3).

use der::asn1::AnyRef;
use der::oid::ObjectIdentifier;
use der::{Decode, Encode, SliceReader};
use x509_cert::ext::pkix::{BasicConstraints, ExtendedKeyUsage};
use x509_cert::Certificate;

use super::algorithm::Signature;
use super::{oid, untrusted};
use crate::Result;

/// Longest path followed, roots excluded: far more than a TSA's (one or two).
const MAX_DEPTH: usize = 8;

/// A certificate with its DER (for ESS hashes and for comparing with the roots) and the DER
/// of its TBSCertificate (what its issuer signed).
pub(super) struct Cert {
    pub cert: Certificate,
    pub der: Vec<u8>,
    tbs: Vec<u8>,
}

impl Cert {
    pub(super) fn from_der(der: &[u8]) -> der::Result<Cert> {
        let cert = Certificate::from_der(der)?;
        // The TBSCertificate's bytes as they came: the issuer signed those.
        let outer = AnyRef::from_der(der)?;
        let tbs = AnyRef::decode(&mut SliceReader::new(outer.value())?)?.to_der()?;
        Ok(Cert {
            der: der.to_vec(),
            tbs,
            cert,
        })
    }

    pub(super) fn subject(&self) -> String {
        super::name::rfc4514(self.cert.tbs_certificate().subject())
    }

    /// Whether `issuer`'s key made this certificate's signature.
    fn signed_by(&self, issuer: &Cert) -> bool {
        if self.cert.tbs_certificate().issuer() != issuer.cert.tbs_certificate().subject() {
            return false;
        }
        let (Some(algorithm), Some(signature)) = (
            Signature::from_oid(&self.cert.signature_algorithm().oid, None),
            self.cert.signature().as_bytes(),
        ) else {
            return false;
        };
        let key = issuer.cert.tbs_certificate().subject_public_key_info();
        algorithm.verify(key, &self.tbs, signature)
    }

    fn valid_at(&self, ms: i64) -> Result<()> {
        let validity = self.cert.tbs_certificate().validity();
        let millis = |t: &x509_cert::time::Time| {
            i64::try_from(t.to_unix_duration().as_millis()).unwrap_or(i64::MAX)
        };
        if ms < millis(&validity.not_before) || ms > millis(&validity.not_after) {
            return Err(untrusted(format!(
                "the certificate \"{}\" is valid from {} to {}, not at the token's genTime",
                self.subject(),
                validity.not_before,
                validity.not_after
            )));
        }
        Ok(())
    }
}

/// Checks the TSA certificate's extended key usage, then walks from it to a root through
/// `pool` (the token's certificates and the trust's extra ones). `gen_time` in ms.
pub(super) fn verify_path(
    signer: &Cert,
    pool: &[Cert],
    roots: &[Cert],
    gen_time: i64,
) -> Result<()> {
    time_stamping_only(signer)?;
    let mut current = signer;
    // How many issuing certificates lie between `current` and the signer.
    for issuers_below in 0..=MAX_DEPTH {
        current.valid_at(gen_time)?;
        if roots.iter().any(|root| root.der == current.der) {
            return Ok(());
        }
        understood(current)?;
        if let Some(root) = roots.iter().find(|root| current.signed_by(root)) {
            return root.valid_at(gen_time);
        }
        let Some(issuer) = pool
            .iter()
            .find(|issuer| issuer.der != current.der && current.signed_by(issuer))
        else {
            return Err(untrusted(format!(
                "no certificate path from \"{}\" to a configured root: trust the TSA's root, \
                 or add its intermediate certificates to the trust",
                signer.subject()
            )));
        };
        may_issue(issuer, issuers_below)?;
        current = issuer;
    }
    Err(untrusted(format!(
        "the certificate path from \"{}\" is longer than {MAX_DEPTH}",
        signer.subject()
    )))
}

/// The extensions this path check reads or may leave aside (RFC 5280 §4.2: a certificate
/// with a critical extension the verifier does not process is refused): basicConstraints,
/// keyUsage, extendedKeyUsage, the key identifiers, subjectAltName, certificatePolicies.
const UNDERSTOOD: [ObjectIdentifier; 7] = [
    ObjectIdentifier::new_unwrap("2.5.29.19"),
    ObjectIdentifier::new_unwrap("2.5.29.15"),
    ObjectIdentifier::new_unwrap("2.5.29.37"),
    ObjectIdentifier::new_unwrap("2.5.29.14"),
    ObjectIdentifier::new_unwrap("2.5.29.35"),
    ObjectIdentifier::new_unwrap("2.5.29.17"),
    ObjectIdentifier::new_unwrap("2.5.29.32"),
];

fn understood(cert: &Cert) -> Result<()> {
    let extensions = cert.cert.tbs_certificate().extensions();
    match extensions
        .into_iter()
        .flatten()
        .find(|e| e.critical && !UNDERSTOOD.contains(&e.extn_id))
    {
        Some(unknown) => Err(untrusted(format!(
            "the certificate \"{}\" has a critical extension {} that is not processed here \
             (RFC 5280 §4.2)",
            cert.subject(),
            unknown.extn_id
        ))),
        None => Ok(()),
    }
}

/// RFC 3161 §2.3: one extendedKeyUsage extension, critical, with id-kp-timeStamping only.
fn time_stamping_only(signer: &Cert) -> Result<()> {
    match signer
        .cert
        .tbs_certificate()
        .get_extension::<ExtendedKeyUsage>()
    {
        Ok(Some((true, usage))) if usage.0 == [oid::TIME_STAMPING] => Ok(()),
        _ => Err(untrusted(format!(
            "the TSA certificate \"{}\" lacks a critical extendedKeyUsage of exactly \
             id-kp-timeStamping (RFC 3161 §2.3): it may not issue time-stamps",
            signer.subject()
        ))),
    }
}

/// An issuer must be a CA (basicConstraints cA) whose pathLenConstraint, if any, allows the
/// `below` issuing certificates under it.
fn may_issue(issuer: &Cert, below: usize) -> Result<()> {
    match issuer
        .cert
        .tbs_certificate()
        .get_extension::<BasicConstraints>()
    {
        Ok(Some((_, constraints)))
            if constraints.ca
                && constraints
                    .path_len_constraint
                    .is_none_or(|limit| below <= usize::from(limit)) =>
        {
            Ok(())
        }
        _ => Err(untrusted(format!(
            "the certificate \"{}\" is not a CA allowed to issue this path (basicConstraints)",
            issuer.subject()
        ))),
    }
}
