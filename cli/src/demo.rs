//! `actionseal demo`: the refund story for a newcomer, computed live by the core.

use actionseal_core::{
    canonicalize, charge, check, parse, short_fingerprint, sign_approval, Action, ActionIds,
    Approval, Contract, Decision, DecisionInput, Object, Options, OwnedValue, SigningKey, Value,
};
use std::borrow::Cow;
use std::fmt::Write;

/// examples/refund/contract.json through a link inside the crate, which `cargo package` copies.
const CONTRACT: &str = include_str!("../refund-contract.json");
const MINUTE: i64 = 60_000;
/// 2025-11-30 10:00 UTC, when the reviewer decides.
const T0: i64 = 1_764_496_800_000;

fn json(text: &str) -> OwnedValue {
    // The demo's own literals are valid JSON; a failure here is a bug in this file.
    parse(text.as_bytes(), &Options::default())
        .map(Value::into_owned)
        .unwrap_or(Value::Null)
}

/// `v` with the member at `/key` or `/key/sub` replaced (or removed when `new` is None).
fn with(v: &OwnedValue, path: &[&str], new: Option<OwnedValue>) -> OwnedValue {
    let Value::Object(o) = v else {
        return v.clone();
    };
    let mut entries = o.clone().into_entries();
    let pos = entries.iter().position(|(k, _)| k == path[0]);
    match (path.len(), pos, new) {
        (1, Some(i), None) => {
            entries.remove(i);
        }
        (1, Some(i), Some(n)) => entries[i].1 = n,
        (1, None, Some(n)) => entries.push((Cow::Owned(path[0].to_owned()), n)),
        (_, Some(i), new) => entries[i].1 = with(&entries[i].1, &path[1..], new),
        _ => {}
    }
    Value::Object(Object::from_entries(entries).unwrap_or_default())
}

fn clock(ms: i64) -> String {
    let minutes = (ms - T0) / MINUTE;
    let total = 10 * 60 + minutes;
    format!("{:02}:{:02}", (total / 60) % 24, total % 60)
}

/// The whole story as text.
pub fn story() -> String {
    let mut out = String::new();
    // Writing to a String cannot fail.
    let _ = write_story(&mut out);
    out
}

