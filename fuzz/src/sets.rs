//! Generated sets of approval records, delegation chains and contexts for the
//! `set_invariants` target: sets that mostly permit, and near-misses of them with one part
//! wrong each (the target's doc comment lists them), built with core's public API only.

use actionseal_core::{
    canonicalize, delegation_digest, fingerprint, parse, sign_approval, sign_delegation, Contract,
    KeySet, Options, OwnedValue, Value,
};
use arbitrary::{Result, Unstructured};
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::OnceLock;

pub const NOW: i64 = 1_764_500_600_000;
const HOUR: i64 = 3_600_000;

/// The people: the subject, the proposer, reviewers (`REVIEWERS`) and those who delegate to
/// them (`DELEGATORS`); key `i` may sign for `IDS[i]` only.
pub const IDS: [&str; 10] = [
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
pub const SUBJECT: &str = IDS[0];
pub const ROLES: [&str; 3] = ["finance", "risk", "ops"];

const SCHEMA: &str = r#"{"type":"object","properties":{"order_id":{"type":"string"},
 "amount_minor":{"type":"integer","minimum":1},"currency":{"type":"string"}},
 "required":["order_id","amount_minor","currency"],"additionalProperties":false}"#;

/// A generated JSON text as a value.
pub fn json(text: &str) -> OwnedValue {
    parse(text.as_bytes(), &Options::default())
        .expect("generated JSON is well-formed")
        .into_owned()
}

fn quote(s: &str) -> String {
    canonicalize(&Value::String(s.into()))
}

/// The member `key` of an object.
pub fn member<'a>(v: &'a Value<'a>, key: &str) -> Option<&'a Value<'a>> {
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

pub fn key_set() -> &'static KeySet {
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
pub enum Form {
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
pub struct Link {
    pub value: OwnedValue,
    pub form: Form,
    /// The digest of its document, when that reads.
    pub digest: Option<String>,
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
pub struct Record {
    pub value: OwnedValue,
    /// Who decided (an index into `IDS`).
    pub approver: usize,
    /// The root of its chain, when it decided through one.
    pub root: Option<usize>,
    pub decision_id: String,
}

/// What the context says, for the invariants.
#[derive(Default)]
pub struct Facts {
    /// Who may approve, or not (absent: no fact).
    pub authorized: Vec<(usize, bool)>,
    /// Who holds which role, or not.
    pub roles: Vec<(usize, &'static str, bool)>,
    /// Whether each link (by digest) was revoked.
    pub revoked_links: Vec<(String, bool)>,
    /// The proposer fact: absent, `null` (no one) or someone.
    pub proposer: Option<Option<usize>>,
}

/// One generated case: the presented action, the set, its links, the context and what the
/// context says.
pub struct Case {
    pub presented: OwnedValue,
    pub records: Vec<Record>,
    pub links: Vec<Link>,
    pub facts: Facts,
    /// The context's members without `contract`, as JSON members.
    pub fields: String,
    /// The contract in force.
    pub in_force: Option<Contract>,
    pub context: OwnedValue,
}

impl Case {
    /// The set as `check_set` takes it.
    pub fn approvals(&self) -> Vec<OwnedValue> {
        self.records.iter().map(|r| r.value.clone()).collect()
    }
}

/// A case, or `None` where the chosen contract does not load.
pub fn case(u: &mut Unstructured<'_>) -> Result<Option<Case>> {
    let Some(made_under) = contract(u.int_in_range(0..=CONTRACTS - 1)?) else {
        return Ok(None);
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
    let proof_required = rarely(u, 3)?;
    let (records, links) = set(u, &frozen, proof_required)?;
    let facts = facts(u, &links)?;
    let fields = fields(u, &facts, &records, proof_required)?;
    let in_force = match mistake(u, 2)? {
        Some(0) => None,
        Some(_) => contract(u.int_in_range(0..=CONTRACTS - 1)?),
        None => Some(made_under),
    };
    let contract_doc = in_force
        .as_ref()
        .map_or("null".into(), |c| canonicalize(c.document()));
    let context = json(&format!(r#"{{{fields},"contract":{contract_doc}}}"#));
    Ok(Some(Case {
        presented,
        records,
        links,
        facts,
        fields,
        in_force,
        context,
    }))
}

/// The set: distinct reviewers (more than four repeat one), mostly well-formed, each with at
/// most one mistake, about the action `frozen`; and every link of their chains.
fn set(
    u: &mut Unstructured<'_>,
    frozen: &str,
    proof_required: bool,
) -> Result<(Vec<Record>, Vec<Link>)> {
    let digest = fingerprint(&json(frozen)).to_string();
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
    Ok((records, links))
}

/// What the server knows about everyone and every link: mostly favourable, rarely not or
/// nothing; the proposer mostly `IDS[1]`.
fn facts(u: &mut Unstructured<'_>, links: &[Link]) -> Result<Facts> {
    let mut facts = Facts::default();
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
    facts.proposer = match mistake(u, 3)? {
        Some(0) => None,
        Some(1) => Some(None),
        Some(_) => Some(Some(person(u)?)),
        None => Some(Some(1)),
    };
    Ok(facts)
}

/// The context's members but `contract`, from `facts`, with the subject's authorization, the
/// round's and the decisions' revocations, the amender and the proof policy.
fn fields(
    u: &mut Unstructured<'_>,
    facts: &Facts,
    records: &[Record],
    proof_required: bool,
) -> Result<String> {
    let mut fields = vec![
        format!(r#""now":{NOW},"tenant":"tenant-a","policy_version":"policy-1""#),
        format!(
            r#""subject_authorized":{{"subject":"{SUBJECT}","authorized":{}}}"#,
            u.ratio(15, 16)?
        ),
        format!(
            r#""proof":{{"required":{proof_required},"keys":{}}}"#,
            key_set_text()
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
    for r in records {
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
    // Empty fact lists are malformed: a list is given only with facts in it.
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
    Ok(fields.join(","))
}
