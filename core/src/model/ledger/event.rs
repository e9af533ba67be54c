//! Audit events and the chain verifier.
//!
//! Every ledger operation that changes or refuses something appends one event in the same
//! transaction. An event is a fixed-shape JSON object (every member always present, `null` or
//! empty when it does not apply):
//!
//! `{"chain", "seq", "at", "tenant", "task", "kind", "actor", "action_digest",
//! "approved_digest", "decision_id", "fence", "outcome", "reasons", "drift", "state", "detail",
//! "prev"}`
//!
//! The audit is [`CHAINS`] hash chains; a task's events all go to one of them, chosen by its
//! id ([`chain_of`]) (in a ledger begun with 16 chains, its events from before the upgrade stay
//! in the chain of 16 they went to), so transactions about different tasks append to different
//! chains at once (on PostgreSQL they would otherwise queue behind one head through every
//! commit). Within a chain, `seq` counts from 1 without gaps and `prev` is the previous event's
//! digest (`null` for seq 1); an event's digest is the fingerprint of its canonical JSON. Events
//! hold digests, identities and JSON Pointers, never argument values. An exported audit is JSON
//! Lines: each line is the event with its `digest` added, so an edited, removed or reordered
//! event is found at its own chain and seq in any runtime, and every task's events are replayed
//! by the ledger's rules ([`crate::ledger::Replay`]).

use crate::error::{Code, Error, Result};
use crate::json::digest::Digest;
use crate::json::value::{Object, OwnedValue, Value};
use crate::model::fields::Fields;
use crate::model::ledger::replay::{
    Replay, StoredBatch, StoredDecision, StoredLineage, StoredPolicy, StoredTask,
};
use crate::model::ledger::state::State;
use crate::model::ledger::values::{int, object, opt_string, string, strings};
use crate::Options;

