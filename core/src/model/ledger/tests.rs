use super::*;
use crate::json::digest::Digest;
use crate::model::approval::Decision;
use crate::{parse, Code, Options, OwnedValue, Value};

fn json(text: &str) -> OwnedValue {
    parse(text.as_bytes(), &Options::default())
        .unwrap()
        .into_owned()
}

fn snap(state: State) -> Snapshot {
    Snapshot {
        state,
        fence: 3,
        lease_until: Some(1_000),
    }
}

#[test]
fn every_state_has_one_answer_for_every_operation() {
    let ops = [
        Op::Amend,
        Op::Decide(Decision::Approved),
        Op::Decide(Decision::Rejected),
        Op::ClaimPermit,
        Op::ClaimDrift,
        Op::ClaimReapprove,
        Op::ClaimReject,
        Op::Complete {
            fence: 3,
            reported: Reported::Succeeded,
        },
        Op::ExpireLease,
        Op::Reconcile(Observed::NotExecuted),
    ];
    for &s in State::ALL {
        for op in ops {
            // No panics, and final states refuse everything.
            let r = next(&snap(s), op, 0);
            if s.is_final() {
                assert!(r.is_err(), "{s:?} {op:?}");
            }
        }
    }
    let claimed = snap(State::Claimed);
    assert_eq!(
        next(&claimed, Op::ClaimPermit, 0).unwrap_err().code(),
        Code::AlreadyClaimed
    );
    assert_eq!(
        next(&snap(State::Approved), Op::ClaimReapprove, 0).unwrap(),
        State::AwaitingReapproval
    );
}

#[test]
fn completion_needs_the_current_fence_and_a_live_lease() {
    let s = snap(State::Claimed);
    let done = |fence, now| {
        next(
            &s,
            Op::Complete {
                fence,
                reported: Reported::Succeeded,
            },
            now,
        )
    };
    assert_eq!(done(3, 999).unwrap(), State::Succeeded);
    assert_eq!(done(2, 999).unwrap_err().code(), Code::StaleFence);
    assert_eq!(done(3, 1_000).unwrap_err().code(), Code::LeaseExpired);
    assert!(s.lease_expired(1_000) && !s.lease_expired(999));
}

#[test]
fn identities_are_stable_and_distinct() {
    let t = task_id("tenant-a", "job-7f93", "req-b285");
    let k = idempotency_key("tenant-a", "job-7f93", "req-b285");
    assert!(t.starts_with("task_") && t.len() == 37);
    assert!(k.starts_with("idem_") && k.len() == 37);
    assert_ne!(t[5..], k[5..]);
    assert_eq!(t, task_id("tenant-a", "job-7f93", "req-b285"));
    // Parts are framed: moving a character between fields changes the id.
    assert_ne!(task_id("ab", "c", "d"), task_id("a", "bc", "d"));
    assert_ne!(approval_id(&t, 1), approval_id(&t, 2));
}

#[test]
fn facts_never_set_now_or_revoked() {
    let facts = |extra: &str| {
        json(&format!(
            r#"{{"tenant": "a", "policy_version": "p", "contract": null,
                "approver_authorized": {{"approver": "b", "authorized": true}},
                "subject_authorized": {{"subject": "s", "authorized": true}}{extra}}}"#
        ))
    };
    assert!(context(&facts(""), 5, Some(("ap", false))).is_ok());
    assert!(context(&facts(""), 5, None).is_ok());
    for extra in [
        r#", "now": 1"#,
        r#", "revoked": false"#,
        r#", "breaker": "closed""#,
    ] {
        let e = context(&facts(extra), 5, None).unwrap_err();
        assert_eq!(e.code(), Code::InvalidContext);
        assert!(e.message().contains("supplied by the ledger"), "{e}");
    }
    let e = context(&json(r#"{"tenant": "a"}"#), 5, None).unwrap_err();
    assert_eq!(e.code(), Code::InvalidContext);
}

#[test]
fn budget_reservations_stop_at_the_limit() {
    assert_eq!(reserve(100, 50, 25, 25).unwrap(), 50);
    assert_eq!(
        reserve(100, 50, 25, 26).unwrap_err().code(),
        Code::BudgetExceeded
    );
    assert_eq!(
        reserve(100, 0, 0, -1).unwrap_err().code(),
        Code::InvalidBudget
    );
    assert_eq!(
        reserve(i64::MAX, i64::MAX, 0, 1).unwrap_err().code(),
        Code::BudgetExceeded
    );
}

/// The proposal of task `req-{chain}-{seq}` of job `job`, as event `seq` of `chain`: each
/// one a task of its own, so that any run of them replays.
fn proposal(chain: i64, seq: i64, prev: Option<Digest>) -> Event {
    let request = format!("req-{chain}-{seq}");
    let task = task_id("a", "job", &request);
    Event {
        chain,
        seq,
        at: 1_000 + seq,
        tenant: "a".into(),
        task: Some(task.clone()),
        kind: EventKind::Proposed,
        actor: "agent".into(),
        action_digest: Some(Digest::of(b"x")),
        approved_digest: None,
        decision_id: None,
        fence: None,
        outcome: None,
        reasons: vec![],
        drift: vec!["/args/amount".into()],
        state: Some(State::AwaitingApproval),
        detail: json(&format!(
            r#"{{"tool": "t", "job_id": "job", "request_id": "{request}",
                "approval_required": true, "approval_id": "{}"}}"#,
            approval_id(&task, 1)
        )),
        prev,
    }
}