fn write_story(o: &mut String) -> std::fmt::Result {
    let doc = json(CONTRACT);
    let Ok(contract) = Contract::from_value(&doc) else {
        return writeln!(o, "the bundled example contract does not load");
    };
    writeln!(
        o,
        "actionseal demo: one refund, approved once, re-proved at dispatch\n"
    )?;
    writeln!(o, "1. The tool contract the agent framework already has")?;
    writeln!(
        o,
        "   {} v{} ({}), cost {} minor units per call",
        contract.tool(),
        contract.version(),
        match contract.effect() {
            actionseal_core::Effect::Read => "read",
            actionseal_core::Effect::Write => "write",
        },
        contract.cost_minor()
    )?;
    writeln!(
        o,
        "   approval: when amount_minor > 1000 or currency is not USD"
    )?;
    writeln!(o, "   contract fingerprint  {}\n", contract.digest())?;

    let args = json(r#"{"order_id": "order-17", "amount_minor": 2500, "currency": "USD"}"#);
    let ids = ActionIds {
        tenant: "tenant-a",
        subject: "user:alice",
        job_id: "job-7f93",
        request_id: "req-b285",
        policy_version: "refund-policy-2026-08-01",
    };
    let Ok(action) = Action::build(&contract, &args, &ids) else {
        return writeln!(o, "the example action does not build");
    };
    let digest = action.digest().to_string();
    writeln!(
        o,
        "2. The agent proposes: refund order-17, 2500 minor units, USD"
    )?;
    writeln!(o, "   {}", canonicalize(action.value()))?;
    writeln!(o, "   action fingerprint    {digest}")?;
    writeln!(
        o,
        "   read aloud            {}",
        short_fingerprint(&digest).unwrap_or_default()
    )?;
    if let Ok(r) = contract.requires_approval(&args) {
        writeln!(
            o,
            "   needs a person?       {} (decided by {})\n",
            if r.required { "yes" } else { "no" },
            r.rule
        )?;
    }

    let decision = DecisionInput {
        approval_id: "apr-1",
        decision_id: "dec-1",
        decision: Decision::Approved,
        approver: "user:bob",
        decided_at: T0,
        expires_at: T0 + 30 * MINUTE,
        proposed_digest: None,
        role: None,
        on_behalf_of: None,
        delegation: None,
    };
    let Ok(approval) = Approval::decide(&action, &decision) else {
        return writeln!(o, "the example approval does not build");
    };
    writeln!(
        o,
        "3. user:bob sees exactly that action and approves it at {}, valid until {}",
        clock(T0),
        clock(decision.expires_at)
    )?;
    writeln!(
        o,
        "   the approval freezes the action and binds {}\n",
        approval.action_digest()
    )?;

    let context = json(&format!(
        r#"{{"now": {}, "tenant": "tenant-a", "policy_version": "refund-policy-2026-08-01",
            "contract": {},
            "approver_authorized": {{"approver": "user:bob", "authorized": true}},
            "subject_authorized": {{"subject": "user:alice", "authorized": true}},
            "revoked": {{"approval_id": "apr-1", "revoked": false}}}}"#,
        T0 + 10 * MINUTE,
        canonicalize(&doc)
    ));
    let record = approval.value();
    let presented = action.value();
    writeln!(
        o,
        "4. At {} the worker re-proves the action before dispatch, with facts from its own server:",
        clock(T0 + 10 * MINUTE)
    )?;
    verdict_line(o, "the same action", Some(record), presented, &context)?;

    writeln!(
        o,
        "\n5. What can change between approval and dispatch, and what the check says:"
    )?;
    // Every amount and time here is a safe integer.
    let n = |x: i64| {
        actionseal_core::Number::from_i64(x, Default::default()).map_or(Value::Null, Value::Number)
    };
    let s = |x: &str| Value::String(Cow::Owned(x.to_owned()));
    let reordered = json(&format!(
        r#"{{"tool": "refund_create", "tenant": "tenant-a", "subject": "user:alice",
            "policy_version": "refund-policy-2026-08-01", "request_id": "req-b285",
            "job_id": "job-7f93", "contract": "{}",
            "args": {{"currency": "USD", "amount_minor": 2500, "order_id": "order-17"}}}}"#,
        contract.digest()
    ));
    let cases: Vec<(&str, Option<OwnedValue>, OwnedValue, OwnedValue)> = vec![
        (
            "same content, other key order",
            Some(record.clone()),
            reordered,
            context.clone(),
        ),
        (
            "amount 2500 -> 2600",
            Some(record.clone()),
            with(presented, &["args", "amount_minor"], Some(n(2600))),
            context.clone(),
        ),
        (
            "target order-17 -> order-18",
            Some(record.clone()),
            with(presented, &["args", "order_id"], Some(s("order-18"))),
            context.clone(),
        ),
        (
            "tenant-a -> tenant-b",
            Some(record.clone()),
            with(presented, &["tenant"], Some(s("tenant-b"))),
            context.clone(),
        ),
        (
            "adapter adds destination",
            Some(record.clone()),
            with(presented, &["args", "destination"], Some(s("acct-999"))),
            context.clone(),
        ),
        (
            "amount as true",
            Some(record.clone()),
            with(
                presented,
                &["args", "amount_minor"],
                Some(Value::Bool(true)),
            ),
            context.clone(),
        ),
        (
            "amount as \"2500\"",
            Some(record.clone()),
            with(presented, &["args", "amount_minor"], Some(s("2500"))),
            context.clone(),
        ),
        (
            "no approval at all",
            None,
            presented.clone(),
            context.clone(),
        ),
        (
            "approval edited to 2600",
            Some(with(
                record,
                &["action", "args", "amount_minor"],
                Some(n(2600)),
            )),
            with(presented, &["args", "amount_minor"], Some(n(2600))),
            context.clone(),
        ),
        (
            "reviewer rejected it",
            Some(with(record, &["decision"], Some(s("rejected")))),
            presented.clone(),
            context.clone(),
        ),
        (
            "dispatched at 10:30 sharp",
            Some(record.clone()),
            presented.clone(),
            with(&context, &["now"], Some(n(T0 + 30 * MINUTE))),
        ),
        (
            "queued for five hours",
            Some(record.clone()),
            presented.clone(),
            with(&context, &["now"], Some(n(T0 + 300 * MINUTE))),
        ),
        (
            "decided after the worker's now",
            Some(with(record, &["decided_at"], Some(n(T0 + 20 * MINUTE)))),
            presented.clone(),
            context.clone(),
        ),
        (
            "approver lost the role",
            Some(record.clone()),
            presented.clone(),
            with(
                &context,
                &["approver_authorized", "authorized"],
                Some(Value::Bool(false)),
            ),
        ),
        (
            "role looked up for user:carol",
            Some(record.clone()),
            presented.clone(),
            with(
                &context,
                &["approver_authorized", "approver"],
                Some(s("user:carol")),
            ),
        ),
        (
            "subject lost the right",
            Some(record.clone()),
            presented.clone(),
            with(
                &context,
                &["subject_authorized", "authorized"],
                Some(Value::Bool(false)),
            ),
        ),
        (
            "approval revoked",
            Some(record.clone()),
            presented.clone(),
            with(&context, &["revoked", "revoked"], Some(Value::Bool(true))),
        ),
        (
            "refund policy redeployed",
            Some(record.clone()),
            presented.clone(),
            with(
                &context,
                &["policy_version"],
                Some(s("refund-policy-2026-11-30")),
            ),
        ),
        (
            "contract threshold changed",
            Some(record.clone()),
            presented.clone(),
            with(&context, &["contract", "version"], Some(s("4"))),
        ),
        (
            "approvals capped at 10 min",
            Some(record.clone()),
            presented.clone(),
            with(
                &context,
                &["contract", "max_approval_ms"],
                Some(n(10 * MINUTE)),
            ),
        ),
        (
            "no contract for the tool",
            None,
            presented.clone(),
            with(&context, &["contract"], Some(Value::Null)),
        ),
    ];
    for (label, approval, action, ctx) in &cases {
        verdict_line(o, label, approval.as_ref(), action, ctx)?;
    }
    writeln!(
        o,
        "\n   reject: the call is wrong as presented. reapprove: the same task goes back to a person."
    )?;
    writeln!(
        o,
        "   Neither is a transport error: no retry, no new task. After drift, resume with the approval's frozen action."
    )?;

    writeln!(
        o,
        "\n6. Calls that need no person, and a cumulative budget:"
    )?;
    let small = with(presented, &["args", "amount_minor"], Some(n(500)));
    verdict_line(o, "refund of 500 USD", None, &small, &context)?;
    let budget = json(r#"{"limit_minor": 100, "spent_minor": 0}"#);
    let mut b = budget;
    for cost in [40, 40, 25] {
        match charge(&b, &n(cost)) {
            Ok(next) => {
                writeln!(o, "   charge {cost:>3} -> {}", canonicalize(&next))?;
                b = next;
            }
            Err(e) => writeln!(o, "   charge {cost:>3} -> {}: {}", e.code(), e.message())?,
        }
    }
    proof_story(o, record, presented, &context)
}