macro_rules! kinds {
    ($($(#[doc = $doc:literal])* $variant:ident => $name:literal,)*) => {
        /// What an audit event records.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum EventKind {
            $($(#[doc = $doc])* $variant,)*
        }

        impl EventKind {
            /// Every kind.
            pub const ALL: &'static [EventKind] = &[$(EventKind::$variant,)*];

            /// The stable snake_case name.
            pub const fn as_str(self) -> &'static str {
                match self { $(EventKind::$variant => $name,)* }
            }

            /// The kind with this name.
            pub fn from_name(s: &str) -> Option<EventKind> {
                match s { $($name => Some(EventKind::$variant),)* _ => None }
            }
        }
    };
}

kinds! {
    /// A task was proposed: who proposed it, for whom, which tool, contract and digest.
    Proposed => "proposed",
    /// The same identity and digest was proposed again; the same task was returned.
    ProposeDuplicate => "propose_duplicate",
    /// A proposal was refused (`task_conflict`).
    ProposeRefused => "propose_refused",
    /// A reviewer's decision was recorded.
    Decided => "decided",
    /// A decision callback was delivered again with the same content.
    DecisionDuplicate => "decision_duplicate",
    /// A decision was refused (conflict, mismatch, task not awaiting one).
    DecisionRefused => "decision_refused",
    /// An executor claimed the task: lease, fence and idempotency key.
    Claimed => "claimed",
    /// A claim was refused (already claimed, not claimable, over budget).
    ClaimRefused => "claim_refused",
    /// A claim presented another action than the approved one.
    ToolArgsDrift => "tool_args_drift",
    /// A claim found the approval no longer holds: the task awaits re-approval.
    SentToReapproval => "sent_to_reapproval",
    /// A claim's check rejected the task before dispatch.
    RejectedPreDispatch => "rejected_pre_dispatch",
    /// An executor reported the outcome of its claim.
    Completed => "completed",
    /// A completion was refused (stale fence, lease expired, not claimed).
    CompleteRefused => "complete_refused",
    /// A claim's lease ran out without completion: the outcome is in doubt.
    LeaseExpired => "lease_expired",
    /// The business system's answer about a task in doubt was recorded.
    Reconciled => "reconciled",
    /// A reconciliation was refused (the outcome was not in doubt).
    ReconcileRefused => "reconcile_refused",
    /// An approval was revoked.
    Revoked => "revoked",
    /// A reviewer amended the task's action before the decision: `action_digest` is the
    /// amended action's, `drift` the pointers it changed, and `detail` the digest it replaced,
    /// the model's proposed digest and the reason's digest.
    Amended => "amended",
    /// An amendment arrived that the task already holds (a retry): nothing changed.
    AmendDuplicate => "amend_duplicate",
    /// An amendment was refused (after the decision, another tool, tenant, ..., a conflict).
    AmendRefused => "amend_refused",
    /// The ledger's proof policy changed (`detail`: the requirement before and after, and
    /// why); it is about no task.
    ProofPolicyChanged => "proof_policy_changed",
    /// The ledger, when it was opened, found the triggers that keep its events append-only
    /// missing, disabled or altered, and restored them: `detail.problems` says what it found.
    /// About the ledger, not a task (`task` is `null`, `tenant` and `actor` are `ledger`;
    /// chain 0). Whoever removed them could change events meanwhile: verify the audit
    /// against exported heads.
    AppendOnlyRestored => "append_only_restored",
    /// The decisions of a round under a quorum met it (issue 25): the task is approved.
    /// `decision_id` is the decision that completed it; `detail` names the round, how many
    /// approvals it needed, and each counted member (counting identity, role, decision id,
    /// delegate and the digests of the delegations used, never an argument value). Each
    /// member's own decision is a `decided` event before it (`detail.counted_as` names its
    /// counting identity; its `state` stays `awaiting_approval` unless it vetoes).
    QuorumMet => "quorum_met",
    /// An evidence bundle of the task was exported (issue 26): `actor` asked for it, the
    /// state is unchanged, and `detail.events` lists the digests of the task's events before
    /// it, in log order, so that a bundle from which an event was removed no longer matches
    /// its own export.
    EvidenceExported => "evidence_exported",
    /// A task's sensitive values were shredded (issue 29): its disclosures are gone from the
    /// ledger, its commitments stay. `detail` names why (`redact`, `retention`, `finished`)
    /// and the places and classes shredded, never a value; the state is unchanged.
    Shredded => "shredded",
    /// A batch was proposed (issue 28): about the batch, not a task (`task` is `null`, chain
    /// 0). `action_digest` is the batch's digest; `detail` its id, lineage and generation,
    /// semantics, size, contract, the digest of its items' task ids, the digests of the
    /// lineage's caps totals and breaker, and the batch it is the remainder of (`null` for a
    /// model's proposal). Each item is a task with its own `proposed` event.
    BatchProposed => "batch_proposed",
    /// The same batch was proposed again; the same batch was returned.
    BatchProposeDuplicate => "batch_propose_duplicate",
    /// A reviewer deselected items of a batch awaiting its decision: `action_digest` is the
    /// new batch digest, `detail` the digest it replaced, the model's proposed digest, the
    /// deselected positions, the items' digest and the reason's digest.
    BatchAmended => "batch_amended",
    /// A batch amendment was refused (decided already, a stale digest, a bad position).
    BatchAmendRefused => "batch_amend_refused",
    /// One decision over a batch's digest was recorded (`approved_digest`): `detail` as a
    /// `decided` event's, with the batch, and the record's digest. Each selected item gets a
    /// `decided` event naming the batch, each deselected one a `deselected` event.
    BatchDecided => "batch_decided",
    /// A batch decision was delivered again with the same content.
    BatchDecisionDuplicate => "batch_decision_duplicate",
    /// A batch decision was refused (conflict, mismatch, batch not awaiting one).
    BatchDecisionRefused => "batch_decision_refused",
    /// A claim of a whole all-or-nothing batch was refused before any item was checked
    /// (breaker open, semantics, the batch not approved).
    BatchClaimRefused => "batch_claim_refused",
    /// An item the reviewer deselected from its batch: rejected when the batch was decided.
    Deselected => "deselected",
    /// A batch lineage's breaker opened (the outcome named in `detail.task`, or a claim over
    /// the rate): every remaining unclaimed item went to `awaiting_reapproval` in the same
    /// transaction, and a batch over them awaits a reviewer (`detail.remainder`).
    BreakerTripped => "breaker_tripped",
    /// A reviewer's decision over a tripped lineage's remainder half-opened its breaker.
    BreakerHalfOpened => "breaker_half_opened",
    /// Enough successes after the half-open closed the breaker.
    BreakerClosed => "breaker_closed",
    /// A tenant's retention of a class of sensitive values was set or changed (issue 29):
    /// about no task (`task` is `null`, chain 0; `tenant` is the policy's). `detail` names the
    /// class and the policy before (`null`: none) and after, each `{keep_ms, at_finish}`;
    /// `outcome` is the new `at_finish`. Setting the policy a class already has records nothing.
    RetentionChanged => "retention_changed",
}

/// How many chains the audit has: the one place the number is written (the README and the
/// docs are held to it by a test). Many, because on PostgreSQL a transaction holds its chain's
/// head from its last statement through its commit, so transactions about tasks of one chain
/// commit one after the other. A verifier holds one head per chain.
pub const CHAINS: i64 = 256;

/// The chain of a task's events: the first byte of SHA-256 of its id. Events that concern no
/// task go to chain 0. (A ledger written with 16 chains, before version 3 of the ledger's
/// schema, keeps its older events in chain `byte % 16`; every chain verifies on its own.)
pub fn chain_of(task: Option<&str>) -> i64 {
    task.map_or(0, |t| {
        i64::from(Digest::of(t.as_bytes()).as_bytes()[0]) % CHAINS
    })
}

/// Room for an event's text: most are 600-800 bytes, so one allocation holds them.
const TEXT_CAPACITY: usize = 832;

/// The two members of an event's text that its chain decides, in the order they are written.
#[derive(Clone, Copy)]
enum Chained {
    Prev = 0,
    Seq = 1,
}

/// One audit event.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    /// The chain it belongs to (see [`chain_of`]).
    pub chain: i64,
    /// Position in its chain, from 1, without gaps.
    pub seq: i64,
    /// When, by the ledger's clock (ms since the epoch).
    pub at: i64,
    /// The tenant of the task.
    pub tenant: String,
    /// The task id.
    pub task: Option<String>,
    /// What happened.
    pub kind: EventKind,
    /// Who did it: the proposer, the approver, the executor, the reconciler, or `ledger`.
    pub actor: String,
    /// The digest of the action concerned (proposed or presented).
    pub action_digest: Option<Digest>,
    /// The digest of the approved action, when there is an approval.
    pub approved_digest: Option<Digest>,
    /// The decision concerned.
    pub decision_id: Option<String>,
    /// The fence token concerned.
    pub fence: Option<i64>,
    /// The verdict outcome, the reported or observed outcome, or the refusal's error code.
    pub outcome: Option<String>,
    /// The check's reasons, when a check ran.
    pub reasons: Vec<String>,
    /// JSON Pointers where a presented action drifted from the approved one (or, for
    /// `amended`, where the amendment changed the action it replaced).
    pub drift: Vec<String>,
    /// The task's state after the event.
    pub state: Option<State>,
    /// Identities and digests specific to the kind (never argument values).
    pub detail: OwnedValue,
    /// The previous event's digest.
    pub prev: Option<Digest>,
}

const FIELDS: [&str; 17] = [
    "chain",
    "seq",
    "at",
    "tenant",
    "task",
    "kind",
    "actor",
    "action_digest",
    "approved_digest",
    "decision_id",
    "fence",
    "outcome",
    "reasons",
    "drift",
    "state",
    "detail",
    "prev",
];

fn opt_digest(d: &Option<Digest>) -> OwnedValue {
    d.map_or(Value::Null, |d| string(&d.to_string()))
}

impl Event {
    /// The event as JSON, without its digest.
    pub fn to_value(&self) -> OwnedValue {
        object(vec![
            ("chain", int(self.chain)),
            ("seq", int(self.seq)),
            ("at", int(self.at)),
            ("tenant", string(&self.tenant)),
            ("task", opt_string(self.task.as_deref())),
            ("kind", string(self.kind.as_str())),
            ("actor", string(&self.actor)),
            ("action_digest", opt_digest(&self.action_digest)),
            ("approved_digest", opt_digest(&self.approved_digest)),
            ("decision_id", opt_string(self.decision_id.as_deref())),
            ("fence", self.fence.map_or(Value::Null, int)),
            ("outcome", opt_string(self.outcome.as_deref())),
            ("reasons", strings(&self.reasons)),
            ("drift", strings(&self.drift)),
            ("state", opt_string(self.state.map(State::as_str))),
            ("detail", self.detail.clone()),
            ("prev", opt_digest(&self.prev)),
        ])
    }

    /// The canonical text of [`Event::to_value`]: what a ledger stores. Written directly, in
    /// the members' canonical order, without building the value first (every operation of a
    /// ledger seals one); the tests hold it to `canonicalize(&to_value())`.
    pub fn canonical(&self) -> String {
        use crate::json::canon::{write_string, write_value};
        let mut out = String::with_capacity(TEXT_CAPACITY);
        self.write_canonical(&mut out, |out, member| match member {
            Chained::Prev => match &self.prev {
                Some(d) => write_string(d.text().as_str(), out),
                None => out.push_str("null"),
            },
            Chained::Seq => write_value(&int(self.seq), out),
        });
        out
    }

    /// The canonical text in three pieces around the two members the chain decides, `prev`
    /// and `seq`: the text is `a`, then `prev` (`"sha256:..."` or `null`), then `b`, then `seq`
    /// (a decimal integer), then `c`. A database that seals events itself (PostgreSQL, under
    /// its chain head's lock) joins them with the head it holds.
    pub fn canonical_around(&self) -> [String; 3] {
        let mut a = String::with_capacity(TEXT_CAPACITY);
        let mut cuts = [0; 2];
        self.write_canonical(&mut a, |out, member| cuts[member as usize] = out.len());
        let c = a[cuts[1]..].to_owned();
        let b = a[cuts[0]..cuts[1]].to_owned();
        a.truncate(cuts[0]);
        [a, b, c]
    }

    /// Writes the canonical text, with `chained` writing the value of `prev` and of `seq`
    /// where each goes (members in canonical order).
    fn write_canonical(&self, out: &mut String, mut chained: impl FnMut(&mut String, Chained)) {
        use crate::json::canon::{write_string, write_value};
        let opt_str = |out: &mut String, s: Option<&str>| match s {
            Some(s) => write_string(s, out),
            None => out.push_str("null"),
        };
        let opt_digest = |out: &mut String, d: &Option<Digest>| match d {
            Some(d) => write_string(d.text().as_str(), out),
            None => out.push_str("null"),
        };
        let list = |out: &mut String, items: &[String]| {
            out.push('[');
            for (i, s) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(s, out);
            }
            out.push(']');
        };
        out.push_str("{\"action_digest\":");
        opt_digest(out, &self.action_digest);
        out.push_str(",\"actor\":");
        write_string(&self.actor, out);
        out.push_str(",\"approved_digest\":");
        opt_digest(out, &self.approved_digest);
        out.push_str(",\"at\":");
        write_value(&int(self.at), out);
        out.push_str(",\"chain\":");
        write_value(&int(self.chain), out);
        out.push_str(",\"decision_id\":");
        opt_str(out, self.decision_id.as_deref());
        out.push_str(",\"detail\":");
        write_value(&self.detail, out);
        out.push_str(",\"drift\":");
        list(out, &self.drift);
        out.push_str(",\"fence\":");
        write_value(&self.fence.map_or(Value::Null, int), out);
        out.push_str(",\"kind\":");
        write_string(self.kind.as_str(), out);
        out.push_str(",\"outcome\":");
        opt_str(out, self.outcome.as_deref());
        out.push_str(",\"prev\":");
        chained(out, Chained::Prev);
        out.push_str(",\"reasons\":");
        list(out, &self.reasons);
        out.push_str(",\"seq\":");
        chained(out, Chained::Seq);
        out.push_str(",\"state\":");
        opt_str(out, self.state.map(State::as_str));
        out.push_str(",\"task\":");
        opt_str(out, self.task.as_deref());
        out.push_str(",\"tenant\":");
        write_string(&self.tenant, out);
        out.push('}');
    }

    /// The event's digest: the fingerprint of its canonical JSON.
    pub fn digest(&self) -> Digest {
        Digest::of(self.canonical().as_bytes())
    }

    /// One line of an exported audit: the canonical JSON of the event with its `digest`.
    pub fn line(canonical: &str, digest: &Digest) -> String {
        // Re-read so that `digest` takes its place in canonical key order.
        let v = crate::parse(canonical.as_bytes(), &Options::default())
            .map(|v| with_digest(v.into_owned(), digest))
            .unwrap_or(Value::Null);
        crate::canonicalize(&v)
    }

    /// Reads an event (without `digest`); problems are [`Code::AuditChainBroken`] at the field.
    pub fn from_value(v: &Value<'_>) -> Result<Event> {
        let f = Fields::new(v, Code::AuditChainBroken, "event", &FIELDS)?;
        let opt = |key: &str| -> Result<Option<String>> {
            match f.required(key)? {
                Value::Null => Ok(None),
                _ => f.identity(key).map(|s| Some(s.to_owned())),
            }
        };
        let opt_dig = |key: &str| -> Result<Option<Digest>> {
            match f.required(key)? {
                Value::Null => Ok(None),
                _ => f.digest(key).map(Some),
            }
        };
        let list = |key: &str| -> Result<Vec<String>> {
            match f.required(key)? {
                Value::Array(items) => items
                    .iter()
                    .map(|i| i.as_str().map(str::to_owned))
                    .collect::<Option<Vec<_>>>()
                    .ok_or_else(|| bad(key, "must be an array of strings")),
                _ => Err(bad(key, "must be an array of strings")),
            }
        };
        let kind = f.string("kind")?;
        let state = match opt("state")? {
            None => None,
            Some(s) => Some(State::parse(&s).map_err(|_| bad("state", "is not a task state"))?),
        };
        let detail = f.required("detail")?;
        if !matches!(detail, Value::Object(_)) {
            return Err(bad("detail", "must be an object"));
        }
        let chain = f.integer("chain", 0)?;
        if chain >= CHAINS {
            return Err(bad("chain", "is not a chain of this audit"));
        }
        Ok(Event {
            chain,
            seq: f.integer("seq", 1)?,
            at: f.integer("at", 0)?,
            tenant: f.identity("tenant")?.to_owned(),
            task: opt("task")?,
            kind: EventKind::from_name(kind).ok_or_else(|| bad("kind", "is not an event kind"))?,
            actor: f.identity("actor")?.to_owned(),
            action_digest: opt_dig("action_digest")?,
            approved_digest: opt_dig("approved_digest")?,
            decision_id: opt("decision_id")?,
            fence: match f.required("fence")? {
                Value::Null => None,
                _ => Some(f.integer("fence", 0)?),
            },
            outcome: opt("outcome")?,
            reasons: list("reasons")?,
            drift: list("drift")?,
            state,
            detail: detail.clone().into_owned(),
            prev: opt_dig("prev")?,
        })
    }
}

