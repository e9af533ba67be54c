//! Sets of approval records and delegation chains through `check_set` and
//! `verify_delegation`, two ways. An input that starts with `{` is read as a vector-shaped
//! document (`approvals`, `action`, `context`; `link`, `keys`, `at`; `document`), so the quorum
//! and delegation vectors in the seed corpus are mutated as they are. Any other input drives a
//! generator of sets that mostly permit and near-misses of them, each part with at most one
//! mistake: one of 3,240 contracts (a threshold or always; one approval, or a quorum of 1 to 3
//! with roles, order, veto and separation); 0 to 6 members by distinct reviewers (more than
//! four repeat one), each approving or rejecting, in this round or another, about the digest
//! or one a digit off, in time or not, naming its role or another, bare or signed by the right
//! or the wrong key, perhaps deciding for someone else; a third of them through a chain of 1 to
//! 3 links from delegators (or a cycle of 6, a chain that does not end at the approver or that
//! starts at the subject or the proposer) whose links narrow the amount, or widen it, drop a
//! condition, use `lt`, end or start at `now`, name another tenant or more tools, are bare,
//! signed by another key or tampered; and a context with facts about everyone (authorized,
//! roles), the proposer and amender, revoked rounds, decisions and links (favourable or not,
//! missing), proof required or not, and the contract in force or another.
//!
//! Invariants: neither function panics; a generated context is refused only as
//! `invalid_context`; reasons come in table order without repeats, the outcome is the worst
//! reason's and a permit has none; the verdict is the same from a preloaded context; its JSON
//! is canonical and parses back to the same text with the same outcome, reasons and quorum;
//! the verdict has a quorum exactly when the contract in force has one; a permit of a call
//! that needs approval has a non-empty set and, under a quorum, a state that holds with at
//! least the required number of distinct counted identities, each an approver of the set with
//! a favourable fact, none the subject or the proposer, each role it counts for held, and no
//! link of theirs revoked. A link that verifies has its document's digest, a bare one no
//! signer; a link signed by a key that may not sign for its delegator, or tampered, never
//! verifies.
#![no_main]

use actionseal_core::proof::verify_delegation as verify_delegation_json;
use actionseal_core::{
    canonicalize, check_set, check_set_with, delegation_digest, fingerprint, parse,
    verify_delegation, Code, Context, Options, Outcome, OwnedValue, Value, Verdict,
};
use actionseal_fuzz::sets::{self, json, key_set, member, Case, Form, IDS, NOW, ROLES, SUBJECT};
use arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;

fn generated(u: &mut Unstructured<'_>) -> Result<()> {
    let Some(case) = sets::case(u)? else {
        return Ok(());
    };
    links_hold(&case);
    let approvals = case.approvals();
    let verdict = match check_set(&approvals, &case.presented, &case.context) {
        Ok(v) => v,
        Err(e) => {
            assert_eq!(e.code(), Code::InvalidContext, "{e}");
            return Ok(());
        }
    };
    let ctx = Context::with_contract(
        &json(&format!("{{{}}}", case.fields)),
        case.in_force.clone(),
    )
    .expect("the same context without its contract");
    holds(&verdict, &check_set_with(&approvals, &case.presented, &ctx));
    assert_eq!(verdict.action_digest, fingerprint(&case.presented));
    assert_eq!(
        verdict.quorum.is_some(),
        case.in_force.as_ref().is_some_and(|c| c.quorum().is_some())
    );
    if verdict.outcome == Outcome::Permit {
        permit_holds(&case, &verdict);
    }
    Ok(())
}

/// Each link on its own: one that verifies has its document's digest and a signer exactly
/// when signed; a wrong key's or a tampered one never verifies.
fn links_hold(case: &Case) {
    for link in &case.links {
        let verified = verify_delegation(&link.value, key_set(), NOW);
        if matches!(link.form, Form::WrongKey | Form::Tampered) {
            assert!(verified.is_err(), "a wrong-key or tampered link verified");
        }
        if let Ok(v) = verified {
            assert_eq!(Some(v.digest().to_string()), link.digest);
            assert_eq!(v.signer().is_none(), link.form == Form::Bare);
        }
    }
}

