//! The redaction vectors (issue 29): sensitive values committed with fixed salts, revealed
//! with their disclosures, and checks of a clear action against a committed approval. Built
//! here, each with its expectation written by hand beside it (a code and path, or an outcome
//! with its reasons and drift) and its full result computed by core.
//!
//! A vector holds raw JSON texts, one per argument of its `op`:
//! - `commit`: `contract`, `args`, `ids`, `salts` → `{"action", "action_digest",
//!   "disclosures"}`;
//! - `reveal`: `contract`, `action`, `disclosures`, `coverage` → the revealed action;
//! - `check`: `approval`, `action`, `context` → the verdict;
//! - `review`: `contract`, `action` (frozen, its sensitive places committed) → `{"required",
//!   "rule"}`, as a reviewer's page judges it (`Contract::review_action`);
//!
//! or `{"error", "path"}`. `secrets` lists the sensitive strings of the vector: none may be in
//! its result or, in any runtime, in an error's message.

use crate::decisions::{core_value, error_json, from_core, text_of};
use actionseal_core::sensitive::calls;
use actionseal_core::{
    check, Action, ActionIds, Approval, Contract, Decision, DecisionInput, OwnedValue,
};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde_json::{json, Map, Value as Json};

/// The result of a redaction vector, computed by core.
pub fn redaction_result(doc: &Map<String, Json>) -> Result<Json, String> {
    match redaction_outcome(doc)? {
        Ok(v) => from_core(&v),
        Err(e) => Ok(error_json(&e)),
    }
}

/// What core returns for a redaction vector: its value, or its error (with the message a
/// runtime shows, which must hold none of the vector's secrets).
pub fn redaction_outcome(
    doc: &Map<String, Json>,
) -> Result<actionseal_core::Result<OwnedValue>, String> {
    let value = |key: &str| -> Result<OwnedValue, String> {
        core_value(&text_of(doc, key)?).map_err(|e| e.to_string())
    };
    let contract = || Contract::from_value(&value("contract")?).map_err(|e| e.to_string());
    Ok(
        match doc.get("op").and_then(Json::as_str).unwrap_or_default() {
            "commit" => {
                let never = |_: &mut [[u8; 16]]| Err("a vector gives its salts");
                calls::commit(
                    &contract()?,
                    &value("args")?,
                    &value("ids")?,
                    &value("salts")?,
                    never,
                )?
            }
            "reveal" => calls::reveal(
                &contract()?,
                &value("action")?,
                &value("disclosures")?,
                &value("coverage")?,
            ),
            "check" => check(
                Some(&value("approval")?),
                &value("action")?,
                &value("context")?,
            )
            .map(|v| v.to_value()),
            "review" => contract()?
                .review_action(&value("action")?)
                .map(|r| requirement_value(&r)),
            other => return Err(format!("unknown op {other:?}")),
        },
    )
}

/// `{"required", "rule"}`.
fn requirement_value(r: &actionseal_core::Requirement) -> OwnedValue {
    core(&json!({"required": r.required, "rule": r.rule}))
}

const CARD: &str = "4111111111111111";
const EMAIL: &str = "alice@example.com";
const BOB: &str = "bob@example.com";
const CAROL: &str = "carol@example.com";
const SECRETS: [&str; 4] = [CARD, EMAIL, BOB, CAROL];

mod b64url {
    use super::{Engine, URL_SAFE_NO_PAD};

    pub(super) fn encode(bytes: &[u8]) -> String {
        URL_SAFE_NO_PAD.encode(bytes)
    }
}

fn contract_doc(sensitive: bool) -> Json {
    let mut c = json!({
        "tool": "refund_create", "version": "1", "effect": "write", "approval": "always",
        "cost_minor": 0,
        "args": {"type": "object", "required": ["amount_minor", "card_number"],
                 "properties": {
                     "amount_minor": {"type": "integer"},
                     "card_number": {"type": "string", "pattern": "^[0-9]{16}$"},
                     "customer": {"type": "object", "properties": {"email": {"type": "string"}}},
                     "recipients": {"type": "array", "items": {"type": "object",
                         "properties": {"email": {"type": "string"}}}}}}
    });
    if sensitive {
        c["sensitive"] = json!({"/args/card_number": "pci", "/args/customer/email": "pii",
                                "/args/recipients/*/email": "pii"});
    }
    c
}

