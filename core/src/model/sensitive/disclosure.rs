//! One disclosure: a sensitive value with its salt and pointer, in the one spelling whose
//! digest the committed action holds.

use crate::base64::url as b64url;
use crate::error::{Code, Error, Result};
use crate::json::canon::write_string;
use crate::json::digest::Digest;
use crate::json::options::Options;
use crate::json::pointer::parse_pointer;
use crate::json::value::{OwnedValue, Value};

/// A salt's length: 128 bits, the least RFC 9901 §9.3 recommends, so that a value cannot be
/// found by hashing guesses.
pub const SALT_BYTES: usize = 16;
/// A disclosure, read or made: the value at `pointer`, salted.
#[derive(Clone, Debug, PartialEq)]
pub struct Disclosure {
    /// The encoded text, then the pointer: one allocation for both, since a commit makes a
    /// disclosure for every sensitive value of every action.
    held: String,
    /// Where the pointer starts in `held`.
    split: usize,
    salt: [u8; SALT_BYTES],
    value: OwnedValue,
    digest: Digest,
}

fn invalid(message: impl Into<String>) -> Error {
    Error::new(Code::InvalidDisclosure, message)
}

impl Disclosure {
    /// The disclosure of `value` at `pointer` (a place's own pointer) with `salt`: the
    /// base64url of the RFC 8785 text of `[salt, pointer, value]`, the salt in base64url.
    pub fn new(salt: &[u8; SALT_BYTES], pointer: &str, value: &Value<'_>) -> Disclosure {
        Disclosure::made(
            salt,
            pointer,
            value.clone().into_owned(),
            &mut String::new(),
        )
    }

    /// [`Disclosure::new`] of a value the caller gives up, its JSON text written in `text`
    /// (a buffer the caller reuses for each disclosure of one action).
    pub(super) fn made(
        salt: &[u8; SALT_BYTES],
        pointer: &str,
        value: OwnedValue,
        text: &mut String,
    ) -> Disclosure {
        text.clear();
        write_text(salt, pointer, &value, text);
        let mut held = String::with_capacity(text.len().div_ceil(3) * 4 + pointer.len());
        b64url::encode_into(text.as_bytes(), &mut held);
        Disclosure::held(held, *salt, pointer, value)
    }

    /// The digest of the disclosure of `value` at `pointer` with `salt`: the commitment a
    /// value presented in the clear would have under a disclosure's salt.
    pub(super) fn digest_of(salt: &[u8; SALT_BYTES], pointer: &str, value: &Value<'_>) -> Digest {
        Digest::of(encode(salt, pointer, value).as_bytes())
    }

    /// Reads a disclosure as it travels: canonical base64url without padding of UTF-8 JSON,
    /// an array of a salt (base64url of 16 bytes), a pointer into `/args/` and a value, else
    /// [`Code::InvalidDisclosure`]; a JSON text other than the array's RFC 8785 form is
    /// [`Code::DisclosureNotCanonical`], since another spelling would be another digest.
    pub fn parse(encoded: &str) -> Result<Disclosure> {
        let bytes = b64url::decode(encoded)
            .map_err(|e| invalid(format!("a disclosure is base64url: {e}")))?;
        let text = std::str::from_utf8(&bytes)
            .map_err(|_| invalid("a disclosure's JSON is not well-formed UTF-8"))?;
        let v = crate::parse(text.as_bytes(), &Options::default())
            .map_err(|e| invalid(format!("a disclosure's JSON does not parse: {e}")))?;
        let Value::Array(items) = &v else {
            return Err(invalid("a disclosure is an array [salt, pointer, value]"));
        };
        let [salt, pointer, value] = items.as_slice() else {
            return Err(invalid(
                "a disclosure is an array of three: salt, pointer, value",
            ));
        };
        let salt: [u8; SALT_BYTES] = salt
            .as_str()
            .and_then(|s| b64url::decode(s).ok())
            .and_then(|b| b.try_into().ok())
            .ok_or_else(|| invalid(format!("a salt is {SALT_BYTES} bytes in base64url")))?;
        let pointer = pointer
            .as_str()
            .filter(|p| parse_pointer(p).is_some_and(|t| t.len() >= 2 && t[0] == "args"))
            .ok_or_else(|| invalid("a disclosure's pointer is a JSON Pointer into /args/"))?;
        if crate::canonicalize(&v) != text {
            return Err(Error::new(
                Code::DisclosureNotCanonical,
                "a disclosure's JSON is not in its RFC 8785 form: another spelling of the same \
                 value is another digest",
            ));
        }
        let mut held = String::with_capacity(encoded.len() + pointer.len());
        held.push_str(encoded);
        Ok(Disclosure::held(
            held,
            salt,
            pointer,
            value.clone().into_owned(),
        ))
    }

    /// A disclosure whose encoded text is `held`, with `pointer` appended to it.
    fn held(
        mut held: String,
        salt: [u8; SALT_BYTES],
        pointer: &str,
        value: OwnedValue,
    ) -> Disclosure {
        let split = held.len();
        let digest = Digest::of(held.as_bytes());
        held.push_str(pointer);
        Disclosure {
            held,
            split,
            salt,
            value,
            digest,
        }
    }

    /// As it travels (base64url).
    pub fn encoded(&self) -> &str {
        &self.held[..self.split]
    }

    /// As it travels (base64url), given up.
    pub fn into_encoded(mut self) -> String {
        self.held.truncate(self.split);
        self.held
    }

    /// The salt's bytes.
    pub fn salt(&self) -> &[u8; SALT_BYTES] {
        &self.salt
    }

    /// The place of the value it discloses.
    pub fn pointer(&self) -> &str {
        &self.held[self.split..]
    }

    /// The value.
    pub fn value(&self) -> &OwnedValue {
        &self.value
    }

    /// Its digest: SHA-256 over the encoded text (RFC 9901 §4.2.3), what the committed action
    /// holds in the value's place.
    pub fn digest(&self) -> Digest {
        self.digest
    }
}

/// The base64url of the RFC 8785 text of `[salt, pointer, value]`, written as the array's
/// canonical form is, without building the array.
fn encode(salt: &[u8; SALT_BYTES], pointer: &str, value: &Value<'_>) -> String {
    let mut text = String::with_capacity(64 + pointer.len());
    write_text(salt, pointer, value, &mut text);
    b64url::encode(text.as_bytes())
}

/// The RFC 8785 text of `[salt, pointer, value]`, the salt in base64url, appended to `text`.
fn write_text(salt: &[u8; SALT_BYTES], pointer: &str, value: &Value<'_>, text: &mut String) {
    // base64url's characters need no JSON escapes: the salt's string is written as it is.
    text.push_str("[\"");
    b64url::encode_into(salt, text);
    text.push_str("\",");
    write_string(pointer, text);
    text.push(',');
    crate::write_canonical(value, text);
    text.push(']');
}