fn bad(key: &str, what: &str) -> Error {
    Error::new(Code::AuditChainBroken, format!("{key} {what}")).in_key(key)
}

fn with_digest(v: OwnedValue, digest: &Digest) -> OwnedValue {
    let Value::Object(o) = v else { return v };
    let mut entries = o.into_entries();
    entries.push(("digest".into(), string(&digest.to_string())));
    Value::Object(Object::from_entries(entries).unwrap_or_default())
}

/// Why a chain is broken, at the first broken seq.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Problem {
    /// The line is not an event (not JSON, a missing or unknown field, a bad value).
    Malformed,
    /// The event's content is not what its digest seals (edited).
    DigestMismatch,
    /// The event at this position has another seq (a removed or reordered event).
    SeqGap,
    /// The event's `prev` is not the previous event's digest (an event before it was replaced).
    PrevMismatch,
    /// The chain ends before the head the ledger recorded (events removed from the end).
    HeadMismatch,
    /// An event about a task does not follow from the task's events before it by the ledger's
    /// rules (a state, round, fence or digest its history cannot have): `field` names the
    /// member.
    InvalidTransition,
    /// A task's row is not what its events leave it at (a row rewound or edited, its last
    /// event moved, events about a task without a row), a row of a round's decisions under a
    /// quorum not what its `decided` event records (deleted, inserted or edited: `field` is
    /// `round_decisions/` and the column), or the ledger's proof policy row not what its last
    /// change left: `field` names the row's column.
    RowMismatch,
    /// The chain ends before the seq of a head exported earlier (events cut from its end).
    Truncated,
    /// The event at an exported head's seq is not the one exported: the chain was rewritten
    /// and sealed again.
    Resealed,
}

