//! C2SP signed notes (c2sp.org/signed-note@v1.0.0), as Go's `golang.org/x/mod/sumdb/note`
//! writes them: a text of newline-terminated lines, a blank line, then signature lines
//! `— <key name> <base64(4-byte key ID || signature)>\n` (U+2014 EM DASH).
//!
//! Keys are named by the strings Go and the C2SP witnesses use, which is what configuration
//! (CLI flags, ledger options, trust input) takes:
//! - verifier key `<name>+<8 hex digits key ID>+<base64(type || public key)>`;
//! - signer key `PRIVATE+KEY+<name>+<key ID>+<base64(0x01 || Ed25519 seed)>`.
//!
//! The key ID is the first four bytes of SHA-256(name || "\n" || type || public key). Type
//! 0x01 is an Ed25519 signature over the text (a log's checkpoint signature); type 0x04 is a
//! timestamped tlog-cosignature (see [`super::cosignature`]), verified by the same
//! [`Note::verify`].
//!
//! Parsing is strict, as the specification asks and more: the note must be UTF-8 without
//! control characters other than newline (so no CR), end in a newline, have at most
//! [`MAX_SIGNATURES`] signatures, and its base64 must be canonical. Verification ignores
//! signatures by unknown keys (name and ID both decide), refuses the note when a known key's
//! signature does not verify, and requires at least one that does.

use super::cosignature::signed as cosignature;
use crate::base64::standard as base64;
use crate::error::{Code, Error, Result};
use crate::model::proof::{PublicKey, SigningKey};
use sha2::{Digest as _, Sha256};
use std::fmt;

/// The most signature lines a note may carry. The specification asks verifiers to accept at
/// least 16; Go's verifier accepts 100, so notes it accepts are accepted here.
pub const MAX_SIGNATURES: usize = 100;

/// What a signature line's bytes mean, by the key's type byte (signed-note "Signature types").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KeyType {
    /// 0x01: an Ed25519 signature over the note text.
    Ed25519,
    /// 0x04: a timestamped Ed25519 checkpoint cosignature (c2sp.org/tlog-cosignature).
    Cosignature,
}

impl KeyType {
    /// The type byte.
    pub fn byte(self) -> u8 {
        match self {
            KeyType::Ed25519 => 0x01,
            KeyType::Cosignature => 0x04,
        }
    }

    fn from_byte(byte: u8) -> Option<KeyType> {
        match byte {
            0x01 => Some(KeyType::Ed25519),
            0x04 => Some(KeyType::Cosignature),
            _ => None,
        }
    }
}

/// A public key that verifies a note's signatures: its name, key ID, type and Ed25519 key.
#[derive(Clone, Debug)]
pub struct VerifierKey {
    name: String,
    id: u32,
    kind: KeyType,
    key: PublicKey,
}

impl PartialEq for VerifierKey {
    fn eq(&self, other: &VerifierKey) -> bool {
        (&self.name, self.id, self.kind, self.key.as_bytes())
            == (&other.name, other.id, other.kind, other.key.as_bytes())
    }
}

impl Eq for VerifierKey {}

impl VerifierKey {
    /// A key of this name and type for an Ed25519 public key; its key ID is derived.
    pub fn new(name: &str, kind: KeyType, key: &PublicKey) -> Result<VerifierKey> {
        check_name(name)?;
        Ok(VerifierKey {
            id: key_id(name, kind, key.as_bytes()),
            name: name.to_owned(),
            kind,
            key: key.clone(),
        })
    }

    /// Reads `<name>+<key ID>+<base64(type || public key)>` (Go's `note.NewVerifier`, types
    /// 0x01 and 0x04); anything else is [`Code::CheckpointInvalid`].
    pub fn parse(text: &str) -> Result<VerifierKey> {
        let (name, id, material) = split_key(text, 0)?;
        let (&kind, key) = material
            .split_first()
            .ok_or_else(|| invalid("the key string has no key material"))?;
        let kind = KeyType::from_byte(kind).ok_or_else(|| {
            invalid(format!(
                "key type 0x{kind:02x} is not supported (0x01 Ed25519, 0x04 cosignature)"
            ))
        })?;
        let key = PublicKey::from_bytes(key).map_err(|e| invalid(e.message()))?;
        let parsed = VerifierKey::new(name, kind, &key)?;
        check_id(id, parsed.id)?;
        Ok(parsed)
    }

    /// The key name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The key ID.
    pub fn id(&self) -> u32 {
        self.id
    }

    /// The key type.
    pub fn kind(&self) -> KeyType {
        self.kind
    }