/// A permit of a call that needs approval: a non-empty set and, under a quorum, a state that
/// holds, counting enough distinct members (or the roots they decided for) that are
/// authorized, hold the role they count for, are neither the subject nor the proposer, and
/// whose links are not revoked.
fn permit_holds(case: &Case, verdict: &Verdict) {
    let Some(contract) = &case.in_force else {
        panic!("a permit without a contract in force");
    };
    let args = member(&case.presented, "args").expect("the action has args");
    let required = contract
        .requires_approval(args)
        .expect("a permitted action's args are valid")
        .required;
    if !required {
        return;
    }
    assert!(!case.records.is_empty(), "a permit without an approval");
    assert_eq!(verdict.approved_digest, Some(verdict.action_digest));
    let (Some(quorum), Some(state)) = (contract.quorum(), &verdict.quorum) else {
        return;
    };
    assert!(state.holds() && state.missing_roles.is_empty());
    assert!(state.counted.len() >= usize::from(quorum.approvers));
    let facts = &case.facts;
    for (i, m) in state.counted.iter().enumerate() {
        let id = IDS
            .iter()
            .position(|p| *p == m.approver)
            .expect("a known person");
        assert!(
            state.counted[..i].iter().all(|o| o.approver != m.approver),
            "{} counted twice",
            m.approver
        );
        assert!(
            case.records.iter().any(|r| r.decision_id == m.decision_id
                && r.root.unwrap_or(r.approver) == id
                && m.delegate.as_deref() == r.root.map(|_| IDS[r.approver])),
            "{} counted for no member of the set",
            m.approver
        );
        assert!(facts.authorized.contains(&(id, true)));
        for who in std::iter::once(m.approver.as_str()).chain(m.delegate.as_deref()) {
            assert_ne!(who, SUBJECT, "the subject counted");
            assert!(
                facts
                    .proposer
                    .is_some_and(|p| p.map(|p| IDS[p]) != Some(who)),
                "the proposer counted, or counted without a proposer fact"
            );
        }
        if let Some(role) = &m.role {
            assert!(facts.roles.contains(&(id, role_name(role), true)));
        }
        for d in &m.delegations {
            assert!(facts.revoked_links.contains(&(d.to_string(), false)));
        }
    }
}

fn role_name(role: &str) -> &'static str {
    ROLES
        .into_iter()
        .find(|r| *r == role)
        .expect("a generated role")
}

/// The invariants of any verdict: reasons in order, the outcome theirs, the same verdict from
/// a preloaded context, and JSON that is canonical and says what the verdict says.
fn holds(verdict: &Verdict, again: &Verdict) {
    let reasons = &verdict.reasons;
    assert!(
        reasons.windows(2).all(|w| w[0] < w[1]),
        "reasons out of order: {reasons:?}"
    );
    let worst = reasons.iter().map(|r| r.outcome()).max();
    assert_eq!(verdict.outcome, worst.unwrap_or(Outcome::Permit));
    let text = canonicalize(&verdict.to_value());
    assert_eq!(text, canonicalize(&again.to_value()));
    let back = parse(text.as_bytes(), &Options::default()).expect("a verdict's JSON parses");
    assert_eq!(canonicalize(&back), text);
    assert_eq!(
        member(&back, "outcome").and_then(Value::as_str),
        Some(verdict.outcome.as_str())
    );
    let listed = match member(&back, "reasons") {
        Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).collect::<Vec<_>>(),
        other => panic!("reasons: {other:?}"),
    };
    let named: Vec<&str> = reasons.iter().map(|r| r.as_str()).collect();
    assert_eq!(listed, named);
    match (member(&back, "quorum"), &verdict.quorum) {
        (None, None) => {}
        (Some(q), Some(state)) => {
            assert_eq!(canonicalize(q), canonicalize(&state.to_value()));
        }
        (q, state) => panic!("quorum in JSON: {q:?}, in the verdict: {state:?}"),
    }
}

/// A member of a vector-shaped document: JSON text (as vectors hold inputs) or a value.
fn input(doc: &Value<'_>, key: &str) -> Option<OwnedValue> {
    let v = member(doc, key)?;
    match v.as_str() {
        Some(text) => parse(text.as_bytes(), &Options::default())
            .ok()
            .map(Value::into_owned),
        None => Some(v.clone().into_owned()),
    }
}

/// A vector-shaped document: whatever it holds goes to the function that takes it.
fn document(data: &[u8]) {
    let Ok(doc) = parse(data, &Options::default()) else {
        return;
    };
    if let (Some(Value::Array(items)), Some(action), Some(context)) = (
        member(&doc, "approvals"),
        input(&doc, "action"),
        input(&doc, "context"),
    ) {
        let approvals: Vec<OwnedValue> = items
            .iter()
            .map(|v| match v.as_str() {
                Some(text) => parse(text.as_bytes(), &Options::default())
                    .map_or_else(|_| v.clone().into_owned(), Value::into_owned),
                None => v.clone().into_owned(),
            })
            .collect();
        if let Ok(verdict) = check_set(&approvals, &action, &context) {
            let again = check_set(&approvals, &action, &context).expect("a check is pure");
            holds(&verdict, &again);
        }
    }
    if let (Some(link), Some(keys), Some(at)) =
        (input(&doc, "link"), input(&doc, "keys"), member(&doc, "at"))
    {
        if let Ok(v) = verify_delegation_json(&link, &keys, at) {
            let digest = member(&v, "digest")
                .and_then(Value::as_str)
                .map(str::to_owned);
            let document = member(&v, "delegation").expect("a verified link has its document");
            let want = delegation_digest(document).expect("a verified document reads");
            assert_eq!(digest, Some(want.to_string()));
        }
    }
    if let Some(document) = input(&doc, "document") {
        if let Ok(d) = delegation_digest(&document) {
            assert_eq!(d, fingerprint(&document));
        }
    }
}

fuzz_target!(|data: &[u8]| {
    if data.first() == Some(&b'{') {
        document(data);
    } else {
        let _ = generated(&mut Unstructured::new(data));
    }
});
