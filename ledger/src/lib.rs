//! actionseal-ledger: the durable half of actionseal. A task ledger that records each proposed
//! action, de-duplicates reviewers' decisions, lets exactly one executor claim an approval (and
//! only after re-proving it with core's check), carries one business idempotency key per task,
//! reconciles outcomes in doubt instead of retrying them, reserves budgets atomically, and keeps
//! a hash-chained audit of everything it changed or refused.
//!
//! Two backends behind one interface, chosen by URL: `sqlite:PATH` (embedded, the default;
//! `sqlite::memory:` for tests) and `postgres://...` (many executors, many machines). Both take
//! every decision from `actionseal_core::ledger` and run the same tests.
//!
//! ```
//! use actionseal_ledger::Ledger;
//! let ledger = Ledger::open("sqlite::memory:").unwrap();
//! assert!(ledger.audit_verify().unwrap().broken.is_none());
//! ```
//!
//! A [`Ledger`] is `Send + Sync`; its calls block on the database and hold no lock of the
//! caller's, so a binding runs them off its event loop (or with the GIL released). Inputs are
//! core JSON values, results have a `to_value()`, and every error carries a core
//! [`actionseal_core::Code`]. Never call it from inside an async runtime's worker thread: the
//! PostgreSQL driver runs its own.

mod batches;
mod call;
mod clock;
mod contracts;
mod draft;
mod evidence;
mod feed;
mod json;
mod model;
mod ops;
mod postgres;
mod query;
mod schema;
mod sensitive;
mod sqlite;
mod store;
mod sync;
mod tree;
mod tsa;
mod url;
mod wait;

pub use actionseal_core::ledger::AtFinish;
pub use actionseal_core::{ProofPolicy, ProofRequirement};
pub use batches::BatchClaimRequest;
pub use call::Call;
pub use clock::{Clock, ManualClock, SystemClock};
pub use draft::{DecisionDraft, DraftedDecision};
pub use feed::{Change, ChangeCursor, Changes};
pub use json::StoredJson;
pub use model::{
    Amended, AmendmentRecord, Batch, BatchClaimOutcome, BatchDecided, Budget, Claim, ClaimOutcome,
    Decided, DraftedBatchDecision, Policy, Revocation, Shredded, Task,
};
pub use query::{Page, Query};
pub use sensitive::RetentionPolicy;
pub use tree::{Checkpoint, CheckpointVerified, EventRef, InclusionProof};
pub use tsa::Tsa;
pub use url::{Durability, IfMissing, Target};
pub use wait::Waited;

use actionseal_core::ledger::{
    check_identity, request, verify_audit_with_batches, Amendment, AuditReport, ChainHead, Event,
    Expected, ExportedHeads, Observed, Presented, Reported, State, StoredBatch, StoredDecision,
    StoredLineage, StoredPolicy, StoredTask,
};
use actionseal_core::tlog::note::SignerKey;
use actionseal_core::{Action, Code, Digest, Error, KeySet, Result, Value};
use ops::propose::Proposal;
use std::sync::Arc;
use store::{digest_from, Done, Tx};

enum Backend {
    Sqlite(sqlite::Sqlite),
    Postgres(postgres::Postgres),
}

/// A task ledger on SQLite or PostgreSQL. `Send + Sync`: share one between threads.
pub struct Ledger {
    backend: Backend,
    clock: Arc<dyn Clock>,
    contracts: contracts::Contracts,
    /// The keys that prove decisions, from the server's configuration.
    keys: KeySet,
    /// The database's proof requirement as this handle last read or set it.
    requirement: std::sync::RwLock<ProofRequirement>,
    /// The key that signs checkpoints, from the server's configuration.
    signer: Option<SignerKey>,
    /// The time-stamping authority of checkpoints and proven decisions, from the server's
    /// configuration.
    tsa: Option<tsa::Tsa>,
    /// The server's batch policy, from its configuration.
    batch_policy: Option<actionseal_core::batch::Policy>,
    /// Whether evidence may carry sensitive values, from the server's configuration.
    disclosure_export: DisclosureExport,
}

