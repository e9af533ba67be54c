use super::*;
use crate::model::ledger::retention::AtFinish;
use crate::{parse, Options, OwnedValue};

fn json(text: &str) -> OwnedValue {
    parse(text.as_bytes(), &Options::default())
        .unwrap()
        .into_owned()
}

/// The code and path of a refused request.
fn refused<T: std::fmt::Debug>(r: Result<T>) -> (Code, String) {
    let e = r.unwrap_err();
    (e.code(), e.path().to_owned())
}

const CLAIM: &str = r#"{"task_id": "task_1", "action": {"a": 1}, "facts": {"f": 2},
    "executor": "worker-1", "lease_ms": 60000}"#;

#[test]
fn a_claim_takes_exactly_its_fields() {
    let v = json(CLAIM);
    let c = Claim::from_value(&v).unwrap();
    assert_eq!(
        (c.task_id, c.executor, c.lease_ms, c.budget),
        ("task_1", "worker-1", 60000, None)
    );
    assert_eq!(c.action, &json(r#"{"a": 1}"#));
    assert_eq!(c.facts, &json(r#"{"f": 2}"#));
    for (budget, want) in [(r#""refunds""#, Some("refunds")), ("null", None)] {
        let v = json(&CLAIM.replace("60000}", &format!(r#"60000, "budget": {budget}}}"#)));
        assert_eq!(Claim::from_value(&v).unwrap().budget, want, "{budget}");
    }
    let cases = [
        (r#""lease_ms": 60000"#, r#""lease_ms": 0"#, "/lease_ms"),
        (
            r#""lease_ms": 60000"#,
            r#""lease_ms": "60000""#,
            "/lease_ms",
        ),
        (r#""lease_ms": 60000"#, r#""lease_ms": 1.5"#, "/lease_ms"),
        (
            r#""executor": "worker-1""#,
            r#""executor": " w""#,
            "/executor",
        ),
        (r#""executor": "worker-1""#, r#""executor": 7"#, "/executor"),
        (r#""task_id": "task_1""#, r#""task_id": null"#, "/task_id"),
        (
            r#""lease_ms": 60000"#,
            r#""lease_ms": 1, "budget": true"#,
            "/budget",
        ),
        (r#""lease_ms": 60000"#, r#""lease_ms": 1, "now": 5"#, "/now"),
        (r#", "lease_ms": 60000"#, "", "/lease_ms"),
    ];
    for (from, to, path) in cases {
        let v = json(&CLAIM.replace(from, to));
        assert_eq!(
            refused(Claim::from_value(&v)),
            (Code::InvalidRequest, path.to_owned()),
            "{to}"
        );
    }
    assert_eq!(
        refused(Claim::from_value(&json("[]"))),
        (Code::InvalidRequest, String::new())
    );
}

#[test]
fn completions_and_reconciliations_name_their_outcome() {
    let v = json(r#"{"task_id": "t", "fence": 2, "outcome": "unknown", "executor": "w"}"#);
    let c = Complete::from_value(&v).unwrap();
    assert_eq!((c.fence, c.outcome, c.result), (2, Reported::Unknown, None));
    let v = json(
        r#"{"task_id": "t", "fence": 0, "outcome": "failed", "executor": "w", "result": {"x": 1}}"#,
    );
    assert_eq!(
        Complete::from_value(&v).unwrap().result,
        Some(&json(r#"{"x": 1}"#))
    );
    let v = json(r#"{"task_id": "t", "fence": 1, "outcome": "done", "executor": "w"}"#);
    assert_eq!(
        refused(Complete::from_value(&v)),
        (Code::InvalidRequest, "/outcome".into())
    );
    let v = json(r#"{"task_id": "t", "fence": -1, "outcome": "failed", "executor": "w"}"#);
    assert_eq!(
        refused(Complete::from_value(&v)),
        (Code::InvalidRequest, "/fence".into())
    );
    let v = json(r#"{"task_id": "t", "observed": "not_executed", "actor": "r", "result": null}"#);
    let r = Reconcile::from_value(&v).unwrap();
    assert_eq!((r.observed, r.result), (Observed::NotExecuted, None));
    let v = json(r#"{"task_id": "t", "observed": "unknown", "actor": "r"}"#);
    assert_eq!(
        refused(Reconcile::from_value(&v)),
        (Code::InvalidRequest, "/observed".into())
    );
}

#[test]
fn the_small_requests() {
    let v = json(r#"{"action": {}, "contract": {}, "proposer": "agent"}"#);
    assert_eq!(Propose::from_value(&v).unwrap().proposer, "agent");
    let v = json(r#"{"action": {}, "proposer": "agent"}"#);
    assert_eq!(
        refused(Propose::from_value(&v)),
        (Code::InvalidRequest, "/contract".into())
    );
    let v = json(r#"{"approval_id": "apr_1", "actor": "admin"}"#);
    assert_eq!(Revoke::from_value(&v).unwrap().approval_id, "apr_1");
    let v = json(r#"{"name": "refunds", "limit_minor": -1}"#);
    assert_eq!(
        refused(SetBudget::from_value(&v)),
        (Code::InvalidRequest, "/limit_minor".into())
    );
    let v = json(r#"{"state": "claimed", "tenant": null}"#);
    let f = Filter::from_value(&v).unwrap();
    assert_eq!((f.state, f.tenant), (Some(State::Claimed), None));
    let v = json("{}");
    let f = Filter::from_value(&v).unwrap();
    assert_eq!((f.state, f.tenant), (None, None));
    let v = json(r#"{"state": "done"}"#);
    assert_eq!(
        refused(Filter::from_value(&v)),
        (Code::InvalidRequest, "/state".into())
    );
    let v = json(r#"{"tenant": "tenant-a", "job_id": "job-1", "request_id": "req-1"}"#);
    assert_eq!(
        TaskIdentity::from_value(&v).unwrap().task_id(),
        crate::ledger::task_id("tenant-a", "job-1", "req-1")
    );
    assert_eq!(
        identity(&json(r#"{"task_id": "task_1"}"#), "task_id").unwrap(),
        "task_1"
    );
    assert_eq!(
        refused(identity(&json(r#"{"task_id": 1}"#), "task_id")),
        (Code::InvalidRequest, "/task_id".into())
    );
    assert!(nothing(&json("{}")).is_ok());
    assert_eq!(
        refused(nothing(&json(r#"{"x": 1}"#))),
        (Code::InvalidRequest, "/x".into())
    );
    assert_eq!(integer(&json(r#"{"ms": 5}"#), "ms", 0).unwrap(), 5);
    assert_eq!(
        refused(integer(&json(r#"{"ms": true}"#), "ms", 0)),
        (Code::InvalidRequest, "/ms".into())
    );
}

#[test]
fn chain_heads_are_read_as_a_report_lists_them() {
    let d = format!("sha256:{}", "ab".repeat(32));
    let v = json(&format!(r#"[{{"chain": 3, "seq": 7, "digest": "{d}"}}]"#));
    assert_eq!(heads(&v).unwrap(), vec![(3, 7, d.parse().unwrap())]);
    assert!(heads(&json("null")).unwrap().is_empty());
    let v = json(&format!(r#"[{{"chain": 3, "seq": 0, "digest": "{d}"}}]"#));
    assert_eq!(refused(heads(&v)), (Code::InvalidRequest, "/0/seq".into()));
    assert_eq!(
        refused(heads(&json("{}"))),
        (Code::InvalidRequest, String::new())
    );
}

#[test]
fn an_open_request_names_the_url_and_the_proof_it_needs() {
    let v = json(r#"{"url": "sqlite::memory:"}"#);
    let open = Open::from_value(&v).unwrap();
    assert_eq!(open.url, "sqlite::memory:");
    assert!(open.proof.is_none());
    let v = json(r#"{"url": "sqlite::memory:", "proof": null}"#);
    assert!(Open::from_value(&v).unwrap().proof.is_none());
    let v = json(r#"{"url": "sqlite::memory:", "proof": {"required": true, "keys": {}}}"#);
    assert!(Open::from_value(&v).unwrap().proof.unwrap().required());
    // The proof policy is the server's trusted configuration: its shape errors are a context's.
    let v = json(r#"{"url": "sqlite::memory:", "proof": {"required": "yes", "keys": {}}}"#);
    assert_eq!(
        refused(Open::from_value(&v)),
        (Code::InvalidContext, "/proof/required".into())
    );
    let v = json(r#"{"url": "sqlite::memory:", "proof": {"required": true, "keys": {"x": 1}}}"#);
    assert_eq!(
        refused(Open::from_value(&v)),
        (Code::InvalidKeySet, "/proof/keys/x".into())
    );
    let v = json(r#"{"url": "sqlite::memory:", "clock": 5}"#);
    assert_eq!(
        refused(Open::from_value(&v)),
        (Code::InvalidRequest, "/clock".into())
    );
    let v = json(r#"{"url": 5}"#);
    assert_eq!(
        refused(Open::from_value(&v)),
        (Code::InvalidRequest, "/url".into())
    );
}

#[test]
fn a_retention_policy_names_its_class_time_and_finish() {
    let ok = r#"{"tenant": "t", "class": "pii", "keep_ms": 3600000, "at_finish": "shred",
        "actor": "dpo"}"#;
    let v = json(ok);
    let p = SetRetention::from_value(&v).unwrap();
    assert_eq!(
        (p.class, p.keep_ms, p.at_finish),
        ("pii", Some(3_600_000), AtFinish::Shred)
    );
    let v = json(&ok.replace("3600000", "null"));
    assert_eq!(SetRetention::from_value(&v).unwrap().keep_ms, None);
    for (from, to, path) in [
        (r#""keep_ms": 3600000, "#, "", "/keep_ms"),
        ("3600000", "-1", "/keep_ms"),
        (r#""pii""#, r#""PII""#, "/class"),
        (r#""shred""#, r#""delete""#, "/at_finish"),
    ] {
        let v = json(&ok.replace(from, to));
        assert_eq!(
            refused(SetRetention::from_value(&v)),
            (Code::InvalidRequest, path.into()),
            "{from} -> {to}"
        );
    }
    let v = json(r#"{"task_id": "task_1", "actor": "dpo"}"#);
    assert_eq!(Redact::from_value(&v).unwrap().task_id, "task_1");
}
