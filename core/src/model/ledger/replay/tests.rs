//! The replay of tasks' events, the rows held to it, and exported heads, on one lifecycle
//! written as the ledger writes it.

use crate::json::digest::Digest;
use crate::model::ledger::*;
use crate::{parse, Code, Options, OwnedValue};

fn json(text: &str) -> OwnedValue {
    parse(text.as_bytes(), &Options::default())
        .unwrap()
        .into_owned()
}

/// The action's text: its digest is `Digest::of(b"x")`, as a stored canonical text's is.
const ACTION: &str = "x";

struct Story {
    task: String,
    apr: String,
    events: Vec<Event>,
}

impl Story {
    fn new() -> Story {
        let task = task_id("a", "job", "req");
        Story {
            apr: approval_id(&task, 1),
            task,
            events: Vec::new(),
        }
    }

    fn push(&mut self, kind: EventKind, state: State, fence: Option<i64>, detail: String) {
        self.events.push(Event {
            chain: chain_of(Some(&self.task)),
            seq: 0,
            at: 1_000 + self.events.len() as i64,
            tenant: "a".into(),
            task: Some(self.task.clone()),
            kind,
            actor: "someone".into(),
            action_digest: Some(Digest::of(ACTION.as_bytes())),
            approved_digest: None,
            decision_id: (kind == EventKind::Decided).then(|| "dec-1".into()),
            fence,
            outcome: None,
            reasons: vec![],
            drift: vec![],
            state: Some(state),
            detail: json(&detail),
            prev: None,
        });
    }

    /// A task proposed, awaiting a decision in its first round.
    fn proposed() -> Story {
        let mut s = Story::new();
        let apr = s.apr.clone();
        s.push(
            EventKind::Proposed,
            State::AwaitingApproval,
            None,
            format!(
                r#"{{"job_id": "job", "request_id": "req", "approval_required": true,
                    "approval_id": "{apr}"}}"#
            ),
        );
        s
    }

    /// proposed, decided (approved), claimed (fence 1, lease until 5000), completed.
    fn lifecycle() -> Story {
        let mut s = Story::proposed();
        let apr = s.apr.clone();
        s.push(
            EventKind::Decided,
            State::Approved,
            None,
            format!(
                r#"{{"approval_id": "{apr}", "decision": "approved", "approver": "user:bob",
                    "decided_at": 1000, "expires_at": 9000}}"#
            ),
        );
        s.events[1].outcome = Some("approved".into());
        s.claim(1);
        s.push(
            EventKind::Completed,
            State::Succeeded,
            Some(1),
            r#"{"reported": "succeeded", "result_digest": null}"#.into(),
        );
        s.events[3].outcome = Some("succeeded".into());
        s
    }

    fn claim(&mut self, fence: i64) {
        self.push(
            EventKind::Claimed,
            State::Claimed,
            Some(fence),
            r#"{"executor": "w", "lease_until": 5000}"#.into(),
        );
    }

    /// The export: every event sealed in its chain, one line each.
    fn export(&self) -> String {
        let mut prev = None;
        let mut out = String::new();
        for (i, e) in self.events.iter().enumerate() {
            let mut e = e.clone();
            e.seq = i as i64 + 1;
            e.prev = prev;
            let d = e.digest();
            prev = Some(d);
            out += &Event::line(&e.canonical(), &d);
            out.push('\n');
        }
        out
    }

    fn last_digest(&self, n: usize) -> Digest {
        let r = verify_audit(self.export().as_bytes(), &[]);
        assert!(r.broken.is_none(), "{:?}", r.broken);
        let text = self.export();
        let line = text.lines().nth(n - 1).unwrap();
        let v = json(line);
        v.as_object()
            .unwrap()
            .get("digest")
            .unwrap()
            .as_str()
            .unwrap()
            .parse()
            .unwrap()
    }
}

fn record(apr: &str) -> String {
    format!(
        r#"{{"action":{{}},"action_digest":"{}","approval_id":"{apr}","approver":"user:bob","decided_at":1000,"decision":"approved","decision_id":"dec-1","expires_at":9000}}"#,
        Digest::of(ACTION.as_bytes())
    )
}