/// How a ledger is opened besides its URL.
#[derive(Clone)]
pub struct LedgerOptions {
    /// Where `now` comes from (the system clock by default; tests inject a [`ManualClock`]).
    pub clock: Arc<dyn Clock>,
    /// The keys that prove decisions, from the server's own configuration: a decision that
    /// arrives as a signed envelope or a passkey-approved record is verified against them
    /// (without any, it is refused as [`Code::UnknownKey`]), each key judged at the ledger's
    /// clock as the decision arrives. With `required`, a bare decision envelope is refused as
    /// [`Code::MissingProof`] and only proven decisions are recorded.
    ///
    /// The requirement is the database's, not the handle's (see [`Ledger::policy`]): a handle
    /// that requires proof records that requirement in the database (audited) for every
    /// handle; one that says proof is not required where the database requires it is refused
    /// at open ([`Code::ProofPolicyWeakened`]); one without a policy takes the database's.
    pub proof: Option<ProofPolicy>,
    /// The ledger's key for signing the checkpoints of its Merkle log ([`Ledger::checkpoint`]),
    /// from the server's configuration; without one, checkpoints are refused.
    pub checkpoint_signer: Option<SignerKey>,
    /// The RFC 3161 time-stamping authority, from the server's configuration. With one, every
    /// checkpoint carries a token over its text ([`Ledger::checkpoint`] fails with the TSA's
    /// code when it cannot get one), and every proven decision a token over its proof, got as
    /// it arrives ([`Ledger::decide`]; a decision is recorded without one when the TSA fails).
    pub tsa: Option<tsa::Tsa>,
    /// What opening a SQLite file that does not exist does: create it (the default) or refuse
    /// ([`Code::LedgerNotFound`]). A URL saying `mode=create` creates it either way.
    pub if_missing: IfMissing,
    /// The server's batch policy (issue 28), from its configuration: it narrows every
    /// contract's (the most items a decision covers, the caps, the breaker), never widens it.
    pub batch_policy: Option<actionseal_core::batch::Policy>,
    /// Whether an evidence bundle may carry the disclosures of a task's sensitive values when
    /// its exporter asks ([`Ledger::evidence_disclosing`], issue 29): by default it may not.
    pub disclosure_export: DisclosureExport,
}

/// Whether exports may carry sensitive values (issue 29), a server's policy.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DisclosureExport {
    /// Never: a bundle carries commitments only, whoever asks.
    #[default]
    Refused,
    /// When the exporter asks for them: the values not yet shredded, which the bundle proves.
    OnRequest,
}

impl Default for LedgerOptions {
    fn default() -> LedgerOptions {
        LedgerOptions {
            clock: Arc::new(SystemClock),
            proof: None,
            checkpoint_signer: None,
            tsa: None,
            if_missing: IfMissing::Create,
            batch_policy: None,
            disclosure_export: DisclosureExport::Refused,
        }
    }
}

// Bindings hand one ledger to many threads (Python threads with the GIL released, libuv's
// pool under Node): keep it shareable.
const _: fn() = || {
    fn shareable<T: Send + Sync>() {}
    shareable::<Ledger>();
};

/// A claim request: the task, the action the executor is about to dispatch, the facts only its
/// server knows, who it is, how long its lease lasts, the budget to charge (if any) and the
/// least it requires of the task's decision. One type with core's
/// [`request::Claim`], which reads it from JSON for
/// [`Ledger::call`] and every binding; named here beside [`Claim`], the claim it wins.
pub use actionseal_core::ledger::request::Claim as ClaimRequest;

impl Ledger {
    /// Opens (creating or migrating its schema) the ledger at `url`, with the system clock.
    pub fn open(url: &str) -> Result<Ledger> {
        Ledger::open_with(url, LedgerOptions::default())
    }

    /// Opens the ledger at `url` with the given clock (tests inject a [`ManualClock`]).
    pub fn open_with_clock(url: &str, clock: Arc<dyn Clock>) -> Result<Ledger> {
        Ledger::open_with(
            url,
            LedgerOptions {
                clock,
                ..LedgerOptions::default()
            },
        )
    }

    /// Opens the ledger at `url` with `options`: its clock, and the keys that prove decisions
    /// (see [`LedgerOptions::proof`]).
    pub fn open_with(url: &str, options: LedgerOptions) -> Result<Ledger> {
        Ledger::open_on(url, options, sqlite::Vfs::shipped())
    }

