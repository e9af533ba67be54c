//! Filtered, paged reads on both engines: `tasks_where` and `audit_export_where` by tenant,
//! state and time, a page at a time with an opaque cursor; and `Task::decision`, the decision
//! built from a task, which the ledger records as its own.

mod common;

use actionseal_core::ledger::State;
use actionseal_core::{canonicalize, Action, ActionIds, Code, Contract, Decision, OwnedValue};
use actionseal_ledger::{DecisionDraft, Ledger, ManualClock, Page, Query};
use common::*;

/// A refund like [`refund`], in `tenant`.
fn refund_in(tenant: &str, job: &str) -> OwnedValue {
    let c = Contract::from_value(&refund_contract()).unwrap();
    let ids = ActionIds {
        tenant,
        subject: "user:alice",
        job_id: job,
        request_id: "req-1",
        policy_version: "refund-policy-2026-08-01",
    };
    let args = json(r#"{"order_id": "order-17", "amount_minor": 2500, "currency": "USD"}"#);
    Action::build(&c, &args, &ids).unwrap().value().clone()
}

/// Proposes, one minute apart from T0, tasks of tenant-a (a0..a3) and tenant-b (b0, b1);
/// a2 and b1 at the same ms, and a1 approved. Returns the ledger and the ids by name.
fn seeded(db: &Db, clock: &ManualClock) -> (Ledger, Vec<(String, String)>) {
    let l = db.open_at(clock);
    let mut ids = Vec::new();
    for (i, (tenant, job)) in [
        ("tenant-a", "a0"),
        ("tenant-b", "b0"),
        ("tenant-a", "a1"),
        ("tenant-a", "a2"),
        ("tenant-b", "b1"),
        ("tenant-a", "a3"),
    ]
    .into_iter()
    .enumerate()
    {
        // a2 and b1 share a millisecond: the cursor must tell them apart by id.
        let minute = if job == "b1" { i as i64 - 1 } else { i as i64 };
        clock.set(T0 + minute * MINUTE);
        let t = l
            .propose(&refund_in(tenant, job), &refund_contract(), "agent")
            .unwrap();
        ids.push((job.to_owned(), t.id));
    }
    clock.set(T0 + 10 * MINUTE);
    let a1 = l.task(&ids[2].1).unwrap();
    l.decide(&decision(&a1, "d1", "approved", T0 + 10 * MINUTE, HOUR))
        .unwrap();
    (l, ids)
}

fn jobs(page: &Page<actionseal_ledger::Task>) -> Vec<String> {
    page.items.iter().map(|t| t.job_id.clone()).collect()
}

fn q() -> Query {
    Query::default()
}

#[test]
fn tasks_by_tenant_state_and_time() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let clock = ManualClock::new(T0);
        let (l, _) = seeded(&db, &clock);
        let all = l.tasks_where(&q()).unwrap();
        assert_eq!(all.next, None);
        assert_eq!(all.items.len(), 6, "{engine:?}");
        let a = l
            .tasks_where(&Query {
                tenant: Some("tenant-a".into()),
                ..q()
            })
            .unwrap();
        assert_eq!(jobs(&a), ["a0", "a1", "a2", "a3"], "{engine:?}");
        let approved = l
            .tasks_where(&Query {
                state: Some(State::Approved),
                ..q()
            })
            .unwrap();
        assert_eq!(jobs(&approved), ["a1"], "{engine:?}");
        // since is inclusive, until exclusive: minutes 2 and 3 (a1, a2 and b1).
        let window = l
            .tasks_where(&Query {
                since: Some(T0 + 2 * MINUTE),
                until: Some(T0 + 4 * MINUTE),
                ..q()
            })
            .unwrap();
        let mut got = jobs(&window);
        got.sort();
        assert_eq!(got, ["a1", "a2", "b1"], "{engine:?}");
        // All filters at once.
        let one = l
            .tasks_where(&Query {
                tenant: Some("tenant-a".into()),
                state: Some(State::AwaitingApproval),
                since: Some(T0 + MINUTE),
                until: Some(T0 + 4 * MINUTE),
                ..q()
            })
            .unwrap();
        assert_eq!(jobs(&one), ["a2"], "{engine:?}");
        // The old reader is the unpaged query.
        let old = l
            .tasks(Some(State::AwaitingApproval), Some("tenant-b"))
            .unwrap();
        assert_eq!(
            old.iter().map(|t| t.job_id.as_str()).collect::<Vec<_>>(),
            ["b0", "b1"]
        );
    }
}

