//! Property tests of the quorum check (`check_set`) and of `tally`:
//!
//! - no set of records that fails the quorum permits (a necessary condition of a permit,
//!   written apart from the check: every member approves, in one round, before it expires,
//!   with distinct decisions, by at least two distinct people, neither the subject nor the
//!   proposer, finance and risk each by someone who holds the role);
//! - adding a record never turns a reject or reapprove into a permit unless it completes the
//!   quorum: with a record added anywhere in a set, the outcome is at least as bad as the
//!   worst of the set's reasons other than `quorum_short` and `no_approval` (a reason may give
//!   way to a worse one: a decision duplicated is no longer one person counted twice), and
//!   when the larger set permits, the smaller one's only reasons were those two and the
//!   added record counts;
//! - `tally` never counts one person (counting identity or delegate) twice, and every
//!   approving member it leaves out is someone it counted.
//!
//! The random seed is fixed, so every run checks the same cases (set `PROPTEST_RNG_SEED` to
//! explore others).

use actionseal_core::{
    check_set_with, parse, tally, Action, ActionIds, Approval, Context, Contract, Decision,
    DecisionInput, Member, Options, Outcome, OwnedValue, Quorum, Reason, Verdict,
};
use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use std::collections::BTreeSet;

fn config(cases: u32) -> ProptestConfig {
    let base = ProptestConfig::with_cases(cases);
    let rng_seed = match base.rng_seed {
        RngSeed::Random => RngSeed::Fixed(0x5EED_0000_0025),
        chosen => chosen,
    };
    ProptestConfig { rng_seed, ..base }
}

fn json(text: &str) -> OwnedValue {
    parse(text.as_bytes(), &Options::default())
        .unwrap()
        .into_owned()
}

/// The pool of approvers: alice is the subject, bob the proposer; carol holds finance, erin
/// risk, dave both; frank holds none.
const PEOPLE: [&str; 6] = ["alice", "bob", "carol", "dave", "erin", "frank"];
const ROLES: [Option<&str>; 3] = [None, Some("finance"), Some("risk")];
const NOW: i64 = 1000;

fn holds(who: &str, role: &str) -> bool {
    matches!(
        (who, role),
        ("carol", "finance") | ("erin", "risk") | ("dave", "finance" | "risk")
    )
}

struct World {
    contract: Contract,
    action: Action,
    ctx: Context,
}

