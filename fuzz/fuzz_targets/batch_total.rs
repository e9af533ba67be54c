//! Batches through the functions a binding calls (`actionseal_core::batch`), two ways. An
//! input that starts with `{` is read as a vector-shaped document (`op` and its members, as in
//! `conformance/vectors/batch/`), so the batch vectors in the seed corpus are mutated as they
//! are; every function is total on it. Any other input drives a generator: a contract with
//! some of the caps (count, sum, distinct targets) and a breaker; 1 to 40 refunds with small
//! amounts and a few order ids, one identity perhaps repeated; a deselection; one item
//! changed, another's proof given to it, a path hash flipped; and a sequence of breaker
//! events.
//!
//! Invariants: nothing panics. A batch that builds has at most `max_items` items within every
//! cap, its header reads back to itself, and its fingerprint is its header's. Every item
//! verifies with its own proof (of at most one hash per level), and no item verifies with
//! another's proof, when changed, or with a flipped hash. A deselection keeps the order of
//! what is left, which verifies against the new header and not the old one. The decision over
//! the batch permits every item as frozen, a changed item is drift, and the same decision is
//! never a valid approval of one action. The breaker never admits a claim while open, trips
//! only from closed or half-open, keeps at most its thresholds' times, and reads back to
//! itself.
#![no_main]

use actionseal_core::batch::{
    self, verify_item, Batch, BatchDecision, Breaker, BreakerPolicy, BreakerState, Header,
    ItemProof, Semantics, Transition,
};
use actionseal_core::ledger::Reported;
use actionseal_core::{
    canonicalize, check_with, fingerprint, parse, Code, Context, Contract, Decision, DecisionInput,
    Options, Outcome, OwnedValue, Reason, Value,
};
use arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;

fn json(text: &str) -> OwnedValue {
    parse(text.as_bytes(), &Options::default())
        .expect("generated JSON is well-formed")
        .into_owned()
}

/// The vector-shaped way: each member given to the function its `op` names.
fn document(data: &[u8]) {
    let Ok(doc) = parse(data, &Options::default()) else {
        return;
    };
    let Some(o) = doc.as_object() else {
        return;
    };
    let text = |key: &str| -> OwnedValue {
        match o.get(key) {
            Some(Value::String(s)) => parse(s.as_bytes(), &Options::default())
                .map(Value::into_owned)
                .unwrap_or(Value::Null),
            Some(v) => v.clone().into_owned(),
            None => Value::Null,
        }
    };
    let (contract, semantics, actions, server) = (
        text("contract"),
        text("semantics"),
        text("actions"),
        text("server"),
    );
    let _ = batch::calls::build(&contract, &semantics, &actions, &server);
    let _ = batch::calls::deselect(&contract, &semantics, &actions, &server, &text("indices"));
    let _ = batch::calls::verify_item(&text("header"), &text("item"));
    let _ = batch::calls::decide(&text("header"), &text("decision"));
    let _ = batch::calls::breaker_step(&text("policy"), &text("breaker"), &text("event"));
    let approvals = match text("approvals") {
        Value::Array(a) => a,
        _ => Vec::new(),
    };
    if let Ok(v) = batch::check_item(&approvals, &text("item"), &text("action"), &text("context")) {
        assert_eq!(v.reasons.is_empty(), v.outcome == Outcome::Permit);
    }
    if let Ok(v) = batch::check_batch(
        &approvals,
        &text("items"),
        &text("actions"),
        &text("context"),
    ) {
        for i in &v.claimable {
            assert_eq!(v.verdicts[*i].outcome, Outcome::Permit);
        }
    }
}

const TENANT: &str = "t";

