//! A check under a contract that marks values sensitive: the approval froze the action
//! committed, the action is presented in the clear, the context carries the disclosures.

use super::*;
use crate::base64::url as b64url;
use crate::sensitive::SALT_BYTES;
use crate::{canonicalize, parse, Action, ActionIds, Approval, Decision, DecisionInput, Options};

fn json(text: &str) -> OwnedValue {
    parse(text.as_bytes(), &Options::default())
        .unwrap()
        .into_owned()
}

fn contract() -> Contract {
    Contract::from_value(&json(
        r#"{"tool":"t","version":"1","effect":"write","approval":"always","cost_minor":0,
            "args":{"type":"object","required":["n","card"],
                    "properties":{"n":{"type":"integer"},"card":{"type":"string"},
                                  "to":{"type":"array","items":{"type":"string"}}}},
            "sensitive":{"/args/card":"pci","/args/to/*":"pii"}}"#,
    ))
    .unwrap()
}

const IDS: ActionIds<'static> = ActionIds {
    tenant: "a",
    subject: "s",
    job_id: "j",
    request_id: "r",
    policy_version: "p",
};

const ARGS: &str = r#"{"n":1,"card":"4111111111111111","to":["x@example.com","y@example.com"]}"#;

fn salts(seed: u8) -> impl FnMut() -> [u8; SALT_BYTES] {
    let mut n = seed;
    move || {
        n = n.wrapping_add(1);
        [n; SALT_BYTES]
    }
}

/// The committed action's approval and the disclosures (as they travel).
fn approved(seed: u8) -> (OwnedValue, Vec<String>) {
    let (action, ds) = Action::commit(&contract(), &json(ARGS), &IDS, &mut salts(seed)).unwrap();
    let approval = Approval::decide(
        &action,
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
    let ds = ds.iter().map(|d| d.encoded().to_owned()).collect();
    (approval.value().clone(), ds)
}

fn clear(args: &str) -> OwnedValue {
    Action::build(&contract(), &json(args), &IDS)
        .unwrap()
        .value()
        .clone()
}

fn context(disclosures: &[String]) -> Result<Context> {
    let list = disclosures
        .iter()
        .map(|d| format!("{d:?}"))
        .collect::<Vec<_>>()
        .join(",");
    Context::with_contract(
        &json(&format!(
            r#"{{"now":5,"tenant":"a","policy_version":"p",
                "approver_authorized":{{"approver":"b","authorized":true}},
                "subject_authorized":{{"subject":"s","authorized":true}},
                "revoked":{{"approval_id":"ap","revoked":false}},
                "disclosures":[{list}]}}"#
        )),
        Some(contract()),
    )
}

fn verdict(approval: &OwnedValue, action: &OwnedValue, ds: &[String]) -> Verdict {
    check_with(Some(approval), action, &context(ds).unwrap())
}

#[test]
fn the_clear_action_with_its_disclosures_is_permitted_as_the_committed_one() {
    let (approval, ds) = approved(0);
    let v = verdict(&approval, &clear(ARGS), &ds);
    assert_eq!(v.reasons, []);
    // The fingerprint is the committed action's, the approved one.
    assert_eq!(Some(v.action_digest), v.approved_digest);
    // A loaded approval gives the same.
    let loaded = Approval::from_value(&approval).unwrap();
    let again = check_approval(Some(&loaded), &clear(ARGS), &context(&ds).unwrap());
    assert_eq!(again.reasons, []);
}