impl Problem {
    /// The stable snake_case name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Problem::Malformed => "malformed",
            Problem::DigestMismatch => "digest_mismatch",
            Problem::SeqGap => "seq_gap",
            Problem::PrevMismatch => "prev_mismatch",
            Problem::HeadMismatch => "head_mismatch",
            Problem::InvalidTransition => "invalid_transition",
            Problem::RowMismatch => "row_mismatch",
            Problem::Truncated => "truncated",
            Problem::Resealed => "resealed",
        }
    }
}

/// The last event of a chain: (chain, seq, digest).
pub type ChainHead = (i64, i64, Digest);

/// Where a chain breaks first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Break {
    /// The line of the export (from 1); for a chain that stops short of its recorded head,
    /// one past the last line; for a task's row, the line of the task's last event.
    pub line: i64,
    /// The chain, when the line says which.
    pub chain: Option<i64>,
    /// The seq the chain needed there, when the chain is known (for a replay or a row, the
    /// seq of the event concerned).
    pub seq: Option<i64>,
    /// Why.
    pub problem: Problem,
    /// The task, when the replay or a row broke.
    pub task: Option<String>,
    /// The event's member or the row's column that broke the replay.
    pub field: Option<&'static str>,
}

/// The result of walking an audit.
#[derive(Clone, Debug, PartialEq)]
pub struct AuditReport {
    /// Events read before the first break (all of them when every chain holds).
    pub events: i64,
    /// The last good event of each chain that has any, by chain.
    pub heads: Vec<ChainHead>,
    /// The first break, in line order.
    pub broken: Option<Break>,
}

