//! The framework adapters' gate (`gateStep`) and their defaults (`gateDefaults`): what an
//! adapter does after each ledger step of a governed tool call, decided by core for every
//! runtime, so that `actionseal/adapters/*` is only framework glue.

use crate::host;
use crate::options;
use crate::run;
use crate::to_js;
use actionseal_core::ledger::{gate_defaults as core_defaults, gate_step as core_step};
use actionseal_core::Options;
use napi::bindgen_prelude::{Env, Unknown};
use napi::{JsValue, Result};
use napi_derive::napi;

/// What a framework adapter does after one ledger step of a governed tool call, as core decides it
/// for every runtime. The step is `{step: "propose", task, presented}`, `{step: "propose", tool,
/// error}`, `{step: "claim", outcome}`, `{step: "claim", task, error}`, `{step: "complete",
/// error}`, `{step: "invoke", tool}`, `{step: "invoke", tool, task}` (a tool without a contract
/// called for another tool's task), `{step: "resume", task}`, `{step: "route", tool, unknown:
/// "tool" | "task" | "job"}`, `{step: "route", tool, error}` (an upstream schema outside core's
/// subset), `{step: "elicit", task, url}` (an MCP gateway's approval request), `{step: "ran",
/// body: "returned" | "reported_error" | "raised"}`, `{step: "turn", calls: [{action,
/// contract}]}` (a model turn's governed calls, frozen, with their contracts' documents) or
/// `{step: "turn", error}` (`propose_batch` failed); a `propose` or `claim` step with a task may
/// carry the ledger's `batch` of an item (`error`: the code, path and message of the error
/// caught). It returns `{decision: "claim" | "run" | "pause" | "refuse" | "raise" | "keep" |
/// "approve" | "wait" | "elicit" | "record" | "turn" | "alone", ...}`; a refusal's `message` is
/// the exact text the model reads. A malformed step raises `invalid_request`.
///
/// Each decision's members: `'claim'` (`action`, `unit`: `'task'` or `'item'`, an item of a decided
/// batch, claimed with `claimItem`), `'run'` (`claim`, `args`, `unit`: complete an item with
/// `completeItem`), `'turn'` (`batches`: `[{calls, batch_id, batch_digest, semantics}]`, each to
/// propose with `proposeBatch`), `'alone'` (propose the batch's calls one by one), `'pause'`
/// (`task_id`, `request`, `refusal`, `message`), `'refuse'` (`code`, `refusal`, `message`,
/// `bad_args`, and `replay`: the recorded answer to return for a finished call sent again),
/// `'raise'` (rethrow the error caught), `'keep'` (a late completion: keep the answer),
/// `'approve'` (`args`: the amended ones or null), `'wait'`, `'elicit'` (`task_id`, `url`,
/// `message`: what the person reads) or `'record'` (`outcome`).
///
/// @example
/// gateStep({ step: 'complete', error: { code: 'lease_expired', path: '', message: '...' } })
/// // { decision: 'keep' }
#[napi(
    ts_args_type = "step: { step: 'propose' | 'claim' | 'complete' | 'invoke' | 'resume' | 'route' | 'ran' | 'elicit' | 'turn', [member: string]: unknown }",
    ts_return_type = "{ decision: 'claim' | 'run' | 'pause' | 'refuse' | 'raise' | 'keep' | 'approve' | 'wait' | 'elicit' | 'record' | 'turn' | 'alone', [member: string]: any }"
)]
pub fn gate_step(
    env: Env,
    step: Unknown<'_>,
    options: Option<Unknown<'_>>,
) -> Result<Unknown<'static>> {
    run(&env, |js| {
        options::none(js, options.map(|o| o.raw()))?;
        host::with_values(
            js,
            [step.raw()],
            &Options::default(),
            None,
            None,
            |[v], _| to_js::value(js, &core_step(v)?.to_value()),
        )?
    })
}

/// A framework adapter's defaults when the application names none, the same in every runtime:
/// `{lease_ms, executor, proposer}` (a claim's lease in ms, who claims and completes, who
/// proposes).
///
/// `{ lease_ms, executor, proposer }`: what a framework adapter uses when the application names
/// none (a claim's lease in ms, who claims and completes, who proposes), the same in every
/// runtime.
#[napi(ts_return_type = "{ lease_ms: number, executor: string, proposer: string }")]
pub fn gate_defaults(env: Env) -> Result<Unknown<'static>> {
    run(&env, |js| to_js::value(js, &core_defaults()))
}
