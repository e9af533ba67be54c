//! The delegation chain of a recorded decision, held to its action offline ([`super::delegated`]):
//! an honest ledger records only chains that hold, so the refusals are shown on the decision of
//! `y_delegated_decision` with what a dishonest one would have recorded instead.

use super::delegated;
use crate::error::Code;
use crate::json::options::Options;
use crate::json::value::{OwnedValue, Value};
use crate::model::action::Action;
use crate::model::evidence::bundle::Bundle;
use crate::model::ledger::{Event, EventKind};

/// The decision's record (its signed payload), its decided event and the bundle's actions.
fn recorded() -> (OwnedValue, Event, Vec<(crate::Digest, Action)>) {
    let text =
        include_str!("../../../../../conformance/vectors/evidence/y_delegated_decision.json");
    let v = crate::parse(text.as_bytes(), &Options::default())
        .unwrap()
        .into_owned();
    let b = Bundle::from_value(v.pointer("/bundle").unwrap()).unwrap();
    let payload = b.decisions[0]
        .pointer("/payload")
        .and_then(Value::as_str)
        .unwrap();
    let bytes = crate::base64::url::decode(payload).unwrap();
    let record = crate::parse(&bytes, &Options::default())
        .unwrap()
        .into_owned();
    let event = b
        .events
        .iter()
        .map(|e| e.event.clone())
        .find(|e| e.kind == EventKind::Decided)
        .unwrap();
    let actions = b
        .actions
        .iter()
        .map(|a| {
            let a = Action::from_value(a).unwrap();
            (a.digest(), a)
        })
        .collect();
    (record, event, actions)
}

fn refused(record: &OwnedValue, e: &Event, actions: &[(crate::Digest, Action)], why: &str) {
    let err = delegated(record, e, actions).unwrap_err();
    assert_eq!(err.code(), Code::DelegationRefused, "{err}");
    assert_eq!(err.path(), "/delegation");
    assert!(err.message().ends_with(why), "{err}");
}

#[test]
fn the_recorded_chain_holds_for_its_action() {
    let (record, e, actions) = recorded();
    assert!(record.pointer("/delegation/0").is_some());
    delegated(&record, &e, &actions).unwrap();
}

#[test]
fn a_chain_recorded_after_its_link_ran_out_is_refused() {
    let (record, mut e, actions) = recorded();
    // The link holds until 9,000,000,000,000 ms.
    e.at = 9_000_000_000_000;
    refused(&record, &e, &actions, "delegation_expired");
}

#[test]
fn a_chain_that_does_not_start_at_whom_the_decision_counts_for_is_refused() {
    let (mut record, e, actions) = recorded();
    let Value::Object(o) = &mut record else {
        panic!("a record is an object")
    };
    *o.get_mut("on_behalf_of").unwrap() = Value::String("user:dave".into());
    refused(&record, &e, &actions, "delegation_invalid");
}

#[test]
fn a_chain_over_another_tenant_than_the_action_is_refused() {
    let (record, e, mut actions) = recorded();
    let Value::Object(mut a) = actions[0].1.value().clone() else {
        panic!("an action is an object")
    };
    *a.get_mut("tenant").unwrap() = Value::String("tenant-b".into());
    // Found by the digest the event names, as a dishonest ledger's bundle would hold it.
    actions[0].1 = Action::from_value(&Value::Object(a)).unwrap();
    refused(&record, &e, &actions, "delegation_out_of_scope");
}
