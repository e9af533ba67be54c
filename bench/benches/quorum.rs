//! The cost of a quorum and of a delegation chain at dispatch (issue 25), in interleaved
//! rounds of this thread's CPU time, as `benches/proof.rs` measures proof:
//!
//! - a 3-of-N quorum of three loaded bare records (`check_set_with`) against one
//!   single-approval check (`check_with` of one record under the refund contract). Goal: at
//!   most 3x.
//! - the same quorum of three service-signed envelopes against three Ed25519 verifications
//!   (core's `verify_strict`) plus one single-approval check; and against the issue's bound,
//!   three single-approval checks plus the three verifications (goal: at most 1x).
//! - a decision through a 3-link chain of service-signed delegations against the same
//!   decision made directly, the extra cost against three Ed25519 verifications. Goal: at most
//!   1.2x.
//!
//!   cargo bench -p actionseal-bench --bench quorum
//!
//! Each row is the median and range over rounds of its per-round ratio. Not a test: nothing
//! here asserts a time.

use actionseal_bench::{json, median, range, window, WINDOW};
use actionseal_core::{
    canonicalize, check_set_with, check_with, fingerprint, pae, sign_approval, sign_delegation,
    Context, Object, Outcome, OwnedValue, SigningKey, Value, PAYLOAD_TYPE,
};
use std::borrow::Cow;
use std::hint::black_box;

const ROUNDS: usize = 20;
const NOW: i64 = 1_764_500_600_000;

/// `base` with `changes` set (added or replaced).
fn with(base: &OwnedValue, changes: &[(&str, OwnedValue)]) -> OwnedValue {
    let Value::Object(o) = base else {
        panic!("not an object")
    };
    let mut entries: Vec<(Cow<'static, str>, OwnedValue)> = o
        .iter()
        .filter(|(k, _)| changes.iter().all(|(c, _)| c != k))
        .map(|(k, v)| (Cow::Owned(k.to_owned()), v.clone()))
        .collect();
    entries.extend(
        changes
            .iter()
            .map(|(k, v)| (Cow::Owned((*k).to_owned()), v.clone())),
    );
    Value::Object(Object::from_entries(entries).expect("distinct keys"))
}

fn text(s: &str) -> OwnedValue {
    Value::String(Cow::Owned(s.to_owned()))
}

/// The refund action under `contract`, a record of it by `approver`, and the context.
struct Scenario {
    action: OwnedValue,
    record: OwnedValue,
    context: Context,
}

fn scenario(approval: Option<&str>, facts: &str) -> Scenario {
    let refund = json(include_str!("../../examples/refund/contract.json"));
    let contract = match approval {
        Some(a) => with(&refund, &[("approval", json(a))]),
        None => refund,
    };
    let action = with(
        &json(include_str!("../../examples/refund/action.json")),
        &[("contract", text(&fingerprint(&contract).to_string()))],
    );
    let record = with(
        &json(include_str!("../../examples/refund/approval.json")),
        &[
            ("action", action.clone()),
            ("action_digest", text(&fingerprint(&action).to_string())),
        ],
    );
    let context = json(&format!(
        r#"{{"now": {NOW}, "tenant": "tenant-a", "policy_version": "refund-policy-2026-08-01",
            "contract": {}, "subject_authorized": {{"subject": "user:alice", "authorized": true}},
            "revoked": {{"approval_id": "apr-1", "revoked": false}}, {facts}}}"#,
        canonicalize(&contract)
    ));
    Scenario {
        action,
        record,
        context: Context::from_value(&context).expect("context"),
    }
}

/// A record of the scenario's action by `approver` as decision `id`.
fn decided(s: &Scenario, approver: &str, id: &str, extra: &[(&str, OwnedValue)]) -> OwnedValue {
    let mut changes = vec![("approver", text(approver)), ("decision_id", text(id))];
    changes.extend(extra.iter().cloned());
    with(&s.record, &changes)
}