fn args() -> Json {
    json!({"amount_minor": 2500, "card_number": CARD, "customer": {"email": EMAIL},
           "recipients": [{"email": BOB}, {"email": CAROL}]})
}

fn ids(request: &str) -> Json {
    json!({"tenant": "tenant-a", "subject": "user:alice", "job_id": "job-1",
           "request_id": request, "policy_version": "p-1"})
}

/// Salts `first`, `first + 1`, ...: each sixteen bytes of one value, distinct per task.
fn salts(first: u8, n: usize) -> Vec<String> {
    (0..n)
        .map(|i| b64url::encode(&[first.wrapping_add(i as u8); 16]))
        .collect()
}

fn core(v: &Json) -> OwnedValue {
    core_value(&v.to_string()).expect("JSON")
}

fn loaded(sensitive: bool) -> Contract {
    Contract::from_value(&core(&contract_doc(sensitive))).expect("contract")
}

/// The committed action for `args` (request `request`) and its disclosures, salted from
/// `first`.
fn committed(args: &Json, request: &str, first: u8) -> (Action, Vec<String>) {
    let c = loaded(true);
    let ids = core(&ids(request));
    let ids = ActionIds::from_value(&ids).expect("ids");
    let mut n = first;
    let mut salt = || {
        let s = [n; 16];
        n = n.wrapping_add(1);
        s
    };
    let (action, ds) = Action::commit(&c, &core(args), &ids, &mut salt).expect("commit");
    (action, ds.iter().map(|d| d.encoded().to_owned()).collect())
}

fn clear(sensitive: bool, args: &Json) -> Action {
    let ids = core(&ids("req-1"));
    let ids = ActionIds::from_value(&ids).expect("ids");
    Action::build(&loaded(sensitive), &core(args), &ids).expect("build")
}

fn approval_of(action: &Action) -> OwnedValue {
    let d = DecisionInput {
        approval_id: "apr-1",
        decision_id: "dec-1",
        decision: Decision::Approved,
        approver: "user:bob",
        decided_at: 1000,
        expires_at: 100_000,
        proposed_digest: None,
        role: None,
        on_behalf_of: None,
        delegation: None,
    };
    Approval::decide(action, &d)
        .expect("approve")
        .value()
        .clone()
}

fn context(sensitive: bool, disclosures: &[String]) -> Json {
    let mut c = json!({
        "now": 5000, "tenant": "tenant-a", "policy_version": "p-1",
        "contract": contract_doc(sensitive),
        "approver_authorized": {"approver": "user:bob", "authorized": true},
        "subject_authorized": {"subject": "user:alice", "authorized": true},
        "revoked": {"approval_id": "apr-1", "revoked": false}
    });
    if sensitive {
        c["disclosures"] = json!(disclosures);
    }
    c
}

fn text(v: &Json) -> Json {
    Json::String(v.to_string())
}

fn core_text(v: &OwnedValue) -> Json {
    Json::String(actionseal_core::canonicalize(v))
}