/// Chain heads as JSON: `[{"chain", "seq", "digest"}]`, as reports and heads files write them.
pub(crate) fn heads_value(heads: &[ChainHead]) -> OwnedValue {
    let heads = heads
        .iter()
        .map(|(c, s, d)| {
            object(vec![
                ("chain", int(*c)),
                ("seq", int(*s)),
                ("digest", string(&d.to_string())),
            ])
        })
        .collect();
    Value::Array(heads)
}

impl AuditReport {
    /// `{"valid", "events", "heads": [{"chain", "seq", "digest"}], "broken": null |
    /// {"line", "chain", "seq", "problem", "task", "field"}}`.
    pub fn to_value(&self) -> OwnedValue {
        let heads = heads_value(&self.heads);
        let broken = self.broken.as_ref().map_or(Value::Null, |b| {
            object(vec![
                ("line", int(b.line)),
                ("chain", b.chain.map_or(Value::Null, int)),
                ("seq", b.seq.map_or(Value::Null, int)),
                ("problem", string(b.problem.as_str())),
                ("task", opt_string(b.task.as_deref())),
                ("field", opt_string(b.field)),
            ])
        });
        object(vec![
            ("valid", Value::Bool(self.broken.is_none())),
            ("events", int(self.events)),
            ("heads", heads),
            ("broken", broken),
        ])
    }