fn row<'a>(s: &'a Story, approval: &'a str, last: Digest) -> StoredTask<'a> {
    StoredTask {
        id: &s.task,
        state: State::Succeeded,
        round: 1,
        fence: 1,
        approval_id: Some(&s.apr),
        round_started_at: 1_000,
        lease_until: None,
        action_digest: Digest::of(ACTION.as_bytes()),
        action: ACTION,
        proposed_digest: None,
        proposed_action: None,
        amendments: 0,
        approval: Some(approval),
        proof: None,
        revoked_at: None,
        result: None,
        last_event: Some(last),
    }
}

/// (line, problem, task, field) of the first break.
fn breaks(
    text: &str,
    expected: &Expected<'_>,
) -> Option<(i64, Problem, Option<String>, Option<&'static str>)> {
    verify_audit_with(text.as_bytes(), expected)
        .broken
        .map(|b| (b.line, b.problem, b.task, b.field))
}

#[test]
fn a_lifecycle_replays_and_its_row_matches() {
    let s = Story::lifecycle();
    let rec = record(&s.apr);
    let rows = [row(&s, &rec, s.last_digest(4))];
    let expected = Expected {
        rows: Some(&rows),
        ..Expected::default()
    };
    assert_eq!(breaks(&s.export(), &expected), None);
}

#[test]
fn a_second_claim_after_success_breaks_the_replay() {
    let mut s = Story::lifecycle();
    s.claim(2);
    let b = breaks(&s.export(), &Expected::default());
    assert_eq!(
        b,
        Some((
            5,
            Problem::InvalidTransition,
            Some(s.task.clone()),
            Some("state")
        ))
    );
}

#[test]
fn events_that_cannot_follow_are_named_by_member() {
    type Edit = fn(&mut Story);
    let cases: [(&str, Edit); 6] = [
        ("fence", |s| s.events[2].fence = Some(2)),
        ("state", |s| s.events[1].state = Some(State::Rejected)),
        ("detail/approval_id", |s| {
            s.events[1].detail = json(
                r#"{"approval_id": "apr_other", "approver": "b",
                "decided_at": 1, "expires_at": 2}"#,
            )
        }),
        ("action_digest", |s| {
            s.events[1].action_digest = Some(Digest::of(b"y"))
        }),
        // A completion after the lease ran out: the ledger would have refused it.
        ("state", |s| s.events[3].at = 6_000),
        ("kind", |s| s.events[0].kind = EventKind::Claimed),
    ];
    for (field, edit) in cases {
        let mut s = Story::lifecycle();
        edit(&mut s);
        let b = breaks(&s.export(), &Expected::default()).unwrap();
        assert_eq!((b.1, b.3), (Problem::InvalidTransition, Some(field)));
    }
    // A proposal whose task id is not its identity's.
    let mut s = Story::lifecycle();
    s.events[0].detail = json(
        r#"{"job_id": "job", "request_id": "other",
        "approval_required": true, "approval_id": "x"}"#,
    );
    assert_eq!(
        breaks(&s.export(), &Expected::default()).unwrap().3,
        Some("task")
    );
}