fn contract(u: &mut Unstructured<'_>) -> Result<Contract> {
    let max_items = u.int_in_range(1..=48u32)?;
    let mut caps = Vec::new();
    if u.arbitrary()? {
        caps.push(format!(r#""count":{}"#, u.int_in_range(1..=48u32)?));
    }
    if u.arbitrary()? {
        caps.push(format!(
            r#""sum":{{"pointer":"/args/amount_minor","max":{}}}"#,
            u.int_in_range(0..=4000u32)?
        ));
    }
    if u.arbitrary()? {
        caps.push(format!(
            r#""distinct":{{"pointer":"/args/order_id","max":{}}}"#,
            u.int_in_range(1..=8u32)?
        ));
    }
    let text = format!(
        r#"{{"tool":"refund","version":"1","effect":"write","approval":"always","cost_minor":0,
            "args":{{"type":"object","properties":{{"order_id":{{"type":"string"}},
                "amount_minor":{{"type":"integer"}}}},"required":["order_id","amount_minor"]}},
            "batch":{{"max_items":{max_items},"caps":{{{}}}}}}}"#,
        caps.join(",")
    );
    Ok(Contract::from_value(&json(&text)).expect("a generated contract loads"))
}

fn refund(c: &Contract, request: u32, order: u32, amount: u32) -> OwnedValue {
    json(&format!(
        r#"{{"tenant":"{TENANT}","subject":"s","tool":"refund","contract":"{}","job_id":"j",
            "request_id":"r{request}","policy_version":"p",
            "args":{{"order_id":"o{order}","amount_minor":{amount}}}}}"#,
        c.digest()
    ))
}

fn item_value(action: &OwnedValue, proof: &ItemProof) -> OwnedValue {
    json(&format!(
        r#"{{"action":{},"proof":{}}}"#,
        canonicalize(action),
        canonicalize(&proof.to_value())
    ))
}

fn generated(u: &mut Unstructured<'_>) -> Result<()> {
    let c = contract(u)?;
    let n = u.int_in_range(1..=40u32)?;
    let mut actions = Vec::new();
    for i in 0..n {
        let request = if u.ratio(1, 30)? { 0 } else { i };
        actions.push(refund(
            &c,
            request,
            u.int_in_range(0..=9)?,
            u.int_in_range(0..=300)?,
        ));
    }
    let semantics = if u.arbitrary()? {
        Semantics::PerItem
    } else {
        Semantics::AllOrNothing
    };
    let b = match Batch::build(&c, semantics, &actions, None) {
        Ok(b) => b,
        Err(e) => {
            assert!(
                matches!(
                    e.code(),
                    Code::InvalidBatch | Code::BatchTooLarge | Code::BatchCapExceeded
                ),
                "{e}"
            );
            return Ok(());
        }
    };
    let policy = c.batch().expect("the contract allows batches");
    assert!(b.header().size <= policy.max_items);
    let totals = b.totals();
    assert!(policy.caps.count.is_none_or(|m| totals.count <= m));
    assert!(policy.caps.sum.as_ref().is_none_or(|s| totals.sum <= s.max));
    assert!(policy
        .caps
        .distinct
        .as_ref()
        .is_none_or(|d| totals.targets.len() as u64 <= d.max));
    assert_eq!(&Header::from_value(b.header_value()).unwrap(), b.header());
    assert_eq!(b.digest(), fingerprint(b.header_value()));
    let levels = 64 - u64::from(n - 1).leading_zeros() as usize;
    for (i, a) in actions.iter().enumerate() {
        let p = b.proof(i as u64).expect("a proof for every item");
        assert!(p.path.len() <= levels);
        assert_eq!(verify_item(b.header(), a, &p).unwrap(), fingerprint(a));
    }
    // Another item's proof, a changed item, a flipped hash.
    let i = u.choose_index(actions.len())?;
    let j = u.choose_index(actions.len())?;
    let p = b.proof(i as u64).unwrap();
    if fingerprint(&actions[i]) != fingerprint(&actions[j]) {
        assert!(verify_item(b.header(), &actions[j], &p).is_err());
    }
    let changed = refund(&c, 1000, 0, 1);
    assert!(verify_item(b.header(), &changed, &p).is_err());
    if !p.path.is_empty() {
        let mut flipped = p.clone();
        let at = u.choose_index(flipped.path.len())?;
        flipped.path[at][u.choose_index(32)?] ^= 1 << u.int_in_range(0..=7u32)?;
        assert_eq!(
            verify_item(b.header(), &actions[i], &flipped)
                .unwrap_err()
                .code(),
            Code::NotInBatch
        );
    }
    // A deselection.
    let dropped: Vec<u64> = (0..u64::from(n))
        .filter(|_| u.ratio(1, 4).unwrap_or(false))
        .collect();
    if let Ok(kept) = b.deselect(&dropped) {
        let left: Vec<_> = (0..actions.len())
            .filter(|k| !dropped.contains(&(*k as u64)))
            .map(|k| actions[k].clone())
            .collect();
        assert_eq!(kept.actions(), left.as_slice());
        assert_ne!(kept.digest(), b.digest());
        for (k, a) in left.iter().enumerate() {
            let p = kept.proof(k as u64).unwrap();
            verify_item(kept.header(), a, &p).unwrap();
        }
    }
    // The decision permits every frozen item, not a changed one, and no single action.
    let d = BatchDecision::decide(
        b.header(),
        &DecisionInput {
            approval_id: "ap",
            decision_id: "d",
            decision: Decision::Approved,
            approver: "b",
            decided_at: 0,
            expires_at: 10,
            proposed_digest: None,
            role: None,
            on_behalf_of: None,
            delegation: None,
        },
    )
    .unwrap();
    let ctx = Context::with_contract(
        &json(
            r#"{"now":5,"tenant":"t","policy_version":"p",
                "approver_authorized":{"approver":"b","authorized":true},
                "subject_authorized":{"subject":"s","authorized":true},
                "revoked":{"approval_id":"ap","revoked":false}}"#,
        ),
        Some(c.clone()),
    )
    .unwrap();
    let record = [d.value().clone()];
    let frozen = item_value(&actions[i], &b.proof(i as u64).unwrap());
    assert_eq!(
        batch::check_item_with(&record, &frozen, &actions[i], &ctx).reasons,
        []
    );
    let v = batch::check_item_with(&record, &frozen, &changed, &ctx);
    assert!(v.reasons.contains(&Reason::ActionDrift), "{:?}", v.reasons);
    assert!(check_with(Some(&record[0]), &actions[i], &ctx)
        .reasons
        .contains(&Reason::InvalidApproval));
    breaker(u)
}

