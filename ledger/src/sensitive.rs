//! Sensitive values in the ledger (issue 29): a task proposed under a contract that marks
//! values sensitive is frozen committed (salts from the operating system's CSPRNG), its
//! disclosures kept apart in `ledger_disclosures`; they are shredded on request
//! ([`Ledger::redact`]), by a tenant's retention policy for their class
//! ([`Ledger::retention_run`]), or as the task finishes ([`AtFinish::Shred`]).
//!
//! Shredding is a plain overwrite, not crypto-shredding: a per-task key kept in the same
//! database would be as hard to destroy as the values themselves, and one kept elsewhere is a
//! key service this ledger does not have. The row keeps its place and class, its disclosure
//! becomes NULL, and then:
//! - SQLite runs with `secure_delete` on, so the freed bytes are zeroed in the page, and a
//!   redaction or a retention run truncates the write-ahead log (`wal_checkpoint(TRUNCATE)`),
//!   whose older frames still hold the page as it was. A shredding at a task's finish is
//!   copied into the file by the next checkpoint; the log's old frames go at the next
//!   truncation (a redaction or a retention run) or as the log is overwritten.
//! - PostgreSQL keeps the old row version as a dead tuple until VACUUM reclaims it, and its
//!   WAL until the segment is recycled: a redaction or a retention run vacuums
//!   `ledger_disclosures`, after which no dump or backup taken holds the value. The bytes of
//!   a reclaimed tuple may stay in the heap file's free space until it is reused; where that
//!   matters, encrypt the storage at rest.

use crate::model::Shredded;
use crate::ops::shred;
use crate::store::{storage, Done, RetentionRow};
use crate::Ledger;
use actionseal_core::ledger::check_identity;
use actionseal_core::ledger::AtFinish;
use actionseal_core::sensitive::{commit, commit_keeping, Disclosure, Sensitive, SALT_BYTES};
use actionseal_core::{Action, Code, Contract, Error, OwnedValue, Result};

/// How many tasks one retention read selects; the run reads again until none is left.
const RETENTION_PAGE: i64 = 256;

/// A tenant's retention policy for a class of sensitive values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RetentionPolicy {
    pub tenant: String,
    pub class: String,
    /// How long after the proposal its disclosures are kept (ms); `None`: until redacted.
    pub keep_ms: Option<i64>,
    /// What happens to them when their task finishes.
    pub at_finish: AtFinish,
    pub changed_at: i64,
    pub changed_by: String,
}

impl RetentionPolicy {
    fn from_row(r: RetentionRow) -> Result<RetentionPolicy> {
        let at_finish = AtFinish::from_name(&r.at_finish)
            .ok_or_else(|| storage("retention", format!("at_finish {:?}", r.at_finish)))?;
        Ok(RetentionPolicy {
            tenant: r.tenant,
            class: r.class,
            keep_ms: r.keep_ms,
            at_finish,
            changed_at: r.changed_at,
            changed_by: r.changed_by,
        })
    }

    /// `{"tenant", "class", "keep_ms", "at_finish", "changed_at", "changed_by"}`.
    pub fn to_value(&self) -> OwnedValue {
        use crate::json::{n, obj, opt_n, s};
        obj(vec![
            ("tenant", s(&self.tenant)),
            ("class", s(&self.class)),
            ("keep_ms", opt_n(self.keep_ms)),
            ("at_finish", s(self.at_finish.as_str())),
            ("changed_at", n(self.changed_at)),
            ("changed_by", s(&self.changed_by)),
        ])
    }
}

/// An action committed under its contract, and its disclosures; `None` when the contract
/// marks nothing sensitive.
pub(crate) type Committed = Option<(Action, Vec<Disclosure>)>;

/// Commits `action` (in the clear, checked against `contract` already), each salt 16 bytes
/// from the operating system's CSPRNG.
pub(crate) fn committed(contract: &Contract, action: &Action) -> Result<Committed> {
    let Some(sensitive) = contract.sensitive() else {
        return Ok(None);
    };
    with_salts(|salt| commit(sensitive, action.value(), salt)).map(Some)
}

/// Commits an amended `action` (in the clear) keeping the disclosures of `kept` whose values
/// the reviewer left alone (core's `commit_keeping`); a changed value gets a fresh salt.
pub(crate) fn committed_keeping(
    sensitive: &Sensitive,
    action: &Action,
    kept: &[Disclosure],
) -> Result<(Action, Vec<Disclosure>)> {
    with_salts(|salt| commit_keeping(sensitive, action.value(), kept, salt))
}

