//! Expected results of the contract, action, approval, budget and permit vectors, computed by
//! the Rust core and checked against the expectations written by hand.

use actionseal_core::ledger::{amend, amend_action, gate_step};
use actionseal_core::{
    canonicalize, charge, check, parse, Action, ActionIds, Approval, Contract, DecisionInput,
    Error, Options, OwnedValue,
};
use serde_json::{json, Map, Value as Json};

/// Parses JSON text with the strict core parser into an owned value.
pub fn core_value(text: &str) -> Result<OwnedValue, Error> {
    parse(text.as_bytes(), &Options::default()).map(|v| v.into_owned())
}

/// [`core_value`] of JSON text the surfaces' probes wrote themselves, which is always JSON.
pub(crate) fn json_value(text: &str) -> OwnedValue {
    core_value(text).expect("JSON")
}

pub(crate) fn error_json(e: &Error) -> Json {
    json!({"error": e.code().as_str(), "path": e.path()})
}

pub(crate) fn text_of(doc: &Map<String, Json>, key: &str) -> Result<String, String> {
    doc.get(key)
        .and_then(Json::as_str)
        .map(str::to_owned)
        .ok_or_else(|| format!("{key} must be a JSON text (a string)"))
}

/// `{"digest", "requirement"?, "action_valid"?}` or `{"error", "path"}` for a contract
/// vector: the contract loads, then (when given) `args` is checked with `requires_approval`
/// and `action` with `validate_action`.
pub fn contract_result(doc: &Map<String, Json>) -> Result<Json, String> {
    let contract =
        match core_value(&text_of(doc, "contract")?).and_then(|v| Contract::from_value(&v)) {
            Ok(c) => c,
            Err(e) => return Ok(error_json(&e)),
        };
    let mut out = json!({"digest": contract.digest().to_string()});
    if doc.contains_key("args") {
        match core_value(&text_of(doc, "args")?).and_then(|a| contract.requires_approval(&a)) {
            Ok(r) => out["requirement"] = json!({"required": r.required, "rule": r.rule}),
            Err(e) => return Ok(error_json(&e)),
        }
    }
    if doc.contains_key("action") {
        match core_value(&text_of(doc, "action")?).and_then(|a| contract.validate_action(&a)) {
            Ok(()) => out["action_valid"] = Json::Bool(true),
            Err(e) => return Ok(error_json(&e)),
        }
    }
    Ok(out)
}

/// `{"action", "fingerprint"}` or `{"error", "path"}` for an action vector: the contract
/// loads, `ids` is read as [`ActionIds`], and the action is built.
pub fn action_result(doc: &Map<String, Json>) -> Result<Json, String> {
    let ids = to_core(doc.get("ids").ok_or("ids is missing")?)?;
    let args_text = text_of(doc, "args")?;
    let built = core_value(&text_of(doc, "contract")?)
        .and_then(|c| Contract::from_value(&c))
        .and_then(|c| Action::build(&c, &core_value(&args_text)?, &ActionIds::from_value(&ids)?));
    Ok(match built {
        Ok(a) => json!({"action": canonicalize(a.value()), "fingerprint": a.digest().to_string()}),
        Err(e) => error_json(&e),
    })
}

/// `{"approval", "fingerprint"}` or `{"error", "path"}` for an approval vector: the action is
/// read, `decision` is read as [`DecisionInput`], and the record is built.
pub fn approval_result(doc: &Map<String, Json>) -> Result<Json, String> {
    let decision = to_core(doc.get("decision").ok_or("decision is missing")?)?;
    let decided = core_value(&text_of(doc, "action")?)
        .and_then(|a| Action::from_value(&a))
        .and_then(|a| Approval::decide(&a, &DecisionInput::from_value(&decision)?));
    Ok(match decided {
        Ok(a) => json!({
            "approval": canonicalize(a.value()),
            "fingerprint": actionseal_core::fingerprint(a.value()).to_string(),
        }),
        Err(e) => error_json(&e),
    })
}

