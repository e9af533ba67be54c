//! Digests and signature checks: SHA-256/384/512 (and SHA-1 for ESS certificate hashes only),
//! RSA PKCS#1 v1.5 (RFC 8017 §8.2) and ECDSA on P-256/P-384 (RFC 5758, RFC 5480).

use der::asn1::UintRef;
use der::oid::ObjectIdentifier;
use der::{Decode, Sequence};
use p256::ecdsa::signature::hazmat::PrehashVerifier as _;
use sha2::Digest as _;
use x509_cert::spki::SubjectPublicKeyInfoOwned;

use super::oid;

/// A digest algorithm of a message imprint (RFC 3161 §2.4.1) or of a signature.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HashAlgorithm {
    /// SHA-256 (the default of [`super::request`]).
    Sha256,
    /// SHA-384.
    Sha384,
    /// SHA-512.
    Sha512,
}

impl HashAlgorithm {
    /// The algorithm of this object identifier (RFC 5754 §2), if it is one of the three.
    pub fn from_oid(oid: &ObjectIdentifier) -> Option<HashAlgorithm> {
        match *oid {
            oid::SHA256 => Some(HashAlgorithm::Sha256),
            oid::SHA384 => Some(HashAlgorithm::Sha384),
            oid::SHA512 => Some(HashAlgorithm::Sha512),
            _ => None,
        }
    }

    /// Its object identifier.
    pub fn oid(self) -> ObjectIdentifier {
        match self {
            HashAlgorithm::Sha256 => oid::SHA256,
            HashAlgorithm::Sha384 => oid::SHA384,
            HashAlgorithm::Sha512 => oid::SHA512,
        }
    }

    /// Its lowercase name: `sha256`, `sha384` or `sha512`.
    pub fn name(self) -> &'static str {
        match self {
            HashAlgorithm::Sha256 => "sha256",
            HashAlgorithm::Sha384 => "sha384",
            HashAlgorithm::Sha512 => "sha512",
        }
    }

    /// The digest of `data`.
    pub fn digest(self, data: &[u8]) -> Vec<u8> {
        match self {
            HashAlgorithm::Sha256 => sha2::Sha256::digest(data).to_vec(),
            HashAlgorithm::Sha384 => sha2::Sha384::digest(data).to_vec(),
            HashAlgorithm::Sha512 => sha2::Sha512::digest(data).to_vec(),
        }
    }
}

/// The SHA-1 digest of `data`: ESSCertID (RFC 2634 §5.4.1) fixes it for version 1.
pub(super) fn sha1(data: &[u8]) -> Vec<u8> {
    sha1::Sha1::digest(data).to_vec()
}

/// A signature algorithm: the key's kind and the digest it signs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Signature {
    Rsa(HashAlgorithm),
    Ecdsa(HashAlgorithm),
}

impl Signature {
    /// The algorithm named by `oid`; `digest` is the SignerInfo's digestAlgorithm, which
    /// completes the bare key algorithms a SignerInfo may name (RFC 3370 §3.2, RFC 5753 §2.1.1).
    pub(super) fn from_oid(oid: &ObjectIdentifier, digest: Option<HashAlgorithm>) -> Option<Self> {
        use HashAlgorithm::*;
        match *oid {
            oid::SHA256_WITH_RSA => Some(Signature::Rsa(Sha256)),
            oid::SHA384_WITH_RSA => Some(Signature::Rsa(Sha384)),
            oid::SHA512_WITH_RSA => Some(Signature::Rsa(Sha512)),
            oid::ECDSA_WITH_SHA256 => Some(Signature::Ecdsa(Sha256)),
            oid::ECDSA_WITH_SHA384 => Some(Signature::Ecdsa(Sha384)),
            oid::ECDSA_WITH_SHA512 => Some(Signature::Ecdsa(Sha512)),
            oid::RSA_ENCRYPTION => digest.map(Signature::Rsa),
            oid::EC_PUBLIC_KEY => digest.map(Signature::Ecdsa),
            _ => None,
        }
    }

    pub(super) fn hash(self) -> HashAlgorithm {
        match self {
            Signature::Rsa(hash) | Signature::Ecdsa(hash) => hash,
        }
    }

    /// Whether `signature` is this algorithm's signature of `message` by the key of `spki`
    /// (false too when the key is not of the algorithm's kind or is malformed).
    pub(super) fn verify(
        self,
        spki: &SubjectPublicKeyInfoOwned,
        message: &[u8],
        signature: &[u8],
    ) -> bool {
        let Some(key) = spki.subject_public_key.as_bytes() else {
            return false;
        };
        let digest = self.hash().digest(message);
        match (self, spki.algorithm.oid) {
            (Signature::Rsa(hash), oid::RSA_ENCRYPTION) => {
                rsa_verify(key, hash, &digest, signature)
            }
            (Signature::Ecdsa(_), oid::EC_PUBLIC_KEY) => {
                let curve = spki
                    .algorithm
                    .parameters
                    .as_ref()
                    .and_then(|p| p.decode_as::<ObjectIdentifier>().ok());
                match curve {
                    Some(oid::P256) => ecdsa_p256(key, &digest, signature),
                    Some(oid::P384) => ecdsa_p384(key, &digest, signature),
                    _ => false,
                }
            }
            _ => false,
        }
    }
}

/// RSAPublicKey (RFC 8017 appendix A.1.1).
#[derive(Sequence)]
struct RsaPublicKey<'a> {
    modulus: UintRef<'a>,
    public_exponent: UintRef<'a>,
}

/// RSA modulus sizes accepted, in bits: 2048 and up (NIST SP 800-131A), and a bound on the
/// work a hostile certificate can ask for.
const RSA_BITS: std::ops::RangeInclusive<usize> = 2048..=8192;

fn rsa_verify(key: &[u8], hash: HashAlgorithm, digest: &[u8], signature: &[u8]) -> bool {
    let Ok(parsed) = RsaPublicKey::from_der(key) else {
        return false;
    };
    let n = rsa::BoxedUint::from_be_slice_vartime(parsed.modulus.as_bytes());
    let e = rsa::BoxedUint::from_be_slice_vartime(parsed.public_exponent.as_bytes());
    let Ok(key) = rsa::PublicKey::new_with_size_limits(n, e, RSA_BITS) else {
        return false;
    };
    let scheme = match hash {
        HashAlgorithm::Sha256 => rsa::Pkcs1v15Sign::new::<sha2::Sha256>(),
        HashAlgorithm::Sha384 => rsa::Pkcs1v15Sign::new::<sha2::Sha384>(),
        HashAlgorithm::Sha512 => rsa::Pkcs1v15Sign::new::<sha2::Sha512>(),
    };
    key.verify(scheme, digest, signature).is_ok()
}

fn ecdsa_p256(key: &[u8], digest: &[u8], signature: &[u8]) -> bool {
    let (Ok(key), Ok(sig)) = (
        p256::ecdsa::VerifyingKey::from_sec1_bytes(key),
        p256::ecdsa::Signature::from_der(signature),
    ) else {
        return false;
    };
    key.verify_prehash(digest, &sig).is_ok()
}

fn ecdsa_p384(key: &[u8], digest: &[u8], signature: &[u8]) -> bool {
    let (Ok(key), Ok(sig)) = (
        p384::ecdsa::VerifyingKey::from_sec1_bytes(key),
        p384::ecdsa::Signature::from_der(signature),
    ) else {
        return false;
    };
    key.verify_prehash(digest, &sig).is_ok()
}