#[test]
fn drift_in_a_sensitive_value_is_drift_at_its_place_with_no_value() {
    let (approval, ds) = approved(0);
    let other = ARGS.replace("y@example.com", "z@example.com");
    let v = verdict(&approval, &clear(&other), &ds);
    assert_eq!(v.reasons, [Reason::ActionDrift]);
    assert_eq!(v.drift, ["/args/to/1"]);
    let other = ARGS.replace("4111111111111111", "4000000000000002");
    let v = verdict(&approval, &clear(&other), &ds);
    assert_eq!(v.drift, ["/args/card"]);
    let text = canonicalize(&v.to_value());
    for secret in ["4111", "4000", "@example"] {
        assert!(!text.contains(secret), "{secret} in {text}");
    }
    // An element more: drift at the array, the new element never hashed without a salt.
    let longer = ARGS.replace(r#""y@example.com""#, r#""y@example.com","w@example.com""#);
    let v = verdict(&approval, &clear(&longer), &ds);
    assert_eq!(v.drift, ["/args/to"]);
    // A value that is not sensitive drifts as always.
    let v = verdict(
        &approval,
        &clear(&ARGS.replace(r#""n":1"#, r#""n":2"#)),
        &ds,
    );
    assert_eq!(v.drift, ["/args/n"]);
}

#[test]
fn disclosures_that_do_not_open_the_approval_are_a_reason_with_their_code() {
    let (approval, ds) = approved(0);
    let (_, theirs) = approved(100);
    let run = |ds: &[String]| {
        let v = verdict(&approval, &clear(ARGS), ds);
        let e = v.action_error.map(|e| (e.code(), e.path().to_owned()));
        (v.reasons, e)
    };
    let refused = |code, path: &str| {
        (
            vec![Reason::ActionDrift, Reason::DisclosureInvalid],
            Some((code, path.to_owned())),
        )
    };
    // Missing: the value cannot be shown to be the approved one.
    assert_eq!(
        run(&ds[..2]),
        refused(Code::DisclosureMissing, "/args/to/1")
    );
    // Another task's (another salt).
    let mut reused = ds.clone();
    reused[0] = theirs[0].clone();
    assert_eq!(run(&reused), refused(Code::DisclosureMismatch, "/0"));
    // A disclosure of a place that is not sensitive.
    let extra = Disclosure::new(&[7; SALT_BYTES], "/args/n", &json("1"));
    let mut more = ds.clone();
    more.push(extra.encoded().to_owned());
    let (reasons, e) = run(&more);
    assert_eq!(reasons, [Reason::DisclosureInvalid]);
    assert_eq!(e, Some((Code::DisclosureExtra, "/3".to_owned())));
}

#[test]
fn a_disclosure_that_does_not_read_is_an_error_at_its_index() {
    let (_, ds) = approved(0);
    let salt = b64url::encode(&[7; SALT_BYTES]);
    let spaced = b64url::encode(format!(r#"["{salt}", "/args/card", "1"]"#).as_bytes());
    for (bad, code, path) in [
        (
            "not base64!".to_owned(),
            Code::InvalidDisclosure,
            "/disclosures/1",
        ),
        (spaced, Code::DisclosureNotCanonical, "/disclosures/1"),
    ] {
        let e = context(&[ds[0].clone(), bad]).unwrap_err();
        assert_eq!((e.code(), e.path()), (code, path));
    }
    let e = Context::with_contract(
        &json(
            r#"{"now":5,"tenant":"a","policy_version":"p","approver_authorized":null,
                 "subject_authorized":{"subject":"s","authorized":true},"revoked":null,
                 "disclosures":[1]}"#,
        ),
        None,
    )
    .unwrap_err();
    assert_eq!(
        (e.code(), e.path()),
        (Code::InvalidDisclosure, "/disclosures/0")
    );
}

#[test]
fn an_approval_that_froze_the_values_in_the_clear_is_refused() {
    let (_, ds) = approved(0);
    let action = Action::build(&contract(), &json(ARGS), &IDS).unwrap();
    let approval = Approval::decide(
        &action,
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
    let v = verdict(approval.value(), action.value(), &ds);
    assert!(v.reasons.contains(&Reason::DisclosureInvalid));
    assert_eq!(v.outcome, Outcome::Reject);
    assert_eq!(v.action_error.unwrap().code(), Code::NotCommitted);
}

#[test]
fn without_an_approval_the_fingerprint_holds_no_value_in_the_clear() {
    let ctx = context(&[]).unwrap();
    let a = check_with(None, &clear(ARGS), &ctx);
    let b = check_with(
        None,
        &clear(&ARGS.replace("4111111111111111", "4000000000000002")),
        &ctx,
    );
    assert_eq!(a.reasons, [Reason::NoApproval]);
    // Values no disclosure salts are never hashed: two cards, one fingerprint.
    assert_eq!(a.action_digest, b.action_digest);
}
