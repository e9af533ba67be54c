//! Holding the quorum and delegation shapes (`quorum_shapes.rs`) to core: a delegation
//! document's reader, and the members core writes for a quorum's state (taken from the
//! quorum vectors' verdicts, computed by core here) and for a signed and a verified link.

use super::proof;
use super::shape_types::{shape, Shape};
use crate::decisions::{core_value, json_value};
use actionseal_core::{
    canonicalize, check_set, delegation_digest, sign_delegation, verify_delegation, KeySet,
    OwnedValue, Value,
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
        "QuorumState" => quorum(|q| Some(q.clone())),
        "CountedApproval" => quorum(|q| q["counted"].get(0).cloned()),
        "RoleCount" => quorum(|q| q["missing_roles"].get(0).cloned()),
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

/// The members of the verdicts core writes for the quorum vectors, sorted: a verdict under a
/// quorum has the `quorum` member besides the rest.
pub(super) fn verdict_members() -> Result<Vec<String>, String> {
    let verdicts = quorum_verdicts()?;
    let with = verdicts
        .iter()
        .find(|v| v.get("quorum").is_some())
        .ok_or("no quorum vector's verdict has a quorum member")?;
    Ok(keys(with))
}

/// The sample document signed with the samples' key.
fn signed(document: &Json) -> Result<OwnedValue, String> {
    let document = json_value(&document.to_string());
    sign_delegation(&document, &proof::key()).map_err(|e| e.to_string())
}

/// The first value `pick` finds in the quorum state of a quorum vector's verdict.
fn quorum(pick: impl Fn(&Json) -> Option<Json>) -> Result<Json, String> {
    quorum_verdicts()?
        .iter()
        .filter_map(|v| v.get("quorum"))
        .find_map(pick)
        .ok_or_else(|| "no quorum vector's verdict has one".into())
}

/// Core's verdicts for the `check_set` vectors of `vectors/quorum/` (their inputs only: the
/// expectations are not read).
fn quorum_verdicts() -> Result<Vec<Json>, String> {
    let mut out = Vec::new();
    for v in crate::vectors("quorum") {
        if v.doc.get("op").and_then(Json::as_str) != Some("check_set") {
            continue;
        }
        let text = |key: &str| -> Result<OwnedValue, String> {
            let t = v
                .doc
                .get(key)
                .and_then(Json::as_str)
                .ok_or(format!("{}: no {key}", v.name))?;
            core_value(t).map_err(|e| format!("{}: {e}", v.name))
        };
        let approvals = v
            .doc
            .get("approvals")
            .and_then(Json::as_array)
            .ok_or(format!("{}: no approvals", v.name))?;
        let members = approvals
            .iter()
            .map(|a| {
                core_value(a.as_str().unwrap_or("null")).map_err(|e| format!("{}: {e}", v.name))
            })
            .collect::<Result<Vec<_>, _>>()?;
        if let Ok(verdict) = check_set(&members, &text("action")?, &text("context")?) {
            out.push(json(&verdict.to_value()));
        }
    }
    Ok(out)
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