    /// [`Ledger::open_with`], a SQLite file through `vfs` (the tests' simulated disk).
    fn open_on(url: &str, options: LedgerOptions, vfs: sqlite::Vfs) -> Result<Ledger> {
        let LedgerOptions {
            clock,
            proof,
            checkpoint_signer,
            tsa,
            if_missing,
            batch_policy,
            disclosure_export,
        } = options;
        let now = clock.now_ms();
        let backend = match Target::parse(url)? {
            Target::SqliteFile(path, d, asked) => {
                sqlite::refuse_missing(&path, asked.unwrap_or(if_missing))?;
                Backend::Sqlite(sqlite::Sqlite::open_file(&path, d, vfs, now)?)
            }
            Target::SqliteMemory => Backend::Sqlite(sqlite::Sqlite::open_memory(now)?),
            Target::Postgres(u) => Backend::Postgres(postgres::Postgres::open(&u, now)?),
        };
        let asked = proof.as_ref().map(ProofPolicy::requirement);
        let ledger = Ledger {
            backend,
            clock,
            contracts: contracts::Contracts::default(),
            keys: proof.map(|p| p.keys().clone()).unwrap_or_default(),
            requirement: Default::default(),
            signer: checkpoint_signer,
            tsa,
            batch_policy,
            disclosure_export,
        };
        let policy = match asked {
            // Requiring proof is recorded for every handle on the database.
            Some(ProofRequirement::Required) => ledger
                .write(|tx, now| ops::policy::strengthen(tx, now, ProofRequirement::Required))?,
            Some(ProofRequirement::Optional) | None => ledger.read(|tx| tx.policy())?,
        };
        if asked.is_some_and(|asked| asked < policy.proof) {
            return Err(Error::new(
                Code::ProofPolicyWeakened,
                format!(
                    "this ledger requires proof of every decision (set by {:?} at {}); a \
                     handle that does not is refused: change the ledger's policy explicitly \
                     (set_proof_requirement) to weaken it",
                    policy.changed_by, policy.changed_at
                ),
            ));
        }
        ledger.remember(policy.proof);
        Ok(ledger)
    }

    /// The proof requirement every handle on the database obeys, as recorded there.
    pub fn policy(&self) -> Result<Policy> {
        let p = self.read(|tx| tx.policy())?;
        Ok(Policy::from_row(&p))
    }

    /// Changes the ledger's proof requirement for every handle on the database, by `actor`,
    /// for `reason`, in an audited event (`proof_policy_changed`). The only way to stop
    /// requiring proof; handles opened before the change keep the requirement they read
    /// until they are opened again, and a claim that requires proof keeps requiring it.
    pub fn set_proof_requirement(
        &self,
        requirement: ProofRequirement,
        actor: &str,
        reason: &str,
    ) -> Result<Policy> {
        let request = [
            ("proof", json::s(requirement.as_str())),
            ("actor", json::s(actor)),
            ("reason", json::s(reason)),
        ];
        // The one reader of the request's rules (identity, reason length).
        request::SetProofRequirement::from_value(&json::obj(request.to_vec()))?;
        let policy =
            self.write(|tx, now| ops::policy::change(tx, now, requirement, actor, reason))?;
        self.remember(policy.proof);
        Ok(Policy::from_row(&policy))
    }

    fn remember(&self, requirement: ProofRequirement) {
        *self.requirement.write().unwrap_or_else(|p| p.into_inner()) = requirement;
    }

    fn requirement(&self) -> ProofRequirement {
        *self.requirement.read().unwrap_or_else(|p| p.into_inner())
    }

    /// The ledger's current time (ms since the epoch).
    pub fn now(&self) -> i64 {
        self.clock.now_ms()
    }

    fn write<T>(&self, f: impl FnMut(&mut dyn Tx, i64) -> Result<Done<T>>) -> Result<T> {
        match &self.backend {
            Backend::Sqlite(s) => s.write(&*self.clock, f),
            Backend::Postgres(p) => p.write(&*self.clock, f),
        }
    }

    fn read<T>(&self, f: impl FnOnce(&mut dyn Tx) -> Result<T>) -> Result<T> {
        match &self.backend {
            Backend::Sqlite(s) => s.read(f),
            Backend::Postgres(p) => p.read(f),
        }
    }