    /// The Ed25519 public key.
    pub fn public_key(&self) -> &PublicKey {
        &self.key
    }

    /// Verifies one signature's bytes (without the key ID) over `text`; a cosignature gives
    /// its timestamp.
    fn check(&self, text: &str, signature: &[u8]) -> Result<Option<u64>> {
        match self.kind {
            KeyType::Ed25519 => self.key.verify(text.as_bytes(), signature).map(|()| None),
            KeyType::Cosignature => cosignature::verify(&self.key, text, signature).map(Some),
        }
    }
}

impl fmt::Display for VerifierKey {
    /// The verifier key string.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = key_string(&self.name, self.id, self.kind, self.key.as_bytes());
        f.write_str(&text)
    }
}

/// An Ed25519 key that signs notes (type 0x01), with its name and key ID.
#[derive(Clone)]
pub struct SignerKey {
    name: String,
    id: u32,
    key: SigningKey,
}

const PRIVATE_PREFIX: &str = "PRIVATE+KEY+";

impl SignerKey {
    /// The key of this name with this Ed25519 seed. Core has no random source: a new key's 32
    /// bytes come from the host's (as Go's `note.GenerateKey` reads them from its `rand`).
    pub fn from_seed(name: &str, seed: &[u8; 32]) -> Result<SignerKey> {
        check_name(name)?;
        let key = SigningKey::from_seed(seed);
        Ok(SignerKey {
            id: key_id(name, KeyType::Ed25519, key.public_key().as_bytes()),
            name: name.to_owned(),
            key,
        })
    }

    /// Reads `PRIVATE+KEY+<name>+<key ID>+<base64(0x01 || seed)>` (Go's `note.NewSigner`);
    /// anything else is [`Code::CheckpointInvalid`]. The message never repeats the text.
    pub fn parse(text: &str) -> Result<SignerKey> {
        let rest = text
            .strip_prefix(PRIVATE_PREFIX)
            .ok_or_else(|| invalid("a signer key string starts with PRIVATE+KEY+"))?;
        let (name, id, material) = split_key(rest, PRIVATE_PREFIX.len())?;
        let seed: &[u8; 32] = match material.split_first() {
            Some((0x01, seed)) => seed
                .try_into()
                .map_err(|_| invalid("an Ed25519 seed is 32 bytes"))?,
            _ => return Err(invalid("a signer key is type 0x01 (Ed25519)")),
        };
        let key = SignerKey::from_seed(name, seed)?;
        check_id(id, key.id)?;
        Ok(key)
    }

    /// The key name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The key ID.
    pub fn id(&self) -> u32 {
        self.id
    }

    /// The Ed25519 key.
    pub fn signing_key(&self) -> &SigningKey {
        &self.key
    }

    /// The matching verifier key (type 0x01).
    pub fn verifier(&self) -> VerifierKey {
        self.verifier_as(KeyType::Ed25519)
    }

    /// The verifier key of this name and public key for signatures of type `kind`.
    pub(crate) fn verifier_as(&self, kind: KeyType) -> VerifierKey {
        let key = self.key.public_key();
        VerifierKey {
            name: self.name.clone(),
            id: key_id(&self.name, kind, key.as_bytes()),
            kind,
            key: key.clone(),
        }
    }

    /// The signer key string: keep it secret.
    pub fn to_secret_string(&self) -> String {
        let text = key_string(&self.name, self.id, KeyType::Ed25519, self.key.seed());
        format!("{PRIVATE_PREFIX}{text}")
    }

    /// This key's signature on `text`, which must be a note text (see [`check_text`]).
    pub fn sign(&self, text: &str) -> Result<Signature> {
        check_text(text)?;
        Ok(Signature {
            name: self.name.clone(),
            id: self.id,
            bytes: self.key.sign(text.as_bytes()).to_vec(),
        })
    }
}

impl fmt::Debug for SignerKey {
    /// The name and key ID only, never the seed.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SignerKey({}+{:08x})", self.name, self.id)
    }
}

/// A new key pair from 32 bytes of the host's random source: the signer key string (secret)
/// and the verifier key string, as Go's `note.GenerateKey` gives them.
pub fn generate_key(name: &str, seed: &[u8; 32]) -> Result<(String, String)> {
    let key = SignerKey::from_seed(name, seed)?;
    Ok((key.to_secret_string(), key.verifier().to_string()))
}

/// One signature line: the key name, the key ID and the signature bytes that follow the ID.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signature {
    name: String,
    id: u32,
    bytes: Vec<u8>,
}