/// Section 7: when the approval system sits in another trust domain, only a signed decision
/// from a key the executor's server trusts counts.
fn proof_story(
    o: &mut String,
    record: &OwnedValue,
    presented: &OwnedValue,
    context: &OwnedValue,
) -> std::fmt::Result {
    // Fixed seeds, for the demo only: real keys come from `actionseal key generate`.
    let service = SigningKey::from_seed(&[0x5e; 32]);
    let stranger = SigningKey::from_seed(&[0x0f; 32]);
    let entry = |key: &SigningKey, extra: &str| {
        format!(
            r#""{}": {{"key": {}{extra}}}"#,
            key.public_key().keyid(),
            canonicalize(&key.public_key().to_jwk())
        )
    };
    let requiring = |entries: String| {
        with(
            context,
            &["proof"],
            Some(json(&format!(
                r#"{{"required": true, "keys": {{"service_keys": {{{entries}}}}}}}"#
            ))),
        )
    };
    let trusted = requiring(entry(&service, ""));
    let (Ok(signed), Ok(forged)) = (
        sign_approval(record, &service),
        sign_approval(record, &stranger),
    ) else {
        return writeln!(o, "the example record does not sign");
    };
    writeln!(
        o,
        "\n7. Approvals from another trust domain must prove who decided (context: proof required)"
    )?;
    writeln!(
        o,
        "   trusted service key   {} (Ed25519, RFC 7638 keyid)",
        service.public_key().keyid()
    )?;
    let mut edited = canonicalize(&signed);
    // The signed payload, base64url: replace its first character, as a relay that edits it would.
    if let Some(at) = edited.find(r#""payload":""#).map(|i| i + 11) {
        let swap = if edited[at..].starts_with('e') {
            "f"
        } else {
            "e"
        };
        edited.replace_range(at..=at, swap);
    }
    let only_carol = requiring(entry(&service, r#", "approvers": ["user:carol"]"#));
    let cases: [(&str, Option<OwnedValue>, &OwnedValue); 5] = [
        ("service-signed decision", Some(signed.clone()), &trusted),
        ("forged: a bare record", Some(record.clone()), &trusted),
        ("forged: signed by an unknown key", Some(forged), &trusted),
        (
            "signed, then edited in transit",
            Some(json(&edited)),
            &trusted,
        ),
        (
            "key may sign for user:carol only",
            Some(signed),
            &only_carol,
        ),
    ];
    for (label, approval, ctx) in &cases {
        verdict_line(o, label, approval.as_ref(), presented, ctx)?;
    }
    Ok(())
}

fn verdict_line(
    o: &mut String,
    label: &str,
    approval: Option<&OwnedValue>,
    action: &OwnedValue,
    context: &OwnedValue,
) -> std::fmt::Result {
    match check(approval, action, context) {
        Ok(v) => {
            let reasons: Vec<&str> = v.reasons.iter().map(|r| r.as_str()).collect();
            let mut detail = reasons.join(", ");
            if !v.drift.is_empty() {
                let _ = write!(detail, "  drift {}", v.drift.join(" "));
            }
            if let Some(e) = &v.action_error {
                let _ = write!(detail, "  ({} at {})", e.code(), e.path());
            }
            writeln!(
                o,
                "   {label:<32} {:<9} {detail}",
                v.outcome.as_str().to_uppercase()
            )
        }
        Err(e) => writeln!(o, "   {label:<32} error {e}"),
    }
}