#[test]
fn pages_join_to_the_whole_list_even_as_tasks_arrive() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let clock = ManualClock::new(T0);
        let (l, _) = seeded(&db, &clock);
        let whole: Vec<String> = l
            .tasks_where(&q())
            .unwrap()
            .items
            .into_iter()
            .map(|t| t.id)
            .collect();
        for limit in [1, 2, 4, 5, 6, 7] {
            let mut seen = Vec::new();
            let mut after = None;
            let mut pages = 0;
            loop {
                let page = l
                    .tasks_where(&Query {
                        limit: Some(limit),
                        after: after.clone(),
                        ..q()
                    })
                    .unwrap();
                pages += 1;
                assert!(page.items.len() <= limit as usize);
                seen.extend(page.items.into_iter().map(|t| t.id));
                match page.next {
                    Some(next) => after = Some(next),
                    None => break,
                }
            }
            assert_eq!(seen, whole, "{engine:?} limit {limit}");
            // A page cut at its limit says there may be more: one empty page at most.
            assert!(pages <= 6 / limit as usize + 1, "{engine:?} limit {limit}");
        }
        // A task proposed between two pages comes last, and nothing repeats.
        let first = l
            .tasks_where(&Query {
                limit: Some(3),
                ..q()
            })
            .unwrap();
        clock.set(T0 + 20 * MINUTE);
        let late = l
            .propose(&refund_in("tenant-a", "late"), &refund_contract(), "agent")
            .unwrap();
        let rest = l
            .tasks_where(&Query {
                after: first.next.clone(),
                ..q()
            })
            .unwrap();
        let mut ids: Vec<String> = first
            .items
            .iter()
            .chain(&rest.items)
            .map(|t| t.id.clone())
            .collect();
        assert_eq!(ids.pop(), Some(late.id), "{engine:?}");
        assert_eq!(ids, whole, "{engine:?}");
        // A filtered read pages within its filter.
        let page = l
            .tasks_where(&Query {
                tenant: Some("tenant-b".into()),
                limit: Some(1),
                ..q()
            })
            .unwrap();
        assert_eq!(jobs(&page), ["b0"]);
        let next = l
            .tasks_where(&Query {
                tenant: Some("tenant-b".into()),
                limit: Some(1),
                after: page.next,
                ..q()
            })
            .unwrap();
        assert_eq!(jobs(&next), ["b1"]);
    }
}

#[test]
fn malformed_queries_are_refused() {
    let db = Db::fresh(Engine::Sqlite);
    let l = db.open();
    let events_cursor = {
        l.propose(&refund("job-1", "req-1", 2500), &refund_contract(), "agent")
            .unwrap();
        l.propose(&refund("job-2", "req-1", 2500), &refund_contract(), "agent")
            .unwrap();
        l.audit_export_where(&Query {
            limit: Some(1),
            ..q()
        })
        .unwrap()
        .next
        .unwrap()
    };
    let task_cursor = l
        .tasks_where(&Query {
            limit: Some(1),
            ..q()
        })
        .unwrap()
        .next
        .unwrap();
    for (query, at) in [
        (
            Query {
                limit: Some(0),
                ..q()
            },
            "/limit",
        ),
        (
            Query {
                since: Some(5),
                until: Some(5),
                ..q()
            },
            "/until",
        ),
        (
            Query {
                after: Some("not a cursor!".into()),
                ..q()
            },
            "/after",
        ),
        (
            Query {
                after: Some("dGFza3M6eDp5".into()),
                ..q()
            },
            "/after",
        ),
        (
            Query {
                after: Some(events_cursor.clone()),
                ..q()
            },
            "/after",
        ),
    ] {
        let e = l.tasks_where(&query).expect_err("refused");
        assert_eq!(
            (e.code(), e.path()),
            (Code::InvalidRequest, at),
            "{query:?}"
        );
    }
    let e = l
        .audit_export_where(&Query {
            after: Some(task_cursor),
            ..q()
        })
        .expect_err("a tasks cursor is not an events cursor");
    assert_eq!(e.code(), Code::InvalidRequest);
}

