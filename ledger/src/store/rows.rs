//! The rows as stored, and how a result row is read into one. Each row is declared once, by
//! `row!`: its struct, the list of its columns in the order every query selects them, and
//! its decoder, which reads each column at the position the list gives it. A new column is
//! one line here (and its schema step, and the statements that write it).

use super::{digest_from, state_from, storage};
use actionseal_core::ledger::State;
use actionseal_core::{Code, Digest, Error, ProofRequirement, Result, MAX_SAFE_INTEGER};

/// Declares a row: `struct NAME in COLUMNS, DECODER { field: Type = reader, ... }`, where each
/// field is a column of the same name, and `reader` the [`Cols`] method that reads it.
macro_rules! row {
    (
        $(#[$meta:meta])*
        struct $name:ident in $columns:ident, $decode:ident {
            $( $(#[$fmeta:meta])* $field:ident: $ty:ty = $read:ident, )+
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Debug)]
        pub(crate) struct $name {
            $( $(#[$fmeta])* pub $field: $ty, )+
        }

        #[doc = concat!(
            "The columns of [`", stringify!($name), "`], in the order [`",
            stringify!($decode), "`] reads them."
        )]
        pub(crate) const $columns: &str = column_list!($($field),+);

        #[doc = concat!(
            "A [`", stringify!($name), "`] from a row that selects [`",
            stringify!($columns), "`] first."
        )]
        pub(crate) fn $decode(r: &dyn Cols) -> Result<$name> {
            /// Each column's position, in the order of the list.
            #[allow(non_camel_case_types)]
            enum At { $($field),+ }
            Ok($name { $( $field: r.$read(At::$field as usize)?, )+ })
        }
    };
}

/// `a, b, c` from the fields `a`, `b` and `c`.
macro_rules! column_list {
    ($first:ident $(, $rest:ident)*) => {
        concat!(stringify!($first) $(, ", ", stringify!($rest))*)
    };
}

row! {
    /// A task as stored.
    struct TaskRow in TASK_COLUMNS, task_from {
        id: String = text,
        tenant: String = text,
        job_id: String = text,
        request_id: String = text,
        state: State = state,
        /// The task's action, canonical JSON: the proposed one, or the last amendment's.
        action: String = text,
        action_digest: Digest = digest,
        approval_required: bool = flag,
        /// The contract's cost of one call, reserved on a budget by a claim that names one.
        cost_minor: i64 = int,
        idempotency_key: String = text,
        proposer: String = text,
        fence: i64 = int,
        /// The approval round (0 when no approval was ever requested).
        round: i64 = int,
        /// The current round's approval id.
        approval_id: Option<String> = opt_text,
        executor: Option<String> = opt_text,
        lease_until: Option<i64> = opt_int,
        budget: Option<String> = opt_text,
        /// Minor units reserved on `budget` by the current claim.
        reserved: i64 = int,
        /// The business system's answer, canonical JSON.
        result: Option<String> = opt_text,
        created_at: i64 = int,
        updated_at: i64 = int,
        /// The action as the model proposed it, once a reviewer amended it (`None` before).
        proposed_action: Option<String> = opt_text,
        proposed_digest: Option<Digest> = opt_digest,
        /// How many amendments the action went through.
        amendments: i64 = int,
        /// The current round's approval record (core [`actionseal_core::Approval`]),
        /// canonical JSON, once decided: kept with the task, so that a claim reads one row.
        approval: Option<String> = opt_text,
        /// When the current round's approval was revoked.
        revoked_at: Option<i64> = opt_int,
        /// When the task began awaiting the decision it needs now: its proposal, its
        /// re-approval or its last amendment. A decision dated before it cannot be about this
        /// action.
        round_started_at: i64 = int,
        /// How the current round's decision was proven, canonical JSON `{"signer", "proof",
        /// "verified_at"}` (see `ops::decide`); `None` for a bare decision or none yet.
        proof: Option<String> = opt_text,
        /// The contract document, canonical JSON, kept only when its approval needs a quorum
        /// or a separation of duties, which `decide` applies (`None`: judged as always).
        contract: Option<String> = opt_text,
    }
}

/// Where `last_event` is in a row that selects it right after [`TASK_COLUMNS`].
pub(crate) const LAST_EVENT_AT: usize = columns(TASK_COLUMNS);

