//! Holding the batch shapes (`batch_shapes.rs`) to core: each input shape to the reader core
//! reads it with, and each output shape to what core writes for a real batch of the sample
//! contract with every cap.

use super::proof;
use super::shape_types::{shape, Shape};
use crate::decisions::{core_value, json_value};
use actionseal_core::batch::{
    calls, check_batch, BreakerPolicy, Caps, Header, Item, ItemProof, Policy,
};
use actionseal_core::{Action, ActionIds, Contract, OwnedValue, Value};
use serde_json::{json, Value as Json};

/// The value of a field whose type alone does not make a sample core accepts: limits that
/// start at 1, pointers into the action, a hash.
pub(super) fn sample(shape: &str, field: &str) -> Option<Json> {
    Some(match (shape, field) {
        ("BatchPolicy", "max_items")
        | ("BatchHeader", "size")
        | ("DistinctCap", "max")
        | ("BreakerPolicy", "max_failures" | "window_ms" | "close_after") => json!(1),
        ("SumCap" | "DistinctCap", "pointer") => json!("/args/n"),
        // 32 zero bytes, base64.
        ("BatchHeader", "root") => json!(format!("{}=", "A".repeat(43))),
        ("ItemProof", "path") => json!([]),
        _ => return None,
    })
}

/// Whether core reads `v` as the input shape `name`; `None` for a shape not of this room.
pub(super) fn core_accepts(name: &str, v: &Json) -> Option<Result<(), String>> {
    let value = match core_value(&v.to_string()) {
        Ok(value) => value,
        Err(e) => return Some(Err(e.to_string())),
    };
    let r = match name {
        "BatchPolicy" => Policy::from_value(&value).map(drop),
        "BatchCaps" => Caps::from_value(&value).map(drop),
        "SumCap" => Caps::from_value(&json_value(&json!({"sum": v}).to_string())).map(drop),
        "DistinctCap" => {
            Caps::from_value(&json_value(&json!({"distinct": v}).to_string())).map(drop)
        }
        "BreakerPolicy" => BreakerPolicy::from_value(&value).map(drop),
        "BatchHeader" => Header::from_value(&value).map(drop),
        "ItemProof" => ItemProof::from_value(&value).map(drop),
        // An item's action is read as an action when the item is checked.
        "BatchItem" => {
            Item::from_value(&value).and_then(|i| Action::from_value(i.action()).map(drop))
        }
        "BatchDecisionRecord" => {
            actionseal_core::batch::BatchDecision::from_value(&value).map(drop)
        }
        "Breaker" => calls::breaker_step(
            &Value::Null,
            &value,
            &json_value(r#"{"kind": "redecided"}"#),
        )
        .map(drop),
        "BreakerEvent" => calls::breaker_step(&Value::Null, &Value::Null, &value).map(drop),
        _ => return None,
    };
    Some(r.map_err(|e| e.to_string()))
}

/// The members, sorted, of what core writes for the output shape `name`; `None` for a shape
/// not of this room.
pub(super) fn output_members(
    all: &[Shape],
    sample: impl Fn(&Shape) -> Json,
    name: &str,
) -> Option<Result<Vec<String>, String>> {
    let found = match name {
        "Batch" => built(all, &sample, None),
        "BatchItemSummary" => built(all, &sample, None).map(|b| b["items"][0].clone()),
        "BatchTotals" => built(all, &sample, None).map(|b| b["totals"].clone()),
        "DeselectedBatch" => built(all, &sample, Some(json!([0]))),
        "VerifiedItem" => built(all, &sample, None).and_then(|b| {
            let item =
                json!({"action": actions(all, &sample)?[0], "proof": b["items"][0]["proof"]});
            json_of(calls::verify_item(&value(&b["header"]), &value(&item)))
        }),
        "VerifiedBatchProof" => decision(all, &sample).and_then(|record| {
            let signed = actionseal_core::sign_approval(&value(&record), &proof::key())
                .map_err(|e| e.to_string())?;
            json_of(calls::verify_decision(
                &signed,
                &value(&proof::service_keys()),
                &json_value("0"),
            ))
        }),
        "BatchVerdict" => decision(all, &sample).and_then(|record| {
            let context = sample(shape(all, "CheckContext"));
            check_batch(
                &[value(&record)],
                &json_value("[]"),
                &json_value("[]"),
                &value(&context),
            )
            .map(|v| to_json(&v.to_value()))
            .map_err(|e| e.to_string())
        }),
        "BreakerStep" => json_of(calls::breaker_step(
            &Value::Null,
            &Value::Null,
            &json_value(r#"{"kind": "claim", "at": 1}"#),
        )),
        _ => return None,
    };
    Some(found.map(|v| keys(&v)))
}

/// The sample contract with a batch member that has every cap.
fn contract(all: &[Shape], sample: &impl Fn(&Shape) -> Json) -> Json {
    let mut c = sample(shape(all, "ContractDocument"));
    c["args"] = json!({"type": "object", "properties": {"n": {"type": "integer"}}});
    c["batch"] = json!({"max_items": 10, "caps": {"count": 10,
        "sum": {"pointer": "/args/n", "max": 100}, "distinct": {"pointer": "/args/n", "max": 10}}});
    c
}

/// Two actions of the sample contract, `n` 1 and 2.
fn actions(all: &[Shape], sample: &impl Fn(&Shape) -> Json) -> Result<Vec<Json>, String> {
    let c = Contract::from_value(&value(&contract(all, sample))).map_err(|e| e.to_string())?;
    (1..=2)
        .map(|n| {
            let mut ids = sample(shape(all, "ActionIds"));
            ids["request_id"] = json!(format!("r{n}"));
            let ids = value(&ids);
            let ids = ActionIds::from_value(&ids).map_err(|e| e.to_string())?;
            let a = Action::build(&c, &value(&json!({"n": n})), &ids).map_err(|e| e.to_string())?;
            Ok(to_json(a.value()))
        })
        .collect()
}

/// The batch of both actions, or with `indices` deselected.
fn built(
    all: &[Shape],
    sample: &impl Fn(&Shape) -> Json,
    indices: Option<Json>,
) -> Result<Json, String> {
    let (c, a) = (
        value(&contract(all, sample)),
        value(&json!(actions(all, sample)?)),
    );
    let s = json_value(r#""per_item""#);
    json_of(match indices {
        None => calls::build(&c, &s, &a, &Value::Null),
        Some(i) => calls::deselect(&c, &s, &a, &Value::Null, &value(&i)),
    })
}

/// A decision over the sample batch.
fn decision(all: &[Shape], sample: &impl Fn(&Shape) -> Json) -> Result<Json, String> {
    let batch = built(all, sample, None)?;
    let input = sample(shape(all, "DecisionInput"));
    json_of(calls::decide(&value(&batch["header"]), &value(&input)))
}

fn value(v: &Json) -> OwnedValue {
    json_value(&v.to_string())
}

fn to_json(v: &Value<'_>) -> Json {
    serde_json::from_str(&actionseal_core::canonicalize(v)).expect("JSON")
}

fn json_of(r: actionseal_core::Result<OwnedValue>) -> Result<Json, String> {
    r.map(|v| to_json(&v)).map_err(|e| e.to_string())
}

fn keys(v: &Json) -> Vec<String> {
    let mut k: Vec<String> = v
        .as_object()
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default();
    k.sort();
    k
}
