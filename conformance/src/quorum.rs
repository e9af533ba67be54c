//! The quorum vectors: sets of approval records checked with `check_set`, built from
//! `scenarios/quorum.json` and checked against the expectations written by hand there.

use crate::decisions::{
    ascii, core_value, edit, error_json, from_core, scenario_vectors, text_of, to_core,
};
use actionseal_core::ledger::amend_action;
use actionseal_core::{
    canonicalize, check_set, sign_approval, Action, ActionIds, Approval, Contract, DecisionInput,
    OwnedValue, SigningKey,
};
use serde_json::{Map, Value as Json};

/// The verdict (or `{"error", "path"}` for a malformed context) for a `check_set` vector:
/// `approvals` is an array of JSON texts.
pub fn check_set_result(doc: &Map<String, Json>) -> Result<Json, String> {
    if doc.get("op").and_then(Json::as_str) != Some("check_set") {
        return Err("op must be check_set".into());
    }
    let approvals = doc
        .get("approvals")
        .and_then(Json::as_array)
        .ok_or("approvals must be an array of JSON texts")?
        .iter()
        .map(|t| {
            core_value(t.as_str().ok_or("each approval is a JSON text")?).map_err(|e| e.to_string())
        })
        .collect::<Result<Vec<OwnedValue>, String>>()?;
    let action = core_value(&text_of(doc, "action")?).map_err(|e| e.to_string())?;
    let context = core_value(&text_of(doc, "context")?).map_err(|e| e.to_string())?;
    Ok(match check_set(&approvals, &action, &context) {
        Ok(v) => serde_json::from_str(&canonicalize(&v.to_value())).map_err(|e| e.to_string())?,
        Err(e) => error_json(&e),
    })
}

/// Builds the quorum vectors from `scenarios/quorum.json`: `(name, vector)` pairs, or the
/// problems found (a scenario whose verdict disagrees with its hand-written expectation).
pub fn quorum_vectors(scenarios: &Json) -> Result<Vec<(String, Json)>, Vec<String>> {
    scenario_vectors("quorum", scenarios, |s| build(scenarios, s))
}

fn contract_of(scenarios: &Json, name: &Json) -> Result<(Json, Contract), String> {
    let doc = scenarios["contracts"][name.as_str().ok_or("contract names a contract")?].clone();
    if doc.is_null() {
        return Err(format!("no contract {name}"));
    }
    let contract = Contract::from_value(&to_core(&doc)?).map_err(|e| e.to_string())?;
    Ok((doc, contract))
}

fn build(scenarios: &Json, s: &Json) -> Result<Json, String> {
    let base = &scenarios["base"];
    let contract_name = s.get("contract").unwrap_or(&base["contract"]);
    let (contract_doc, contract) = contract_of(scenarios, contract_name)?;
    let ids = to_core(&base["ids"])?;
    let ids = ActionIds::from_value(&ids).map_err(|e| e.to_string())?;
    let build_action = |args: &Json| -> Result<Action, String> {
        Action::build(&contract, &to_core(args)?, &ids).map_err(|e| e.to_string())
    };
    let proposal = build_action(s.get("args").unwrap_or(&base["args"]))?;
    // "amend": a reviewer's edits of the proposal before the decisions, which are then about
    // the amended action and record the proposal's digest.
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

    let mut approvals = Vec::new();
    for m in s["members"].as_array().ok_or("members must be an array")? {
        // A member's own args: a decision about another action (another digest).
        let decided = match m.get("args") {
            Some(args) => build_action(args)?,
            None => action.clone(),
        };
        let mut d = base["decision"].clone();
        for (k, v) in m["decision"].as_object().ok_or("a member has a decision")? {
            d[k] = v.clone();
        }
        let d = to_core(&d)?;
        let mut input = DecisionInput::from_value(&d).map_err(|e| e.to_string())?;
        if m.get("args").is_none() {
            input.proposed_digest = proposed_digest;
        }
        let record = Approval::decide(&decided, &input).map_err(|e| e.to_string())?;
        let mut record_json = from_core(record.value())?;
        edit(&mut record_json, &m["tamper"])?;
        let presented = match m.get("sign").and_then(Json::as_str) {
            None => record_json,
            Some(key) => {
                let key = SigningKey::from_value(&to_core(&scenarios["signing_keys"][key])?)
                    .map_err(|e| e.to_string())?;
                from_core(
                    &sign_approval(&to_core(&record_json)?, &key).map_err(|e| e.to_string())?,
                )?
            }
        };
        let text = ascii(&serde_json::to_string_pretty(&presented).map_err(|e| e.to_string())?);
        let repeat = m.get("repeat").and_then(Json::as_u64).unwrap_or(1);
        for _ in 0..repeat {
            approvals.push(Json::String(text.clone()));
        }
    }

    let mut context = base["context"].clone();
    context["contract"] = contract_doc;
    edit(&mut context, &s["context"])?;

    let mut vector = Map::new();
    vector.insert("description".into(), s["description"].clone());
    vector.insert("op".into(), "check_set".into());
    vector.insert("approvals".into(), Json::Array(approvals));
    vector.insert(
        "action".into(),
        Json::String(ascii(
            &serde_json::to_string(&from_core(action.value())?).map_err(|e| e.to_string())?,
        )),
    );
    vector.insert(
        "context".into(),
        Json::String(ascii(
            &serde_json::to_string_pretty(&context).map_err(|e| e.to_string())?,
        )),
    );
    let result = check_set_result(&vector)?;
    vector.insert("expect".into(), result);
    Ok(Json::Object(vector))
}