    /// Keeps `contract` in `ledger_contracts`, for the evidence of the tasks proposed under it
    /// (once per contract: a contract kept already is left as it is).
    fn keep_contract(&self, contract: &actionseal_core::Contract) -> Result<()> {
        let document = actionseal_core::canonicalize(contract.document());
        self.tree(tree::sql::Access::Write, |sql| {
            sql.exec(
                "INSERT INTO ledger_contracts (digest, document) VALUES ($1, $2) \
                 ON CONFLICT (digest) DO NOTHING",
                &[
                    tree::sql::Arg::Text(contract.digest_text()),
                    tree::sql::Arg::Text(&document),
                ],
            )
        })
    }

    /// Records a task for `action` (an envelope made under `contract`), proposed by
    /// `proposer`. The same identity with the same action returns the same task; with another
    /// action it is [`Code::TaskConflict`]. A call its contract lets run without a person is
    /// claimable at once.
    pub fn propose(
        &self,
        action: &Value<'_>,
        contract: &Value<'_>,
        proposer: &str,
    ) -> Result<Task> {
        check_identity("proposer", proposer)?;
        let contract = self
            .contracts
            .load(contract)
            .map_err(|e| e.in_key("contract"))?;
        contract
            .validate_action(action)
            .map_err(|e| e.in_key("action"))?;
        let action = Action::from_value(action).map_err(|e| e.in_key("action"))?;
        let required = contract
            .requires_approval(action.args())
            .map_err(|e| e.in_key("args").in_key("action"))?
            .required;
        // Under a contract that marks values sensitive the task freezes the action committed,
        // and its disclosures are kept apart (issue 29).
        let (action, sensitive) = match sensitive::committed(&contract, &action)? {
            Some((committed, disclosures)) => (committed, Some(disclosures)),
            None => (action, None),
        };
        if !self.contracts.stored(&contract) {
            self.keep_contract(&contract)?;
            self.contracts.mark_stored(&contract);
        }
        let p = Proposal {
            action,
            contract,
            required,
            proposer: proposer.to_owned(),
            batch: None,
            sensitive,
        };
        self.write(|tx, now| {
            let done = ops::propose::run(tx, now, &p)?;
            ops::with_quorum(tx, &self.contracts, done)
        })
    }

    /// Replaces the action of a task awaiting a decision with a reviewer's amendment
    /// `{"task_id", "amends", "action", "reviewer", "reason"}` (see
    /// [`actionseal_core::ledger::Amendment`]), checked against `contract`, the task's contract
    /// as the server holds it. Only the arguments may change, and they must satisfy the
    /// contract; the task keeps the model's proposal beside it, and the decision that follows
    /// must name the amended digest. Refused, changing nothing: after the decision
    /// ([`Code::TaskNotAwaitingDecision`]), when `amends` is no longer the task's action
    /// ([`Code::AmendConflict`]), for another tenant, subject, job or request, tool, contract
    /// or policy version (`amend_*_changed`), for arguments the contract refuses (its code).
    /// Sending the action the task already holds is a duplicate that changes nothing. Under a
    /// contract that marks values sensitive the amendment is in the clear, and is committed
    /// again keeping the disclosures of the values left alone (see `ops::amend`); a task whose
    /// disclosures were shredded is [`Code::DisclosuresShredded`].
    pub fn amend(&self, amendment: &Value<'_>, contract: &Value<'_>) -> Result<Amended> {
        self.amend_with(&Amendment::from_value(amendment)?, contract)
    }

    /// [`Ledger::amend`] with the amendment already read.
    pub fn amend_with(&self, a: &Amendment, contract: &Value<'_>) -> Result<Amended> {
        let contract = self
            .contracts
            .load(contract)
            .map_err(|e| e.in_key("contract"))?;
        self.write(|tx, now| {
            let done = ops::amend::run(tx, now, a, &contract)?;
            ops::with_quorum(tx, &self.contracts, done)
        })
    }

    /// A task's amendments, in order (with each reviewer's reason).
    pub fn amendments(&self, task_id: &str) -> Result<Vec<AmendmentRecord>> {
        self.read(|tx| {
            ops::locked_task(tx, task_id)?;
            tx.amendments(task_id)?
                .iter()
                .map(AmendmentRecord::from_row)
                .collect()
        })
    }

