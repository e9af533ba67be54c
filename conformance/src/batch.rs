//! The batch vectors: batches built, deselected, their items verified and checked, and their
//! circuit breakers stepped through sequences of events, built from `scenarios/batch.json`
//! and checked against the expectations written by hand there.
//!
//! A vector holds raw JSON texts, one per argument of its `op`:
//! - `build`: `contract`, `semantics`, `actions`, `server` → `batch_build`'s result;
//! - `deselect`: the same and `indices` → `batch_deselect`'s;
//! - `verify_item`: `header`, `item` → `batch_verify_item`'s;
//! - `check_item`: `approvals` (texts), `item`, `action`, `context` → the verdict;
//! - `check_batch`: `approvals` (texts), `items`, `actions`, `context` → the batch verdict;
//! - `check`: `approval`, `action`, `context` → `check`'s verdict (a batch decision
//!   presented as the approval of one action);
//! - `breaker`: `policy` and `steps`, each `{"breaker", "event"}` (the stored state before the
//!   event: the one the step before left, or `null` first) → one result per step.
//!
//! Every result is core's value, or `{"error", "path"}`.

use crate::decisions::{ascii, core_value, edit, error_json, from_core, text_of, to_core};
use actionseal_core::batch::{calls, check_batch, check_item};
use actionseal_core::{check, sign_approval, Action, ActionIds, Approval, Contract, SigningKey};
use actionseal_core::{DecisionInput, OwnedValue};
use serde_json::{json, Map, Value as Json};

/// The result of a batch vector, computed by core.
pub fn batch_result(doc: &Map<String, Json>) -> Result<Json, String> {
    let value = |key: &str| -> Result<OwnedValue, String> {
        core_value(&text_of(doc, key)?).map_err(|e| e.to_string())
    };
    let texts = |key: &str| -> Result<Vec<OwnedValue>, String> {
        doc.get(key)
            .and_then(Json::as_array)
            .ok_or_else(|| format!("{key} must be an array of JSON texts"))?
            .iter()
            .map(|t| core_value(t.as_str().ok_or("a JSON text")?).map_err(|e| e.to_string()))
            .collect()
    };
    let out = |r: actionseal_core::Result<OwnedValue>| match r {
        Ok(v) => from_core(&v),
        Err(e) => Ok(error_json(&e)),
    };
    let op = doc.get("op").and_then(Json::as_str).unwrap_or_default();
    match op {
        "build" => out(calls::build(
            &value("contract")?,
            &value("semantics")?,
            &value("actions")?,
            &value("server")?,
        )),
        "deselect" => out(calls::deselect(
            &value("contract")?,
            &value("semantics")?,
            &value("actions")?,
            &value("server")?,
            &value("indices")?,
        )),
        "verify_item" => out(calls::verify_item(&value("header")?, &value("item")?)),
        "check_item" => out(check_item(
            &texts("approvals")?,
            &value("item")?,
            &value("action")?,
            &value("context")?,
        )
        .map(|v| v.to_value())),
        "check_batch" => out(check_batch(
            &texts("approvals")?,
            &value("items")?,
            &value("actions")?,
            &value("context")?,
        )
        .map(|v| v.to_value())),
        "check" => out(check(
            Some(&value("approval")?),
            &value("action")?,
            &value("context")?,
        )
        .map(|v| v.to_value())),
        "breaker" => {
            let policy = value("policy")?;
            let steps = doc
                .get("steps")
                .and_then(Json::as_array)
                .ok_or("steps must be an array")?;
            let results = steps
                .iter()
                .map(|s| {
                    let text = |k: &str| {
                        core_value(s[k].as_str().ok_or("a step's members are JSON texts")?)
                            .map_err(|e| e.to_string())
                    };
                    out(calls::breaker_step(
                        &policy,
                        &text("breaker")?,
                        &text("event")?,
                    ))
                })
                .collect::<Result<Vec<_>, String>>()?;
            Ok(Json::Array(results))
        }
        other => Err(format!("unknown op {other:?}")),
    }
}

/// Builds the batch vectors from `scenarios/batch.json`: `(name, vector)` pairs, or the
/// problems found (a scenario that cannot be built, whose result disagrees with its
/// hand-written expectation, or whose name does not say its result).
pub fn batch_vectors(scenarios: &Json) -> Result<Vec<(String, Json)>, Vec<String>> {
    let mut out = Vec::new();
    let mut problems = Vec::new();
    for s in scenarios["scenarios"].as_array().into_iter().flatten() {
        let name = s["name"].as_str().unwrap_or("?").to_owned();
        match build(scenarios, s) {
            Ok(vector) => {
                let seen = summary(&vector);
                if !crate::decisions::agrees(&s["expect"], &seen) {
                    problems.push(format!(
                        "batch scenario {name}: expected {}, the core says {seen}",
                        s["expect"]
                    ));
                }
                if let Some(p) = naming_problem(&name, &vector) {
                    problems.push(format!("batch scenario {name}: {p}"));
                }
                out.push((name, vector));
            }
            Err(e) => problems.push(format!("batch scenario {name}: {e}")),
        }
    }
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(problems)
    }
}