    /// `Ok` when every chain holds, else [`Code::AuditChainBroken`] naming where.
    pub fn into_result(self) -> Result<AuditReport> {
        let Some(b) = &self.broken else {
            return Ok(self);
        };
        let mut message = match (b.chain, b.seq) {
            (Some(c), Some(s)) => format!(
                "audit chain {c} breaks at seq {s} (line {}): {}",
                b.line,
                b.problem.as_str()
            ),
            _ => format!(
                "the audit breaks at line {}: {}",
                b.line,
                b.problem.as_str()
            ),
        };
        if let Some(t) = &b.task {
            message += &format!(" (task {t}");
            if let Some(f) = b.field {
                message += &format!(", {f}");
            }
            message += ")";
        }
        Err(Error::new(Code::AuditChainBroken, message))
    }
}

/// What an audit is verified against, besides its own chains.
#[derive(Clone, Copy, Debug, Default)]
pub struct Expected<'a> {
    /// The (chain, seq, digest) the ledger recorded as each chain's last event: a chain that
    /// stops short of its head lost events at its end ([`Problem::HeadMismatch`]).
    pub recorded: &'a [ChainHead],
    /// Heads exported earlier ([`crate::ledger::ExportedHeads`]): each chain must reach each
    /// one's seq ([`Problem::Truncated`]) through the same event ([`Problem::Resealed`]).
    pub exported: &'a [ChainHead],
    /// The ledger's task rows, when the verifier has them: each must be what its task's
    /// events leave it at, and every task with events must have one ([`Problem::RowMismatch`]).
    pub rows: Option<&'a [StoredTask<'a>]>,
    /// The rows of the rounds' decisions under a quorum, when the verifier has them: one for
    /// each member's `decided` event, at its position, holding what the event records
    /// ([`Problem::RowMismatch`] at `round_decisions/...`).
    pub decisions: Option<&'a [StoredDecision<'a>]>,
    /// The ledger's proof policy row, when the verifier has it: what its last change left.
    pub policy: Option<StoredPolicy<'a>>,
}