/// A disclosure of `value` at `pointer` with the salt `[salt; 16]`, spelled as `spell` says
/// (`None`: canonical).
fn disclosure(salt: u8, pointer: &str, value: &Json, spell: Option<&str>) -> String {
    let s = b64url::encode(&[salt; 16]);
    let text = match spell {
        None => format!(r#"["{s}","{pointer}",{value}]"#),
        Some(sep) => format!(r#"["{s}",{sep}"{pointer}",{sep}{value}]"#),
    };
    b64url::encode(text.as_bytes())
}

struct Case {
    name: &'static str,
    description: &'static str,
    doc: Json,
    /// The hand-written expectation: `{"error", "path"}`, or for a check `{"outcome",
    /// "reasons", "drift"}` (and `"action_error"` when there is one), or for a commit or
    /// reveal what must hold of the result (see [`agrees`]).
    want: Json,
}

fn commit_case(
    name: &'static str,
    description: &'static str,
    sensitive: bool,
    args: Json,
    salts: Json,
    want: Json,
) -> Case {
    Case {
        name,
        description,
        doc: json!({"op": "commit", "contract": text(&contract_doc(sensitive)), "args": text(&args),
                    "ids": text(&ids("req-1")), "salts": text(&salts)}),
        want,
    }
}

fn reveal_case(
    name: &'static str,
    description: &'static str,
    action: &OwnedValue,
    disclosures: &[String],
    coverage: &str,
    want: Json,
) -> Case {
    Case {
        name,
        description,
        doc: json!({"op": "reveal", "contract": text(&contract_doc(true)), "action": core_text(action),
                    "disclosures": text(&json!(disclosures)), "coverage": text(&json!(coverage))}),
        want,
    }
}

fn check_case(
    name: &'static str,
    description: &'static str,
    approval: &OwnedValue,
    action: &Action,
    ctx: Json,
    want: Json,
) -> Case {
    Case {
        name,
        description,
        doc: json!({"op": "check", "approval": core_text(approval), "action": core_text(action.value()),
                    "context": text(&ctx)}),
        want,
    }
}

fn review_case(
    name: &'static str,
    description: &'static str,
    action: &OwnedValue,
    want: Json,
) -> Case {
    Case {
        name,
        description,
        doc: json!({"op": "review", "contract": text(&contract_doc(true)), "action": core_text(action)}),
        want,
    }
}

/// `action` with the value at `pointer` replaced by `with`.
fn replaced_at(action: &OwnedValue, pointer: &str, with: Json) -> OwnedValue {
    let mut v = from_core(action).expect("JSON");
    *v.pointer_mut(pointer).expect("the place") = with;
    core(&v)
}

fn verdict(outcome: &str, reasons: &[&str], drift: &[&str]) -> Json {
    json!({"outcome": outcome, "reasons": reasons, "drift": drift})
}

fn refused(code: &str, path: &str) -> Json {
    json!({"error": code, "path": path})
}

fn cases() -> Vec<Case> {
    let (action, ds) = committed(&args(), "req-1", 1);
    let (_, theirs) = committed(&args(), "req-2", 101);
    let approval = approval_of(&action);
    let presented = clear(true, &args());
    let with = |f: &dyn Fn(&mut Json)| {
        let mut a = args();
        f(&mut a);
        clear(true, &a)
    };
    let mut out = vec![
        commit_case(
            "y_commit_three_fields_two_in_an_array",
            "a card number, an e-mail and each recipient's e-mail (`*`) committed with fixed salts, in the places' order",
            true, args(), json!(salts(1, 4)),
            json!({"disclosures": 4}),
        ),
        commit_case(
            "y_commit_optional_values_absent",
            "an optional sensitive member left out and an empty array have no place: one disclosure",
            true, json!({"amount_minor": 100, "card_number": CARD, "recipients": []}), json!(salts(1, 1)),
            json!({"disclosures": 1}),
        ),
        commit_case(
            "y_commit_no_sensitive_pointers_unchanged",
            "a contract without sensitive pointers commits nothing: the action and fingerprint are today's",
            false, args(), json!([]),
            json!({"disclosures": 0, "action_digest": clear(false, &args()).digest().to_string()}),
        ),
        commit_case(
            "n_invalid_request_salts_fewer_than_places",
            "three salts for four places",
            true, args(), json!(salts(1, 3)),
            refused("invalid_request", "/salts"),
        ),
        commit_case(
            "n_invalid_request_salt_not_sixteen_bytes",
            "a salt of 3 bytes",
            true, args(), json!([salts(1, 1)[0], salts(2, 1)[0], salts(3, 1)[0], "AAAA"]),
            refused("invalid_request", "/salts/3"),
        ),
        commit_case(
            "n_pattern_mismatch_arguments_checked_in_the_clear",
            "the arguments are validated before anything is committed",
            true, json!({"amount_minor": 1, "card_number": "4111-1111"}), json!(salts(1, 1)),
            refused("pattern_mismatch", "/args/card_number"),
        ),
        reveal_case(
            "y_reveal_every_value",
            "every disclosure: the action in the clear, byte for byte the one built",
            action.value(), &ds, "every",
            json!({"equals": core_text(presented.value())}),
        ),
        reveal_case(
            "y_reveal_given_one_value",
            "a reviewer shown the e-mail only: the others stay commitments",
            action.value(), &ds[1..2], "given",
            json!({"disclosed": ["/args/customer/email"]}),
        ),
        reveal_case(
            "n_disclosure_missing_to_run_the_call",
            "every value is needed to run the call: the last recipient's is not given",
            action.value(), &ds[..3], "every",
            refused("disclosure_missing", "/args/recipients/1/email"),
        ),
        reveal_case(
            "n_disclosure_mismatch_another_value",
            "the committed salt and pointer with another card number",
            action.value(),
            &[disclosure(1, "/args/card_number", &json!("4000000000000002"), None), ds[1].clone(), ds[2].clone(), ds[3].clone()],
            "every",
            refused("disclosure_mismatch", "/0"),
        ),
        reveal_case(
            "n_disclosure_mismatch_reused_from_another_task",
            "the same e-mail disclosed for another task: its salt, so not this commitment",
            action.value(), &[ds[0].clone(), theirs[1].clone(), ds[2].clone(), ds[3].clone()], "every",
            refused("disclosure_mismatch", "/1"),
        ),
        reveal_case(
            "n_disclosure_mismatch_moved_to_another_place",
            "bob's disclosure, its pointer rewritten to carol's place",
            action.value(),
            &[ds[0].clone(), ds[1].clone(), ds[2].clone(), disclosure(3, "/args/recipients/1/email", &json!(BOB), None)],
            "every",
            refused("disclosure_mismatch", "/3"),
        ),
        reveal_case(
            "n_disclosure_not_canonical_spaced",
            "the committed disclosure's JSON with spaces after the commas",
            action.value(), &[disclosure(1, "/args/card_number", &json!(CARD), Some(" "))], "given",
            refused("disclosure_not_canonical", "/0"),
        ),
        reveal_case(
            "n_invalid_disclosure_short_salt",
            "a salt of 3 bytes",
            action.value(), &[b64url::encode(format!(r#"["AAAA","/args/card_number","{CARD}"]"#).as_bytes())], "given",
            refused("invalid_disclosure", "/0"),
        ),
        reveal_case(
            "n_disclosure_extra_not_a_sensitive_place",
            "a disclosure of the amount, which the contract does not mark",
            action.value(), &[ds[0].clone(), disclosure(9, "/args/amount_minor", &json!(2500), None)], "given",
            refused("disclosure_extra", "/1"),
        ),
        reveal_case(
            "n_disclosure_extra_twice",
            "the card's disclosure given twice",
            action.value(), &[ds[0].clone(), ds[0].clone()], "given",
            refused("disclosure_extra", "/1"),
        ),
        reveal_case(
            "n_not_committed_action_in_the_clear",
            "an action holding the values in the clear where commitments were due",
            presented.value(), &ds, "every",
            refused("not_committed", "/args/card_number"),
        ),
        reveal_case(
            "n_invalid_request_coverage",
            "coverage is a mode, \"every\" or \"given\"",
            action.value(), &ds, "all",
            refused("invalid_request", ""),
        ),
        check_case(
            "y_check_clear_action_with_its_disclosures",
            "the clear action, the committed approval, the disclosures in the context: permitted, the fingerprint the approved one",
            &approval, &presented, context(true, &ds),
            verdict("permit", &[], &[]),
        ),
        check_case(
            "y_check_committed_action_with_its_disclosures",
            "the approved action presented committed, as a drift returned it to resume with: the disclosures open it, permitted",
            &approval, &action, context(true, &ds),
            verdict("permit", &[], &[]),
        ),
        check_case(
            "n_reject_drift_in_a_sensitive_value",
            "another card number presented: drift at its place, no value in the verdict",
            &approval, &with(&|a| a["card_number"] = json!("4000000000000002")), context(true, &ds),
            verdict("reject", &["action_drift"], &["/args/card_number"]),
        ),
        check_case(
            "n_reject_drift_in_a_sensitive_array_element",
            "another e-mail for the second recipient: drift at that element's place",
            &approval, &with(&|a| a["recipients"][1]["email"] = json!("mallory@example.com")), context(true, &ds),
            verdict("reject", &["action_drift"], &["/args/recipients/1/email"]),
        ),
        check_case(
            "n_reject_drift_a_recipient_added",
            "a third recipient, whose value no disclosure salts: drift at the array",
            &approval,
            &with(&|a| a["recipients"].as_array_mut().expect("array").push(json!({"email": "mallory@example.com"}))),
            context(true, &ds),
            verdict("reject", &["action_drift"], &["/args/recipients"]),
        ),
        check_case(
            "n_reject_disclosure_invalid_reused_from_another_task",
            "the context holds another task's disclosure of the e-mail",
            &approval, &presented, context(true, &[ds[0].clone(), theirs[1].clone(), ds[2].clone(), ds[3].clone()]),
            json!({"outcome": "reject", "reasons": ["action_drift", "disclosure_invalid"], "drift": ["/args/customer/email"],
                   "action_error": {"code": "disclosure_mismatch", "path": "/1"}}),
        ),
        check_case(
            "n_reject_disclosure_invalid_missing",
            "the context lacks the card's disclosure",
            &approval, &presented, context(true, &ds[1..]),
            json!({"outcome": "reject", "reasons": ["action_drift", "disclosure_invalid"], "drift": ["/args/card_number"],
                   "action_error": {"code": "disclosure_missing", "path": "/args/card_number"}}),
        ),
        check_case(
            "n_disclosure_not_canonical_in_the_context",
            "a context disclosure that does not read is an error, as a malformed context is",
            &approval, &presented, context(true, &[ds[0].clone(), disclosure(2, "/args/customer/email", &json!(EMAIL), Some(" "))]),
            refused("disclosure_not_canonical", "/disclosures/1"),
        ),
    ];
    // A reviewer's page judges the frozen action: its commitments held back, nothing else.
    let card = from_core(
        action
            .value()
            .pointer("/args/card_number")
            .expect("the card"),
    )
    .expect("JSON");
    let required = json!({"required": true, "rule": "/approval"});
    out.extend([
        review_case(
            "y_review_committed_action",
            "the action as the ledger froze it: each commitment at a sensitive place stands for a value validated when it was proposed",
            action.value(), required.clone(),
        ),
        review_case(
            "y_review_clear_action",
            "the same action in the clear: judged as a proposal is",
            presented.value(), required.clone(),
        ),
        review_case(
            "y_review_some_values_disclosed",
            "the e-mail disclosed to the reviewer, the others still commitments",
            &replaced_at(action.value(), "/args/customer/email", json!(EMAIL)), required,
        ),
        review_case(
            "n_type_mismatch_review_commitment_at_a_plain_place",
            "a commitment where the contract marks nothing sensitive stands for nothing: validated as given",
            &replaced_at(action.value(), "/args/amount_minor", card.clone()),
            refused("type_mismatch", "/args/amount_minor"),
        ),
        review_case(
            "n_type_mismatch_review_malformed_commitment",
            "a commitment with a short digest is no commitment: validated as given",
            &replaced_at(action.value(), "/args/recipients/1/email", json!({"_sd": "sha256:585a"})),
            refused("type_mismatch", "/args/recipients/1/email"),
        ),
        review_case(
            "n_pattern_mismatch_review_clear_value_off_the_schema",
            "a value in the clear at a sensitive place is validated as it is",
            &replaced_at(action.value(), "/args/card_number", json!("4111")),
            refused("pattern_mismatch", "/args/card_number"),
        ),
    ]);
    // Today's bytes: a check under a contract without sensitive pointers.
    let plain = clear(false, &args());
    out.push(check_case(
        "y_check_no_sensitive_pointers_unchanged",
        "a contract without sensitive pointers: the clear action approved and checked as always",
        &approval_of(&plain),
        &plain,
        context(false, &[]),
        verdict("permit", &[], &[]),
    ));
    out
}

/// Whether the result agrees with the hand-written expectation.
fn agrees(op: &str, want: &Json, got: &Json) -> bool {
    if want.get("error").is_some() {
        return got == want;
    }
    if got.get("error").is_some() {
        return false;
    }
    match op {
        "check" => {
            want.as_object()
                .is_some_and(|w| w.iter().all(|(k, v)| &got[k] == v))
                && (want.get("action_error").is_some() || got["action_error"].is_null())
        }
        "review" => got == want,
        "commit" => {
            let n = got["disclosures"].as_array().map_or(0, Vec::len);
            want["disclosures"] == json!(n)
                && want
                    .get("action_digest")
                    .is_none_or(|d| d == &got["action_digest"])
        }
        _ => match (want.get("equals"), want.get("disclosed")) {
            (Some(t), _) => {
                t.as_str()
                    .and_then(|t| serde_json::from_str::<Json>(t).ok())
                    .as_ref()
                    == Some(got)
            }
            (None, Some(places)) => places.as_array().into_iter().flatten().all(|p| {
                p.as_str()
                    .and_then(|p| got.pointer(p))
                    .is_some_and(Json::is_string)
            }),
            _ => false,
        },
    }
}

/// Builds the redaction vectors: `(name, vector)` pairs, or the problems found (a result that
/// disagrees with its hand-written expectation, a name that does not say the result, a
/// secret in a result).
pub fn redaction_vectors() -> Result<Vec<(String, Json)>, Vec<String>> {
    let mut out = Vec::new();
    let mut problems = Vec::new();
    for case in cases() {
        let mut doc = case.doc;
        doc["description"] = json!(case.description);
        doc["secrets"] = json!(SECRETS);
        let map = doc.as_object().cloned().unwrap_or_default();
        let got = match redaction_result(&map) {
            Ok(got) => got,
            Err(e) => {
                problems.push(format!("redaction/{}: {e}", case.name));
                continue;
            }
        };
        let op = doc["op"].as_str().unwrap_or_default().to_owned();
        if !agrees(&op, &case.want, &got) {
            problems.push(format!(
                "redaction/{}: expected {}, the core says {got}",
                case.name, case.want
            ));
        }
        let said = match (got.get("error"), got.get("outcome")) {
            (Some(code), _) => code.as_str().map(str::to_owned),
            (None, Some(o)) if o != "permit" => o.as_str().map(str::to_owned),
            _ => None,
        };
        let named = match &said {
            None => case.name.starts_with("y_"),
            Some(s) => case.name.starts_with(&format!("n_{s}_")),
        };
        if !named {
            problems.push(format!(
                "redaction/{}: the name must say {said:?}",
                case.name
            ));
        }
        // What a check or a refusal returns holds no value; a commit's disclosures and a
        // reveal's action are the values, by design.
        let shown = got.to_string();
        if (op == "check" || got.get("error").is_some())
            && SECRETS.iter().any(|s| shown.contains(s))
        {
            problems.push(format!("redaction/{}: a secret in {shown}", case.name));
        }
        doc["expect"] = got;
        out.push((case.name.to_owned(), doc));
    }
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(problems)
    }
}