/// What a scenario's hand-written `expect` is held to: the result, with each verdict's
/// outcome and drift listed for a batch check, and a breaker sequence as its transitions (an error
/// code for an event refused) and its last state.
fn summary(vector: &Json) -> Json {
    let expect = &vector["expect"];
    match vector["op"].as_str() {
        Some("check_batch") if expect.get("verdicts").is_some() => {
            let mut s = expect.clone();
            let each = |key: &str| -> Json {
                expect["verdicts"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|v| v[key].clone())
                    .collect()
            };
            s["outcomes"] = each("outcome");
            s["drifts"] = each("drift");
            s
        }
        Some("breaker") => {
            let steps = expect.as_array().cloned().unwrap_or_default();
            let transitions: Vec<Json> = steps
                .iter()
                .map(|r| {
                    r.get("transition")
                        .or(r.get("error"))
                        .cloned()
                        .unwrap_or_default()
                })
                .collect();
            let last = steps
                .iter()
                .rev()
                .find_map(|r| r.get("breaker"))
                .cloned()
                .unwrap_or_default();
            json!({"transitions": transitions, "breaker": last})
        }
        _ => expect.clone(),
    }
}

/// Whether the name says the result: `y_` a permit (checks), every item claimable (a batch
/// check), no event refused (a breaker) or no error (the rest); `n_<outcome>` or `n_<code>`
/// otherwise.
fn naming_problem(name: &str, vector: &Json) -> Option<String> {
    let expect = &vector["expect"];
    let said = match vector["op"].as_str() {
        _ if expect.get("error").is_some() => expect["error"].as_str().map(str::to_owned),
        Some("check_item" | "check") => match expect["outcome"].as_str() {
            Some("permit") => None,
            o => o.map(str::to_owned),
        },
        Some("check_batch") => {
            let verdicts = expect["verdicts"].as_array().cloned().unwrap_or_default();
            let all = expect["claimable"].as_array().map_or(0, Vec::len) == verdicts.len();
            let worst = ["reject", "reapprove"]
                .into_iter()
                .find(|o| verdicts.iter().any(|v| v["outcome"] == *o));
            match (all && !verdicts.is_empty(), worst) {
                (true, _) => None,
                (false, w) => Some(w.unwrap_or("none").to_owned()),
            }
        }
        Some("breaker") => expect
            .as_array()
            .into_iter()
            .flatten()
            .find_map(|r| r["error"].as_str().map(str::to_owned)),
        _ => None,
    };
    let ok = match (name.split_once('_'), &said) {
        (Some(("y", _)), None) => true,
        (Some(("n", rest)), Some(s)) => rest.starts_with(s.as_str()),
        _ => false,
    };
    (!ok).then(|| {
        format!(
            "the name does not say the result ({})",
            said.as_deref().unwrap_or("y")
        )
    })
}

/// The scenario's contract: its document and the contract.
fn contract_of(scenarios: &Json, s: &Json) -> Result<(Json, Contract), String> {
    let name = s.get("contract").unwrap_or(&scenarios["base"]["contract"]);
    let doc = scenarios["contracts"][name.as_str().ok_or("contract names a contract")?].clone();
    if doc.is_null() {
        return Err(format!("no contract {name}"));
    }
    let contract = Contract::from_value(&to_core(&doc)?).map_err(|e| e.to_string())?;
    Ok((doc, contract))
}

/// The actions of `items` (their args), item `i` with `request_id` `req-<i+1>` unless
/// `ids[i]` names other ids.
fn actions_of(
    contract: &Contract,
    base: &Json,
    items: &Json,
    ids: &Json,
) -> Result<Vec<Json>, String> {
    items
        .as_array()
        .ok_or("items must be an array of args")?
        .iter()
        .enumerate()
        .map(|(i, args)| {
            let mut item_ids = base["ids"].clone();
            item_ids["request_id"] = json!(format!("req-{}", i + 1));
            for (k, v) in ids[i.to_string()].as_object().into_iter().flatten() {
                item_ids[k] = v.clone();
            }
            let item_ids = to_core(&item_ids)?;
            let item_ids = ActionIds::from_value(&item_ids).map_err(|e| e.to_string())?;
            let action =
                Action::build(contract, &to_core(args)?, &item_ids).map_err(|e| e.to_string())?;
            from_core(action.value())
        })
        .collect()
}