/// `{"action", "fingerprint", "proposed_digest", "pointers"}` or `{"error", "path"}` for an
/// amend vector: the contract loads, and `replacement` is checked against `current` (the
/// task's action) with [`amend`], the stateless check every runtime exposes; `pointers` are
/// what the amendment changed.
pub fn amend_result(doc: &Map<String, Json>) -> Result<Json, String> {
    let contract = core_value(&text_of(doc, "contract")?)
        .and_then(|c| Contract::from_value(&c))
        .map_err(|e| e.to_string())?;
    let current = core_value(&text_of(doc, "current")?).map_err(|e| e.to_string())?;
    let replacement = core_value(&text_of(doc, "replacement")?).map_err(|e| e.to_string())?;
    Ok(match amend(&current, &replacement, &contract) {
        Ok(a) => json!({
            "action": canonicalize(a.action.value()),
            "fingerprint": a.action.digest().to_string(),
            "proposed_digest": a.proposed_digest.to_string(),
            "pointers": a.amended_pointers,
        }),
        Err(e) => error_json(&e),
    })
}

/// `{"notices": [...]}` or `{"error", "path"}` for a notice vector: what a reader could miss
/// or misread in the strings and keys of `value`.
pub fn notice_result(doc: &Map<String, Json>) -> Result<Json, String> {
    Ok(match core_value(&text_of(doc, "value")?) {
        Ok(v) => {
            let text = canonicalize(&actionseal_core::notices_value(&v));
            json!({"notices": serde_json::from_str::<Json>(&text).map_err(|e| e.to_string())?})
        }
        Err(e) => error_json(&e),
    })
}

/// The decision (`{"decision", ...}`) or `{"error", "path"}` for a gate vector: what a
/// framework adapter does after the ledger step in `input` ([`gate_step`]).
pub fn gate_result(doc: &Map<String, Json>) -> Result<Json, String> {
    Ok(
        match core_value(&text_of(doc, "input")?).and_then(|v| gate_step(&v)) {
            Ok(g) => {
                serde_json::from_str(&canonicalize(&g.to_value())).map_err(|e| e.to_string())?
            }
            Err(e) => error_json(&e),
        },
    )
}

/// `{"budget"}` or `{"error", "path", "at"}` for a budget vector: the costs charged in turn.
pub fn budget_result(doc: &Map<String, Json>) -> Result<Json, String> {
    let mut budget = core_value(&text_of(doc, "budget")?).map_err(|e| e.to_string())?;
    let costs = doc
        .get("costs")
        .and_then(Json::as_array)
        .ok_or("costs must be an array")?;
    for (i, cost) in costs.iter().enumerate() {
        let cost = core_value(cost.as_str().ok_or("each cost is a JSON text")?)
            .map_err(|e| e.to_string())?;
        match charge(&budget, &cost) {
            Ok(b) => budget = b,
            Err(e) => {
                let mut out = error_json(&e);
                out["at"] = i.into();
                return Ok(out);
            }
        }
    }
    Ok(json!({"budget": canonicalize(&budget)}))
}

/// The verdict (or `{"error", "path"}` for a malformed context) for a permit vector.
pub fn permit_result(doc: &Map<String, Json>) -> Result<Json, String> {
    let approval = match doc.get("approval") {
        Some(Json::Null) => None,
        Some(Json::String(t)) => Some(core_value(t).map_err(|e| e.to_string())?),
        _ => return Err("approval must be a JSON text or null".into()),
    };
    let action = core_value(&text_of(doc, "action")?).map_err(|e| e.to_string())?;
    let context = core_value(&text_of(doc, "context")?).map_err(|e| e.to_string())?;
    Ok(match check(approval.as_ref(), &action, &context) {
        Ok(v) => serde_json::from_str(&canonicalize(&v.to_value())).map_err(|e| e.to_string())?,
        Err(e) => error_json(&e),
    })
}

/// Whether every member written by hand in `authored` has the same value in `actual`.
pub fn agrees(authored: &Json, actual: &Json) -> bool {
    match (authored, actual) {
        (Json::Object(a), Json::Object(b)) => a
            .iter()
            .all(|(k, v)| b.get(k).is_some_and(|w| agrees(v, w))),
        _ => authored == actual,
    }
}

/// Builds the permit vectors from `scenarios/permit.json`: `(name, vector)` pairs, or the
/// problems found (a scenario whose verdict disagrees with its hand-written expectation).
pub fn permit_vectors(scenarios: &Json) -> Result<Vec<(String, Json)>, Vec<String>> {
    let (contracts, base) = (&scenarios["contracts"], &scenarios["base"]);
    scenario_vectors("permit", scenarios, |s| build_permit(contracts, base, s))
}

