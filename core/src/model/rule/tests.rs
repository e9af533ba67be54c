use super::*;
use crate::{parse, Options};

fn json(text: &str) -> OwnedValue {
    parse(text.as_bytes(), &Options::default())
        .unwrap()
        .into_owned()
}

fn rule(when: &str) -> ApprovalRule {
    ApprovalRule::from_value(&json(&format!(r#"{{"when": [{when}]}}"#))).unwrap()
}

fn needs(when: &str, args: &str) -> bool {
    rule(when).evaluate(&json(args)).required
}

fn load_error(when: &str) -> (Code, String) {
    let e = ApprovalRule::from_value(&json(&format!(r#"{{"when": [{when}]}}"#))).unwrap_err();
    (e.code(), e.path().to_owned())
}

const ANY_OVER_1000: &str =
    r#"{"pointer": "/payments", "any": {"pointer": "/amount", "op": "gt", "value": 1000}}"#;
const ALL_USD: &str =
    r#"{"pointer": "/payments", "all": {"pointer": "/currency", "op": "eq", "value": "USD"}}"#;

#[test]
fn any_looks_at_every_element() {
    assert!(!needs(
        ANY_OVER_1000,
        r#"{"payments": [{"amount": 5}, {"amount": 1000}]}"#
    ));
    // The second element, which a pointer to /payments/0 would never see.
    assert!(needs(
        ANY_OVER_1000,
        r#"{"payments": [{"amount": 5}, {"amount": 1001}]}"#
    ));
    // Empty: no element is over 1000.
    assert!(!needs(ANY_OVER_1000, r#"{"payments": []}"#));
}

#[test]
fn all_needs_every_element() {
    assert!(needs(
        ALL_USD,
        r#"{"payments": [{"currency": "USD"}, {"currency": "USD"}]}"#
    ));
    assert!(!needs(
        ALL_USD,
        r#"{"payments": [{"currency": "USD"}, {"currency": "EUR"}]}"#
    ));
    // Empty: vacuously true.
    assert!(needs(ALL_USD, r#"{"payments": []}"#));
}

#[test]
fn quantifiers_fail_closed() {
    // Not an array, or missing.
    assert!(needs(ANY_OVER_1000, r#"{"payments": {"amount": 5}}"#));
    assert!(needs(ANY_OVER_1000, r#"{}"#));
    assert!(needs(ALL_USD, r#"{"payments": "USD"}"#));
    // An element without the member, or with a non-number.
    assert!(needs(ANY_OVER_1000, r#"{"payments": [{"amount": 5}, {}]}"#));
    assert!(needs(ANY_OVER_1000, r#"{"payments": [{"amount": "5"}]}"#));
    // Nested arrays, and "" for the element itself.
    let nested = r#"{"pointer": "/batches", "any": {"pointer": "", "any": {"pointer": "", "op": "gt", "value": 10}}}"#;
    assert!(!needs(nested, r#"{"batches": [[1, 2], [3]]}"#));
    assert!(needs(nested, r#"{"batches": [[1, 2], [3, 11]]}"#));
    assert!(needs(nested, r#"{"batches": [[1], 4]}"#));
}

#[test]
fn contains_on_strings_and_arrays() {
    let text = r#"{"pointer": "/note", "op": "contains", "value": "urgent"}"#;
    assert!(needs(text, r#"{"note": "very urgent refund"}"#));
    assert!(!needs(text, r#"{"note": "Urgent refund"}"#)); // case-sensitive
    assert!(needs(text, r#"{"note": 5}"#)); // neither string nor array: fail closed
    let list = r#"{"pointer": "/to", "op": "contains", "value": "ceo@example.com"}"#;
    assert!(needs(
        list,
        r#"{"to": ["a@example.com", "ceo@example.com"]}"#
    ));
    assert!(!needs(list, r#"{"to": ["a@example.com"]}"#));
    assert!(!needs(list, r#"{"to": []}"#));
    // A string argument against a non-string value cannot be compared: fail closed.
    let number = r#"{"pointer": "/to", "op": "contains", "value": 7}"#;
    assert!(needs(number, r#"{"to": "a7"}"#));
    assert!(needs(number, r#"{"to": [1, 7.0]}"#));
    assert!(!needs(number, r#"{"to": [1, "7"]}"#));
    // The empty string occurs in every string.
    assert!(needs(
        r#"{"pointer": "/note", "op": "contains", "value": ""}"#,
        r#"{"note": "x"}"#
    ));
}

#[test]
fn eq_and_in_compare_exact_json_values() {
    let eur = r#"{"pointer": "/currency", "op": "in", "value": ["EUR", "CNY"]}"#;
    assert!(needs(eur, r#"{"currency": "EUR"}"#));
    // Other spellings are other values: the schema must pin the allowed ones.
    assert!(!needs(eur, r#"{"currency": "eur"}"#));
    assert!(!needs(eur, r#"{"currency": "EUR "}"#));
    let eq = r#"{"pointer": "/n", "op": "eq", "value": 1000}"#;
    assert!(needs(eq, r#"{"n": 1e3}"#));
    assert!(needs(eq, r#"{"n": 1000.0}"#));
    assert!(!needs(eq, r#"{"n": "1000"}"#));
    assert!(!needs(
        r#"{"pointer": "/b", "op": "eq", "value": 1}"#,
        r#"{"b": true}"#
    ));
}

#[test]
fn malformed_quantifiers_are_refused_with_a_path() {
    let cases = [
        (
            r#"{"pointer": "/p", "any": {"pointer": "/a", "op": "gt", "value": 1}, "all": {"pointer": "", "op": "exists"}}"#,
            "/when/0/all",
        ),
        (
            r#"{"pointer": "/p", "op": "gt", "value": 1, "any": {"pointer": "", "op": "exists"}}"#,
            "/when/0/op",
        ),
        (
            r#"{"pointer": "/p", "any": {"pointer": "/a", "op": "gt", "value": "x"}}"#,
            "/when/0/any/value",
        ),
        (
            r#"{"pointer": "/p", "any": {"pointer": "a", "op": "exists"}}"#,
            "/when/0/any/pointer",
        ),
        (r#"{"pointer": "/p", "any": 5}"#, "/when/0/any"),
        (r#"{"pointer": "", "op": "exists"}"#, "/when/0/pointer"),
        (r#"{"pointer": "/p"}"#, "/when/0/op"),
    ];
    for (when, path) in cases {
        assert_eq!(
            load_error(when),
            (Code::InvalidContract, path.to_owned()),
            "{when}"
        );
    }
}

#[test]
fn the_first_matching_condition_is_named() {
    let r = rule(&format!(
        r#"{{"pointer": "/x", "op": "exists"}}, {ANY_OVER_1000}"#
    ));
    let req = r.evaluate(&json(r#"{"x": 1, "payments": [{"amount": 2000}]}"#));
    assert_eq!(req.rule, "/approval/when/0");
    let req = r.evaluate(&json(r#"{"payments": [{"amount": 2000}]}"#));
    assert_eq!(req.rule, "/approval/when/1");
}