    /// Records a reviewer's decision (seed 003): once per `decision_id`; a repeat with the
    /// same content returns the recorded decision, with other content it is
    /// [`Code::DecisionConflict`].
    ///
    /// `decision` is a bare decision envelope, or a decision that proves who made it: the
    /// approval record the ledger would build for the task's current round, signed
    /// ([`actionseal_core::sign_approval`]) or approved with a passkey. Its proof is verified
    /// against the keys of [`LedgerOptions::proof`] (failures keep the proof's codes), the
    /// decision is read from the verified record, and it is recorded only if that record is
    /// byte for byte the one the ledger builds ([`Code::DecisionMismatch`] at the first member
    /// that differs). The decided event's detail names the `signer` and keeps the `proof` as
    /// presented. Where the options require proof, a bare envelope is [`Code::MissingProof`].
    ///
    /// Under a contract with a quorum (issue 25) each decision is one member of the round:
    /// the task stays `awaiting_approval` (its [`Task::quorum`] says who counted and what is
    /// missing) until the decision that meets the quorum approves it (a `decided` event, then
    /// `quorum_met`), or a rejection vetoes it (veto `any_rejection`). A second decision by the
    /// same counting identity in the round is [`Code::ApproverAlreadyDecided`]; one by the
    /// action's subject, the task's proposer or (when the contract lists `amender`) the
    /// reviewer who amended it is [`Code::ApproverNotSeparate`]. The role an envelope names
    /// is taken as its trusted caller states it; a claim holds it to the executor's facts.
    /// A decision made through a delegation has each link's proof verified with its own
    /// (against the same keys, at the same time; a bare link where proof is required is
    /// [`Code::MissingProof`]) and its chain's rules judged at the ledger's clock
    /// ([`Code::DelegationRefused`]); every delegate along the chain is held to the
    /// separation of duties. A claim reads the stored links back without keys.
    ///
    /// With a time-stamping authority ([`LedgerOptions::tsa`]), a proven decision gets an
    /// RFC 3161 token over its proof as it arrives, kept in its decided event (see
    /// `ops::decide::stamp` for the bytes it covers); when the TSA cannot give one, the
    /// decision is recorded without it and a warning logged: a reviewer's decision never
    /// waits on the TSA, and the next stamped checkpoint still bounds its time.
    pub fn decide(&self, decision: &Value<'_>) -> Result<Decided> {
        // Keys are judged at the ledger's clock as the decision arrives, never at the
        // decided_at its signer wrote.
        let arrived = self.clock.now_ms();
        let p = Presented::read(decision, &self.keys, self.requirement(), arrived)?;
        // Asked before the write, which holds the task's lock: never across a round trip.
        let token = ops::decide::stamp(self.tsa.as_ref(), &p);
        self.write(|tx, now| {
            let done = ops::decide::run(tx, now, &p, token.as_deref(), &self.contracts)?;
            ops::with_quorum(tx, &self.contracts, done)
        })
    }

    /// Claims a task for dispatch: see [`ClaimOutcome`]. Losers get [`Code::AlreadyClaimed`].
    /// Under a quorum the whole round is checked again as a set (`check_set_with`), with the
    /// ledger's clock, the executor's facts, and the proposer and amender from the ledger's
    /// own records (facts naming `proposer` or `amended_by` are [`Code::InvalidContext`]);
    /// the claim carries the set ([`Claim::approvals`]).
    pub fn claim(&self, r: &ClaimRequest<'_, '_>) -> Result<ClaimOutcome> {
        let r = self.checked_claim(r)?;
        self.write(|tx, now| {
            let done = ops::claim::run(tx, now, &r, &self.contracts)?;
            ops::with_quorum(tx, &self.contracts, done)
        })
    }

    /// A claim request's own checks, and the proof the ledger's policy requires of it (its
    /// own may require more of the decision than the request does).
    fn checked_claim<'v, 'a>(&self, r: &ClaimRequest<'v, 'a>) -> Result<ClaimRequest<'v, 'a>> {
        check_identity("executor", r.executor)?;
        if let Some(b) = r.budget {
            check_identity("budget", b)?;
        }
        if r.lease_ms <= 0 || r.lease_ms > actionseal_core::MAX_SAFE_INTEGER / 2 {
            return Err(Error::new(
                Code::InvalidRequest,
                format!("a lease is a positive number of ms, not {}", r.lease_ms),
            ));
        }
        Ok(ClaimRequest {
            proof: r.proof.max(self.requirement()),
            ..*r
        })
    }