#[test]
fn the_audit_export_by_tenant_state_and_time_and_in_pages() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let clock = ManualClock::new(T0);
        let (l, ids) = seeded(&db, &clock);
        let whole = l.audit_export().unwrap();
        // Pages joined are the export, byte for byte.
        for limit in [1, 3, 7, 100] {
            let mut text = String::new();
            let mut after = None;
            loop {
                let page = l
                    .audit_export_where(&Query {
                        limit: Some(limit),
                        after,
                        ..q()
                    })
                    .unwrap();
                for line in &page.items {
                    text.push_str(line);
                    text.push('\n');
                }
                match page.next {
                    Some(next) => after = Some(next),
                    None => break,
                }
            }
            assert_eq!(text, whole, "{engine:?} limit {limit}");
        }
        let events = |query: Query| -> Vec<serde_like::Line> {
            l.audit_export_where(&query)
                .unwrap()
                .items
                .iter()
                .map(|line| serde_like::Line::of(line))
                .collect()
        };
        let b = events(Query {
            tenant: Some("tenant-b".into()),
            ..q()
        });
        assert_eq!(b.len(), 2, "{engine:?}: two proposals");
        assert!(b.iter().all(|e| e.tenant == "tenant-b"));
        // The events of the tasks now approved: a1's proposal and decision.
        let approved = events(Query {
            state: Some(State::Approved),
            ..q()
        });
        let a1 = &ids[2].1;
        assert_eq!(approved.len(), 2, "{engine:?}");
        assert!(approved.iter().all(|e| &e.task == a1));
        // By time: the decision alone (at minute 10; a3 was proposed at minute 5).
        let late = events(Query {
            since: Some(T0 + 6 * MINUTE),
            ..q()
        });
        assert_eq!(
            late.iter().map(|e| e.kind.as_str()).collect::<Vec<_>>(),
            ["decided"]
        );
        let early = events(Query {
            until: Some(T0 + MINUTE),
            ..q()
        });
        assert_eq!(early.len(), 1);
        assert_eq!(early[0].task, ids[0].1);
    }
}

/// The few members of an export line the tests read.
mod serde_like {
    use actionseal_core::{parse, Options};

    pub struct Line {
        pub tenant: String,
        pub task: String,
        pub kind: String,
    }

    impl Line {
        pub fn of(text: &str) -> Line {
            let v = parse(text.as_bytes(), &Options::default()).unwrap();
            let o = v.as_object().unwrap();
            let s = |k: &str| o.get(k).and_then(|v| v.as_str()).unwrap_or("").to_owned();
            Line {
                tenant: s("tenant"),
                task: s("task"),
                kind: s("kind"),
            }
        }
    }
}

/// `Task::decision` builds what the ledger itself builds: the recorded approval record is the
/// drafted one, byte for byte, the amendment's proposed digest included.
#[test]
fn a_decision_drafted_from_the_task() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let clock = ManualClock::new(T0);
        let l = db.open_at(&clock);
        let t = l
            .propose(&refund("job-1", "req-1", 2500), &refund_contract(), "agent")
            .unwrap();
        let amendment = json(&format!(
            r#"{{"task_id": "{}", "amends": "{}", "action": {}, "reviewer": "user:carol",
                "reason": "partial"}}"#,
            t.id,
            t.action_digest,
            canonicalize(&refund("job-1", "req-1", 2000))
        ));
        clock.advance(MINUTE).unwrap();
        let t = l.amend(&amendment, &refund_contract()).unwrap().task;
        clock.advance(MINUTE).unwrap();
        let drafted = t
            .decision(&DecisionDraft {
                decision_id: "d-1",
                decision: Decision::Approved,
                approver: "user:bob",
                decided_at: l.now(),
                expires_at: l.now() + HOUR,
            })
            .unwrap();
        let record = drafted.record.value();
        let proposed = record.as_object().unwrap().get("proposed_digest");
        assert!(
            proposed.is_some(),
            "{engine:?}: an amended action keeps its proposal"
        );
        let decided = l.decide(&drafted.envelope.to_value()).unwrap();
        assert_eq!(decided.task.state, State::Approved);
        assert_eq!(
            decided.task.approval.unwrap().text(),
            canonicalize(record),
            "{engine:?}"
        );
        // A task outside a round has none to decide.
        let fresh = l
            .propose(&refund("job-2", "req-1", 2500), &refund_contract(), "agent")
            .unwrap();
        let mut no_round = fresh.clone();
        no_round.approval_id = None;
        let e = no_round
            .decision(&DecisionDraft {
                decision_id: "d-2",
                decision: Decision::Rejected,
                approver: "user:bob",
                decided_at: l.now(),
                expires_at: l.now() + HOUR,
            })
            .err()
            .unwrap();
        assert_eq!(e.code(), Code::TaskNotAwaitingDecision);
        // A draft the envelope's rules refuse keeps their code.
        let e = fresh
            .decision(&DecisionDraft {
                decision_id: "d-3",
                decision: Decision::Approved,
                approver: "user:bob",
                decided_at: l.now(),
                expires_at: l.now(),
            })
            .err()
            .unwrap();
        assert_eq!(e.code(), Code::InvalidDecision);
    }
}