impl Signature {
    /// A signature by the key `name`, `id`; `bytes` follow the key ID.
    pub(crate) fn new(name: &str, id: u32, bytes: Vec<u8>) -> Signature {
        Signature {
            name: name.to_owned(),
            id,
            bytes,
        }
    }

    /// Reads one line, `— <name> <base64>` without its newline; `at` is its offset in the note.
    pub fn parse_line(line: &str, at: usize) -> Result<Signature> {
        let rest = line
            .strip_prefix(LINE_PREFIX)
            .ok_or_else(|| invalid("a signature line starts with \"— \"").with_offset(at))?;
        let at = at + LINE_PREFIX.len();
        let (name, text) = rest
            .split_once(' ')
            .ok_or_else(|| invalid("a signature line is \"— <name> <base64>\"").with_offset(at))?;
        check_name(name).map_err(|e| e.with_offset(at))?;
        let at = at + name.len() + 1;
        let bytes = base64::decode(text)
            .map_err(|e| super::shifted(e.recode(Code::CheckpointInvalid), at))?;
        if bytes.len() < 5 {
            return Err(
                invalid("a signature is a 4-byte key ID and at least one byte").with_offset(at),
            );
        }
        let (id, bytes) = bytes.split_at(4);
        let id = u32::from_be_bytes([id[0], id[1], id[2], id[3]]);
        Ok(Signature::new(name, id, bytes.to_vec()))
    }

    /// The key name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The key ID.
    pub fn id(&self) -> u32 {
        self.id
    }

    /// The signature bytes after the key ID.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }
}

impl fmt::Display for Signature {
    /// The signature line, with its newline.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut raw = self.id.to_be_bytes().to_vec();
        raw.extend_from_slice(&self.bytes);
        writeln!(f, "{LINE_PREFIX}{} {}", self.name, base64::encode(&raw))
    }
}

const LINE_PREFIX: &str = "\u{2014} ";

/// A signed note: its text (with the final newline) and its signatures, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    text: String,
    signatures: Vec<Signature>,
}

/// A signature that verified, and the key that made it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Verified<'k> {
    /// The trusted key.
    pub key: &'k VerifierKey,
    /// A cosignature's timestamp (POSIX seconds); `None` for a plain signature.
    pub timestamp: Option<u64>,
}

impl Note {
    /// `text` signed by `signer`.
    pub fn signed(text: &str, signer: &SignerKey) -> Result<Note> {
        Ok(Note {
            signatures: vec![signer.sign(text)?],
            text: text.to_owned(),
        })
    }

    /// Reads a signed note strictly (see the module docs); problems are
    /// [`Code::CheckpointInvalid`] with the byte offset. Signatures are not verified here.
    pub fn parse(input: &[u8]) -> Result<Note> {
        let note = std::str::from_utf8(input)
            .map_err(|e| invalid("a signed note is UTF-8").with_offset(e.valid_up_to()))?;
        check_controls(note)?;
        let split = note.rfind("\n\n").ok_or_else(|| {
            invalid("no blank line before the signatures").with_offset(note.len())
        })?;
        let (text, mut lines) = (&note[..=split], &note[split + 2..]);
        if !lines.ends_with('\n') {
            return Err(invalid("the note does not end in a newline").with_offset(note.len()));
        }
        let mut at = split + 2;
        let mut signatures = Vec::new();
        while let Some((line, rest)) = lines.split_once('\n') {
            if signatures.len() == MAX_SIGNATURES {
                return Err(
                    invalid(format!("more than {MAX_SIGNATURES} signature lines")).with_offset(at),
                );
            }
            signatures.push(Signature::parse_line(line, at)?);
            at += line.len() + 1;
            lines = rest;
        }
        Ok(Note {
            text: text.to_owned(),
            signatures,
        })
    }

    /// The note text, with its final newline.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The signatures, in order.
    pub fn signatures(&self) -> &[Signature] {
        &self.signatures
    }

    /// Adds a signature line (a witness's cosignature); more than [`MAX_SIGNATURES`] is
    /// [`Code::CheckpointInvalid`].
    pub fn push(&mut self, signature: Signature) -> Result<()> {
        if self.signatures.len() == MAX_SIGNATURES {
            return Err(invalid(format!(
                "a note carries at most {MAX_SIGNATURES} signatures"
            )));
        }
        self.signatures.push(signature);
        Ok(())
    }