/// The vectors `build` makes of each of `scenarios`' scenarios, named by `name`, with the
/// problems found: a scenario that cannot be built, or whose result disagrees with its
/// hand-written expectation. One loop for every kind of scenario file.
pub(crate) fn scenario_vectors(
    kind: &str,
    scenarios: &Json,
    build: impl Fn(&Json) -> Result<Json, String>,
) -> Result<Vec<(String, Json)>, Vec<String>> {
    let mut out = Vec::new();
    let mut problems = Vec::new();
    for s in scenarios["scenarios"].as_array().into_iter().flatten() {
        let name = s["name"].as_str().unwrap_or("?").to_owned();
        match build(s) {
            Ok(vector) => {
                if !agrees(&s["expect"], &vector["expect"]) {
                    problems.push(format!(
                        "{kind} scenario {name}: expected {}, the core says {}",
                        s["expect"], vector["expect"]
                    ));
                }
                out.push((name, vector));
            }
            Err(e) => problems.push(format!("{kind} scenario {name}: {e}")),
        }
    }
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(problems)
    }
}

fn build_permit(contracts: &Json, base: &Json, s: &Json) -> Result<Json, String> {
    let contract_name = s.get("contract").unwrap_or(&base["contract"]);
    let contract_doc = &contracts[contract_name.as_str().ok_or("contract names a contract")?];
    let contract = Contract::from_value(&to_core(contract_doc)?).map_err(|e| e.to_string())?;
    let args = to_core(s.get("args").unwrap_or(&base["args"]))?;
    let ids = to_core(&base["ids"])?;
    let proposal = ActionIds::from_value(&ids)
        .and_then(|ids| Action::build(&contract, &args, &ids))
        .map_err(|e| e.to_string())?;
    // "amend": a reviewer's edits of the proposal before the decision; the decision is then
    // about the amended action and records the proposal's digest.
    let (action, proposed_digest) = match s.get("amend") {
        None => (proposal.clone(), None),
        Some(edits) => {
            let mut amended = from_core(proposal.value())?;
            edit(&mut amended, edits)?;
            let amended = amend_action(&proposal, &to_core(&amended)?, &contract)
                .map_err(|e| e.to_string())?;
            (amended, Some(proposal.digest()))
        }
    };

    let approval_text = if s.get("approval") == Some(&Json::Null) {
        Json::Null
    } else {
        let mut d = base["decision"].clone();
        edit(&mut d, &s["decision"])?;
        let d = to_core(&d)?;
        let mut decision = DecisionInput::from_value(&d).map_err(|e| e.to_string())?;
        decision.proposed_digest = proposed_digest;
        let approval = Approval::decide(&action, &decision).map_err(|e| e.to_string())?;
        let mut record = from_core(approval.value())?;
        edit(&mut record, &s["tamper"])?;
        if s.get("reseal") == Some(&Json::Bool(true)) {
            // A forger who can compute fingerprints: the edited frozen action gets its own.
            let frozen = to_core(&record["action"])?;
            record["action_digest"] = actionseal_core::fingerprint(&frozen).to_string().into();
        }
        Json::String(ascii(
            &serde_json::to_string_pretty(&record).map_err(|e| e.to_string())?,
        ))
    };

    let mut presented = match s.get("presented_from").and_then(Json::as_str) {
        None => from_core(action.value())?,
        Some("proposal") => from_core(proposal.value())?,
        Some(other) => return Err(format!("unknown presented_from {other}")),
    };
    edit(&mut presented, &s["presented"])?;
    let action_text = ascii(&match s.get("presented_style").and_then(Json::as_str) {
        Some("reordered") => reordered(&presented, 0),
        Some(other) => return Err(format!("unknown presented_style {other}")),
        None => serde_json::to_string(&presented).map_err(|e| e.to_string())?,
    });

    let mut context = base["context"].clone();
    let context_contract = s.get("context_contract").unwrap_or(contract_name);
    context["contract"] = contracts[context_contract
        .as_str()
        .ok_or("context_contract names a contract")?]
    .clone();
    edit(&mut context, &s["context"])?;

    let mut vector = Map::new();
    vector.insert("description".into(), s["description"].clone());
    vector.insert("approval".into(), approval_text);
    vector.insert("action".into(), Json::String(action_text));
    vector.insert(
        "context".into(),
        Json::String(ascii(
            &serde_json::to_string_pretty(&context).map_err(|e| e.to_string())?,
        )),
    );
    let result = permit_result(&vector)?;
    vector.insert("expect".into(), result);
    Ok(Json::Object(vector))
}