fn text(v: &Json) -> Result<Json, String> {
    Ok(Json::String(ascii(
        &serde_json::to_string(v).map_err(|e| e.to_string())?,
    )))
}

fn pretty(v: &Json) -> Result<Json, String> {
    Ok(Json::String(ascii(
        &serde_json::to_string_pretty(v).map_err(|e| e.to_string())?,
    )))
}

/// A batch as built (`batch_build`'s result) from these actions.
fn built(
    contract: &Json,
    semantics: &Json,
    actions: &[Json],
    server: &Json,
    deselected: Option<&Json>,
) -> Result<Json, String> {
    let (c, s, a, p) = (
        to_core(contract)?,
        to_core(semantics)?,
        to_core(&json!(actions))?,
        to_core(server)?,
    );
    let b = match deselected {
        None => calls::build(&c, &s, &a, &p),
        Some(i) => calls::deselect(&c, &s, &a, &p, &to_core(i)?),
    };
    from_core(&b.map_err(|e| e.to_string())?)
}

fn build(scenarios: &Json, s: &Json) -> Result<Json, String> {
    let base = &scenarios["base"];
    let (contract_doc, contract) = contract_of(scenarios, s)?;
    let semantics = s.get("semantics").unwrap_or(&base["semantics"]).clone();
    let items = s.get("items").unwrap_or(&base["items"]);
    let mut actions = actions_of(&contract, base, items, &s["ids"])?;
    let mut edited = json!(actions);
    edit(&mut edited, &s["actions_edits"])?;
    let server = s.get("server").cloned().unwrap_or(Json::Null);
    let op = s["op"].as_str().ok_or("a scenario has an op")?;

    let mut vector = Map::new();
    vector.insert("description".into(), s["description"].clone());
    vector.insert("op".into(), op.into());
    match op {
        "build" | "deselect" => {
            vector.insert("contract".into(), pretty(&contract_doc)?);
            vector.insert("semantics".into(), text(&semantics)?);
            vector.insert("actions".into(), pretty(&edited)?);
            vector.insert("server".into(), text(&server)?);
            if op == "deselect" {
                vector.insert("indices".into(), text(&s["indices"])?);
            }
        }
        "breaker" => {
            let policy = s
                .get("policy")
                .cloned()
                .unwrap_or_else(|| contract_doc["batch"]["breaker"].clone());
            let mut state = s.get("start").cloned().unwrap_or(Json::Null);
            let mut steps = Vec::new();
            for event in s["events"].as_array().ok_or("events must be an array")? {
                steps.push(json!({"breaker": text(&state)?, "event": text(event)?}));
                let stepped =
                    calls::breaker_step(&to_core(&policy)?, &to_core(&state)?, &to_core(event)?);
                if let Ok(r) = stepped {
                    state = from_core(&r)?["breaker"].clone();
                }
            }
            vector.insert("policy".into(), text(&policy)?);
            vector.insert("steps".into(), Json::Array(steps));
        }
        _ => {
            actions = serde_json::from_value(edited).map_err(|e| e.to_string())?;
            checked(
                scenarios,
                s,
                &contract_doc,
                &contract,
                &semantics,
                &actions,
                &server,
                &mut vector,
            )?;
        }
    }
    let result = batch_result(&vector)?;
    vector.insert("expect".into(), result);
    Ok(Json::Object(vector))
}

