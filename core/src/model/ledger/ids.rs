//! Identities derived from a task: the same inputs give the same strings in every runtime and
//! on every backend, so a task resumed anywhere keeps its identity and its idempotency key.

use crate::json::digest::Digest;
use crate::json::value::Value;
use crate::model::ledger::values::{int, string};

/// `<prefix>` + the first 128 bits, in hex, of SHA-256 over the canonical JSON array
/// `[domain, parts...]`. The domain keeps a task id from ever equalling an idempotency key.
fn derive(prefix: &str, domain: &str, parts: Vec<crate::OwnedValue>) -> String {
    let mut items = vec![string(domain)];
    items.extend(parts);
    let digest = Digest::of(crate::canonicalize(&Value::Array(items)).as_bytes());
    let hex = digest.to_string();
    // "sha256:" + 64 hex digits; keep 32.
    format!("{prefix}{}", &hex[7..39])
}

/// The task id of the task identity (tenant, job_id, request_id): `task_` + 32 hex digits.
pub fn task_id(tenant: &str, job_id: &str, request_id: &str) -> String {
    derive(
        "task_",
        "actionseal/task/v1",
        vec![string(tenant), string(job_id), string(request_id)],
    )
}

/// The business idempotency key of a task: `idem_` + 32 hex digits, derived from tenant +
/// job_id + request_id only, so it is one stable value across re-approvals,
/// reconciliations and re-claims. Dispatch carries it to the business system.
pub fn idempotency_key(tenant: &str, job_id: &str, request_id: &str) -> String {
    derive(
        "idem_",
        "actionseal/idempotency/v1",
        vec![string(tenant), string(job_id), string(request_id)],
    )
}

/// The id of the batch a model proposed (issue 28) in `tenant` with the batch digest
/// `digest`: `batch_` + 32 hex digits, so that the same batch proposed again is the same one.
pub fn batch_id(tenant: &str, digest: &Digest) -> String {
    derive(
        "batch_",
        "actionseal/batch/v1",
        vec![string(tenant), string(&digest.to_string())],
    )
}

/// The id of the `generation`-th batch of a batch lineage (the remainder a tripped breaker
/// leaves for re-approval): `batch_` + 32 hex digits.
pub fn remainder_id(lineage: &str, generation: i64) -> String {
    derive(
        "batch_",
        "actionseal/batch-remainder/v1",
        vec![string(lineage), int(generation)],
    )
}

/// The approval id of a task's `round`-th request for a decision (1 for the first, one more
/// for each re-approval): `apr_` + 32 hex digits. Each round has its own id, so revoking one
/// approval never revokes the next.
pub fn approval_id(task_id: &str, round: i64) -> String {
    derive(
        "apr_",
        "actionseal/approval/v1",
        vec![string(task_id), int(round)],
    )
}
