//! Delegation documents, their forms, scope, attenuation and chains.

use super::chain::{Chain, ChainFacts, LinkSource};
use super::*;
use crate::model::proof::{base64url, ProofPolicy};
use crate::model::reason::Reason;
use crate::{parse, Options};
use proptest::prelude::*;
use std::collections::HashMap;

fn json(text: &str) -> OwnedValue {
    parse(text.as_bytes(), &Options::default())
        .unwrap()
        .into_owned()
}

/// A document from `delegator` to `delegate` with `scope` members (`"tools": [...], ...`) and
/// the window [100, 1000).
fn doc(delegator: &str, delegate: &str, scope: &str) -> OwnedValue {
    json(&format!(
        r#"{{"delegation_id":"dlg-1","delegator":"{delegator}","delegate":"{delegate}",
            "tenant":"a","not_before":100,"not_after":1000,{scope}}}"#
    ))
}

const REFUNDS: &str = r#""tools":["refund"],"when":[{"pointer":"/args/n","op":"lte","value":50}]"#;

fn action(n: i64) -> OwnedValue {
    json(&format!(
        r#"{{"tenant":"a","subject":"s","tool":"refund","job_id":"j","request_id":"r",
            "policy_version":"p","contract":"sha256:{}","args":{{"n":{n}}}}}"#,
        "0".repeat(64)
    ))
}

fn key(n: u8) -> SigningKey {
    SigningKey::from_seed(&[n; 32])
}

fn keys(entries: &[(&SigningKey, &str)]) -> KeySet {
    let members: Vec<String> = entries
        .iter()
        .map(|(k, extra)| {
            format!(
                r#""{}":{{"key":"{}"{extra}}}"#,
                k.public_key().keyid(),
                base64url::encode(k.public_key().as_bytes())
            )
        })
        .collect();
    KeySet::from_value(&json(&format!(
        r#"{{"service_keys":{{{}}}}}"#,
        members.join(",")
    )))
    .unwrap()
}

/// The server's facts for a chain: time, proof policy, revocation and authorization.
struct Facts {
    now: i64,
    source: LinkSource,
    proof: Option<ProofPolicy>,
    revoked: HashMap<Digest, bool>,
}

impl ChainFacts for Facts {
    fn now(&self) -> i64 {
        self.now
    }
    fn link_source(&self) -> LinkSource {
        self.source
    }
    fn proof(&self) -> Option<&ProofPolicy> {
        self.proof.as_ref()
    }
}

/// Every step of a chain's check, revocation (step 8) included.
fn verify_chain(
    links: &[OwnedValue],
    root: &str,
    approver: &str,
    decided_at: i64,
    action: &OwnedValue,
    f: &Facts,
) -> Result<Chain, Reason> {
    super::verify_chain(links, root, approver, decided_at, action, f)?
        .unrevoked(|d| f.revoked.get(d).copied())
}

/// Facts at now = 500 without a proof policy, every link of `links` not revoked.
fn facts(links: &[OwnedValue]) -> Facts {
    Facts {
        now: 500,
        source: LinkSource::Presented,
        proof: None,
        revoked: links
            .iter()
            .filter_map(|l| verify_delegation(l, &KeySet::EMPTY, 0).ok())
            .map(|v| (v.digest(), false))
            .collect(),
    }
}

fn chain(links: &[OwnedValue], approver: &str, n: i64) -> Result<Chain, Reason> {
    verify_chain(links, "carol", approver, 400, &action(n), &facts(links))
}