    /// Reports the outcome of a claim; `fence` must be the claim's (else [`Code::StaleFence`]).
    pub fn complete(
        &self,
        task_id: &str,
        fence: i64,
        reported: Reported,
        result: Option<&Value<'_>>,
        executor: &str,
    ) -> Result<Task> {
        check_identity("executor", executor)?;
        let result = result.map(|r| r.clone().into_owned());
        self.write(|tx, now| {
            let done = ops::finish::complete(
                tx,
                now,
                task_id,
                fence,
                reported,
                result.as_ref(),
                executor,
            )?;
            ops::with_quorum(tx, &self.contracts, done)
        })
    }

    /// Records what the business system answered about a task in doubt: `succeeded` and
    /// `failed` are final, `not_executed` makes it claimable again with the same idempotency
    /// key (and a higher fence).
    pub fn reconcile(
        &self,
        task_id: &str,
        observed: Observed,
        result: Option<&Value<'_>>,
        actor: &str,
    ) -> Result<Task> {
        check_identity("actor", actor)?;
        let result = result.map(|r| r.clone().into_owned());
        self.write(|tx, now| {
            let done = ops::finish::reconcile(tx, now, task_id, observed, result.as_ref(), actor)?;
            ops::with_quorum(tx, &self.contracts, done)
        })
    }

    /// Revokes an approval: the next claim of its task sends it back for approval. A batch's
    /// approval id revokes the batch's decision for every item not yet claimed (each gets a
    /// `revoked` event; the first claim of one sends every remaining item back over a new
    /// batch); items already claimed are in flight and finish as claimed. The result's
    /// `task_id` is then the batch's id.
    pub fn revoke(&self, approval_id: &str, actor: &str) -> Result<Revocation> {
        check_identity("actor", actor)?;
        self.write(|tx, now| ops::revoke::run(tx, now, approval_id, actor))
    }

    /// Moves every claimed task whose lease ran out to `unknown` (never back to claimable);
    /// returns their ids. Operations on a task also do this for it before anything else.
    pub fn expire_leases(&self) -> Result<Vec<String>> {
        let srv = self.server();
        self.write(|tx, now| ops::sweep::expire_leases(tx, now, &srv))
    }

    /// Creates a budget account, or sets the limit of an existing one.
    pub fn set_budget(&self, name: &str, limit_minor: i64) -> Result<Budget> {
        check_identity("budget", name)?;
        if !(0..=actionseal_core::MAX_SAFE_INTEGER).contains(&limit_minor) {
            return Err(Error::new(
                Code::InvalidRequest,
                format!("a limit is a non-negative safe integer, not {limit_minor}"),
            ));
        }
        self.write(|tx, _| {
            let mut b = tx.budget(name)?.unwrap_or(store::BudgetRow {
                name: name.to_owned(),
                limit_minor: 0,
                spent_minor: 0,
                reserved_minor: 0,
            });
            b.limit_minor = limit_minor;
            tx.put_budget(&b)?;
            Ok(Done::Ok(Budget::from_row(&b)))
        })
    }

    /// A budget account.
    pub fn budget(&self, name: &str) -> Result<Budget> {
        self.read(|tx| {
            tx.budget(name)?
                .map(|b| Budget::from_row(&b))
                .ok_or_else(|| Error::new(Code::BudgetNotFound, format!("no budget {name:?}")))
        })
    }

    /// One task.
    pub fn task(&self, id: &str) -> Result<Task> {
        self.read(|tx| {
            let t = ops::locked_task(tx, id)?;
            self.view(tx, t)
        })
    }

    /// A task as returned by the reads, with its quorum's state when it has one.
    fn view(&self, tx: &mut dyn store::Tx, t: store::TaskRow) -> Result<Task> {
        let mut task = ops::view(t)?;
        ops::fill_quorum(tx, &self.contracts, &mut task)?;
        Ok(task)
    }