/// Walks an exported audit (JSON Lines, one event with its `digest` per line, the chains in
/// any interleaving but each in seq order, every task's events in the order they were
/// written; empty lines ignored), replays every task's events by the ledger's rules, and
/// names the first break. `heads` are the (chain, seq, digest) the ledger recorded as each
/// chain's last event: a chain that stops short of its head lost events at its end.
pub fn verify_audit(jsonl: &[u8], heads: &[ChainHead]) -> AuditReport {
    verify_audit_with(
        jsonl,
        &Expected {
            recorded: heads,
            ..Expected::default()
        },
    )
}

/// [`verify_audit`], also against heads exported earlier and the ledger's task rows (see
/// [`Expected`]). Breaks are named in this order: the first broken line (a chain or the
/// replay), then a recorded head, an exported head, a row.
pub fn verify_audit_with(jsonl: &[u8], expected: &Expected<'_>) -> AuditReport {
    verify_audit_with_batches(jsonl, expected, None)
}

/// The batch and lineage rows of a ledger (issue 28), for [`verify_audit_with_batches`].
pub type BatchRows<'a> = (&'a [StoredBatch<'a>], &'a [StoredLineage<'a>]);

/// [`verify_audit_with`], also holding the ledger's batch and lineage rows, when the verifier
/// has them, to their events ([`Problem::RowMismatch`] at `batches/...` or `lineages/...`,
/// with the batch or lineage id as the break's `task`), after the task rows and the rounds'.
pub fn verify_audit_with_batches(
    jsonl: &[u8],
    expected: &Expected<'_>,
    batches: Option<BatchRows<'_>>,
) -> AuditReport {
    // Per chain: the last seq read and its digest.
    let mut last: Vec<(i64, Option<Digest>)> = vec![(0, None); CHAINS as usize];
    let mut report = AuditReport {
        events: 0,
        heads: Vec::new(),
        broken: None,
    };
    let at_chain = |chain: i64, seq: Option<i64>, line: i64, problem: Problem| Break {
        line,
        chain: Some(chain),
        seq,
        problem,
        task: None,
        field: None,
    };
    let mut replay = Replay::new();
    // Per chain: the exported heads' (seq, digest), which the walk must pass through.
    let mut pins: Vec<Vec<(i64, Digest)>> = vec![Vec::new(); CHAINS as usize];
    for &(chain, seq, digest) in expected.exported {
        if let Some(p) = usize::try_from(chain).ok().and_then(|c| pins.get_mut(c)) {
            p.push((seq, digest));
        }
    }
    let options = Options::default();
    let mut line_no = 0;
    for line in jsonl.split(|b| *b == b'\n') {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        line_no += 1;
        let (event, digest) = match check_line(line, &last, &options) {
            Ok(read) => read,
            Err((chain, problem)) => {
                report.broken = Some(Break {
                    line: line_no,
                    chain,
                    seq: chain.map(|c| last[c as usize].0 + 1),
                    problem,
                    task: None,
                    field: None,
                });
                break;
            }
        };
        let (chain, seq) = (event.chain, event.seq);
        if let Err(m) = replay.apply(&event, digest, (line_no, chain, seq)) {
            report.broken = Some(Break {
                task: m.task,
                field: Some(m.field),
                ..at_chain(chain, Some(seq), line_no, Problem::InvalidTransition)
            });
            break;
        }
        let pinned = pins[chain as usize].iter().find(|(s, _)| *s == seq);
        if pinned.is_some_and(|(_, d)| !d.ct_eq(&digest)) {
            report.broken = Some(at_chain(chain, Some(seq), line_no, Problem::Resealed));
            break;
        }
        last[chain as usize] = (seq, Some(digest));
        report.events += 1;
    }
    report.heads = last
        .iter()
        .enumerate()
        .filter_map(|(c, (seq, d))| d.map(|d| (c as i64, *seq, d)))
        .collect();
    if report.broken.is_some() {
        return report;
    }
    let end = line_no + 1;
    let have = |chain: i64| {
        usize::try_from(chain)
            .ok()
            .and_then(|c| last.get(c))
            .copied()
    };
    for &(chain, seq, digest) in expected.recorded {
        let Some((have, d)) = have(chain) else {
            continue;
        };
        if have != seq || !d.is_some_and(|d| d.ct_eq(&digest)) {
            report.broken = Some(at_chain(
                chain,
                Some(have.min(seq) + 1),
                end,
                Problem::HeadMismatch,
            ));
            return report;
        }
    }
    for &(chain, seq, _) in expected.exported {
        if let Some((have, _)) = have(chain).filter(|(have, _)| *have < seq) {
            report.broken = Some(at_chain(chain, Some(have + 1), end, Problem::Truncated));
            return report;
        }
    }
    let tasks = expected.rows.and_then(|rows| replay.compare(rows));
    let decisions = expected.decisions.and_then(|d| replay.compare_decisions(d));
    // The first in line order; a task's row before its round's at the same event.
    let rows = match (tasks, decisions) {
        (Some(t), Some(d)) if d.1 .0 < t.1 .0 => Some(d),
        (t, d) => t.or(d),
    };
    let rows = rows.or_else(|| batches.and_then(|(b, l)| replay.compare_batches(b, l)));
    let policy = expected.policy.and_then(|p| replay.compare_policy(&p));
    // A row without events (or a policy that never changed) is reported past the last line.
    let found = rows.map(|(m, at)| (m, Some(at))).or(policy);
    if let Some((m, at)) = found {
        let (line, chain, seq) = match at {
            Some((line, chain, seq)) if line != i64::MAX => (line, chain, Some(seq)),
            Some((_, chain, _)) => (end, chain, None),
            None => (end, 0, None),
        };
        report.broken = Some(Break {
            task: m.task,
            field: Some(m.field),
            ..at_chain(chain, seq, line, Problem::RowMismatch)
        });
    }
    report
}

type LineError = (Option<i64>, Problem);

fn check_line(
    line: &[u8],
    last: &[(i64, Option<Digest>)],
    options: &Options,
) -> std::result::Result<(Event, Digest), LineError> {
    let malformed = (None, Problem::Malformed);
    let v = crate::parse(line, options).map_err(|_| malformed)?;
    let Value::Object(o) = v else {
        return Err(malformed);
    };
    let mut claimed = None;
    let mut rest = Vec::with_capacity(o.len());
    for (k, v) in o.into_entries() {
        if k == "digest" {
            claimed = v.as_str().and_then(|s| s.parse::<Digest>().ok());
        } else {
            rest.push((k, v));
        }
    }
    let claimed = claimed.ok_or(malformed)?;
    let body = Value::Object(Object::from_entries(rest).map_err(|_| malformed)?);
    let event = Event::from_value(&body).map_err(|_| malformed)?;
    let chain = Some(event.chain);
    let (seq, prev) = last[event.chain as usize];
    if event.seq != seq + 1 {
        return Err((chain, Problem::SeqGap));
    }
    if !crate::fingerprint(&body).ct_eq(&claimed) {
        return Err((chain, Problem::DigestMismatch));
    }
    match (event.prev, prev) {
        (None, None) => {}
        (Some(a), Some(b)) if a.ct_eq(&b) => {}
        _ => return Err((chain, Problem::PrevMismatch)),
    }
    Ok((event, claimed))
}