#[test]
fn a_row_that_is_not_what_its_events_leave_is_named_by_column() {
    let s = Story::lifecycle();
    let rec = record(&s.apr);
    let good = row(&s, &rec, s.last_digest(4));
    let rewound = StoredTask {
        state: State::Approved,
        ..good
    };
    let moved_back = StoredTask {
        last_event: Some(s.last_digest(3)),
        ..good
    };
    let longer = rec.replace("9000", "99000");
    let extended = StoredTask {
        approval: Some(&longer),
        ..good
    };
    let edited = StoredTask {
        action: "y",
        ..good
    };
    for (r, field) in [
        (rewound, "state"),
        (moved_back, "last_event"),
        (extended, "approval"),
        (edited, "action"),
    ] {
        let rows = [r];
        let expected = Expected {
            rows: Some(&rows),
            ..Expected::default()
        };
        // Reported at the task's last event.
        assert_eq!(
            breaks(&s.export(), &expected),
            Some((4, Problem::RowMismatch, Some(s.task.clone()), Some(field)))
        );
    }
    // Events without a row, and a row without events.
    let none: [StoredTask<'_>; 0] = [];
    let expected = Expected {
        rows: Some(&none),
        ..Expected::default()
    };
    assert_eq!(breaks(&s.export(), &expected).unwrap().3, Some("id"));
    let other = task_id("a", "job", "other");
    let orphan = StoredTask { id: &other, ..good };
    let rows = [good, orphan];
    let expected = Expected {
        rows: Some(&rows),
        ..Expected::default()
    };
    assert_eq!(
        breaks(&s.export(), &expected),
        Some((
            5,
            Problem::RowMismatch,
            Some(other.clone()),
            Some("last_event")
        ))
    );
}

#[test]
fn exported_heads_find_a_truncated_or_resealed_chain() {
    let s = Story::lifecycle();
    let full = verify_audit(s.export().as_bytes(), &[]);
    let file = ExportedHeads {
        at: 5_000,
        heads: full.heads.clone(),
    };
    let chain = file.heads[0].0;
    let with = |text: &str| {
        verify_audit_with(
            text.as_bytes(),
            &Expected {
                exported: &file.heads,
                ..Expected::default()
            },
        )
        .broken
        .map(|b| (b.line, b.chain, b.seq, b.problem))
    };
    assert_eq!(with(&s.export()), None);
    // The last event cut (whatever the recorded head says).
    let mut cut = Story::lifecycle();
    cut.events.pop();
    assert_eq!(
        with(&cut.export()),
        Some((4, Some(chain), Some(4), Problem::Truncated))
    );
    // An event edited and every chain after it sealed again: it verifies on its own.
    let mut resealed = Story::lifecycle();
    resealed.events[2].actor = "mallory".into();
    assert!(verify_audit(resealed.export().as_bytes(), &[])
        .broken
        .is_none());
    assert_eq!(
        with(&resealed.export()),
        Some((4, Some(chain), Some(4), Problem::Resealed))
    );
    // A chain that grew since is fine.
    let mut grown = Story::lifecycle();
    grown.push(
        EventKind::ClaimRefused,
        State::Succeeded,
        Some(1),
        "{}".into(),
    );
    assert_eq!(with(&grown.export()), None);
}

#[test]
fn the_heads_file_is_strict_and_round_trips() {
    let d = Digest::of(b"e");
    let file = ExportedHeads {
        at: 7,
        heads: vec![(2, 5, d), (9, 1, d)],
    };
    let text = crate::canonicalize(&file.to_value());
    assert_eq!(
        text,
        format!(
            r#"{{"at":7,"heads":[{{"chain":2,"digest":"{d}","seq":5}},{{"chain":9,"digest":"{d}","seq":1}}],"version":1}}"#
        )
    );
    assert_eq!(ExportedHeads::from_value(&json(&text)).unwrap(), file);
    for (bad, path) in [
        (text.replace("\"version\":1", "\"version\":2"), "/version"),
        (text.replace(",\"version\":1", ""), "/version"),
        (text.replace("\"chain\":9", "\"chain\":2"), "/heads/1/chain"),
        (
            text.replace("\"chain\":9", "\"chain\":256"),
            "/heads/1/chain",
        ),
        (text.replace("\"seq\":1", "\"seq\":0"), "/heads/1/seq"),
        (text.replace("\"at\":7", "\"at\":7,\"extra\":1"), "/extra"),
        (r#"{"at":7,"heads":{},"version":1}"#.to_owned(), "/heads"),
    ] {
        let e = ExportedHeads::from_value(&json(&bad)).unwrap_err();
        assert_eq!(
            (e.code(), e.path()),
            (Code::InvalidAuditHeads, path),
            "{bad}"
        );
    }
}

#[test]
fn the_proof_policy_replays_and_its_row_is_held_to_its_last_change() {
    let change = |from: &str, to: &str, at: i64| Event {
        chain: 0,
        seq: 0,
        at,
        tenant: "ledger".into(),
        task: None,
        kind: EventKind::ProofPolicyChanged,
        actor: "admin".into(),
        action_digest: None,
        approved_digest: None,
        decision_id: None,
        fence: None,
        outcome: Some(to.into()),
        reasons: vec![],
        drift: vec![],
        state: None,
        detail: json(&format!(
            r#"{{"from": "{from}", "to": "{to}", "reason": "r"}}"#
        )),
        prev: None,
    };
    let mut s = Story::new();
    s.events = vec![
        change("optional", "required", 5),
        change("required", "optional", 6),
    ];
    let row = |proof, changed_at| StoredPolicy {
        proof,
        changed_at,
        changed_by: "admin",
    };
    let with = |s: &Story, policy| {
        verify_audit_with(
            s.export().as_bytes(),
            &Expected {
                policy: Some(policy),
                ..Expected::default()
            },
        )
        .broken
        .map(|b| (b.line, b.problem, b.task, b.field))
    };
    assert_eq!(with(&s, row("optional", 6)), None);
    // Weakened (or dated) by hand: found at the last change.
    assert_eq!(
        with(&s, row("required", 6)),
        Some((2, Problem::RowMismatch, None, Some("proof")))
    );
    assert_eq!(
        with(&s, row("optional", 7)),
        Some((2, Problem::RowMismatch, None, Some("changed_at")))
    );
    // A ledger whose policy never changed holds the first one.
    let none = Story::new();
    let first = StoredPolicy {
        proof: "optional",
        changed_at: 0,
        changed_by: "ledger",
    };
    assert_eq!(with(&none, first), None);
    assert_eq!(
        with(&none, row("required", 0)),
        Some((1, Problem::RowMismatch, None, Some("proof")))
    );
    // A change that does not start from the policy before it.
    s.events[1] = change("optional", "required", 6);
    assert_eq!(
        with(&s, row("required", 6)),
        Some((2, Problem::InvalidTransition, None, Some("detail/from")))
    );
}

/// A round under a quorum: proposed, then user:bob's decision and user:dave's for user:carol
/// through a link in a signed envelope's form, each with the row a ledger keeps of it.
struct Round {
    story: Story,
    /// Each member's record, canonical.
    records: [String; 2],
}

impl Round {
    fn new() -> Round {
        let envelope = json(&format!(
            r#"{{"tenant": "a", "subject": "user:s", "tool": "t", "job_id": "job",
                "request_id": "req", "policy_version": "p", "contract": "{}",
                "args": {{"amount_minor": 2500}}}}"#,
            Digest::of(b"contract")
        ));
        let action = crate::Action::from_value(&envelope).unwrap();
        let document = r#"{"delegation_id":"dlg-1","delegator":"user:carol"}"#;
        let link = json(&format!(
            r#"{{"payloadType": "application/vnd.actionseal.delegation+json", "payload": "{}",
                "signatures": []}}"#,
            crate::base64url_encode(document.as_bytes())
        ));
        let links = [link];
        let mut s = Story::proposed();
        let apr = s.apr.clone();
        let mut records = Vec::new();
        for (id, approver, behalf) in [
            ("dec-1", "user:bob", None),
            ("dec-2", "user:dave", Some("user:carol")),
        ] {
            let input = crate::DecisionInput {
                approval_id: &apr,
                decision_id: id,
                decision: crate::Decision::Approved,
                approver,
                decided_at: 1_000,
                expires_at: 9_000,
                proposed_digest: None,
                role: None,
                on_behalf_of: behalf,
                delegation: behalf.map(|_| &links[..]),
            };
            records.push(crate::canonicalize(
                crate::Approval::decide(&action, &input).unwrap().value(),
            ));
            let delegation = match behalf {
                Some(root) => format!(
                    r#", "on_behalf_of": "{root}", "delegations": ["{}"]"#,
                    crate::fingerprint(&json(document))
                ),
                None => String::new(),
            };
            s.push(
                EventKind::Decided,
                State::AwaitingApproval,
                None,
                format!(
                    r#"{{"approval_id": "{apr}", "decision": "approved", "approver": "{approver}",
                        "decided_at": 1000, "expires_at": 9000, "counted_as": "{}",
                        "role": null{delegation}}}"#,
                    behalf.unwrap_or(approver)
                ),
            );
            let e = s.events.last_mut().unwrap();
            e.decision_id = Some(id.into());
            e.outcome = Some("approved".into());
        }
        for e in &mut s.events {
            e.action_digest = Some(action.digest());
        }
        let records = [records[0].clone(), records[1].clone()];
        Round { story: s, records }
    }

    fn rows(&self) -> Vec<StoredDecision<'_>> {
        let counted = ["user:bob", "user:carol"];
        (0..2)
            .map(|i| StoredDecision {
                approval_id: &self.story.apr,
                n: i as i64 + 1,
                decision_id: ["dec-1", "dec-2"][i],
                counted_as: counted[i],
                role: None,
                decision: "approved",
                record: &self.records[i],
                proof: None,
                decided_at: 1_000,
                recorded_at: 1_001 + i as i64,
            })
            .collect()
    }
}

