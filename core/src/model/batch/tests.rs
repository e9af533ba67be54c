use super::*;
use crate::model::proof::base64url;
use crate::model::reason::{Outcome, Reason};
use crate::tlog::merkle::node_hash;
use crate::{
    check_with, parse, sign_approval, verify_batch_proof, Approval, Context, Decision,
    DecisionInput, KeySet, Options, OwnedValue, SigningKey,
};

fn json(text: &str) -> OwnedValue {
    parse(text.as_bytes(), &Options::default())
        .unwrap()
        .into_owned()
}

const CONTRACT: &str = r#"{"tool":"refund","version":"1","effect":"write","approval":"always",
    "cost_minor":0,
    "args":{"type":"object","properties":{"order_id":{"type":"string"},
        "amount_minor":{"type":"integer"}},"required":["order_id","amount_minor"]},
    "batch":{"max_items":8,"caps":{"count":8,"sum":{"pointer":"/args/amount_minor","max":10000},
        "distinct":{"pointer":"/args/order_id","max":6}}}}"#;

fn contract() -> Contract {
    Contract::from_value(&json(CONTRACT)).unwrap()
}

fn item(c: &Contract, n: usize, order: &str, amount: i64) -> OwnedValue {
    json(&format!(
        r#"{{"tenant":"a","subject":"s","tool":"refund","contract":"{}","job_id":"j",
            "request_id":"r{n}","policy_version":"p",
            "args":{{"order_id":"{order}","amount_minor":{amount}}}}}"#,
        c.digest()
    ))
}

fn items(c: &Contract, n: usize) -> Vec<OwnedValue> {
    (0..n)
        .map(|i| item(c, i, &format!("o{i}"), 100 * (i as i64 + 1)))
        .collect()
}

fn batch(n: usize) -> (Contract, Vec<OwnedValue>, Batch) {
    let c = contract();
    let list = items(&c, n);
    let b = Batch::build(&c, Semantics::PerItem, &list, None).unwrap();
    (c, list, b)
}

fn input(expires_at: i64) -> DecisionInput<'static> {
    DecisionInput {
        approval_id: "ap",
        decision_id: "d",
        decision: Decision::Approved,
        approver: "b",
        decided_at: 0,
        expires_at,
        proposed_digest: None,
        role: None,
        on_behalf_of: None,
        delegation: None,
    }
}

fn item_value(b: &Batch, i: usize) -> OwnedValue {
    let proof = b.proof(i as u64).unwrap().to_value();
    crate::model::ledger::values::object(vec![("action", b.actions()[i].clone()), ("proof", proof)])
}

fn context(c: &Contract, extra: &str) -> Context {
    Context::with_contract(
        &json(&format!(
            r#"{{"now":5,"tenant":"a","policy_version":"p",
            "approver_authorized":{{"approver":"b","authorized":true}},
            "subject_authorized":{{"subject":"s","authorized":true}},
            "revoked":{{"approval_id":"ap","revoked":false}}{extra}}}"#
        )),
        Some(c.clone()),
    )
    .unwrap()
}

#[test]
fn the_root_is_rfc_9162_over_the_item_fingerprints() {
    let (_, list, b) = batch(3);
    let leaves: Vec<_> = list.iter().map(|a| leaf(&crate::fingerprint(a))).collect();
    // MTH of three leaves: the first split is at two (§2.1.1).
    let root = node_hash(&node_hash(&leaves[0], &leaves[1]), &leaves[2]);
    assert_eq!(b.header().root, root);
    assert_eq!(b.header().size, 3);
    assert_eq!(b.digest(), crate::fingerprint(b.header_value()));
    assert_eq!(Header::from_value(b.header_value()).unwrap(), *b.header());
    // The order is part of the batch.
    let mut swapped = list.clone();
    swapped.swap(0, 1);
    let c = contract();
    let other = Batch::build(&c, Semantics::PerItem, &swapped, None).unwrap();
    assert_ne!(other.digest(), b.digest());
    // And so are the semantics.
    let aon = Batch::build(&c, Semantics::AllOrNothing, &list, None).unwrap();
    assert_ne!(aon.digest(), b.digest());
    assert_eq!(aon.header().root, b.header().root);
}

