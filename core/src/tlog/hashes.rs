//! Lists of tree hashes in JSON: standard base64 strings, as in a checkpoint's own text
//! (C2SP tlog-checkpoint), read by every document that carries a proof.

use crate::base64::standard as b64;
use crate::error::{Code, Error, Result};
use crate::json::value::{OwnedValue, Value};
use crate::tlog::merkle::Hash;
use std::borrow::Cow;

/// The most hashes a proof holds: one per level of a tree of up to 2^64 leaves.
const MAX_PROOF: usize = 64;

/// Reads a proof: a list of base64 hashes; problems are `code`.
pub(crate) fn read_list(v: &Value<'_>, code: Code) -> Result<Vec<Hash>> {
    let Value::Array(items) = v else {
        return Err(Error::new(code, "a proof must be a list of base64 hashes"));
    };
    if items.len() > MAX_PROOF {
        return Err(Error::new(
            code,
            format!("a proof has at most {MAX_PROOF} hashes"),
        ));
    }
    // One buffer for every hash, and the list sized once: a batch item's check reads ten.
    let mut bytes = Vec::with_capacity(34);
    let mut hashes = Vec::with_capacity(items.len());
    for (i, h) in items.iter().enumerate() {
        hashes.push(read_into(h, code, &mut bytes).map_err(|e| e.in_index(i))?);
    }
    Ok(hashes)
}

/// Reads one base64 hash; problems are `code`.
pub(crate) fn read(v: &Value<'_>, code: Code) -> Result<Hash> {
    read_into(v, code, &mut Vec::new())
}

/// [`read`], decoding through `bytes`.
fn read_into(v: &Value<'_>, code: Code, bytes: &mut Vec<u8>) -> Result<Hash> {
    let text = v
        .as_str()
        .ok_or_else(|| Error::new(code, "a hash must be a base64 string"))?;
    b64::decode_into(text, bytes).map_err(|e| e.with_code(code))?;
    Hash::try_from(bytes.as_slice()).map_err(|_| Error::new(code, "a hash has 32 bytes"))
}

/// One hash as JSON.
pub(crate) fn write(hash: &Hash) -> OwnedValue {
    Value::String(Cow::Owned(b64::encode(hash)))
}

/// A proof as JSON.
pub(crate) fn write_list(proof: &[Hash]) -> OwnedValue {
    Value::Array(proof.iter().map(write).collect())
}