    /// One task with its history: the audit events about it, in order.
    pub fn task_history(&self, id: &str) -> Result<(Task, Vec<Event>)> {
        self.read(|tx| {
            let t = ops::locked_task(tx, id)?;
            let task = self.view(tx, t)?;
            let events = tx
                .events(Some(id))?
                .iter()
                .map(|(body, _)| json::stored(body).and_then(|v| Event::from_value(&v)))
                .collect::<Result<_>>()?;
            Ok((task, events))
        })
    }

    /// Tasks in a state (or any) of a tenant (or any), oldest first.
    pub fn tasks(&self, state: Option<State>, tenant: Option<&str>) -> Result<Vec<Task>> {
        let query = Query {
            state,
            tenant: tenant.map(str::to_owned),
            ..Query::default()
        };
        self.tasks_where(&query).map(|page| page.items)
    }

    /// The tasks `query` selects (tenant, state, proposed since and until), oldest first (by
    /// `created_at`, then id), a page at a time when it has a limit. A malformed query or a
    /// cursor of another read is [`Code::InvalidRequest`].
    pub fn tasks_where(&self, query: &Query) -> Result<Page<Task>> {
        let b = query.tasks()?;
        let tasks = self.read(|tx| {
            let rows = tx.list_tasks(&b)?;
            rows.into_iter()
                .map(|t| self.view(tx, t))
                .collect::<Result<Vec<_>>>()
        })?;
        Ok(query::page(tasks, query, |t| {
            query::task_key(t.created_at, &t.id)
        }))
    }

    /// The whole audit as JSON Lines (one event with its digest per line), verifiable with
    /// `actionseal_core::ledger::verify_audit` in any runtime.
    pub fn audit_export(&self) -> Result<String> {
        self.read(|tx| export(tx).map(|(text, _)| text))
    }

    /// The events `query` selects, each a line of [`Ledger::audit_export`] (without its
    /// newline), in the export's order, a page at a time when it has a limit: its tenant, the
    /// events of the tasks now in its state, at or after `since` and before `until`. Pages
    /// joined are the export; a filtered export is for reading, not for `verify_audit`,
    /// which needs every event of a chain.
    pub fn audit_export_where(&self, query: &Query) -> Result<Page<String>> {
        let b = query.events()?;
        let rows = self.read(|tx| tx.events_where(&b))?;
        let page = query::page(rows, query, |(id, ..)| query::event_key(*id));
        Ok(Page {
            items: page
                .items
                .into_iter()
                .map(|(_, body, digest)| export_line(&body, &digest))
                .collect(),
            next: page.next,
        })
    }

    /// Walks the stored chains up to their recorded heads, replays every task's events by
    /// the ledger's rules, holds every task's row and every round's decisions under a quorum
    /// to them, and names the first break (see [`actionseal_core::ledger::Problem`]).
    pub fn audit_verify(&self) -> Result<AuditReport> {
        self.audit_verify_with(None)
    }

    /// [`Ledger::audit_verify`], and also against heads exported earlier
    /// ([`Ledger::audit_heads`]): a chain that no longer reaches an exported head was
    /// truncated, one that holds another event there was rewritten and sealed again.
    pub fn audit_verify_with(&self, exported: Option<&ExportedHeads>) -> Result<AuditReport> {
        self.read(|tx| {
            let (text, recorded) = export(tx)?;
            let rows = tx.audit_rows()?;
            let last = rows
                .iter()
                .map(|(_, d)| d.as_deref().map(digest_from).transpose())
                .collect::<Result<Vec<_>>>()?;
            let stored: Vec<StoredTask<'_>> = rows
                .iter()
                .zip(last)
                .map(|((t, _), last_event)| stored_task(t, last_event))
                .collect();
            let decisions = tx.audit_round_decisions()?;
            let decisions: Vec<StoredDecision<'_>> =
                decisions.iter().map(stored_decision).collect();
            let policy = tx.policy()?;
            let (batches, lineages) = tx.audit_batches()?;
            let batches: Vec<StoredBatch<'_>> = batches.iter().map(stored_batch).collect();
            let lineages: Vec<StoredLineage<'_>> = lineages.iter().map(stored_lineage).collect();
            Ok(verify_audit_with_batches(
                text.as_bytes(),
                &Expected {
                    recorded: &recorded,
                    exported: exported.map_or(&[], |e| &e.heads),
                    rows: Some(&stored),
                    decisions: Some(&decisions),
                    policy: Some(StoredPolicy {
                        proof: policy.proof.as_str(),
                        changed_at: policy.changed_at,
                        changed_by: &policy.changed_by,
                    }),
                },
                Some((&batches, &lineages)),
            ))
        })
    }

