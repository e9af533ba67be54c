//! The checkpoint's text and signature: a C2SP tlog-checkpoint body ("<origin>\n<size>\n<base64
//! root>\n") in a C2SP signed note, signed with the ledger's Ed25519 key, whose name is the
//! log's origin. INTERIM: core's `tlog::note` and `tlog::checkpoint` replace the body of this
//! module once they are on main; its two functions keep their shape.

use actionseal_core::tlog::merkle::Hash;
use actionseal_core::{base64url_decode, base64url_encode, Code, Digest, Error, PublicKey};
use actionseal_core::{Result, SigningKey};

/// The ledger's key for signing checkpoints, from the server's configuration: a signer key
/// string as Go's `golang.org/x/mod/sumdb/note` writes it,
/// `PRIVATE+KEY+<name>+<hex key hash>+<base64(0x01 || seed)>`.
#[derive(Clone)]
pub struct CheckpointSigner {
    name: String,
    key: SigningKey,
}

impl std::fmt::Debug for CheckpointSigner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CheckpointSigner({})", self.name)
    }
}

fn invalid(what: impl std::fmt::Display) -> Error {
    Error::new(Code::InvalidKey, format!("{what}"))
}

fn b64_encode(b: &[u8]) -> String {
    let mut s: String = base64url_encode(b)
        .chars()
        .map(|c| match c {
            '-' => '+',
            '_' => '/',
            c => c,
        })
        .collect();
    while !s.len().is_multiple_of(4) {
        s.push('=');
    }
    s
}

fn b64_decode(s: &str) -> Result<Vec<u8>> {
    let url: String = s
        .trim_end_matches('=')
        .chars()
        .map(|c| match c {
            '+' => '-',
            '/' => '_',
            c => c,
        })
        .collect();
    base64url_decode(&url)
}

/// SHA-256(name || "\n" || 0x01 || public key)[:4].
fn key_hash(name: &str, public: &[u8; 32]) -> [u8; 4] {
    let mut m = format!("{name}\n").into_bytes();
    m.push(1);
    m.extend_from_slice(public);
    let d = Digest::of(&m);
    let mut h = [0; 4];
    h.copy_from_slice(&d.as_bytes()[..4]);
    h
}

impl CheckpointSigner {
    /// Reads a signer key string.
    pub fn from_key_string(s: &str) -> Result<CheckpointSigner> {
        let parts: Vec<&str> = s.trim().splitn(5, '+').collect();
        let ["PRIVATE", "KEY", name, _, key] = parts.as_slice() else {
            return Err(invalid("a signer key is PRIVATE+KEY+<name>+<hash>+<key>"));
        };
        let raw = b64_decode(key)?;
        let seed: &[u8; 32] = match raw.split_first() {
            Some((1, seed)) => seed
                .try_into()
                .map_err(|_| invalid("not an Ed25519 seed"))?,
            _ => return Err(invalid("not an Ed25519 signer key")),
        };
        Ok(CheckpointSigner {
            name: (*name).to_owned(),
            key: SigningKey::from_seed(seed),
        })
    }

    /// The key's name: the log's origin.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The verifier key string of this key: `<name>+<hex key hash>+<base64(0x01 || key)>`.
    pub fn verifier_key(&self) -> String {
        let public = self.key.public_key().as_bytes();
        let hash: String = key_hash(&self.name, public)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let mut raw = vec![1];
        raw.extend_from_slice(public);
        format!("{}+{hash}+{}", self.name, b64_encode(&raw))
    }

    /// The signed note of the checkpoint of a tree of `size` leaves with `root`.
    pub(crate) fn sign(&self, size: u64, root: &Hash) -> String {
        let body = format!("{}\n{size}\n{}\n", self.name, b64_encode(root));
        let mut sig = key_hash(&self.name, self.key.public_key().as_bytes()).to_vec();
        sig.extend_from_slice(&self.key.sign(body.as_bytes()));
        format!("{body}\n\u{2014} {} {}\n", self.name, b64_encode(&sig))
    }
}

/// The size and root of a signed checkpoint that one of `verifiers` (verifier key strings)
/// signed, its origin that key's name.
pub(crate) fn open(note: &str, verifiers: &[String]) -> Result<(u64, Hash)> {
    let bad = |what: &str| Error::new(Code::AuditChainBroken, format!("checkpoint: {what}"));
    let (body, sigs) = note.split_once("\n\n").ok_or_else(|| bad("no signature"))?;
    let body = format!("{body}\n");
    let mut lines = body.lines();
    let (origin, size, root) = match (lines.next(), lines.next(), lines.next()) {
        (Some(o), Some(s), Some(r)) => (o, s, r),
        _ => return Err(bad("not a checkpoint")),
    };
    let size: u64 = size.parse().map_err(|_| bad("size"))?;
    let root: Hash = b64_decode(root)?
        .as_slice()
        .try_into()
        .map_err(|_| bad("root"))?;
    for v in verifiers {
        let parts: Vec<&str> = v.trim().splitn(3, '+').collect();
        let [name, _, key] = parts.as_slice() else {
            return Err(invalid("a verifier key is <name>+<hash>+<key>"));
        };
        let raw = b64_decode(key)?;
        let Some((1, public)) = raw.split_first() else {
            return Err(invalid("not an Ed25519 verifier key"));
        };
        let public = PublicKey::from_bytes(public)?;
        let hash = key_hash(name, public.as_bytes());
        for line in sigs.lines() {
            let Some(rest) = line.strip_prefix("\u{2014} ") else {
                continue;
            };
            let Some((n, sig)) = rest.split_once(' ') else {
                continue;
            };
            let sig = b64_decode(sig)?;
            if n == *name && origin == *name && sig.get(..4) == Some(&hash[..]) {
                public.verify(body.as_bytes(), sig.get(4..).unwrap_or_default())?;
                return Ok((size, root));
            }
        }
    }
    Err(bad("no signature by a trusted key"))
}