fn world() -> World {
    let contract = Contract::from_value(&json(
        r#"{"tool":"t","version":"1","effect":"write","cost_minor":0,
            "args":{"type":"object","properties":{"n":{"type":"integer"}}},
            "approval":{"when":"always","quorum":{"approvers":2,
              "roles":[{"role":"finance","count":1},{"role":"risk","count":1}]}}}"#,
    ))
    .unwrap();
    let ids = ActionIds {
        tenant: "a",
        subject: "alice",
        job_id: "j",
        request_id: "r",
        policy_version: "p",
    };
    let action = Action::build(&contract, &json(r#"{"n":1}"#), &ids).unwrap();
    let authorized: Vec<String> = PEOPLE
        .iter()
        .map(|p| format!(r#"{{"approver":"{p}","authorized":true}}"#))
        .collect();
    let mut roles = Vec::new();
    for p in PEOPLE {
        for r in ["finance", "risk"] {
            roles.push(format!(
                r#"{{"approver":"{p}","role":"{r}","holds":{}}}"#,
                holds(p, r)
            ));
        }
    }
    let ctx = Context::with_contract(
        &json(&format!(
            r#"{{"now":{NOW},"tenant":"a","policy_version":"p",
                "approver_authorized":[{}],"approver_roles":[{}],
                "subject_authorized":{{"subject":"alice","authorized":true}},
                "revoked":[{{"approval_id":"r1","revoked":false}},{{"approval_id":"r0","revoked":false}}],
                "proposer":"bob"}}"#,
            authorized.join(","),
            roles.join(",")
        )),
        Some(contract.clone()),
    )
    .unwrap();
    World {
        contract,
        action,
        ctx,
    }
}

/// One generated record, as numbers: who, role, rejected, decided at, expired, decision id,
/// other round.
#[derive(Clone, Debug)]
struct Gen {
    who: usize,
    role: usize,
    rejected: bool,
    at: i64,
    expired: bool,
    decision: usize,
    other_round: bool,
}

fn gen() -> impl Strategy<Value = Gen> {
    (
        0..PEOPLE.len(),
        0..ROLES.len(),
        prop::bool::weighted(0.15),
        0i64..900,
        prop::bool::weighted(0.1),
        0usize..8,
        prop::bool::weighted(0.1),
    )
        .prop_map(
            |(who, role, rejected, at, expired, decision, other_round)| Gen {
                who,
                role,
                rejected,
                at,
                expired,
                decision,
                other_round,
            },
        )
}

impl Gen {
    fn record(&self, w: &World) -> OwnedValue {
        let id = format!("d{}", self.decision);
        let d = DecisionInput {
            approval_id: if self.other_round { "r0" } else { "r1" },
            decision_id: &id,
            decision: if self.rejected {
                Decision::Rejected
            } else {
                Decision::Approved
            },
            approver: PEOPLE[self.who],
            decided_at: self.at,
            expires_at: if self.expired { NOW } else { NOW + 1 },
            proposed_digest: None,
            role: ROLES[self.role],
            on_behalf_of: None,
            delegation: None,
        };
        Approval::decide(&w.action, &d).unwrap().value().clone()
    }
}

fn verdict(w: &World, set: &[Gen]) -> Verdict {
    let records: Vec<OwnedValue> = set.iter().map(|g| g.record(w)).collect();
    check_set_with(&records, w.action.value(), &w.ctx)
}

/// What a permit needs, decided without the check.
fn could_permit(set: &[Gen]) -> bool {
    let people: BTreeSet<usize> = set.iter().map(|g| g.who).collect();
    let decisions: BTreeSet<usize> = set.iter().map(|g| g.decision).collect();
    let role_held = |role: &str| {
        set.iter()
            .any(|g| ROLES[g.role] == Some(role) && holds(PEOPLE[g.who], role))
    };
    set.iter()
        .all(|g| !g.rejected && !g.expired && !g.other_round && g.who >= 2)
        && people.len() >= 2
        && decisions.len() == set.len()
        && role_held("finance")
        && role_held("risk")
        && set
            .iter()
            .all(|g| ROLES[g.role].is_none_or(|r| holds(PEOPLE[g.who], r)))
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn no_set_that_fails_the_quorum_permits(set in prop::collection::vec(gen(), 0..6)) {
        let w = world();
        let v = verdict(&w, &set);
        let q = v.quorum.as_ref().expect("the contract has a quorum");
        if v.outcome == Outcome::Permit {
            prop_assert!(could_permit(&set), "{set:?} permits");
            prop_assert!(q.holds());
        }
        if !q.holds() {
            prop_assert_ne!(v.outcome, Outcome::Permit);
        }
    }

    #[test]
    fn adding_a_record_permits_only_by_completing_the_quorum(
        set in prop::collection::vec(gen(), 0..5),
        added in gen(),
        at in 0usize..6,
    ) {
        let w = world();
        let before = verdict(&w, &set);
        let mut larger = set.clone();
        larger.insert(at.min(set.len()), added.clone());
        let after = verdict(&w, &larger);
        let lifted = [Reason::QuorumShort, Reason::NoApproval];
        let worst_kept = before
            .reasons
            .iter()
            .filter(|r| !lifted.contains(r))
            .map(|r| r.outcome())
            .max()
            .unwrap_or(Outcome::Permit);
        prop_assert!(
            after.outcome >= worst_kept,
            "adding {added:?} to {set:?} gave {:?}, before {:?}",
            after.reasons,
            before.reasons
        );
        if after.outcome == Outcome::Permit && before.outcome != Outcome::Permit {
            prop_assert!(before.reasons.iter().all(|r| lifted.contains(r)));
            let counted = &after.quorum.as_ref().unwrap().counted;
            let id = format!("d{}", added.decision);
            prop_assert!(counted.iter().any(|m| m.decision_id == id));
        }
    }

    #[test]
    fn tally_never_counts_one_person_twice(
        members in prop::collection::vec(
            (0..PEOPLE.len(), prop::option::of(0..PEOPLE.len()), 0..ROLES.len(), any::<bool>()),
            0..10,
        )
    ) {
        let w = world();
        let quorum: &Quorum = w.contract.quorum().unwrap();
        let members: Vec<Member> = members
            .iter()
            .enumerate()
            .map(|(i, &(who, delegate, role, approved))| Member {
                approver: PEOPLE[who].into(),
                role: ROLES[role].map(Into::into),
                decision: if approved { Decision::Approved } else { Decision::Rejected },
                decided_at: i as i64,
                decision_id: format!("d{i}"),
                delegate: delegate.map(|d| PEOPLE[d].into()),
                delegations: Vec::new(),
            })
            .collect();
        let state = tally(quorum, &members);
        let person = |m: &Member| {
            let mut ids = vec![m.approver.clone()];
            ids.extend(m.delegate.clone());
            ids
        };
        for (i, a) in state.counted.iter().enumerate() {
            prop_assert_eq!(a.decision, Decision::Approved);
            for b in &state.counted[..i] {
                prop_assert!(
                    person(a).iter().all(|id| !person(b).contains(id)),
                    "{a:?} and {b:?} both counted"
                );
            }
        }
        for m in members.iter().filter(|m| m.decision == Decision::Approved) {
            prop_assert!(state.counted.iter().any(|c| person(c).iter().any(|id| person(m).contains(id))));
        }
        let short = usize::from(quorum.approvers).saturating_sub(state.counted.len());
        let roles: usize = state.missing_roles.iter().map(|r| usize::from(r.count)).sum();
        prop_assert_eq!(usize::from(state.missing), short.max(roles));
    }
}
