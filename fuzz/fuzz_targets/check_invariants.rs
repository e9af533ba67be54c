//! The permit check on structurally generated approvals, actions and contexts: near-misses of
//! every field (lookalike identities, digests one hex digit off at the first, a middle or the
//! last position, times one millisecond either side, facts about someone else, drifted
//! arguments, other contracts).
//!
//! Invariants: `check` never panics; it permits exactly when an oracle written here from the
//! documented rules (approval present and sealed, digests equal, decision approved, decided
//! no later than now and not expired, lifetime within the contract's cap, every fact about
//! the right party and favourable, tenant, subject, policy and contract all those in force,
//! arguments valid and, without an approval, not needing one) says so; it permits exactly
//! when no reason is present; the outcome is the worst reason's; reasons come in table order
//! without repeats; drift is reported exactly with `action_drift`; `action_digest` is the
//! presented action's fingerprint, and a permit's `approved_digest` equals it; a preloaded
//! contract gives the same verdict; a malformed context is `invalid_context` and only when
//! the generator made it malformed.
#![no_main]

use actionseal_core::{
    canonicalize, check, check_with, fingerprint, parse, Approval, Code, Context, Contract,
    Decision, Options, Outcome, OwnedValue, Reason, Value,
};
use arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

const NOW: i64 = 1_764_500_600_000;

const REFUND: &str = r#"{"tool":"refund_create","version":"3","effect":"write","cost_minor":25,
 "args":{"type":"object","properties":{"order_id":{"type":"string","pattern":"^order-[0-9]+$"},
  "amount_minor":{"type":"integer","minimum":1},"currency":{"type":"string","enum":["USD","EUR"]}},
  "required":["order_id","amount_minor","currency"],"additionalProperties":false},
 "approval":{"when":[{"pointer":"/amount_minor","op":"gt","value":1000},
  {"pointer":"/currency","op":"not_in","value":["USD"]}]}}"#;
const CAPPED: &str = r#"{"tool":"refund_create","version":"3","effect":"write","cost_minor":25,
 "max_approval_ms":600000,
 "args":{"type":"object","properties":{"order_id":{"type":"string","pattern":"^order-[0-9]+$"},
  "amount_minor":{"type":"integer","minimum":1},"currency":{"type":"string","enum":["USD","EUR"]}},
  "required":["order_id","amount_minor","currency"],"additionalProperties":false},
 "approval":{"when":[{"pointer":"/amount_minor","op":"gt","value":1000},
  {"pointer":"/currency","op":"not_in","value":["USD"]}]}}"#;
const LOOKUP: &str = r#"{"tool":"order_lookup","version":"1","effect":"read","cost_minor":1,
 "args":{"type":"object","properties":{"order_id":{"type":"string"}},"required":["order_id"]},
 "approval":"never"}"#;
const PAYOUTS: &str = r#"{"tool":"payouts_create","version":"1","effect":"write","cost_minor":5,
 "args":{"type":"object","properties":{"payments":{"type":"array","items":{"type":"object",
  "properties":{"amount_minor":{"type":"integer","minimum":1}},"required":["amount_minor"],
  "additionalProperties":false}},"memo":{"type":"string"}},"required":["payments","memo"],
  "additionalProperties":false},
 "approval":{"when":[{"pointer":"/payments","any":{"pointer":"/amount_minor","op":"gt","value":1000}},
  {"pointer":"/memo","op":"contains","value":"urgent"}]}}"#;

fn json(text: &str) -> OwnedValue {
    parse(text.as_bytes(), &Options::default())
        .expect("generated JSON is well-formed")
        .into_owned()
}

fn contracts() -> &'static [Contract] {
    static C: OnceLock<Vec<Contract>> = OnceLock::new();
    C.get_or_init(|| {
        [REFUND, CAPPED, LOOKUP, PAYOUTS]
            .iter()
            .map(|t| Contract::from_value(&json(t)).expect("the fuzz contracts load"))
            .collect()
    })
}

/// A JSON string literal.
fn quote(s: &str) -> String {
    canonicalize(&Value::String(s.into()))
}