#[test]
fn round_decisions_are_held_to_their_decided_events() {
    let round = Round::new();
    let text = round.story.export();
    let check = |rows: &[StoredDecision<'_>]| {
        breaks(
            &text,
            &Expected {
                decisions: Some(rows),
                ..Expected::default()
            },
        )
    };
    let task = Some(round.story.task.clone());
    let at = |line, field| Some((line, Problem::RowMismatch, task.clone(), Some(field)));
    assert_eq!(check(&round.rows()), None);
    // A row deleted, and one inserted where no event is.
    assert_eq!(check(&round.rows()[..1]), at(3, "round_decisions/n"));
    let mut rows = round.rows();
    rows.push(StoredDecision { n: 3, ..rows[0] });
    assert_eq!(check(&rows), at(3, "round_decisions/n"));
    // The link replaced in dave's record: its digest is not the event's.
    let document =
        crate::base64url_encode(br#"{"delegation_id":"dlg-2","delegator":"user:carol"}"#);
    let swapped = round.records[1].replace(
        &crate::base64url_encode(br#"{"delegation_id":"dlg-1","delegator":"user:carol"}"#),
        &document,
    );
    assert_ne!(swapped, round.records[1]);
    let mut rows = round.rows();
    rows[1].record = &swapped;
    assert_eq!(check(&rows), at(3, "round_decisions/record"));
    // Bob's record with another amount: its frozen action is not the event's.
    let more = round.records[0].replace("2500", "25000");
    let mut rows = round.rows();
    rows[0].record = &more;
    assert_eq!(check(&rows), at(2, "round_decisions/record"));
    let mut rows = round.rows();
    rows[0].counted_as = "user:carol";
    assert_eq!(check(&rows), at(2, "round_decisions/counted_as"));
}

/// A task under a quorum of two, approved, sent back for re-approval, and approved again by a
/// second round whose meeting member's event records `met_state`.
fn reapproved(met_state: State) -> Story {
    let mut s = Story::proposed();
    let (first, second) = (s.apr.clone(), approval_id(&s.task, 2));
    let round = |s: &mut Story, apr: &str, waiting: State, met: State, ids: [&str; 2]| {
        for (n, (who, id)) in ["user:bob", "user:carol"].iter().zip(ids).enumerate() {
            let state = if n == 0 { waiting } else { met };
            s.push(
                EventKind::Decided,
                state,
                None,
                format!(
                    r#"{{"approval_id": "{apr}", "decision": "approved", "approver": "{who}",
                        "decided_at": 1000, "expires_at": 9000, "counted_as": "{who}",
                        "role": null}}"#
                ),
            );
            let e = s.events.last_mut().unwrap();
            e.decision_id = Some(id.into());
            e.outcome = Some("approved".into());
        }
        s.push(
            EventKind::QuorumMet,
            State::Approved,
            None,
            format!(r#"{{"approval_id": "{apr}"}}"#),
        );
        let e = s.events.last_mut().unwrap();
        e.decision_id = Some(ids[1].into());
        e.outcome = Some("approved".into());
    };
    round(
        &mut s,
        &first,
        State::AwaitingApproval,
        State::AwaitingApproval,
        ["dec-1", "dec-2"],
    );
    s.push(
        EventKind::SentToReapproval,
        State::AwaitingReapproval,
        None,
        format!(r#"{{"approval_id": "{second}"}}"#),
    );
    round(
        &mut s,
        &second,
        State::AwaitingReapproval,
        met_state,
        ["dec-3", "dec-4"],
    );
    s
}

#[test]
fn a_quorum_round_of_a_reapproval_replays() {
    // Its members leave the task awaiting re-approval, the meeting one too (a ledger before
    // 2026-12-06 recorded that one as awaiting approval); its quorum_met approves the task.
    for met in [State::AwaitingReapproval, State::AwaitingApproval] {
        let r = verify_audit(reapproved(met).export().as_bytes(), &[]);
        assert!(r.broken.is_none(), "{met:?}: {:?}", r.broken);
    }
    let r = verify_audit(reapproved(State::Approved).export().as_bytes(), &[]);
    assert!(r.broken.is_some(), "a member that approves by itself");
}