/// What `commit` makes with salts from the operating system's CSPRNG, as an action.
fn with_salts(
    commit: impl FnOnce(&mut dyn FnMut() -> [u8; SALT_BYTES]) -> (OwnedValue, Vec<Disclosure>),
) -> Result<(Action, Vec<Disclosure>)> {
    let mut failed = None;
    let mut salt = || {
        let mut s = [0u8; SALT_BYTES];
        if let Err(e) = getrandom::fill(&mut s) {
            failed.get_or_insert(e);
        }
        s
    };
    let (envelope, disclosures) = commit(&mut salt);
    if let Some(e) = failed {
        // A salt that is not random would let a value be found by hashing guesses.
        return Err(Error::new(
            Code::LedgerUnavailable,
            format!("the operating system gave no random salt ({e})"),
        ));
    }
    Ok((Action::from_value(&envelope)?, disclosures))
}

impl Ledger {
    /// Shreds every disclosure of task `task_id` (an audited `shredded` event by `actor`,
    /// naming places and classes), then scrubs what the engine keeps of the old values (see
    /// the module's notes). The task, its approval, its audit and its evidence still verify;
    /// a claim of it that has not run yet is refused with [`Code::DisclosuresShredded`]. A
    /// task without disclosures (or shredded already) changes nothing.
    pub fn redact(&self, task_id: &str, actor: &str) -> Result<Shredded> {
        check_identity("actor", actor)?;
        let done = self.write(|tx, now| shred::redact(tx, now, task_id, actor))?;
        if !done.places.is_empty() {
            self.scrub()?;
        }
        Ok(done)
    }

    /// The disclosures of task `task_id`, for the reviewer who decides it: a page verifies each
    /// against the task's commitments before it shows a value. Empty for a task without
    /// sensitive values; [`Code::DisclosuresShredded`] once any of them was shredded. A read is
    /// not an audit event (it changes nothing): who may read is the server's to decide, as
    /// for the task itself.
    pub fn disclosures(&self, task_id: &str) -> Result<Vec<Disclosure>> {
        self.read(|tx| {
            let t = crate::ops::locked_task(tx, task_id)?;
            if !shred::may_hold(&t) {
                return Ok(Vec::new());
            }
            shred::held(tx, &t)?
        })
    }

    /// Sets `tenant`'s retention policy for the sensitive values of `class`: kept `keep_ms`
    /// after their proposal (`None`: until redacted), and shredded or kept when their task
    /// finishes. Applies from the next [`Ledger::retention_run`] (and the next finish). A
    /// change is an audited `retention_changed` event; the policy the class already has
    /// changes nothing and records nothing.
    pub fn set_retention(
        &self,
        tenant: &str,
        class: &str,
        keep_ms: Option<i64>,
        at_finish: AtFinish,
        actor: &str,
    ) -> Result<RetentionPolicy> {
        check_identity("tenant", tenant)?;
        check_identity("actor", actor)?;
        actionseal_core::ledger::check_class(class)?;
        if keep_ms.is_some_and(|k| !(0..=actionseal_core::MAX_SAFE_INTEGER).contains(&k)) {
            return Err(Error::new(
                Code::InvalidRequest,
                "keep_ms is a non-negative safe integer (or null: until redacted)",
            )
            .in_key("keep_ms"));
        }
        self.write(|tx, now| {
            let row = RetentionRow {
                tenant: tenant.to_owned(),
                class: class.to_owned(),
                keep_ms,
                at_finish: at_finish.as_str().to_owned(),
                changed_at: now,
                changed_by: actor.to_owned(),
            };
            let row = crate::ops::retention::set(tx, now, row)?;
            Ok(Done::Ok(RetentionPolicy::from_row(row)?))
        })
    }

    /// Every tenant's retention policies, by tenant and class.
    pub fn retention(&self) -> Result<Vec<RetentionPolicy>> {
        self.read(|tx| tx.retention())?
            .into_iter()
            .map(RetentionPolicy::from_row)
            .collect()
    }

    /// Shreds every disclosure its tenant's policy keeps no longer (made more than `keep_ms`
    /// ago), one task per transaction, each an audited `shredded` event by `actor`; then
    /// scrubs what the engine keeps of the old values, whether or not this run shredded any:
    /// a shredding at a task's finish leaves them there until then. Returns what it shredded.
    pub fn retention_run(&self, actor: &str) -> Result<Vec<Shredded>> {
        check_identity("actor", actor)?;
        let mut out = Vec::new();
        for p in self.retention()? {
            let Some(keep) = p.keep_ms else { continue };
            let before = self.now().saturating_sub(keep);
            loop {
                let due =
                    self.read(|tx| tx.held_before(&p.tenant, &p.class, before, RETENTION_PAGE))?;
                if due.is_empty() {
                    break;
                }
                for id in due {
                    let done =
                        self.write(|tx, now| shred::expire(tx, now, &id, &p.class, actor))?;
                    out.push(done);
                }
            }
        }
        self.scrub()?;
        Ok(out)
    }

    /// Removes what the engine keeps of shredded values beside the live rows: SQLite's
    /// write-ahead log, PostgreSQL's dead tuples.
    fn scrub(&self) -> Result<()> {
        match &self.backend {
            crate::Backend::Sqlite(s) => s.truncate_log(),
            crate::Backend::Postgres(p) => p.vacuum("ledger_disclosures"),
        }
    }
}