    /// The chains' heads, to keep outside the database (see
    /// [`actionseal_core::ledger::ExportedHeads`] for the file and why): only from an audit
    /// that verifies ([`Code::AuditChainBroken`] otherwise), so that they never pin a
    /// tampered one.
    pub fn audit_heads(&self) -> Result<ExportedHeads> {
        let at = self.now();
        let report = self.audit_verify()?.into_result()?;
        Ok(ExportedHeads {
            at,
            heads: report.heads,
        })
    }

    /// Which backend this ledger is on: `sqlite` or `postgres`.
    pub fn backend(&self) -> &'static str {
        match self.backend {
            Backend::Sqlite(_) => "sqlite",
            Backend::Postgres(_) => "postgres",
        }
    }

    /// How many times an operation ran again since this ledger opened, by reason (PostgreSQL
    /// names each; SQLite reports none).
    pub fn retries(&self) -> std::collections::BTreeMap<&'static str, u64> {
        match &self.backend {
            Backend::Sqlite(_) => Default::default(),
            Backend::Postgres(pg) => pg.retries(),
        }
    }
}

/// A row as the audit's replay reads it.
fn stored_task(t: &store::TaskRow, last_event: Option<Digest>) -> StoredTask<'_> {
    StoredTask {
        id: &t.id,
        state: t.state,
        round: t.round,
        fence: t.fence,
        approval_id: t.approval_id.as_deref(),
        round_started_at: t.round_started_at,
        lease_until: t.lease_until,
        action_digest: t.action_digest,
        action: &t.action,
        proposed_digest: t.proposed_digest,
        proposed_action: t.proposed_action.as_deref(),
        amendments: t.amendments,
        approval: t.approval.as_deref(),
        proof: t.proof.as_deref(),
        revoked_at: t.revoked_at,
        result: t.result.as_deref(),
        last_event,
    }
}

/// A batch's row as the audit's replay reads it.
fn stored_batch(b: &store::BatchRow) -> StoredBatch<'_> {
    StoredBatch {
        id: &b.id,
        lineage: &b.lineage,
        state: b.state,
        header: &b.header,
        digest: b.digest,
        proposed_digest: b.proposed_digest,
        items: &b.items,
        amendments: b.amendments,
        record: b.record.as_deref(),
        proof: b.proof.as_deref(),
    }
}

/// A lineage's row as the audit's replay reads it.
fn stored_lineage(l: &store::LineageRow) -> StoredLineage<'_> {
    StoredLineage {
        id: &l.id,
        current: &l.current,
        generation: l.generation,
        totals: &l.totals,
        breaker: &l.breaker,
    }
}

/// A round's decision as the audit's replay reads it.
fn stored_decision(r: &store::RoundDecisionRow) -> StoredDecision<'_> {
    StoredDecision {
        approval_id: &r.approval_id,
        n: r.n,
        decision_id: &r.decision_id,
        counted_as: &r.counted_as,
        role: r.role.as_deref(),
        decision: &r.decision,
        record: &r.record,
        proof: r.proof.as_deref(),
        decided_at: r.decided_at,
        recorded_at: r.recorded_at,
    }
}

/// An event's line of the export: its body with its digest.
fn export_line(body: &str, digest: &str) -> String {
    // A stored digest that does not even parse is kept as-is, for the verifier to flag.
    match digest.parse() {
        Ok(d) => Event::line(body, &d),
        Err(_) => body.to_owned(),
    }
}

fn export(tx: &mut dyn Tx) -> Result<(String, Vec<ChainHead>)> {
    let mut text = String::new();
    for (body, digest) in tx.events(None)? {
        text.push_str(&export_line(&body, &digest));
        text.push('\n');
    }
    let mut heads = Vec::new();
    for (chain, seq, digest) in tx.heads()? {
        if let Some(d) = digest {
            heads.push((chain, seq, digest_from(&d)?));
        }
    }
    Ok((text, heads))
}
