//! Shredding a ledger's sensitive values (issue 29) on `Ledger`: each is one `Call` of the
//! ledger, its request read by core as the Python binding's is, run on libuv's pool like every
//! other operation.

use crate::ledger::{member, owned, Ledger, Op};
use actionseal_ledger::Call;
use napi::bindgen_prelude::{AsyncTask, Env, Unknown};
use napi::{JsValue, Result};
use napi_derive::napi;

#[napi]
impl Ledger {
    /// Shreds a task's sensitive values; its audit, approval and evidence still verify (issue 29).
    ///
    /// Shreds every disclosure of task `task_id` (by `actor`, in an audited `shredded` event
    /// without a value); a claim of it that has not run then rejects with
    /// `disclosures_shredded`. Resolves to `{task_id, places: [{pointer, class}]}`.
    #[napi(
        ts_args_type = "request: RedactRequest",
        ts_return_type = "Promise<Shredded>"
    )]
    pub fn redact(&self, env: Env, request: Unknown<'_>) -> Result<AsyncTask<Op>> {
        self.start(&env, Call::Redact, |js| owned(js, request.raw()))
    }

    /// A task's disclosures, for its reviewer to check and show (issue 29).
    ///
    /// The disclosures of task `task_id`'s sensitive values, each to be checked against the
    /// task's commitments (`revealAction`) before its value is shown; `[]` for a task without
    /// sensitive values; rejects with `disclosures_shredded` once any was shredded.
    #[napi(ts_args_type = "taskId: string", ts_return_type = "Promise<string[]>")]
    pub fn disclosures(&self, env: Env, task_id: Unknown<'_>) -> Result<AsyncTask<Op>> {
        self.start(&env, Call::Disclosures, |js| {
            member(js, task_id.raw(), "task_id")
        })
    }

    /// Sets how long a tenant keeps its sensitive values of a class.
    ///
    /// `tenant` keeps its values of `class` `keep_ms` after their proposal (`null`: until
    /// redacted) and, with `at_finish: 'shred'`, shreds them when their task succeeds, fails
    /// or is rejected. Resolves to the policy.
    #[napi(
        ts_args_type = "request: RetentionRequest",
        ts_return_type = "Promise<RetentionPolicy>"
    )]
    pub fn set_retention(&self, env: Env, request: Unknown<'_>) -> Result<AsyncTask<Op>> {
        self.start(&env, Call::SetRetention, |js| owned(js, request.raw()))
    }

    /// Every tenant's retention policies.
    #[napi(ts_return_type = "Promise<RetentionPolicy[]>")]
    pub fn retention(&self, env: Env) -> Result<AsyncTask<Op>> {
        self.start(&env, Call::Retention, |_| crate::ledger::object(Vec::new()))
    }

    /// Shreds every sensitive value its tenant's policy keeps no longer; what it shredded.
    ///
    /// Shreds (by `actor`) every disclosure older than its tenant's policy for its class
    /// keeps, one task per transaction; resolves to one `{task_id, places}` per task.
    #[napi(ts_args_type = "actor: string", ts_return_type = "Promise<Shredded[]>")]
    pub fn retention_run(&self, env: Env, actor: Unknown<'_>) -> Result<AsyncTask<Op>> {
        self.start(&env, Call::RetentionRun, |js| {
            member(js, actor.raw(), "actor")
        })
    }
}
