//! Holding the quorum and delegation shapes (`quorum_shapes.rs`) to core: a delegation
//! document's reader, and the members core writes for a signed and a verified link.

use super::proof;
use super::shape_types::{shape, Shape};
use crate::decisions::json_value;
use actionseal_core::{
    canonicalize, delegation_digest, sign_delegation, verify_delegation, KeySet, OwnedValue, Value,
};
use serde_json::Value as Json;

/// Whether core reads `value` as the input shape `name`; `None` for a shape not of this room.
pub(super) fn core_accepts(name: &str, value: &Value<'_>) -> Option<actionseal_core::Result<()>> {
    match name {
        "DelegationDocument" => Some(delegation_digest(value).map(drop)),
        _ => None,
    }
}

/// The members, sorted, of what core writes for the output shape `name`; `None` for a shape
/// not of this room.
pub(super) fn output_members(
    all: &[Shape],
    sample: impl Fn(&Shape) -> Json,
    name: &str,
) -> Option<Result<Vec<String>, String>> {
    let found = match name {
        "SignedDelegation" => signed(&sample(shape(all, "DelegationDocument"))).map(|s| json(&s)),
        "VerifiedDelegation" => {
            signed(&sample(shape(all, "DelegationDocument"))).and_then(|signed| {
                let keys = KeySet::from_value(&json_value(&proof::service_keys().to_string()))
                    .map_err(|e| e.to_string())?;
                let verified = verify_delegation(&signed, &keys, 0).map_err(|e| e.to_string())?;
                Ok(json(&verified.to_value()))
            })
        }
        _ => return None,
    };
    Some(found.map(|v| keys(&v)))
}

/// The sample document signed with the samples' key.
fn signed(document: &Json) -> Result<OwnedValue, String> {
    let document = json_value(&document.to_string());
    sign_delegation(&document, &proof::key()).map_err(|e| e.to_string())
}

fn json(v: &OwnedValue) -> Json {
    serde_json::from_str(&canonicalize(v)).unwrap_or(Json::Null)
}

fn keys(v: &Json) -> Vec<String> {
    let mut k: Vec<String> = v
        .as_object()
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default();
    k.sort();
    k
}