fn breaker(u: &mut Unstructured<'_>) -> Result<()> {
    let policy = BreakerPolicy {
        max_failures: u.int_in_range(1..=5)?,
        window_ms: i64::from(u.int_in_range(1..=1000u32)?),
        max_claims_per_minute: if u.arbitrary()? {
            Some(u.int_in_range(1..=6)?)
        } else {
            None
        },
        close_after: u.int_in_range(1..=4)?,
    };
    let mut b = Breaker::default();
    let mut now = 0i64;
    for _ in 0..u.int_in_range(0..=60u32)? {
        now += i64::from(u.int_in_range(0..=30_000u32)?);
        let before = b.state;
        let trips = b.trips;
        let t = match u.int_in_range(0..=4u8)? {
            0 => match b.on_claim(Some(&policy), now) {
                Ok(t) => t,
                Err(e) => {
                    assert_eq!(before, BreakerState::Open);
                    assert_eq!(e.code(), Code::BreakerOpen);
                    continue;
                }
            },
            1 => b.on_outcome(Some(&policy), Reported::Succeeded, now),
            2 => b.on_outcome(Some(&policy), Reported::Failed, now),
            3 => b.on_outcome(Some(&policy), Reported::Unknown, now),
            _ => b.on_redecided(),
        };
        match t {
            Transition::Tripped(_) => {
                assert_ne!(before, BreakerState::Open);
                assert_eq!(b.state, BreakerState::Open);
                assert_eq!(b.trips, trips + 1);
            }
            Transition::HalfOpened => assert_eq!(before, BreakerState::Open),
            Transition::Closed => assert_eq!(before, BreakerState::HalfOpen),
            Transition::None => assert_eq!((b.state, b.trips), (before, trips)),
        }
        assert!(b.failures.len() <= policy.max_failures as usize);
        assert!(b.claims.len() <= policy.max_claims_per_minute.unwrap_or(0) as usize);
        assert_eq!(Breaker::from_value(&b.to_value()).unwrap(), b);
    }
    Ok(())
}

fuzz_target!(|data: &[u8]| {
    if data.first() == Some(&b'{') {
        document(data);
    } else {
        let _ = generated(&mut Unstructured::new(data));
    }
});