/// The members of a check or item vector: the batch (deselected first when `deselect` says
/// so) and its items, the decisions over it, the presented actions and the context.
#[allow(clippy::too_many_arguments)]
fn checked(
    scenarios: &Json,
    s: &Json,
    contract_doc: &Json,
    contract: &Contract,
    semantics: &Json,
    actions: &[Json],
    server: &Json,
    vector: &mut Map<String, Json>,
) -> Result<(), String> {
    let base = &scenarios["base"];
    let batch = built(contract_doc, semantics, actions, server, s.get("deselect"))?;
    // The actions the batch holds, in order (the remainder after a deselection).
    let kept: Vec<Json> = match s.get("deselect") {
        None => actions.to_vec(),
        Some(d) => {
            let gone: Vec<u64> = d
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Json::as_u64)
                .collect();
            (0..actions.len())
                .filter(|i| !gone.contains(&(*i as u64)))
                .map(|i| actions[i].clone())
                .collect()
        }
    };
    let item_of = |b: &Json, list: &[Json], i: usize| -> Json {
        json!({"action": list[i], "proof": b["items"][i]["proof"]})
    };
    let index = s["item"].as_u64().unwrap_or(0) as usize;
    // An item of another batch (the same contract), presented against this one.
    let mut item = match s.get("item_from") {
        None => item_of(&batch, &kept, index),
        Some(other) => {
            let list = actions_of(contract, base, &other["items"], &other["ids"])?;
            let b = built(contract_doc, semantics, &list, server, None)?;
            item_of(&b, &list, index)
        }
    };
    edit(&mut item, &s["item_edits"])?;
    let mut header = batch["header"].clone();
    edit(&mut header, &s["header_edits"])?;

    // The decisions: the base decision with each member's, over the batch's header (or, for
    // a member marked `single`, an approval of the item's action alone).
    let mut approvals = Vec::new();
    let default_members = json!([{"decision": {}}]);
    for m in s
        .get("members")
        .unwrap_or(&default_members)
        .as_array()
        .ok_or("members must be an array")?
    {
        let mut d = base["decision"].clone();
        for (k, v) in m["decision"].as_object().into_iter().flatten() {
            d[k] = v.clone();
        }
        // A reviewer who deselected items decides on the remainder, naming the proposal.
        if s.get("deselect").is_some() {
            let proposed = built(contract_doc, semantics, actions, server, None)?;
            d["proposed_digest"] = proposed["batch_digest"].clone();
        }
        let mut record = if m["single"].as_bool() == Some(true) {
            let action =
                Action::from_value(&to_core(&item["action"])?).map_err(|e| e.to_string())?;
            let input = to_core(&d)?;
            let input = DecisionInput::from_value(&input).map_err(|e| e.to_string())?;
            from_core(
                Approval::decide(&action, &input)
                    .map_err(|e| e.to_string())?
                    .value(),
            )?
        } else {
            from_core(
                &calls::decide(&to_core(&batch["header"])?, &to_core(&d)?)
                    .map_err(|e| e.to_string())?,
            )?
        };
        edit(&mut record, &m["tamper"])?;
        let presented = match m.get("sign").and_then(Json::as_str) {
            None => record,
            Some(key) => {
                let key = SigningKey::from_value(&to_core(&scenarios["signing_keys"][key])?)
                    .map_err(|e| e.to_string())?;
                from_core(&sign_approval(&to_core(&record)?, &key).map_err(|e| e.to_string())?)?
            }
        };
        approvals.push(pretty(&presented)?);
    }

    let mut context = base["context"].clone();
    context["contract"] = contract_doc.clone();
    edit(&mut context, &s["context"])?;
    // The presented actions: each item's frozen action, edited where it drifts.
    let presented = |i: usize, frozen: &Json| -> Result<Json, String> {
        let mut a = frozen.clone();
        edit(&mut a, &s["drift"][i.to_string()])?;
        Ok(a)
    };
    match s["op"].as_str() {
        Some("verify_item") => {
            vector.insert("header".into(), text(&header)?);
            vector.insert("item".into(), pretty(&item)?);
        }
        Some("check_item") => {
            vector.insert("approvals".into(), Json::Array(approvals));
            vector.insert("item".into(), pretty(&item)?);
            vector.insert("action".into(), text(&presented(index, &item["action"])?)?);
            vector.insert("context".into(), pretty(&context)?);
        }
        Some("check") => {
            vector.insert(
                "approval".into(),
                approvals.first().cloned().unwrap_or(Json::Null),
            );
            vector.insert("action".into(), text(&presented(index, &item["action"])?)?);
            vector.insert("context".into(), pretty(&context)?);
        }
        Some("check_batch") => {
            // The items presented, by index (`present`; default: each once, in order).
            let order: Vec<usize> = match s.get("present").and_then(Json::as_array) {
                Some(list) => list
                    .iter()
                    .map(|i| {
                        i.as_u64()
                            .map(|i| i as usize)
                            .ok_or("present lists indices")
                    })
                    .collect::<Result<_, _>>()?,
                None => (0..kept.len()).collect(),
            };
            let items: Vec<Json> = order.iter().map(|&i| item_of(&batch, &kept, i)).collect();
            let shown: Vec<Json> = items
                .iter()
                .zip(&order)
                .map(|(it, &i)| presented(i, &it["action"]))
                .collect::<Result<_, _>>()?;
            vector.insert("approvals".into(), Json::Array(approvals));
            vector.insert("items".into(), pretty(&json!(items))?);
            vector.insert("actions".into(), pretty(&json!(shown))?);
            vector.insert("context".into(), pretty(&context)?);
        }
        other => return Err(format!("unknown op {other:?}")),
    }
    Ok(())
}