    /// Verifies the signatures by `keys` (matched by name and key ID both; others are
    /// ignored) and returns those that verified, in order. A known key's signature that does
    /// not verify, or no verified signature at all, is [`Code::CheckpointUntrusted`]; the
    /// path names the signature (`/signatures/<index>`).
    pub fn verify<'k>(&self, keys: &'k [VerifierKey]) -> Result<Vec<Verified<'k>>> {
        let mut verified = Vec::new();
        for (i, signature) in self.signatures.iter().enumerate() {
            let mut known = keys
                .iter()
                .filter(|k| k.name == signature.name && k.id == signature.id)
                .peekable();
            if known.peek().is_none() {
                continue;
            }
            let found = known.find_map(|key| {
                let timestamp = key.check(&self.text, &signature.bytes).ok()?;
                Some(Verified { key, timestamp })
            });
            let Some(found) = found else {
                return Err(Error::new(
                    Code::CheckpointUntrusted,
                    format!(
                        "the signature by the trusted key {}+{:08x} does not verify: the note \
                         was altered or not signed by that key",
                        signature.name, signature.id
                    ),
                )
                .in_index(i)
                .in_key("signatures"));
            };
            verified.push(found);
        }
        if verified.is_empty() {
            return Err(Error::new(
                Code::CheckpointUntrusted,
                "no signature by a trusted key: configure the signer's verifier key, or do not \
                 trust this note",
            ));
        }
        Ok(verified)
    }
}

impl fmt::Display for Note {
    /// The signed note's text: the text, a blank line, the signature lines.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)?;
        f.write_str("\n")?;
        self.signatures.iter().try_for_each(|s| s.fmt(f))
    }
}

/// A note text: non-empty, newline-terminated, with no control character but newline.
pub fn check_text(text: &str) -> Result<()> {
    if !text.ends_with('\n') {
        return Err(invalid("a note text ends in a newline").with_offset(text.len()));
    }
    check_controls(text)
}

fn check_controls(text: &str) -> Result<()> {
    match text.bytes().position(|b| b < 0x20 && b != b'\n') {
        Some(at) => Err(invalid("a control character other than newline").with_offset(at)),
        None => Ok(()),
    }
}

/// A key name: non-empty, no Unicode space, no '+'.
fn check_name(name: &str) -> Result<()> {
    if name.is_empty() || name.contains(|c: char| c.is_whitespace() || c == '+') {
        return Err(invalid("a key name is non-empty, without spaces or '+'"));
    }
    Ok(())
}

/// `<name>+<8 lowercase hex>+<base64>` → the name, the key ID and the decoded material; `at`
/// is the string's offset in what the caller read.
fn split_key(text: &str, at: usize) -> Result<(&str, u32, Vec<u8>)> {
    let mut parts = text.splitn(3, '+');
    let (Some(name), Some(id), Some(material)) = (parts.next(), parts.next(), parts.next()) else {
        return Err(invalid("a key string is <name>+<key ID>+<base64 key>").with_offset(at));
    };
    check_name(name).map_err(|e| e.with_offset(at))?;
    let at_id = at + name.len() + 1;
    if id.len() != 8 || !id.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
        return Err(invalid("a key ID is 8 lowercase hex digits").with_offset(at_id));
    }
    let id = u32::from_str_radix(id, 16)
        .map_err(|_| invalid("a key ID is 8 lowercase hex digits").with_offset(at_id))?;
    let at_key = at_id + 9;
    let material = base64::decode(material)
        .map_err(|e| super::shifted(e.recode(Code::CheckpointInvalid), at_key))?;
    Ok((name, id, material))
}

/// `<name>+<key ID>+<base64(type || key)>`.
fn key_string(name: &str, id: u32, kind: KeyType, key: &[u8; 32]) -> String {
    let mut material = vec![kind.byte()];
    material.extend_from_slice(key);
    format!("{name}+{id:08x}+{}", base64::encode(&material))
}

/// A key string's key ID must be the one its name, type and public key give.
fn check_id(given: u32, derived: u32) -> Result<()> {
    match given == derived {
        true => Ok(()),
        false => Err(invalid(
            "the key ID is not the one the name, type and public key give",
        )),
    }
}

/// The first four bytes of `SHA-256(name || "\n" || type || key)`, big-endian.
pub(crate) fn key_id(name: &str, kind: KeyType, key: &[u8; 32]) -> u32 {
    let digest = Sha256::new()
        .chain_update(name.as_bytes())
        .chain_update(b"\n")
        .chain_update([kind.byte()])
        .chain_update(key)
        .finalize();
    u32::from_be_bytes([digest[0], digest[1], digest[2], digest[3]])
}

fn invalid(message: impl Into<String>) -> Error {
    Error::new(Code::CheckpointInvalid, message)
}

#[cfg(test)]
mod tests;