#[test]
fn reads_strictly() {
    let good = doc("carol", "dave", REFUNDS);
    assert!(Delegation::from_value(&good).is_ok());
    let cases = [
        (doc("carol", "carol", REFUNDS), "/delegate"),
        (doc("carol", "dave", r#""tools":[]"#), "/tools"),
        (doc("carol", "dave", r#""tools":["a","a"]"#), "/tools/1"),
        (doc("carol", "dave", r#""tools":["a"],"when":[]"#), "/when"),
        (
            doc(
                "carol",
                "dave",
                r#""tools":["a"],"when":[{"pointer":"","op":"exists"}]"#,
            ),
            "/when/0/pointer",
        ),
        (
            doc(
                "carol",
                "dave",
                r#""tools":["a"],"when":[{"pointer":"/x","op":"lte","value":"1"}]"#,
            ),
            "/when/0/value",
        ),
        (doc("carol", "dave", r#""tools":["a"],"extra":1"#), "/extra"),
        (
            json(
                r#"{"delegation_id":"d","delegator":"c","delegate":"e","tenant":"a","tools":["a"],"not_before":5,"not_after":5}"#,
            ),
            "/not_after",
        ),
        (
            json(
                r#"{"delegation_id":"d","delegator":"c","delegate":"e","tenant":"a","tools":["a"],"not_before":5}"#,
            ),
            "/not_after",
        ),
        (doc("carol", " dave", REFUNDS), "/delegate"),
    ];
    for (document, path) in cases {
        let e = Delegation::from_value(&document).unwrap_err();
        assert_eq!((e.code(), e.path()), (Code::InvalidDelegation, path), "{e}");
        assert_eq!(
            delegation_digest(&document).unwrap_err().code(),
            Code::InvalidDelegation
        );
    }
}

#[test]
fn digest_is_the_documents_fingerprint_in_every_form() {
    let document = doc("carol", "dave", REFUNDS);
    let digest = delegation_digest(&document).unwrap();
    assert_eq!(digest, crate::fingerprint(&document));
    let k = key(1);
    let envelope = sign_delegation(&document, &k).unwrap();
    let v = verify_delegation(&envelope, &keys(&[(&k, "")]), 0).unwrap();
    assert_eq!(v.digest(), digest);
    assert_eq!(v.document(), &document);
    assert_eq!(
        v.signer(),
        Some(&Signer::Service {
            keyid: k.public_key().keyid().to_owned()
        })
    );
    let bare = verify_delegation(&document, &KeySet::EMPTY, 0).unwrap();
    assert_eq!((bare.digest(), bare.signer()), (digest, None));
    let value = crate::canonicalize(&bare.to_value());
    assert!(value.ends_with(&format!(r#""digest":"{digest}","signer":null}}"#)));
}

#[test]
fn signing_refuses_a_malformed_document() {
    let e = sign_delegation(&doc("carol", "carol", REFUNDS), &key(1)).unwrap_err();
    assert_eq!((e.code(), e.path()), (Code::InvalidDelegation, "/delegate"));
}

#[test]
fn a_key_must_be_allowed_for_the_delegator_and_judged_at_the_verifiers_time() {
    let k = key(1);
    let envelope = sign_delegation(&doc("carol", "dave", REFUNDS), &k).unwrap();
    let code = |set: KeySet, at| {
        verify_delegation(&envelope, &set, at)
            .map(|_| ())
            .map_err(|e| e.code())
    };
    assert_eq!(code(keys(&[(&k, r#","approvers":["carol"]"#)]), 0), Ok(()));
    assert_eq!(
        code(keys(&[(&k, r#","approvers":["dave"]"#)]), 0),
        Err(Code::SignerNotAllowed)
    );
    assert_eq!(
        code(keys(&[(&k, r#","valid_until":10"#)]), 10),
        Err(Code::KeyOutsideWindow)
    );
    assert_eq!(code(keys(&[(&key(2), "")]), 0), Err(Code::UnknownKey));
}

#[test]
fn an_approval_envelope_is_not_a_delegation() {
    let k = key(1);
    let payload = crate::canonicalize(&doc("carol", "dave", REFUNDS));
    let envelope = dsse::sign_payload(crate::PAYLOAD_TYPE, &payload, &k).unwrap();
    let e = verify_delegation(&envelope, &keys(&[(&k, "")]), 0).unwrap_err();
    assert_eq!(
        (e.code(), e.path()),
        (Code::PayloadTypeMismatch, "/payloadType")
    );
}

#[test]
fn a_scope_fails_closed() {
    let scope = |when: &str| {
        let d = doc(
            "carol",
            "dave",
            &format!(r#""tools":["refund"],"when":[{when}]"#),
        );
        Delegation::from_value(&d).unwrap().scope
    };
    let a = action(10);
    assert!(scope(r#"{"pointer":"/args/n","op":"lte","value":50}"#).covers(&a));
    assert!(!scope(r#"{"pointer":"/args/n","op":"lte","value":5}"#).covers(&a));
    // Pointers that do not resolve, and values of another type, do not hold.
    assert!(!scope(r#"{"pointer":"/args/m","op":"lte","value":50}"#).covers(&a));
    assert!(!scope(r#"{"pointer":"/args/m","op":"ne","value":1}"#).covers(&a));
    assert!(!scope(r#"{"pointer":"/subject","op":"lte","value":50}"#).covers(&a));
    assert!(!scope(r#"{"pointer":"/subject","any":{"pointer":"","op":"exists"}}"#).covers(&a));
    assert!(scope(r#"{"pointer":"/args/m","op":"absent"}"#).covers(&a));
    assert!(scope(r#"{"pointer":"/subject","op":"eq","value":"s"}"#).covers(&a));
    let tenant = doc("carol", "dave", r#""tools":["refund"]"#);
    let other = json(&crate::canonicalize(&a).replace(r#""tenant":"a""#, r#""tenant":"b""#));
    assert!(!Delegation::from_value(&tenant)
        .unwrap()
        .scope
        .covers(&other));
}

#[test]
fn attenuation_rules() {
    let scope = |scope: &str| {
        Delegation::from_value(&doc("carol", "dave", scope))
            .unwrap()
            .scope
    };
    let when = |c: &str| scope(&format!(r#""tools":["refund","void"],"when":[{c}]"#));
    let lte = when(r#"{"pointer":"/args/n","op":"lte","value":50}"#);
    let lt = when(r#"{"pointer":"/args/n","op":"lt","value":50}"#);
    let gt = when(r#"{"pointer":"/args/n","op":"gt","value":5}"#);
    let within = [
        (r#"{"pointer":"/args/n","op":"lte","value":50}"#, &lte),
        (r#"{"pointer":"/args/n","op":"lte","value":5e1}"#, &lte),
        (r#"{"pointer":"/args/n","op":"lt","value":50}"#, &lte),
        (r#"{"pointer":"/args/n","op":"lte","value":49}"#, &lt),
        (r#"{"pointer":"/args/n","op":"lt","value":50}"#, &lt),
        (r#"{"pointer":"/args/n","op":"eq","value":7}"#, &lt),
        (r#"{"pointer":"/args/n","op":"gte","value":6}"#, &gt),
        (r#"{"pointer":"/args/n","op":"gt","value":5}"#, &gt),
    ];
    for (c, parent) in within {
        assert!(when(c).within(parent), "{c}");
    }
    let widens = [
        (r#"{"pointer":"/args/n","op":"lte","value":51}"#, &lte),
        (r#"{"pointer":"/args/n","op":"lte","value":50}"#, &lt),
        (r#"{"pointer":"/args/n","op":"lt","value":51}"#, &lte),
        (r#"{"pointer":"/args/n","op":"gte","value":5}"#, &gt),
        (r#"{"pointer":"/args/m","op":"lte","value":1}"#, &lte),
        (r#"{"pointer":"/args/n","op":"eq","value":50}"#, &lt),
        (r#"{"pointer":"/args/n","op":"eq","value":"7"}"#, &lt),
        (r#"{"pointer":"/args/n","op":"ne","value":51}"#, &lte),
    ];
    for (c, parent) in widens {
        assert!(!when(c).within(parent), "{c}");
    }
    let set = when(r#"{"pointer":"/args/c","op":"in","value":["USD","EUR"]}"#);
    assert!(when(r#"{"pointer":"/args/c","op":"in","value":["EUR"]}"#).within(&set));
    assert!(when(r#"{"pointer":"/args/c","op":"eq","value":"USD"}"#).within(&set));
    assert!(!when(r#"{"pointer":"/args/c","op":"in","value":["EUR","CNY"]}"#).within(&set));
    // No conditions is wider than any; more tools is wider; another tenant is not within.
    assert!(!scope(r#""tools":["refund"]"#).within(&lte));
    assert!(lte.within(&scope(r#""tools":["refund","void"]"#)));
    assert!(
        !scope(r#""tools":["refund","void","x"]"#).within(&scope(r#""tools":["refund","void"]"#))
    );
    let other = json(
        &crate::canonicalize(&doc("carol", "dave", r#""tools":["refund"]"#))
            .replace(r#""tenant":"a""#, r#""tenant":"b""#),
    );
    assert!(!Delegation::from_value(&other)
        .unwrap()
        .scope
        .within(&scope(r#""tools":["refund"]"#)));
}

#[test]
fn a_chain_holds() {
    let links = [doc("carol", "dave", REFUNDS), doc("dave", "erin", REFUNDS)];
    let c = chain(&links, "erin", 10).unwrap();
    let digests: Vec<_> = links
        .iter()
        .map(|l| delegation_digest(l).unwrap())
        .collect();
    assert_eq!(c.links, digests);
}

#[test]
fn chain_reasons_in_order() {
    let d = |a: &str, b: &str| doc(a, b, REFUNDS);
    let five: Vec<_> = ["carol", "d1", "d2", "d3", "d4", "d5"]
        .windows(2)
        .map(|w| d(w[0], w[1]))
        .collect();
    assert_eq!(
        chain(&five, "d5", 10).unwrap_err(),
        Reason::DelegationTooDeep
    );
    assert!(chain(&five[..4], "d4", 10).is_ok());
    assert_eq!(
        chain(&[], "carol", 10).unwrap_err(),
        Reason::DelegationInvalid
    );
    assert_eq!(
        chain(&[json(r#"{"delegator":"carol"}"#)], "dave", 10).unwrap_err(),
        Reason::DelegationInvalid
    );
    // Not connected: the wrong root, a gap, another approver.
    assert_eq!(
        chain(&[d("bob", "dave")], "dave", 10).unwrap_err(),
        Reason::DelegationInvalid
    );
    assert_eq!(
        chain(&[d("carol", "dave"), d("x", "erin")], "erin", 10).unwrap_err(),
        Reason::DelegationInvalid
    );
    assert_eq!(
        chain(&[d("carol", "dave")], "erin", 10).unwrap_err(),
        Reason::DelegationInvalid
    );
    assert_eq!(
        chain(&[d("carol", "dave"), d("dave", "carol")], "carol", 10).unwrap_err(),
        Reason::DelegationCycle
    );
    let wide = doc("dave", "erin", r#""tools":["refund"]"#);
    assert_eq!(
        chain(&[d("carol", "dave"), wide], "erin", 10).unwrap_err(),
        Reason::DelegationWidens
    );
    assert_eq!(
        chain(&[d("carol", "dave")], "dave", 51).unwrap_err(),
        Reason::DelegationOutOfScope
    );
    let links = [d("carol", "dave")];
    let mut f = facts(&links);
    let run =
        |f: &Facts, decided_at| verify_chain(&links, "carol", "dave", decided_at, &action(1), f);
    assert_eq!(run(&f, 99).unwrap_err(), Reason::DelegationExpired);
    f.now = 1000;
    assert_eq!(run(&f, 400).unwrap_err(), Reason::DelegationExpired);
    f.now = 99;
    assert_eq!(run(&f, 99).unwrap_err(), Reason::DelegationExpired);
    f.now = 500;
    f.revoked.clear();
    assert_eq!(run(&f, 400).unwrap_err(), Reason::DelegationRevoked);
}

#[test]
fn proof_where_the_context_requires_it() {
    let k = key(1);
    let document = doc("carol", "dave", REFUNDS);
    let signed = [sign_delegation(&document, &k).unwrap()];
    let bare = [document];
    let policy = |required, set| Some(ProofPolicy::new(required, set));
    let run = |links: &[OwnedValue], proof| {
        let mut f = facts(&bare);
        f.proof = proof;
        verify_chain(links, "carol", "dave", 400, &action(1), &f).map(|_| ())
    };
    assert_eq!(run(&signed, policy(true, keys(&[(&k, "")]))), Ok(()));
    assert_eq!(run(&bare, policy(false, keys(&[(&k, "")]))), Ok(()));
    assert_eq!(
        run(&bare, policy(true, keys(&[(&k, "")]))),
        Err(Reason::DelegationInvalid)
    );
    assert_eq!(run(&signed, None), Err(Reason::DelegationInvalid));
    let other = keys(&[(&k, r#","approvers":["dave"]"#)]);
    assert_eq!(
        run(&signed, policy(true, other)),
        Err(Reason::DelegationInvalid)
    );
}

/// A random scope over one tool list and a bound on `/args/n`.
fn scope_text() -> impl Strategy<Value = String> {
    let tools = proptest::sample::subsequence(vec!["refund", "void", "pay"], 1..=3);
    let bound = prop_oneof![
        Just(None),
        (0..5usize, 0i64..6).prop_map(|(op, v)| Some((["lte", "lt", "gte", "gt", "eq"][op], v))),
    ];
    (tools, bound).prop_map(|(tools, bound)| {
        let tools = format!(r#""tools":{}"#, serde_like(&tools));
        match bound {
            None => tools,
            Some((op, v)) => {
                format!(r#"{tools},"when":[{{"pointer":"/args/n","op":"{op}","value":{v}}}]"#)
            }
        }
    })
}

fn serde_like(tools: &[&str]) -> String {
    let quoted: Vec<String> = tools.iter().map(|t| format!("{t:?}")).collect();
    format!("[{}]", quoted.join(","))
}

fn action_for(tool: &str, n: i64) -> OwnedValue {
    json(
        &crate::canonicalize(&action(n))
            .replace(r#""tool":"refund""#, &format!(r#""tool":"{tool}""#)),
    )
}

proptest! {
    /// A chain never grants more than its root: whatever the links, an action that some link
    /// does not cover is never accepted, and a child that is not within its parent is refused.
    #[test]
    fn a_chain_never_grants_more_than_its_root(
        scopes in proptest::collection::vec(scope_text(), 1..=4),
        tool in proptest::sample::select(vec!["refund", "void", "pay"]),
        n in 0i64..6,
    ) {
        let names = ["carol", "d1", "d2", "d3", "d4"];
        let links: Vec<OwnedValue> = scopes
            .iter()
            .enumerate()
            .map(|(i, s)| doc(names[i], names[i + 1], s))
            .collect();
        let docs: Vec<Delegation> = links.iter().map(|l| Delegation::from_value(l).unwrap()).collect();
        let a = action_for(tool, n);
        let approver = names[links.len()];
        let result = verify_chain(&links, "carol", approver, 400, &a, &facts(&links)).map(|_| ());
        let widens = docs.windows(2).any(|p| !p[1].within(&p[0]));
        let outside = docs.iter().any(|d| !d.scope.covers(&a));
        if widens {
            prop_assert_eq!(result.unwrap_err(), Reason::DelegationWidens);
        } else if outside {
            prop_assert_eq!(result.unwrap_err(), Reason::DelegationOutOfScope);
        } else {
            prop_assert!(result.is_ok());
        }
        // Soundness of attenuation: whatever a child within its parent covers, the parent
        // covers, so a chain that holds keeps the action within the root's scope.
        for pair in docs.windows(2) {
            if pair[1].within(&pair[0]) && pair[1].scope.covers(&a) {
                prop_assert!(pair[0].scope.covers(&a));
            }
        }
        if result.is_ok() {
            prop_assert!(docs[0].scope.covers(&a));
        }
    }
}

#[test]
fn recorded_links_are_read_not_verified_again() {
    // A ledger's claim has no key set: the links its `decide` verified are read back.
    let k = key(1);
    let document = doc("carol", "dave", REFUNDS);
    let signed = [sign_delegation(&document, &k).unwrap()];
    let mut f = facts(std::slice::from_ref(&document));
    assert_eq!(
        verify_chain(&signed, "carol", "dave", 400, &action(1), &f).unwrap_err(),
        Reason::DelegationInvalid
    );
    f.source = LinkSource::Recorded;
    let chain = verify_chain(&signed, "carol", "dave", 400, &action(1), &f).unwrap();
    assert_eq!(chain.links, [crate::fingerprint(&document)]);
    assert_eq!(chain.delegates, ["dave"]);
    // Every other rule still holds: scope, and a payload that does not read.
    assert_eq!(
        verify_chain(&signed, "carol", "dave", 400, &action(51), &f).unwrap_err(),
        Reason::DelegationOutOfScope
    );
    let mut broken = signed[0].clone();
    if let Value::Object(o) = &mut broken {
        *o = Object::from_entries(
            o.iter()
                .map(|(k, v)| {
                    let v = match k {
                        "payload" => Value::String(Cow::Borrowed("e30")),
                        _ => v.clone(),
                    };
                    (Cow::Owned(k.to_owned()), v)
                })
                .collect(),
        )
        .unwrap();
    }
    assert_eq!(
        verify_chain(&[broken], "carol", "dave", 400, &action(1), &f).unwrap_err(),
        Reason::DelegationInvalid
    );
}
