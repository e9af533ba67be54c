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
    canonicalize, check_set, check_set_with, delegation_digest, fingerprint, parse, sign_approval,
    sign_delegation, verify_delegation, Code, Context, Contract, KeySet, Options, Outcome,
    OwnedValue, Value,
};
use arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::OnceLock;

const NOW: i64 = 1_764_500_600_000;
const HOUR: i64 = 3_600_000;

/// The people: the subject, the proposer, reviewers (`REVIEWERS`) and those who delegate to
/// them (`DELEGATORS`); key `i` may sign for `IDS[i]` only.
const IDS: [&str; 10] = [
    "user:alice",
    "user:bob",
    "user:carol",
    "user:dave",
    "user:erin",
    "user:frank",
    "user:grace",
    "user:heidi",
    "user:ivan",
    "user:judy",
];
const REVIEWERS: std::ops::Range<usize> = 2..6;
const DELEGATORS: std::ops::Range<usize> = 6..10;
const SUBJECT: &str = IDS[0];
const ROLES: [&str; 3] = ["finance", "risk", "ops"];

const SCHEMA: &str = r#"{"type":"object","properties":{"order_id":{"type":"string"},
 "amount_minor":{"type":"integer","minimum":1},"currency":{"type":"string"}},
 "required":["order_id","amount_minor","currency"],"additionalProperties":false}"#;

fn json(text: &str) -> OwnedValue {
    parse(text.as_bytes(), &Options::default())
        .expect("generated JSON is well-formed")
        .into_owned()
}

fn quote(s: &str) -> String {
    canonicalize(&Value::String(s.into()))
}

fn member<'a>(v: &'a Value<'a>, key: &str) -> Option<&'a Value<'a>> {
    v.as_object()?.get(key)
}

fn keys() -> &'static [actionseal_core::SigningKey] {
    static K: OnceLock<Vec<actionseal_core::SigningKey>> = OnceLock::new();
    K.get_or_init(|| {
        (0..IDS.len())
            .map(|i| actionseal_core::SigningKey::from_seed(&[i as u8 + 1; 32]))
            .collect()
    })
}

/// The trusted key set: key `i` signs for `IDS[i]`.
fn key_set_text() -> &'static str {
    static T: OnceLock<String> = OnceLock::new();
    T.get_or_init(|| {
        let entries: Vec<String> = keys()
            .iter()
            .zip(IDS)
            .map(|(k, id)| {
                let x = actionseal_core::base64url_encode(k.public_key().as_bytes());
                format!(
                    r#"{}:{{"key":"{x}","approvers":[{}]}}"#,
                    quote(k.public_key().keyid()),
                    quote(id)
                )
            })
            .collect();
        format!(r#"{{"service_keys":{{{}}}}}"#, entries.join(","))
    })
}

fn key_set() -> &'static KeySet {
    static K: OnceLock<KeySet> = OnceLock::new();
    K.get_or_init(|| KeySet::from_value(&json(key_set_text())).expect("the key set loads"))
}

/// The contract for a generator's choice, loaded once (`None` when core refuses it).
fn contract(choice: u16) -> Option<Contract> {
    thread_local! {
        static C: RefCell<HashMap<u16, Option<Contract>>> = RefCell::new(HashMap::new());
    }
    C.with(|c| {
        c.borrow_mut()
            .entry(choice)
            .or_insert_with(|| Contract::from_value(&json(&contract_text(choice))).ok())
            .clone()
    })
}

/// How many contracts `contract_text` makes.
const CONTRACTS: u16 = 3 * 5 * 4 * 3 * 3 * 3 * 3;