fn key_set(keys: &[(&SigningKey, &[&str])]) -> String {
    let entries: Vec<String> = keys
        .iter()
        .map(|(k, who)| {
            format!(
                r#""{}": {{"key": {}, "approvers": {}}}"#,
                k.public_key().keyid(),
                canonicalize(&k.public_key().to_jwk()),
                canonicalize(&Value::Array(who.iter().map(|w| text(w)).collect()))
            )
        })
        .collect();
    format!(r#"{{"service_keys": {{{}}}}}"#, entries.join(", "))
}

struct Row {
    name: &'static str,
    goal: &'static str,
    ratios: Vec<f64>,
    ours: Vec<f64>,
    reference: Vec<f64>,
}

fn main() {
    let quick = std::env::args().any(|a| a == "--test");
    let people = ["user:bob", "user:carol", "user:dave"];
    let service = SigningKey::from_seed(&[42; 32]);
    let authorized = r#""approver_authorized": [
        {"approver": "user:bob", "authorized": true}, {"approver": "user:carol", "authorized": true},
        {"approver": "user:dave", "authorized": true}]"#;

    // One approval under the refund contract as it is.
    let single = scenario(
        None,
        r#""approver_authorized": {"approver": "user:bob", "authorized": true}"#,
    );
    let one = single.record.clone();

    // Three of N, bare and service-signed.
    let keys = key_set(&[(&service, &people)]);
    // The same single approval, service-signed, against a context that holds the key.
    let single_signed = scenario(
        None,
        &format!(
            r#""approver_authorized": {{"approver": "user:bob", "authorized": true}},
               "proof": {{"required": false, "keys": {keys}}}"#
        ),
    );
    let one_signed = sign_approval(&single_signed.record, &service).expect("sign");
    let quorum = scenario(
        Some(r#"{"when": "always", "quorum": {"approvers": 3}}"#),
        &format!(
            r#"{authorized}, "proposer": "agent:refund-bot",
               "proof": {{"required": false, "keys": {keys}}}"#
        ),
    );
    let bare: Vec<OwnedValue> = people
        .iter()
        .enumerate()
        .map(|(i, p)| decided(&quorum, p, &format!("dec-{i}"), &[]))
        .collect();
    let signed: Vec<OwnedValue> = bare
        .iter()
        .map(|r| sign_approval(r, &service).expect("sign"))
        .collect();
    let message = pae(PAYLOAD_TYPE, canonicalize(&bare[0]).as_bytes());
    let sig = service.sign(&message);
    let public = service.public_key().clone();

    // A decision by erin for bob through bob -> carol -> dave -> erin, each link signed by a
    // key that may sign for its delegator.
    let delegators = [
        SigningKey::from_seed(&[1; 32]),
        SigningKey::from_seed(&[2; 32]),
        SigningKey::from_seed(&[3; 32]),
    ];
    let chain_people = ["user:bob", "user:carol", "user:dave", "user:erin"];
    let links: Vec<OwnedValue> = (0..3)
        .map(|i| {
            let document = json(&format!(
                r#"{{"delegation_id": "dlg-{i}", "delegator": "{}", "delegate": "{}",
                    "tenant": "tenant-a", "tools": ["refund_create"],
                    "when": [{{"pointer": "/args/amount_minor", "op": "lte", "value": {}}}],
                    "not_before": 1764400000000, "not_after": 1765000000000}}"#,
                chain_people[i],
                chain_people[i + 1],
                50_000 - 1_000 * i
            ));
            sign_delegation(&document, &delegators[i]).expect("sign the link")
        })
        .collect();
    let digests: Vec<String> = (0..3)
        .map(|i| {
            let Value::Object(env) = &links[i] else {
                panic!("an envelope")
            };
            let payload = env.get("payload").and_then(Value::as_str).expect("payload");
            let bytes = actionseal_core::base64url_decode(payload).expect("base64url");
            let document = actionseal_core::parse(&bytes, &Default::default()).expect("payload");
            format!(
                r#"{{"delegation": "{}", "revoked": false}}"#,
                fingerprint(&document)
            )
        })
        .collect();
    let chain_keys = key_set(&[
        (&delegators[0], &["user:bob"]),
        (&delegators[1], &["user:carol"]),
        (&delegators[2], &["user:dave"]),
    ]);
    let delegated_ctx = scenario(
        None,
        &format!(
            r#""approver_authorized": {{"approver": "user:bob", "authorized": true}},
               "delegations_revoked": [{}], "proof": {{"required": false, "keys": {chain_keys}}}"#,
            digests.join(", ")
        ),
    );
    let direct = delegated_ctx.record.clone();
    let through_chain = decided(
        &delegated_ctx,
        "user:erin",
        "dec-1",
        &[
            ("on_behalf_of", text("user:bob")),
            ("delegation", Value::Array(links.clone())),
        ],
    );

    let permits = |v: actionseal_core::Verdict, what: &str| {
        assert_eq!(v.outcome, Outcome::Permit, "{what}: {:?}", v.reasons);
    };
    permits(
        check_with(Some(&one), &single.action, &single.context),
        "single",
    );
    permits(
        check_with(
            Some(&one_signed),
            &single_signed.action,
            &single_signed.context,
        ),
        "single signed",
    );
    permits(
        check_set_with(&bare, &quorum.action, &quorum.context),
        "3 bare",
    );
    permits(
        check_set_with(&signed, &quorum.action, &quorum.context),
        "3 signed",
    );
    permits(
        check_set_with(
            std::slice::from_ref(&direct),
            &delegated_ctx.action,
            &delegated_ctx.context,
        ),
        "direct",
    );
    permits(
        check_set_with(
            std::slice::from_ref(&through_chain),
            &delegated_ctx.action,
            &delegated_ctx.context,
        ),
        "through the chain",
    );
    if quick {
        println!("quorum bench: inputs check out");
        return;
    }

    let mut rows = [
        Row {
            name: "3-of-N, 3 bare records / one single-approval check",
            goal: "at most 3x",
            ratios: vec![],
            ours: vec![],
            reference: vec![],
        },
        Row {
            name: "3-of-N, 3 signed envelopes / (3 Ed25519 verifications + one check)",
            goal: "",
            ratios: vec![],
            ours: vec![],
            reference: vec![],
        },
        Row {
            name: "3-of-N, 3 signed envelopes / (3 checks + 3 Ed25519 verifications)",
            goal: "at most 1x",
            ratios: vec![],
            ours: vec![],
            reference: vec![],
        },
        Row {
            name: "3-of-N, 3 signed envelopes / 3 single-approval checks of a signed envelope",
            goal: "",
            ratios: vec![],
            ours: vec![],
            reference: vec![],
        },
        Row {
            name: "3-link chain, extra cost / 3 Ed25519 verifications",
            goal: "at most 1.2x",
            ratios: vec![],
            ours: vec![],
            reference: vec![],
        },
    ];
    for _ in 0..ROUNDS {
        let single_us = window(&mut || {
            black_box(check_with(
                Some(black_box(&one)),
                &single.action,
                &single.context,
            ));
        });
        let bare_us = window(&mut || {
            black_box(check_set_with(
                black_box(&bare),
                &quorum.action,
                &quorum.context,
            ));
        });
        let signed_us = window(&mut || {
            black_box(check_set_with(
                black_box(&signed),
                &quorum.action,
                &quorum.context,
            ));
        });
        let single_signed_us = window(&mut || {
            black_box(check_with(
                Some(black_box(&one_signed)),
                &single_signed.action,
                &single_signed.context,
            ));
        });
        let verify_us = window(&mut || {
            black_box(public.verify(black_box(&message), &sig)).expect("verifies");
        });
        let direct_us = window(&mut || {
            black_box(check_set_with(
                std::slice::from_ref(black_box(&direct)),
                &delegated_ctx.action,
                &delegated_ctx.context,
            ));
        });
        let chain_us = window(&mut || {
            black_box(check_set_with(
                std::slice::from_ref(black_box(&through_chain)),
                &delegated_ctx.action,
                &delegated_ctx.context,
            ));
        });
        for (row, (ours, reference)) in rows.iter_mut().zip([
            (bare_us, single_us),
            (signed_us, 3.0 * verify_us + single_us),
            (signed_us, 3.0 * (verify_us + single_us)),
            (signed_us, 3.0 * single_signed_us),
            (chain_us - direct_us, 3.0 * verify_us),
        ]) {
            row.ratios.push(ours / reference);
            row.ours.push(ours);
            row.reference.push(reference);
        }
    }
    println!(
        "\nquorum and delegation: {ROUNDS} interleaved rounds of {WINDOW:?} windows, CPU time"
    );
    println!("| comparison | ratio (median) | range | ours µs | reference µs | goal |");
    println!("|---|---:|---:|---:|---:|---|");
    for row in &mut rows {
        let r = range(&row.ratios);
        println!(
            "| {} | {:.2}x | {r} | {:.2} | {:.2} | {} |",
            row.name,
            median(&mut row.ratios),
            median(&mut row.ours),
            median(&mut row.reference),
            row.goal
        );
    }
}
