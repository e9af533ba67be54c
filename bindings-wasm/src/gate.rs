//! The framework adapters' gate (`gateStep`) and their defaults (`gateDefaults`), as in the Node
//! package: what an adapter does after each ledger step of a governed tool call, decided by
//! core for every runtime.

use crate::host::{self, Fail};
use crate::{to_js, NoOptions};
use actionseal_core::ledger::{gate_defaults as core_defaults, gate_step as core_step};
use actionseal_core::Options;
use wasm_bindgen::prelude::*;

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
#[wasm_bindgen(
    js_name = gateStep,
    unchecked_return_type = "{ decision: 'claim' | 'run' | 'pause' | 'refuse' | 'raise' | 'keep' | 'approve' | 'wait' | 'elicit' | 'record' | 'turn' | 'alone', [member: string]: any }"
)]
pub fn gate_step(
    #[wasm_bindgen(
        unchecked_param_type = "{ step: 'propose' | 'claim' | 'complete' | 'invoke' | 'resume' | 'route' | 'ran' | 'elicit' | 'turn', [member: string]: unknown }"
    )]
    step: JsValue,
    options: Option<NoOptions>,
) -> Result<JsValue, JsValue> {
    crate::no_options(options)?;
    let decided = host::convert(&[&step], &Options::default(), None, |v, _| match v {
        [v] => core_step(v).map(|g| g.to_value()).map_err(Fail::Core),
        _ => Err(Fail::Js(host::internal("value count"))),
    })??;
    to_js::value(&decided)
}

/// A framework adapter's defaults when the application names none, the same in every runtime:
/// `{lease_ms, executor, proposer}` (a claim's lease in ms, who claims and completes, who
/// proposes).
#[wasm_bindgen(
    js_name = gateDefaults,
    unchecked_return_type = "{ lease_ms: number, executor: string, proposer: string }"
)]
pub fn gate_defaults() -> Result<JsValue, JsValue> {
    to_js::value(&core_defaults())
}