row! {
    /// One approval round of a task.
    struct ApprovalRow in APPROVAL_COLUMNS, approval_from {
        approval_id: String = text,
        task_id: String = text,
        round: i64 = int,
        decision_id: Option<String> = opt_text,
        revoked_at: Option<i64> = opt_int,
    }
}

/// Where a column selected right after [`APPROVAL_COLUMNS`] is.
pub(crate) const AFTER_APPROVAL: usize = columns(APPROVAL_COLUMNS);

row! {
    /// One decision of a round under a quorum (see `schema/quorums.sql`).
    struct RoundDecisionRow in ROUND_DECISION_COLUMNS, round_decision_from {
        approval_id: String = text,
        /// 1 for the round's first decision, one more for each after it.
        n: i64 = int,
        decision_id: String = text,
        /// The counting identity: `on_behalf_of` for a delegate's decision, else the approver.
        counted_as: String = text,
        role: Option<String> = opt_text,
        /// `approved` or `rejected`.
        decision: String = text,
        /// Core's approval record, canonical JSON.
        record: String = text,
        /// How it was proven, canonical JSON `{"signer", "proof", "verified_at"}`; `None` bare.
        proof: Option<String> = opt_text,
        decided_at: i64 = int,
        recorded_at: i64 = int,
    }
}

row! {
    /// One amendment of a task's action.
    struct AmendmentRow in AMENDMENT_COLUMNS, amendment_from {
        task_id: String = text,
        /// 1 for the first amendment of the task, one more for each after it.
        n: i64 = int,
        /// The digest of the action it replaced.
        amends: Digest = digest,
        /// The amended action, canonical JSON, and its digest.
        action: String = text,
        action_digest: Digest = digest,
        reviewer: String = text,
        reason: String = text,
        at: i64 = int,
    }
}

row! {
    /// The ledger's policy, one row that every handle on the database obeys.
    struct PolicyRow in POLICY_COLUMNS, policy_from {
        proof: ProofRequirement = proof_requirement,
        changed_at: i64 = int,
        changed_by: String = text,
    }
}

row! {
    /// A budget account.
    struct BudgetRow in BUDGET_COLUMNS, budget_from {
        name: String = text,
        limit_minor: i64 = int,
        spent_minor: i64 = int,
        reserved_minor: i64 = int,
    }
}

row! {
    /// A batch (issue 28, see `schema/batches.sql`).
    struct BatchRow in BATCH_COLUMNS, batch_from {
        id: String = text,
        /// The id of the lineage's first batch (this one's, for a first batch).
        lineage: String = text,
        tenant: String = text,
        /// `all_or_nothing` or `per_item`.
        semantics: String = text,
        /// Core's frozen batch document, canonical JSON.
        header: String = text,
        /// Its fingerprint: the digest a decision binds.
        digest: Digest = digest,
        /// The model's proposal (the digest before any deselection).
        proposed_digest: Digest = digest,
        /// The selected items' task ids, in the header's order (canonical JSON array).
        items: String = text,
        /// The items' task ids as proposed (canonical JSON array).
        proposed_items: String = text,
        amendments: i64 = int,
        /// `awaiting_approval`, `approved` or `rejected`.
        state: State = state,
        approval_id: String = text,
        decision_id: Option<String> = opt_text,
        /// The decision record (core's batch approval record), canonical JSON, once decided.
        record: Option<String> = opt_text,
        /// How it was proven, canonical JSON `{"proof", "signer", "verified_at"}`.
        proof: Option<String> = opt_text,
        /// The contract document, canonical JSON.
        contract: String = text,
        proposer: String = text,
        created_at: i64 = int,
        updated_at: i64 = int,
    }
}

row! {
    /// What a batch and its re-approved remainders share: the caps' totals and the breaker.
    struct LineageRow in LINEAGE_COLUMNS, lineage_from {
        id: String = text,
        /// The batch whose items may be claimed now.
        current: String = text,
        /// How many batches the lineage has had (1 for the first).
        generation: i64 = int,
        /// Core's running totals, canonical JSON (digests of targets, never their values).
        totals: String = text,
        /// Core's breaker, canonical JSON.
        breaker: String = text,
        updated_at: i64 = int,
    }
}