/// Candidates with whether each is an identifier: lookalikes that must be refused, and
/// look-different-but-valid ones that must not be confused with the first.
const TENANTS: &[(&str, bool)] = &[
    ("tenant-a", true),
    ("tenant-b", true),
    ("tenant-a\u{200B}", false),
    ("tenant\u{2010}a", false),
    ("tenant-a\u{E0041}", false),
    ("\u{FF54}enant-a", false),
    ("租户-甲", true),
];
const SUBJECTS: &[(&str, bool)] = &[
    ("user:alice", true),
    ("user:mallory", true),
    ("user:\u{0430}lice", true), // Cyrillic a: a valid, different identifier
    ("user:alice\u{200E}", false),
    ("user: alice", false),
];
const APPROVERS: &[(&str, bool)] = &[
    ("user:bob", true),
    ("user:carol", true),
    ("user:b\u{00AD}ob", false),
    ("user:bo\u{0301}b", false), // o + combining acute: not NFC
];
const APPROVAL_IDS: &[(&str, bool)] = &[("apr-1", true), ("apr-2", true), ("apr-1\u{FEFF}", false)];
const POLICIES: &[(&str, bool)] = &[
    ("policy-1", true),
    ("policy-2", true),
    ("policy-1\u{2028}", false),
];
const JOBS: &[(&str, bool)] = &[("job-1", true), ("job-2", true), ("job\u{3164}1", false)];

fn pick<'a>(u: &mut Unstructured<'_>, from: &'a [(&'a str, bool)]) -> Result<(&'a str, bool)> {
    // Mostly the first candidate, so that permits are common enough to matter.
    Ok(if u.ratio(1, 2)? {
        from[0]
    } else {
        *u.choose(from)?
    })
}