#[test]
fn every_item_verifies_with_a_logarithmic_proof_and_nothing_else_does() {
    let (c, list, b) = batch(6);
    for (i, a) in list.iter().enumerate() {
        let p = b.proof(i as u64).unwrap();
        assert!(p.path.len() <= 3, "6 items, at most 3 levels");
        assert_eq!(
            verify_item(b.header(), a, &p).unwrap(),
            crate::fingerprint(a)
        );
        let read = ItemProof::from_value(&p.to_value()).unwrap();
        assert_eq!(read, p);
    }
    let p0 = b.proof(0).unwrap();
    // Another item with item 0's proof, a changed item, an index past the end.
    assert_eq!(
        verify_item(b.header(), &list[1], &p0).unwrap_err().code(),
        Code::NotInBatch
    );
    let changed = item(&c, 0, "o0", 101);
    assert_eq!(
        verify_item(b.header(), &changed, &p0).unwrap_err().code(),
        Code::NotInBatch
    );
    let past = ItemProof {
        index: 6,
        path: p0.path.clone(),
    };
    assert_eq!(
        verify_item(b.header(), &list[0], &past).unwrap_err().code(),
        Code::NotInBatch
    );
    // An item of another tenant or contract is not in the batch, whatever its path.
    let other_tenant =
        json(&crate::canonicalize(&list[0]).replace(r#""tenant":"a""#, r#""tenant":"z""#));
    assert_eq!(
        verify_item(b.header(), &other_tenant, &p0)
            .unwrap_err()
            .code(),
        Code::NotInBatch
    );
    assert!(b.proof(6).is_none());
}

#[test]
fn a_batch_is_built_only_within_its_contract() {
    let c = contract();
    let build = |list: &[OwnedValue]| Batch::build(&c, Semantics::PerItem, list, None);
    let err = |list: &[OwnedValue]| {
        let e = build(list).unwrap_err();
        (e.code(), e.path().to_owned())
    };
    assert_eq!(err(&[]).0, Code::InvalidBatch);
    assert_eq!(err(&items(&c, 9)).0, Code::BatchTooLarge);
    let mut dup = items(&c, 3);
    dup[2] = item(&c, 0, "o9", 1);
    assert_eq!(err(&dup), (Code::InvalidBatch, "/2".into()));
    let mut sum = items(&c, 3);
    sum[1] = item(&c, 1, "o1", 9950);
    assert_eq!(
        err(&sum),
        (Code::BatchCapExceeded, "/1/args/amount_minor".into())
    );
    // Seven distinct orders, six allowed; repeats of one order count once.
    assert_eq!(
        err(&items(&c, 7)),
        (Code::BatchCapExceeded, "/6/args/order_id".into())
    );
    let repeats: Vec<_> = (0..8).map(|i| item(&c, i, "same", 10)).collect();
    assert_eq!(build(&repeats).unwrap().totals().targets.len(), 1);
    let mut bad_args = items(&c, 2);
    let text = crate::canonicalize(&item(&c, 1, "o1", 1))
        .replace(r#""amount_minor":1"#, r#""amount_minor":"1""#);
    bad_args[1] = json(&text);
    assert_eq!(err(&bad_args).1, "/1/args/amount_minor");
    let no_batch = Contract::from_value(&json(&CONTRACT.replace(
        r#""batch":{"max_items":8,"caps":{"count":8,"sum":{"pointer":"/args/amount_minor","max":10000},
        "distinct":{"pointer":"/args/order_id","max":6}}}"#,
        r#""max_approval_ms":100"#,
    )))
    .unwrap();
    assert_eq!(
        Batch::build(&no_batch, Semantics::PerItem, &items(&c, 1), None)
            .unwrap_err()
            .code(),
        Code::BatchNotAllowed
    );
    // A server's policy narrows the contract's.
    let server = Policy::from_value(&json(r#"{"max_items":2}"#)).unwrap();
    assert_eq!(
        Batch::build(&c, Semantics::PerItem, &items(&c, 3), Some(&server))
            .unwrap_err()
            .code(),
        Code::BatchTooLarge
    );
}

#[test]
fn a_deselection_is_another_batch_in_the_same_order() {
    let (_, list, b) = batch(5);
    let kept = b.deselect(&[1, 3]).unwrap();
    assert_eq!(
        kept.actions(),
        &[list[0].clone(), list[2].clone(), list[4].clone()]
    );
    assert_ne!(kept.digest(), b.digest());
    assert_eq!(kept.totals().count, 3);
    assert_eq!(kept.totals().sum, 100 + 300 + 500);
    for i in 0..3 {
        let p = kept.proof(i).unwrap();
        verify_item(kept.header(), &kept.actions()[i as usize], &p).unwrap();
        assert!(verify_item(b.header(), &kept.actions()[i as usize], &p).is_err() || i == 0);
    }
    for bad in [&[][..], &[5], &[1, 1], &[0, 1, 2, 3, 4]] {
        assert_eq!(b.deselect(bad).unwrap_err().code(), Code::InvalidBatch);
    }
}

#[test]
fn a_batch_decision_is_its_own_record() {
    let (_, list, b) = batch(3);
    let d = BatchDecision::decide(b.header(), &input(10)).unwrap();
    assert!(d.is_sealed());
    assert_eq!(d.batch_digest(), b.digest());
    // Neither record reads as the other.
    assert_eq!(
        Approval::from_value(d.value()).unwrap_err().code(),
        Code::InvalidApproval
    );
    let action =
        Approval::decide(&crate::Action::from_value(&list[0]).unwrap(), &input(10)).unwrap();
    assert_eq!(
        BatchDecision::from_value(action.value())
            .unwrap_err()
            .code(),
        Code::InvalidApproval
    );
    // A header changed after the decision is not sealed.
    let tampered = json(&crate::canonicalize(d.value()).replace(r#""size":3"#, r#""size":4"#));
    assert!(!BatchDecision::from_value(&tampered).unwrap().is_sealed());
}

#[test]
fn each_item_is_checked_against_the_batch_decision_as_if_approved_alone() {
    let (c, list, b) = batch(4);
    let d = BatchDecision::decide(b.header(), &input(10)).unwrap();
    let record = [d.value().clone()];
    let ctx = context(&c, "");
    for (i, a) in list.iter().enumerate() {
        let v = check_item_with(&record, &item_value(&b, i), a, &ctx);
        assert_eq!(v.reasons, [], "item {i}");
        assert_eq!(v.approved_digest, Some(crate::fingerprint(a)));
    }
    // Drift: the presented action differs from the frozen item.
    let drifted = item(&c, 2, "o2", 301);
    let v = check_item_with(&record, &item_value(&b, 2), &drifted, &ctx);
    assert_eq!(v.reasons, [Reason::ActionDrift]);
    assert_eq!(v.drift, ["/args/amount_minor"]);
    assert_eq!(v.outcome, Outcome::Reject);
    // An item outside the batch: its frozen action is not the one the proof is for.
    let outside = crate::model::ledger::values::object(vec![
        ("action", drifted.clone()),
        ("proof", b.proof(2).unwrap().to_value()),
    ]);
    let v = check_item_with(&record, &outside, &drifted, &ctx);
    assert!(v.reasons.contains(&Reason::NotInBatch), "{:?}", v.reasons);
    assert_eq!(v.outcome, Outcome::Reject);
    // A malformed item.
    let v = check_item_with(&record, &json("{}"), &list[0], &ctx);
    assert!(v.reasons.contains(&Reason::NotInBatch));
    // Expired; the breaker open.
    let late = Context::with_contract(
        &json(
            r#"{"now":11,"tenant":"a","policy_version":"p",
            "approver_authorized":{"approver":"b","authorized":true},
            "subject_authorized":{"subject":"s","authorized":true},
            "revoked":{"approval_id":"ap","revoked":false}}"#,
        ),
        Some(c.clone()),
    )
    .unwrap();
    let v = check_item_with(&record, &item_value(&b, 0), &list[0], &late);
    assert_eq!(v.reasons, [Reason::Expired]);
    let open = context(&c, r#","breaker":"open""#);
    let v = check_item_with(&record, &item_value(&b, 0), &list[0], &open);
    assert_eq!(v.reasons, [Reason::BreakerOpen]);
    assert_eq!(v.outcome, Outcome::Reapprove);
    let half = context(&c, r#","breaker":"half_open""#);
    assert_eq!(
        check_item_with(&record, &item_value(&b, 0), &list[0], &half).reasons,
        []
    );
    // A batch decision is no approval of one action, nor an action approval of a batch item.
    assert!(check_with(Some(&record[0]), &list[0], &ctx)
        .reasons
        .contains(&Reason::InvalidApproval));
    let single =
        Approval::decide(&crate::Action::from_value(&list[0]).unwrap(), &input(10)).unwrap();
    let v = check_item_with(
        &[single.value().clone()],
        &item_value(&b, 0),
        &list[0],
        &ctx,
    );
    assert!(v.reasons.contains(&Reason::InvalidApproval));
    // A batch larger than the contract in force allows is not a valid decision.
    let smaller = Contract::from_value(&json(
        &CONTRACT.replace(r#""max_items":8"#, r#""max_items":3"#),
    ))
    .unwrap();
    let v = check_item_with(
        &record,
        &item_value(&b, 0),
        &list[0],
        &context(&smaller, ""),
    );
    assert!(
        v.reasons.contains(&Reason::InvalidApproval),
        "{:?}",
        v.reasons
    );
}

#[test]
fn a_signed_batch_decision_is_proven_once_for_every_item() {
    let (c, list, b) = batch(3);
    let d = BatchDecision::decide(b.header(), &input(10)).unwrap();
    let k = SigningKey::from_seed(&[7; 32]);
    let envelope = sign_approval(d.value(), &k).unwrap();
    let keys = format!(
        r#"{{"service_keys":{{"{}":{{"key":"{}"}}}}}}"#,
        k.public_key().keyid(),
        base64url::encode(k.public_key().as_bytes())
    );
    let verified =
        verify_batch_proof(&envelope, &KeySet::from_value(&json(&keys)).unwrap(), 5).unwrap();
    assert_eq!(verified.approval().batch_digest(), b.digest());
    // The action-approval verifier refuses it: it is no approval of one action.
    assert!(crate::verify_proof(&envelope, &KeySet::from_value(&json(&keys)).unwrap(), 5).is_err());
    let required = context(
        &c,
        &format!(r#","proof":{{"required":true,"keys":{keys}}}"#),
    );
    let v = check_item_with(
        std::slice::from_ref(&envelope),
        &item_value(&b, 1),
        &list[1],
        &required,
    );
    assert_eq!(v.reasons, []);
    let v = check_item_with(
        &[d.value().clone()],
        &item_value(&b, 1),
        &list[1],
        &required,
    );
    assert_eq!(v.reasons, [Reason::ProofMissing]);
    // A tampered header cannot be signed.
    let tampered = json(&crate::canonicalize(d.value()).replace(r#""size":3"#, r#""size":4"#));
    assert_eq!(
        sign_approval(&tampered, &k).unwrap_err().code(),
        Code::InvalidApproval
    );
}

fn breaker_policy() -> BreakerPolicy {
    BreakerPolicy::from_value(&json(
        r#"{"max_failures":3,"window_ms":1000,"max_claims_per_minute":4,"close_after":2}"#,
    ))
    .unwrap()
}

#[test]
fn the_breaker_trips_on_failures_in_the_window_and_closes_after_successes() {
    use crate::model::ledger::Reported::{Failed, Succeeded, Unknown};
    let p = breaker_policy();
    let mut b = Breaker::default();
    assert_eq!(b.on_outcome(Some(&p), Failed, 0), Transition::None);
    assert_eq!(b.on_outcome(Some(&p), Unknown, 500), Transition::None);
    // The first failure left the window: two in it, not three.
    assert_eq!(b.on_outcome(Some(&p), Failed, 1200), Transition::None);
    assert_eq!(
        b.on_outcome(Some(&p), Unknown, 1300),
        Transition::Tripped(Trip::Failures)
    );
    assert_eq!(b.state, BreakerState::Open);
    assert_eq!(b.trips, 1);
    // Open: outcomes of claims made before the trip change nothing; claims are refused.
    assert_eq!(b.on_outcome(Some(&p), Failed, 1400), Transition::None);
    assert_eq!(b.trips, 1);
    assert_eq!(
        b.on_claim(Some(&p), 1500).unwrap_err().code(),
        Code::BreakerOpen
    );
    assert_eq!(b.on_redecided(), Transition::HalfOpened);
    assert_eq!(b.on_redecided(), Transition::None);
    assert_eq!(b.on_claim(Some(&p), 1600).unwrap(), Transition::None);
    assert_eq!(b.on_outcome(Some(&p), Succeeded, 1700), Transition::None);
    // Half-open: one failure trips it again.
    assert_eq!(
        b.on_outcome(Some(&p), Failed, 1800),
        Transition::Tripped(Trip::Failures)
    );
    assert_eq!(b.on_redecided(), Transition::HalfOpened);
    assert_eq!(b.on_outcome(Some(&p), Succeeded, 1900), Transition::None);
    assert_eq!(b.on_outcome(Some(&p), Succeeded, 2000), Transition::Closed);
    assert_eq!(b.state, BreakerState::Closed);
    assert_eq!(Breaker::from_value(&b.to_value()).unwrap(), b);
    // Without a policy it never trips.
    let mut none = Breaker::default();
    for t in 0..100 {
        assert_eq!(none.on_outcome(None, Failed, t), Transition::None);
        assert_eq!(none.on_claim(None, t).unwrap(), Transition::None);
    }
}

#[test]
fn the_breaker_trips_on_claims_too_fast_and_keeps_bounded_state() {
    let p = breaker_policy();
    let mut b = Breaker::default();
    for t in 0..4 {
        assert_eq!(b.on_claim(Some(&p), t * 1000).unwrap(), Transition::None);
    }
    assert_eq!(
        b.on_claim(Some(&p), 5000).unwrap(),
        Transition::Tripped(Trip::ClaimRate)
    );
    let mut slow = Breaker::default();
    for t in 0..100 {
        assert_eq!(
            slow.on_claim(Some(&p), t * 20_000).unwrap(),
            Transition::None
        );
        assert!(slow.claims.len() <= 4);
    }
}

#[test]
fn totals_round_trip_and_hold_no_argument_value() {
    let (_, _, b) = batch(3);
    let stored = b.totals().to_value();
    assert_eq!(Totals::from_value(&stored).unwrap(), *b.totals());
    let text = crate::canonicalize(&stored);
    assert!(!text.contains("o1"), "{text}");
    assert_eq!(
        crate::canonicalize(&b.totals().summary(&b.policy().caps)),
        r#"{"count":3,"distinct":3,"sum":600}"#
    );
}

#[test]
fn a_server_policy_only_narrows() {
    let c = contract();
    let own = c.batch().unwrap();
    let server = Policy::from_value(&json(
        r#"{"max_items":20,"caps":{"sum":{"pointer":"/args/amount_minor","max":500}},
            "breaker":{"max_failures":2,"window_ms":10,"close_after":1}}"#,
    ))
    .unwrap();
    let n = own.narrow(&server);
    assert_eq!(n.max_items, 8);
    assert_eq!(n.caps.sum.as_ref().unwrap().max, 500);
    assert_eq!(n.caps.count, Some(8));
    assert_eq!(n.breaker.unwrap().max_failures, 2);
    for bad in [
        r#"{"max_items":0}"#,
        r#"{"max_items":1001}"#,
        r#"{"max_items":2,"caps":{"sum":{"pointer":"","max":1}}}"#,
        r#"{"max_items":2,"breaker":{"max_failures":0,"window_ms":1,"close_after":1}}"#,
        r#"{"max_items":2,"extra":1}"#,
    ] {
        assert_eq!(
            Policy::from_value(&json(bad)).unwrap_err().code(),
            Code::InvalidContract,
            "{bad}"
        );
    }
}

#[test]
fn all_or_nothing_claims_every_item_or_none() {
    let c = contract();
    let list = items(&c, 3);
    for (semantics, want) in [
        (Semantics::AllOrNothing, vec![]),
        (Semantics::PerItem, vec![0, 2]),
    ] {
        let b = Batch::build(&c, semantics, &list, None).unwrap();
        let d = BatchDecision::decide(b.header(), &input(10)).unwrap();
        let values: Vec<_> = (0..3).map(|i| item_value(&b, i)).collect();
        let drifted = item(&c, 1, "o1", 201);
        let presented = [&list[0], &drifted, &list[2]];
        let pairs: Vec<_> = values.iter().zip(presented).collect();
        let all = check_batch_with(&[d.value().clone()], &pairs, &context(&c, ""));
        assert_eq!(all.semantics, Some(semantics));
        assert_eq!(all.claimable, want, "{semantics:?}");
        assert_eq!(all.verdicts[1].reasons, [Reason::ActionDrift]);
        // Every item as presented: all of them.
        let pairs: Vec<_> = values.iter().zip(&list).collect();
        let all = check_batch_with(&[d.value().clone()], &pairs, &context(&c, ""));
        assert_eq!(all.claimable, [0, 1, 2]);
        // No decision: nothing.
        assert_eq!(
            check_batch_with(&[], &pairs, &context(&c, "")).claimable,
            Vec::<usize>::new()
        );
    }
}