/// Applies `[["set", pointer, value] | ["remove", pointer] | ["flip", pointer, index] |
/// ["xor", pointer, index, mask] | ["replace_at", pointer, index, text], ...]` to `doc`. The
/// last three edit the string at `pointer` at character `index` (counted from the end when
/// negative): `flip` changes that hex digit to another, `xor` xors it with `mask` (1 to 15),
/// `replace_at` overwrites characters there with `text`: digests that differ only there.
pub(crate) fn edit(doc: &mut Json, edits: &Json) -> Result<(), String> {
    for e in edits.as_array().into_iter().flatten() {
        let op = e[0].as_str().unwrap_or_default();
        let pointer = e[1].as_str().ok_or("edit needs a pointer")?;
        if let "flip" | "xor" | "replace_at" = op {
            let target = doc
                .pointer_mut(pointer)
                .ok_or_else(|| format!("nothing at {pointer}"))?;
            let text = target.as_str().ok_or("a string edit needs a string")?;
            let index = e[2].as_i64().ok_or("a string edit needs an index")?;
            let at = if index < 0 {
                text.len() as i64 + index
            } else {
                index
            };
            let at = usize::try_from(at).map_err(|_| "index out of range")?;
            let old = *text.as_bytes().get(at).ok_or("index out of range")?;
            let new = match op {
                "flip" => if old == b'0' { "1" } else { "0" }.to_owned(),
                "xor" => {
                    let digit = char::from(old)
                        .to_digit(16)
                        .ok_or("xor needs a hex digit")?;
                    let mask = e[3].as_u64().ok_or("xor needs a mask")? as u32;
                    char::from_digit(digit ^ mask, 16)
                        .ok_or("mask out of range")?
                        .to_string()
                }
                _ => e[3].as_str().ok_or("replace_at needs text")?.to_owned(),
            };
            if at + new.len() > text.len() {
                return Err("the edit runs past the end of the string".into());
            }
            let mut edited = text.to_owned();
            edited.replace_range(at..at + new.len(), &new);
            *target = Json::String(edited);
            continue;
        }
        let (parent, key) = pointer
            .rsplit_once('/')
            .ok_or("edit pointer must start with /")?;
        let target = doc
            .pointer_mut(parent)
            .and_then(Json::as_object_mut)
            .ok_or_else(|| format!("no object at {parent}"))?;
        match op {
            "set" => {
                target.insert(key.to_owned(), e[2].clone());
            }
            "remove" => {
                target.remove(key);
            }
            _ => return Err(format!("unknown edit {op}")),
        }
    }
    Ok(())
}

/// Pretty text with every object's members in reverse order: same content, other bytes.
fn reordered(v: &Json, indent: usize) -> String {
    let pad = "  ".repeat(indent + 1);
    match v {
        Json::Object(m) => {
            let members: Vec<String> = m
                .iter()
                .rev()
                .map(|(k, v)| {
                    format!(
                        "{pad}{} : {}",
                        Json::String(k.clone()),
                        reordered(v, indent + 1)
                    )
                })
                .collect();
            format!("{{\n{}\n{}}}", members.join(",\n"), "  ".repeat(indent))
        }
        other => other.to_string(),
    }
}

/// JSON text with every character outside printable ASCII written as a `\u` escape: the same
/// value, and the vector files show which invisible character a case holds.
pub(crate) fn ascii(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c == '\n' || (' '..='~').contains(&c) {
            out.push(c);
        } else {
            let mut units = [0u16; 2];
            for u in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{u:04x}"));
            }
        }
    }
    out
}

pub(crate) fn to_core(v: &Json) -> Result<OwnedValue, String> {
    core_value(&v.to_string()).map_err(|e| e.to_string())
}

pub(crate) fn from_core(v: &OwnedValue) -> Result<Json, String> {
    serde_json::from_str(&canonicalize(v)).map_err(|e| e.to_string())
}