row! {
    /// An item task of a batch.
    struct ItemRow in ITEM_COLUMNS, item_from {
        task_id: String = text,
        lineage: String = text,
        /// Its place in the batch it was proposed in.
        idx: i64 = int,
        /// The batch whose decision approved it last, and its inclusion proof there.
        batch: Option<String> = opt_text,
        proof: Option<String> = opt_text,
    }
}

row! {
    /// A sensitive place of a task's frozen action (issue 29), and its disclosure until it is
    /// shredded.
    struct DisclosureRow in DISCLOSURE_COLUMNS, disclosure_from {
        task_id: String = text,
        pointer: String = text,
        tenant: String = text,
        class: String = text,
        /// Core's base64url disclosure; `None` once shredded.
        disclosure: Option<String> = opt_text,
        created_at: i64 = int,
        shredded_at: Option<i64> = opt_int,
    }
}

row! {
    /// How long a tenant keeps its disclosures of a class (issue 29).
    struct RetentionRow in RETENTION_COLUMNS, retention_from {
        tenant: String = text,
        class: String = text,
        /// Kept this long after the proposal; `None`: until redacted.
        keep_ms: Option<i64> = opt_int,
        /// `keep` or `shred` when the task finishes.
        at_finish: String = text,
        changed_at: i64 = int,
        changed_by: String = text,
    }
}

/// Reading a column of a result row, on either engine.
pub(crate) trait Cols {
    fn text(&self, i: usize) -> Result<String>;
    fn opt_text(&self, i: usize) -> Result<Option<String>>;
    /// An integer column as the engine holds it: any 64-bit integer, or NULL.
    fn stored_int(&self, i: usize) -> Result<Option<i64>>;

    fn int(&self, i: usize) -> Result<i64> {
        self.opt_int(i)?
            .ok_or_else(|| storage("read", format!("column {i} is NULL")))
    }

    /// Every integer the ledger stores (times, fences, rounds, money, counts, event numbers)
    /// is a safe integer, which JSON carries exactly in every runtime. Anything else was
    /// written behind the ledger's back: it is refused when read, before an operation builds
    /// on it, rather than handed out as a `null` or a rounded number.
    fn opt_int(&self, i: usize) -> Result<Option<i64>> {
        match self.stored_int(i)? {
            Some(n) if n.unsigned_abs() > MAX_SAFE_INTEGER.unsigned_abs() => Err(Error::new(
                Code::LedgerValueOutOfRange,
                format!("column {i} holds {n}, outside ±(2^53 − 1), which no ledger writes"),
            )),
            n => Ok(n),
        }
    }

    fn flag(&self, i: usize) -> Result<bool> {
        Ok(self.int(i)? != 0)
    }

    fn state(&self, i: usize) -> Result<State> {
        state_from(&self.text(i)?)
    }

    fn digest(&self, i: usize) -> Result<Digest> {
        digest_from(&self.text(i)?)
    }

    fn opt_digest(&self, i: usize) -> Result<Option<Digest>> {
        self.opt_text(i)?.as_deref().map(digest_from).transpose()
    }

    fn proof_requirement(&self, i: usize) -> Result<ProofRequirement> {
        ProofRequirement::parse(&self.text(i)?).map_err(|e| storage("stored policy", e.message()))
    }
}

/// The columns of a result row from position `.1` on: a row that selects several rows'
/// columns one after another, each decoded from where its own begin.
pub(crate) struct Shifted<'r>(pub &'r dyn Cols, pub usize);

impl Cols for Shifted<'_> {
    fn text(&self, i: usize) -> Result<String> {
        self.0.text(self.1 + i)
    }
    fn opt_text(&self, i: usize) -> Result<Option<String>> {
        self.0.opt_text(self.1 + i)
    }
    fn stored_int(&self, i: usize) -> Result<Option<i64>> {
        self.0.stored_int(self.1 + i)
    }
}

/// How many columns a comma-separated list names.
pub(crate) const fn columns(list: &str) -> usize {
    let b = list.as_bytes();
    let (mut i, mut n) = (0, 1);
    while i < b.len() {
        if b[i] == b',' {
            n += 1;
        }
        i += 1;
    }
    n
}