fn event(seq: i64, prev: Option<Digest>) -> Event {
    proposal(3, seq, prev)
}

fn chain(n: i64) -> Vec<String> {
    let mut prev = None;
    (1..=n)
        .map(|seq| {
            let e = event(seq, prev);
            let d = e.digest();
            prev = Some(d);
            Event::line(&e.canonical(), &d)
        })
        .collect()
}

/// Where a chain of `chain(n)` breaks, as (line, seq, problem) in chain 3.
fn broken_at(text: &str, heads: &[ChainHead]) -> Option<(i64, Option<i64>, Problem)> {
    verify_audit(text.as_bytes(), heads)
        .broken
        .map(|b| (b.line, b.seq, b.problem))
}

#[test]
fn the_verifier_names_the_first_broken_seq() {
    let lines = chain(5);
    let text = lines.join("\n");
    let ok = verify_audit(text.as_bytes(), &[]);
    assert_eq!((ok.events, ok.broken), (5, None));
    assert_eq!(ok.heads.len(), 1);
    // Every event reads back as it was written.
    let back: OwnedValue = json(&lines[1]);
    let Value::Object(o) = back else { panic!() };
    let body = Value::Object(
        crate::Object::from_entries(
            o.into_entries()
                .into_iter()
                .filter(|(k, _)| k != "digest")
                .collect(),
        )
        .unwrap(),
    );
    assert_eq!(
        Event::from_value(&body).unwrap(),
        event(2, Some(event(1, None).digest()))
    );

    let edited = text.replacen("\"actor\":\"agent\"", "\"actor\":\"mallory\"", 3);
    // The first three events were edited: the first is named.
    assert_eq!(
        broken_at(&edited, &[]),
        Some((1, Some(1), Problem::DigestMismatch))
    );

    let mut removed = lines.clone();
    removed.remove(2);
    assert_eq!(
        broken_at(&removed.join("\n"), &[]),
        Some((3, Some(3), Problem::SeqGap))
    );

    let mut swapped = lines.clone();
    swapped.swap(1, 2);
    assert_eq!(
        broken_at(&swapped.join("\n"), &[]),
        Some((2, Some(2), Problem::SeqGap))
    );

    let heads = ok.heads.clone();
    assert_eq!(heads[0].0, 3);
    let truncated = lines[..4].join("\n");
    assert_eq!(
        broken_at(&truncated, &heads),
        Some((5, Some(5), Problem::HeadMismatch))
    );
    assert!(verify_audit(text.as_bytes(), &heads).broken.is_none());
    assert_eq!(
        broken_at("{\"seq\":1}\n", &[]),
        Some((1, None, Problem::Malformed))
    );
    let report = verify_audit(edited.as_bytes(), &[]);
    let e = report.into_result().unwrap_err();
    assert_eq!(e.code(), Code::AuditChainBroken);
    assert!(e.message().contains("chain 3 breaks at seq 1"), "{e}");
}