/// Arguments for a contract (index into `contracts()`), sometimes invalid.
fn args(u: &mut Unstructured<'_>, which: usize) -> Result<String> {
    let amount = |u: &mut Unstructured<'_>| -> Result<String> {
        Ok(match u.int_in_range(0..=7)? {
            0 => "2500".into(),
            1 => "1000".into(),
            2 => "1001".into(),
            3 => "500".into(),
            4 => "\"2500\"".into(),
            5 => "true".into(),
            6 => "0".into(),
            _ => u.int_in_range(-5i64..=1_000_000)?.to_string(),
        })
    };
    Ok(match which {
        0 | 1 => {
            let order = *u.choose(&["order-17", "order-18", "ORDER-17"])?;
            let currency = *u.choose(&["USD", "USD", "EUR", "usd"])?;
            let extra = if u.ratio(1, 10)? {
                r#","to":"acct-9""#
            } else {
                ""
            };
            format!(
                r#"{{"order_id":{},"amount_minor":{},"currency":{}{extra}}}"#,
                quote(order),
                amount(u)?,
                quote(currency)
            )
        }
        2 => format!(
            r#"{{"order_id":{}}}"#,
            quote(*u.choose(&["order-17", "order-18"])?)
        ),
        _ => {
            let n = u.int_in_range(0..=3)?;
            let payments: Vec<String> = (0..n)
                .map(|_| amount(u).map(|a| format!(r#"{{"amount_minor":{a}}}"#)))
                .collect::<Result<_>>()?;
            let memo = *u.choose(&["batch", "urgent batch", "Urgent"])?;
            format!(
                r#"{{"payments":[{}],"memo":{}}}"#,
                payments.join(","),
                quote(memo)
            )
        }
    })
}

/// `digest` with the hex digit at `index` (after `sha256:`) changed.
fn flip(digest: &str, index: usize) -> String {
    let at = 7 + index % 64;
    let mut s = digest.to_owned();
    let new = if s.as_bytes()[at] == b'0' { "1" } else { "0" };
    s.replace_range(at..=at, new);
    s
}

fn near_index(u: &mut Unstructured<'_>) -> Result<usize> {
    Ok(match u.int_in_range(0..=3)? {
        0 => 63,
        1 => 0,
        2 => 32,
        _ => u.int_in_range(0..=63)?,
    })
}

struct Ids {
    tenant: (&'static str, bool),
    subject: (&'static str, bool),
    job: (&'static str, bool),
    policy: (&'static str, bool),
}

fn envelope(ids: &Ids, tool: &str, contract: &str, args: &str) -> String {
    format!(
        r#"{{"tenant":{},"subject":{},"tool":{},"contract":{},"args":{args},"job_id":{},"request_id":"req-1","policy_version":{}}}"#,
        quote(ids.tenant.0),
        quote(ids.subject.0),
        quote(tool),
        quote(contract),
        quote(ids.job.0),
        quote(ids.policy.0)
    )
}

fn run(u: &mut Unstructured<'_>) -> Result<()> {
    let all = contracts();
    // The approved call.
    let made_under = u.int_in_range(0..=3)?;
    let c = &all[made_under];
    let approved_args = args(u, made_under)?;
    let ids = Ids {
        tenant: pick(u, TENANTS)?,
        subject: pick(u, SUBJECTS)?,
        job: pick(u, JOBS)?,
        policy: pick(u, POLICIES)?,
    };
    let frozen_text = envelope(&ids, c.tool(), c.digest_text(), &approved_args);

    // What is presented: the approved call or a near-miss of it.
    let presented_text = match u.int_in_range(0..=9)? {
        0 => envelope(&ids, c.tool(), c.digest_text(), &args(u, made_under)?),
        1 => envelope(
            &Ids {
                tenant: pick(u, TENANTS)?,
                ..ids
            },
            c.tool(),
            c.digest_text(),
            &approved_args,
        ),
        2 => envelope(
            &Ids {
                subject: pick(u, SUBJECTS)?,
                ..ids
            },
            c.tool(),
            c.digest_text(),
            &approved_args,
        ),
        3 => envelope(
            &ids,
            c.tool(),
            &flip(c.digest_text(), near_index(u)?),
            &approved_args,
        ),
        4 => envelope(
            &Ids {
                policy: pick(u, POLICIES)?,
                job: pick(u, JOBS)?,
                ..ids
            },
            c.tool(),
            c.digest_text(),
            &approved_args,
        ),
        5 => frozen_text.replacen("\"args\"", "\"extra\":1,\"args\"", 1),
        _ => frozen_text.clone(),
    };
    let frozen = json(&frozen_text);
    let presented = json(&presented_text);

    // The approval, if any: sometimes forged, tampered, resealed, rejected, or mistimed.
    let approver = pick(u, APPROVERS)?;
    let approval_id = pick(u, APPROVAL_IDS)?;
    let decided_at = NOW
        + match u.int_in_range(0..=4)? {
            0 => -600_000,
            1 => 0,
            2 => 1,
            3 => -1,
            _ => u.int_in_range(-4_000_000i64..=100_000)?,
        };
    let lifetime = match u.int_in_range(0..=4)? {
        0 => 1_800_000,
        1 => 600_000,
        2 => 600_001,
        3 => 1,
        _ => u.int_in_range(-10i64..=5_000_000)?,
    };
    let decision = if u.ratio(1, 8)? {
        "rejected"
    } else {
        "approved"
    };
    let approval = if u.ratio(1, 6)? {
        None
    } else {
        let mut digest = fingerprint(&frozen).to_string();
        let mut action_text = frozen_text.clone();
        match u.int_in_range(0..=7)? {
            0 => digest = flip(&digest, near_index(u)?),
            1 => action_text = envelope(&ids, c.tool(), c.digest_text(), &args(u, made_under)?), // tampered
            2 => {
                // Tampered and resealed by someone who can compute fingerprints.
                action_text = envelope(&ids, c.tool(), c.digest_text(), &args(u, made_under)?);
                digest = fingerprint(&json(&action_text)).to_string();
            }
            _ => {}
        }
        Some(json(&format!(
            r#"{{"approval_id":{},"decision_id":"dec-1","decision":"{decision}","approver":{},"decided_at":{decided_at},"expires_at":{},"action":{action_text},"action_digest":"{digest}"}}"#,
            quote(approval_id.0),
            quote(approver.0),
            decided_at.saturating_add(lifetime).max(0)
        )))
    };

    // The server's context.
    let ctx_tenant = if u.ratio(3, 4)? {
        ids.tenant
    } else {
        pick(u, TENANTS)?
    };
    let ctx_policy = if u.ratio(3, 4)? {
        ids.policy
    } else {
        pick(u, POLICIES)?
    };
    let in_force = match u.int_in_range(0..=5)? {
        0 => None,
        1 => Some(u.int_in_range(0..=3)?),
        _ => Some(made_under),
    };
    let fact = |u: &mut Unstructured<'_>,
                right: (&'static str, bool),
                from: &[(&'static str, bool)],
                who: &str,
                flag: &str,
                good: bool,
                nullable: bool|
     -> Result<(String, bool)> {
        Ok(match u.int_in_range(0..=9)? {
            0 if nullable => ("null".into(), true),
            1 => {
                let other = pick(u, from)?;
                (
                    format!(r#"{{"{who}":{},"{flag}":{good}}}"#, quote(other.0)),
                    other.1,
                )
            }
            2 => (
                format!(r#"{{"{who}":{},"{flag}":{}}}"#, quote(right.0), !good),
                right.1,
            ),
            3 => (format!(r#"{{"{who}":{}}}"#, quote(right.0)), false),
            _ => (
                format!(r#"{{"{who}":{},"{flag}":{good}}}"#, quote(right.0)),
                right.1,
            ),
        })
    };
    let (approver_fact, a_ok) = fact(u, approver, APPROVERS, "approver", "authorized", true, true)?;
    let (subject_fact, s_ok) = fact(
        u,
        ids.subject,
        SUBJECTS,
        "subject",
        "authorized",
        true,
        false,
    )?;
    let (revoked_fact, r_ok) = fact(
        u,
        approval_id,
        APPROVAL_IDS,
        "approval_id",
        "revoked",
        false,
        true,
    )?;
    let s_ok = s_ok && subject_fact != "null";
    let context_valid = ctx_tenant.1 && ctx_policy.1 && a_ok && s_ok && r_ok;
    let fields = format!(
        r#""now":{NOW},"tenant":{},"policy_version":{},"approver_authorized":{approver_fact},"subject_authorized":{subject_fact},"revoked":{revoked_fact}"#,
        quote(ctx_tenant.0),
        quote(ctx_policy.0)
    );
    let contract_doc = in_force.map_or("null".into(), |i| canonicalize(all[i].document()));
    let context = json(&format!(r#"{{{fields},"contract":{contract_doc}}}"#));

    let verdict = match check(approval.as_ref(), &presented, &context) {
        Ok(v) => v,
        Err(e) => {
            assert!(!context_valid, "a well-formed context was refused: {e}");
            assert_eq!(e.code(), Code::InvalidContext, "{e}");
            return Ok(());
        }
    };
    assert!(context_valid, "a malformed context was accepted");

    // The same verdict with the contract preloaded, and again (a check is pure).
    let ctx = Context::with_contract(
        &json(&format!("{{{fields}}}")),
        in_force.map(|i| all[i].clone()),
    )
    .expect("the same context without its contract");
    let again = check_with(approval.as_ref(), &presented, &ctx);
    assert_eq!(
        canonicalize(&again.to_value()),
        canonicalize(&verdict.to_value())
    );

    // Shape of the verdict.
    let reasons = &verdict.reasons;
    assert!(
        reasons.windows(2).all(|w| w[0] < w[1]),
        "reasons out of order: {reasons:?}"
    );
    let worst = reasons
        .iter()
        .map(|r| r.outcome())
        .max()
        .unwrap_or(Outcome::Permit);
    assert_eq!(verdict.outcome, worst);
    assert_eq!(verdict.outcome == Outcome::Permit, reasons.is_empty());
    assert_eq!(
        reasons.contains(&Reason::ActionDrift),
        !verdict.drift.is_empty()
    );
    assert_eq!(verdict.action_digest, fingerprint(&presented));

    // The oracle.
    let expected = permits(
        approval.as_ref(),
        &presented,
        ctx_tenant.0,
        ctx_policy.0,
        in_force.map(|i| &all[i]),
        &context,
    );
    assert_eq!(
        verdict.outcome == Outcome::Permit,
        expected,
        "check says {:?} {reasons:?}, the oracle says permit={expected}",
        verdict.outcome
    );
    if verdict.outcome == Outcome::Permit && approval.is_some() {
        assert_eq!(verdict.approved_digest, Some(verdict.action_digest));
    }
    Ok(())
}

/// Whether the documented rules permit this call, decided from the documents directly.
fn permits(
    approval: Option<&OwnedValue>,
    action: &OwnedValue,
    tenant: &str,
    policy: &str,
    contract: Option<&Contract>,
    context: &OwnedValue,
) -> bool {
    let Some(contract) = contract else {
        return false;
    };
    let Ok(presented) = actionseal_core::Action::from_value(action) else {
        return false;
    };
    let field = |k: &str| presented.field(k).to_owned();
    if field("tool") != contract.tool()
        || field("contract") != contract.digest_text()
        || field("tenant") != tenant
        || field("policy_version") != policy
    {
        return false;
    }
    let Ok(requirement) = contract.requires_approval(presented.args()) else {
        return false;
    };
    let fact = |key: &str, who: &str, flag: &str| -> Option<(String, bool)> {
        let f = context.as_object()?.get(key)?.as_object()?;
        let about = f.get(who)?.as_str()?.to_owned();
        match f.get(flag)? {
            Value::Bool(b) => Some((about, *b)),
            _ => None,
        }
    };
    if fact("subject_authorized", "subject", "authorized") != Some((field("subject"), true)) {
        return false;
    }
    let Some(record) = approval else {
        return !requirement.required;
    };
    let Ok(a) = Approval::from_value(record) else {
        return false;
    };
    let text = |k: &str| {
        record
            .as_object()
            .and_then(|o| o.get(k))
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned()
    };
    let now = NOW;
    a.is_sealed()
        && contract
            .max_approval_ms()
            .map_or(true, |cap| a.expires_at() - a.decided_at() <= cap)
        && a.decision() == Decision::Approved
        && a.action_digest() == presented.digest()
        && a.decided_at() <= now
        && now < a.expires_at()
        && fact("approver_authorized", "approver", "authorized") == Some((text("approver"), true))
        && fact("revoked", "approval_id", "revoked") == Some((text("approval_id"), false))
}

fuzz_target!(|data: &[u8]| {
    let _ = run(&mut Unstructured::new(data));
});