/// One of `CONTRACTS` contracts: a threshold or always, and a single approval or a quorum of
/// 1 to 3 with or without roles, an order, a veto mode and separation of duties.
fn contract_text(choice: u16) -> String {
    let mut rest = choice;
    let mut pick = |n: u16| {
        let p = rest % n;
        rest /= n;
        usize::from(p)
    };
    let when = match pick(3) {
        0 => r#""always""#,
        _ => r#"[{"pointer":"/amount_minor","op":"gt","value":1000}]"#,
    };
    let single = pick(5) == 0;
    let roles = [
        "",
        r#","roles":[{"role":"finance","count":1}]"#,
        r#","roles":[{"role":"finance","count":1},{"role":"risk","count":1}]"#,
        r#","roles":[{"role":"risk","count":2}]"#,
    ][pick(4)];
    let order = ["", r#","order":"any""#, r#","order":"as_listed""#][pick(3)];
    let veto = ["", r#","veto":"any_rejection""#, r#","veto":"none""#][pick(3)];
    let separation = [
        "",
        r#","separation":["amender"]"#,
        r#","separation":["subject","proposer","amender"]"#,
    ][pick(3)];
    let approvers = 1 + pick(3);
    let approval = match (single, when) {
        (true, r#""always""#) => when.to_owned(),
        (true, _) => format!(r#"{{"when":{when}}}"#),
        _ => format!(
            r#"{{"when":{when},"quorum":{{"approvers":{approvers}{roles}{order}{veto}}}{separation}}}"#
        ),
    };
    format!(
        r#"{{"tool":"refund_create","version":"3","effect":"write","cost_minor":25,"args":{SCHEMA},"approval":{approval}}}"#
    )
}

/// `digest` with one hex digit changed.
fn flip(digest: &str) -> String {
    let mut s = digest.to_owned();
    let new = if s.ends_with('0') { "1" } else { "0" };
    s.replace_range(s.len() - 1.., new);
    s
}

/// Anyone, the subject and the proposer included.
fn person(u: &mut Unstructured<'_>) -> Result<usize> {
    u.int_in_range(0..=IDS.len() - 1)
}

/// The role a reviewer holds (the facts say so, mostly).
fn role_of(id: usize) -> &'static str {
    ROLES[id % 2]
}

/// True once in `one_in` times, and false when the input has run out (`arbitrary` then
/// gives the lower bound).
fn rarely(u: &mut Unstructured<'_>, one_in: u8) -> Result<bool> {
    Ok(!u.ratio(one_in - 1, one_in)?)
}

/// Which one thing a generated part gets wrong, out of `kinds`: mostly none, so that sets
/// that permit, and near-misses of them, are both common.
fn mistake(u: &mut Unstructured<'_>, kinds: u8) -> Result<Option<u8>> {
    rare_mistake(u, kinds, 4)
}

/// [`mistake`], made once in `one_in` times.
fn rare_mistake(u: &mut Unstructured<'_>, kinds: u8, one_in: u8) -> Result<Option<u8>> {
    Ok(match rarely(u, one_in)? {
        true => Some(u.int_in_range(0..=kinds - 1)?),
        false => None,
    })
}

/// How a link or a record is presented.
#[derive(Clone, Copy, PartialEq)]
enum Form {
    Bare,
    /// Signed by the key that may sign for its author.
    Signed,
    /// Signed by a key that may sign for someone else.
    WrongKey,
    /// Signed, then a byte of the payload changed.
    Tampered,
}

/// `document` in `form`, signed as by `IDS[author]` (bare where signing refuses it).
fn present(
    document: &OwnedValue,
    form: Form,
    author: usize,
    sign: fn(&Value<'_>, &actionseal_core::SigningKey) -> actionseal_core::Result<OwnedValue>,
) -> OwnedValue {
    let key = match form {
        Form::Bare => return document.clone(),
        Form::WrongKey => &keys()[(author + 1) % IDS.len()],
        Form::Signed | Form::Tampered => &keys()[author],
    };
    let Ok(envelope) = sign(document, key) else {
        return document.clone();
    };
    if form != Form::Tampered {
        return envelope;
    }
    let mut text = canonicalize(&envelope);
    let at = text
        .find(r#""payload":""#)
        .expect("an envelope has a payload")
        + 11;
    let byte = if text.as_bytes()[at] == b'e' {
        "f"
    } else {
        "e"
    };
    text.replace_range(at..=at, byte);
    json(&text)
}

/// A generated link, with what the invariants need to know of it.
struct Link {
    value: OwnedValue,
    form: Form,
    digest: Option<String>,
}

/// A chain from a root to `approver` through delegators, each link narrowing its parent, or
/// with one mistake; with its root, `None` for no chain.
fn chain(
    u: &mut Unstructured<'_>,
    approver: usize,
    signed: bool,
) -> Result<Option<(usize, Vec<Link>)>> {
    if !rarely(u, 3)? {
        return Ok(None);
    }
    let mut others: Vec<usize> = DELEGATORS.collect();
    let mut people = Vec::new();
    for _ in 0..u.int_in_range(1..=3)? {
        let at = u.choose_index(others.len())?;
        people.push(others.swap_remove(at));
    }
    people.push(approver);
    match mistake(u, 3)? {
        // Too deep, through a cycle.
        Some(0) => {
            let again = people.clone();
            people.splice(0..0, again);
        }
        // Not connected to the approver, or from the subject or the proposer.
        Some(1) => *people.last_mut().expect("a chain has people") = person(u)?,
        Some(_) => people[0] = person(u)?,
        None => {}
    }
    let mut bound = 100_000;
    let mut links = Vec::new();
    for i in 0..people.len() - 1 {
        let mut tools = r#"["refund_create"]"#;
        let mut tenant = "tenant-a";
        let (mut not_before, mut not_after) = (NOW - 24 * HOUR, NOW + 24 * HOUR);
        bound -= u.int_in_range(0..=20_000)?;
        let mut op = "lte";
        let mut form = if signed || u.ratio(1, 2)? {
            Form::Signed
        } else {
            Form::Bare
        };
        match mistake(u, 9)? {
            Some(0) => bound += 30_000,
            Some(1) => op = "lt",
            Some(2) => not_after = NOW - 1,
            Some(3) => not_before = NOW - 1,
            Some(4) => tenant = "tenant-b",
            Some(5) => tools = r#"["order_lookup","refund_create"]"#,
            Some(6) => form = Form::WrongKey,
            Some(7) => form = Form::Tampered,
            Some(_) => form = Form::Bare,
            None => {}
        }
        let when = if i > 0 && rarely(u, 8)? {
            // A dropped condition widens.
            String::new()
        } else {
            format!(r#","when":[{{"pointer":"/args/amount_minor","op":"{op}","value":{bound}}}]"#)
        };
        let document = json(&format!(
            r#"{{"delegation_id":"dlg-{i}","delegator":{},"delegate":{},"tenant":"{tenant}","tools":{tools}{when},"not_before":{not_before},"not_after":{not_after}}}"#,
            quote(IDS[people[i]]),
            quote(IDS[people[i + 1]])
        ));
        let digest = delegation_digest(&document).ok().map(|d| d.to_string());
        let value = present(&document, form, people[i], sign_delegation);
        links.push(Link {
            value,
            form,
            digest,
        });
    }
    Ok(Some((people[0], links)))
}

/// A generated member of the set.
struct Record {
    value: OwnedValue,
    approver: usize,
    root: Option<usize>,
    decision_id: String,
}

/// What the context says, for the invariants.
struct Facts {
    authorized: Vec<(usize, bool)>,
    roles: Vec<(usize, &'static str, bool)>,
    revoked_links: Vec<(String, bool)>,
    proposer: Option<Option<usize>>,
}

fn run(u: &mut Unstructured<'_>) -> Result<()> {
    let Some(made_under) = contract(u.int_in_range(0..=CONTRACTS - 1)?) else {
        return Ok(());
    };
    let amount = *u.choose(&[2500, 500, 40_000, 1_000_000])?;
    let action_text = |amount: i64| {
        format!(
            r#"{{"tenant":"tenant-a","subject":"{SUBJECT}","tool":"refund_create","contract":"{}","args":{{"order_id":"order-17","amount_minor":{amount},"currency":"USD"}},"job_id":"job-1","request_id":"req-1","policy_version":"policy-1"}}"#,
            made_under.digest_text()
        )
    };
    let frozen = action_text(amount);
    let presented = json(&if rarely(u, 16)? {
        action_text(amount + 1)
    } else {
        frozen.clone()
    });
    let digest = fingerprint(&json(&frozen)).to_string();
    let proof_required = rarely(u, 3)?;

    // The set: distinct reviewers (more than four repeat one), mostly well-formed, each with at
    // most one mistake.
    let mut records: Vec<Record> = Vec::new();
    let mut links = Vec::new();
    let first = u.int_in_range(0..=REVIEWERS.len() - 1)?;
    for n in 0..u.int_in_range(0..=6)? {
        let mut approver = REVIEWERS.start + (first + n) % REVIEWERS.len();
        let mut decision = "approved";
        let mut round = "apr-1";
        let mut decision_id = format!("dec-{n}");
        let mut decided_at = NOW - 600_000;
        let mut expires_at = NOW + HOUR;
        let mut digest = digest.clone();
        let mut role = Some("");
        let mut form = if proof_required || u.ratio(1, 2)? {
            Form::Signed
        } else {
            Form::Bare
        };
        let mut on_behalf_of = None;
        match mistake(u, 12)? {
            Some(0) => decision = "rejected",
            Some(1) => round = "apr-2",
            Some(2) => decided_at = NOW + 1,
            Some(3) => expires_at = NOW,
            Some(4) => digest = flip(&digest),
            Some(5) if n > 0 => decision_id = records[0].decision_id.clone(),
            Some(6) => role = None,
            Some(7) => role = Some(ROLES[2]),
            Some(8) => form = Form::WrongKey,
            Some(9) => form = Form::Bare,
            Some(10) => on_behalf_of = Some(person(u)?),
            Some(_) => approver = person(u)?,
            None => {}
        }
        let chain = chain(u, approver, proof_required)?;
        let counting = chain.as_ref().map_or(approver, |(root, _)| *root);
        let role = match role {
            Some("") => format!(r#","role":"{}""#, role_of(counting)),
            Some(r) => format!(r#","role":"{r}""#),
            None => String::new(),
        };
        let delegated = match &chain {
            None => String::new(),
            Some((root, chain)) => {
                let texts: Vec<String> = chain.iter().map(|l| canonicalize(&l.value)).collect();
                format!(
                    r#","on_behalf_of":{},"delegation":[{}]"#,
                    quote(IDS[on_behalf_of.unwrap_or(*root)]),
                    texts.join(",")
                )
            }
        };
        let record = json(&format!(
            r#"{{"approval_id":"{round}","decision_id":"{decision_id}","decision":"{decision}","approver":{},"decided_at":{decided_at},"expires_at":{expires_at},"action":{frozen},"action_digest":"{digest}"{role}{delegated}}}"#,
            quote(IDS[approver])
        ));
        records.push(Record {
            value: present(&record, form, approver, sign_approval),
            approver,
            root: chain.as_ref().map(|(root, _)| *root),
            decision_id,
        });
        links.extend(chain.into_iter().flat_map(|(_, c)| c));
    }

    // The context.
    let mut facts = Facts {
        authorized: Vec::new(),
        roles: Vec::new(),
        revoked_links: Vec::new(),
        proposer: None,
    };
    for i in 0..IDS.len() {
        match rare_mistake(u, 2, 12)? {
            Some(0) => {}
            Some(_) => facts.authorized.push((i, false)),
            None => facts.authorized.push((i, true)),
        }
        match rare_mistake(u, 3, 12)? {
            Some(0) => {}
            Some(1) => facts.roles.push((i, role_of(i), false)),
            Some(_) => facts.roles.push((i, ROLES[2], true)),
            None => facts.roles.push((i, role_of(i), true)),
        }
    }
    let mut digests: Vec<&String> = links.iter().filter_map(|l| l.digest.as_ref()).collect();
    digests.sort();
    digests.dedup();
    for d in digests {
        match rare_mistake(u, 2, 12)? {
            Some(0) => {}
            m => facts.revoked_links.push((d.clone(), m.is_some())),
        }
    }
    let mut fields = vec![
        format!(r#""now":{NOW},"tenant":"tenant-a","policy_version":"policy-1""#),
        format!(
            r#""subject_authorized":{{"subject":"{SUBJECT}","authorized":{}}}"#,
            u.ratio(15, 16)?
        ),
    ];
    let list = |items: Vec<String>| format!("[{}]", items.join(","));
    let authorized: Vec<String> = facts
        .authorized
        .iter()
        .map(|(i, ok)| format!(r#"{{"approver":{},"authorized":{ok}}}"#, quote(IDS[*i])))
        .collect();
    fields.push(format!(
        r#""approver_authorized":{}"#,
        match authorized.len() {
            0 => "null".into(),
            1 if u.ratio(1, 2)? => authorized[0].clone(),
            _ => list(authorized),
        }
    ));
    let mut revoked = vec![format!(
        r#"{{"approval_id":"apr-1","revoked":{}}}"#,
        rarely(u, 16)?
    )];
    for r in &records {
        if rarely(u, 6)? {
            revoked.push(format!(
                r#"{{"decision_id":"{}","revoked":{}}}"#,
                r.decision_id,
                u.ratio(1, 2)?
            ));
        }
    }
    fields.push(format!(
        r#""revoked":{}"#,
        if revoked.len() == 1 && u.ratio(1, 2)? {
            revoked[0].clone()
        } else {
            list(revoked)
        }
    ));
    if !facts.roles.is_empty() {
        let roles = facts.roles.iter().map(|(i, role, holds)| {
            format!(
                r#"{{"approver":{},"role":"{role}","holds":{holds}}}"#,
                quote(IDS[*i])
            )
        });
        fields.push(format!(r#""approver_roles":{}"#, list(roles.collect())));
    }
    if !facts.revoked_links.is_empty() {
        let revoked = facts
            .revoked_links
            .iter()
            .map(|(d, r)| format!(r#"{{"delegation":"{d}","revoked":{r}}}"#));
        fields.push(format!(
            r#""delegations_revoked":{}"#,
            list(revoked.collect())
        ));
    }
    facts.proposer = match mistake(u, 3)? {
        Some(0) => None,
        Some(1) => Some(None),
        Some(_) => Some(Some(person(u)?)),
        None => Some(Some(1)),
    };
    if let Some(p) = facts.proposer {
        fields.push(format!(
            r#""proposer":{}"#,
            p.map_or("null".into(), |p| quote(IDS[p]))
        ));
    }
    match mistake(u, 2)? {
        Some(0) => {}
        Some(_) => fields.push(format!(r#""amended_by":{}"#, quote(IDS[person(u)?]))),
        None => fields.push(r#""amended_by":null"#.into()),
    }
    fields.push(format!(
        r#""proof":{{"required":{proof_required},"keys":{}}}"#,
        key_set_text()
    ));
    let in_force = match mistake(u, 2)? {
        Some(0) => None,
        Some(_) => contract(u.int_in_range(0..=CONTRACTS - 1)?),
        None => Some(made_under),
    };
    let fields = fields.join(",");
    let contract_doc = in_force
        .as_ref()
        .map_or("null".into(), |c| canonicalize(c.document()));
    let context = json(&format!(r#"{{{fields},"contract":{contract_doc}}}"#));

    // The links on their own.
    for link in &links {
        let verified = verify_delegation(&link.value, key_set(), NOW);
        if matches!(link.form, Form::WrongKey | Form::Tampered) {
            assert!(verified.is_err(), "a wrong-key or tampered link verified");
        }
        if let Ok(v) = verified {
            assert_eq!(Some(v.digest().to_string()), link.digest);
            assert_eq!(v.signer().is_none(), link.form == Form::Bare);
        }
    }

    let approvals: Vec<OwnedValue> = records.iter().map(|r| r.value.clone()).collect();
    let verdict = match check_set(&approvals, &presented, &context) {
        Ok(v) => v,
        Err(e) => {
            assert_eq!(e.code(), Code::InvalidContext, "{e}");
            return Ok(());
        }
    };
    let ctx = Context::with_contract(&json(&format!("{{{fields}}}")), in_force.clone())
        .expect("the same context without its contract");
    let again = check_set_with(&approvals, &presented, &ctx);
    holds(&verdict, &again);

    assert_eq!(verdict.action_digest, fingerprint(&presented));
    assert_eq!(
        verdict.quorum.is_some(),
        in_force.as_ref().is_some_and(|c| c.quorum().is_some())
    );
    if verdict.outcome != Outcome::Permit {
        return Ok(());
    }
    let Some(contract) = in_force else {
        panic!("a permit without a contract in force");
    };
    let args = member(&presented, "args").expect("the action has args");
    let required = contract
        .requires_approval(args)
        .expect("a permitted action's args are valid")
        .required;
    if !required {
        return Ok(());
    }
    assert!(!records.is_empty(), "a permit without an approval");
    assert_eq!(verdict.approved_digest, Some(verdict.action_digest));
    let (Some(quorum), Some(state)) = (contract.quorum(), &verdict.quorum) else {
        return Ok(());
    };
    assert!(state.holds() && state.missing_roles.is_empty());
    assert!(state.counted.len() >= usize::from(quorum.approvers));
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
            records.iter().any(|r| r.decision_id == m.decision_id
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
    Ok(())
}

fn role_name(role: &str) -> &'static str {
    ROLES
        .into_iter()
        .find(|r| *r == role)
        .expect("a generated role")
}

/// The invariants of any verdict: reasons in order, the outcome theirs, the same verdict from
/// a preloaded context, and JSON that is canonical and says what the verdict says.
fn holds(verdict: &actionseal_core::Verdict, again: &actionseal_core::Verdict) {
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
        let _ = run(&mut Unstructured::new(data));
    }
});