#[test]
fn chains_interleave_and_are_checked_apart() {
    let a = chain(3);
    let mut other = Vec::new();
    let mut prev = None;
    for seq in 1..=2 {
        let e = proposal(9, seq, prev);
        let d = e.digest();
        prev = Some(d);
        other.push(Event::line(&e.canonical(), &d));
    }
    let mixed = [&a[0], &other[0], &a[1], &other[1], &a[2]]
        .map(|s| s.as_str())
        .join("\n");
    let r = verify_audit(mixed.as_bytes(), &[]);
    assert_eq!((r.events, r.broken, r.heads.len()), (5, None, 2));
    // Removing chain 9's first event breaks chain 9, not chain 3.
    let cut = [&a[0], &a[1], &other[1], &a[2]]
        .map(|s| s.as_str())
        .join("\n");
    let b = verify_audit(cut.as_bytes(), &[]).broken.unwrap();
    assert_eq!(
        (b.line, b.chain, b.seq, b.problem),
        (3, Some(9), Some(1), Problem::SeqGap)
    );
    for t in ["task_1", "task_2", "x"] {
        assert!((0..CHAINS).contains(&chain_of(Some(t))));
    }
    assert_eq!(chain_of(None), 0);
}

#[test]
fn an_event_reported_with_its_own_fixed_digest_breaks_the_next_link() {
    // Rewrite event 2 completely and re-seal it: event 3's prev no longer matches.
    let mut lines = chain(4);
    let mut e2 = event(2, Some(event(1, None).digest()));
    e2.actor = "mallory".into();
    lines[1] = Event::line(&e2.canonical(), &e2.digest());
    assert_eq!(
        broken_at(&lines.join("\n"), &[]),
        Some((3, Some(3), Problem::PrevMismatch))
    );
}

#[test]
fn decision_envelopes_are_strict() {
    let d = Digest::of(b"a").to_string();
    let text = format!(
        r#"{{"approval_id": "apr", "decision_id": "dec", "job_id": "j", "request_id": "r",
            "action_digest": "{d}", "decision": "approved", "approver": "bob",
            "decided_at": 10, "expires_at": 20}}"#
    );
    let env = DecisionEnvelope::from_value(&json(&text)).unwrap();
    assert_eq!(DecisionEnvelope::from_value(&env.to_value()).unwrap(), env);
    assert!(env.check_task("j", "r", &Digest::of(b"a")).is_ok());
    let e = env.check_task("j", "r", &Digest::of(b"b")).unwrap_err();
    assert_eq!(
        (e.code(), e.path()),
        (Code::DecisionMismatch, "/action_digest")
    );
    for bad in [
        text.replace("\"approved\"", "\"yes\""),
        text.replace("20}", "10}"),
        text.replace("\"bob\"", "\" bob\""),
        text.replace("}", ", \"extra\": 1}"),
    ] {
        let e = DecisionEnvelope::from_value(&json(&bad)).unwrap_err();
        assert_eq!(e.code(), Code::InvalidDecision, "{bad}");
    }
}

#[test]
fn the_direct_event_text_is_the_canonical_form() {
    let mut e = event(7, Some(Digest::of(b"p")));
    let check = |e: &Event| {
        assert_eq!(e.canonical(), crate::canonicalize(&e.to_value()));
        // The pieces a database joins around the chain's members give the same text.
        let [a, b, c] = e.canonical_around();
        let prev = e.prev.map_or("null".to_owned(), |d| format!("\"{d}\""));
        let v = e.to_value();
        let seq = crate::canonicalize(v.as_object().and_then(|o| o.get("seq")).unwrap());
        assert_eq!(format!("{a}{prev}{b}{seq}{c}"), e.canonical());
    };
    check(&e);
    // Every optional member absent, then present; strings that need escaping; big numbers.
    e.task = None;
    e.action_digest = None;
    e.state = None;
    e.detail = json("{}");
    e.drift.clear();
    check(&e);
    e.tenant = "t\"\\\u{1}\u{7f}é\u{1F600}\u{2028}".into();
    e.actor = "a\nb".into();
    e.task = Some("task_é".into());
    e.approved_digest = Some(Digest::of(b"a"));
    e.decision_id = Some("d<>&'".into());
    e.fence = Some(9_007_199_254_740_991);
    e.at = 0;
    e.outcome = Some(String::new());
    e.reasons = vec!["expired".into(), "x\"y".into()];
    e.drift = vec!["/args/a~1b".into(), "/€".into()];
    e.detail = json(r#"{"z": [1, 2.5, -0, 1e21], "a": {"é": null, "e": true}}"#);
    for &kind in EventKind::ALL {
        e.kind = kind;
        for &state in State::ALL {
            e.state = Some(state);
            check(&e);
        }
    }
    // Out-of-range integers are null in both.
    e.seq = i64::MAX;
    check(&e);
}
