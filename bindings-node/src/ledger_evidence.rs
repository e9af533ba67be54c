//! `Ledger.checkpoint` and `Ledger.evidence`, and the `log_key` option of `Ledger.open`: the
//! checkpoint signer is core's signer key string (`tlog::note::SignerKey`, as the CLI's
//! `--log-key` file holds it), the bundle is core's (`evidence::Bundle::to_value`). Both run
//! on libuv's pool like every other operation.

use crate::contract;
use crate::host;
use crate::js::{Handle, Js, JsResult};
use crate::ledger::{Job, Ledger, Op};
use crate::log_key::string;
use actionseal_core::{Error, Options, OwnedValue};
use actionseal_ledger::Ledger as CoreLedger;
use napi::bindgen_prelude::{AsyncTask, Env, Unknown};
use napi::sys::ValueType;
use napi::JsValue;
use napi_derive::napi;

/// An identity argument (`task_id`, `actor`): a string by core's identity rule.
fn identity(js: Js, arg: Handle, key: &str) -> JsResult<String> {
    host::with_value(js, arg, &Options::default(), |v, _| {
        let s = string(v, key)?;
        actionseal_core::ledger::check_identity(key, s).map_err(|e| e.in_key(key))?;
        Ok::<_, Error>(s.to_owned())
    })?
    .map_err(Into::into)
}

/// The `contract` argument: a `Contract`'s document, a contract document, or none.
fn contract_document(js: Js, arg: Option<Handle>) -> JsResult<Option<OwnedValue>> {
    let Some(arg) = arg else { return Ok(None) };
    if matches!(
        js.type_of(arg)?,
        ValueType::napi_undefined | ValueType::napi_null
    ) {
        return Ok(None);
    }
    let c = contract::contract_of(js, arg).map_err(|f| f.in_key("contract"))?;
    Ok(Some(c.document().clone().into_owned()))
}

#[napi]
impl Ledger {
    /// Sequences the events written since the last checkpoint into the Merkle log and signs the
    /// checkpoint with `log_key`.
    ///
    /// Sequences the events written since the last checkpoint into the ledger's Merkle log
    /// (RFC 9162) and resolves to the checkpoint signed with `options.log_key` (a C2SP signed
    /// note): `{ size, root, note, at, cosignatures }`, `root` in base64. Keep `note` outside
    /// the database or have witnesses cosign it. Without `log_key` it rejects.
    #[napi(ts_return_type = "Promise<LogCheckpoint>")]
    pub fn checkpoint(&self, env: Env) -> napi::Result<AsyncTask<Op>> {
        self.start_job(&env, |_| {
            let job: Job = Box::new(|l: &CoreLedger| l.checkpoint().and_then(|c| c.to_value()));
            Ok(job)
        })
    }

    /// The evidence bundle of a task as of a checkpoint made now, for `actor`: anyone verifies it
    /// without the database.
    ///
    /// Exports the evidence bundle of task `taskId`: records the export (an
    /// `evidence_exported` event by `actor`), makes a checkpoint signed with
    /// `options.log_key` and resolves to the bundle as of it (the task's events with their
    /// inclusion proofs, the documents they fingerprint, the contract, the checkpoint and the
    /// latest earlier one a witness cosigned). `contract` (a `Contract` or its document) is
    /// needed only for a task proposed before the ledger kept contracts. Write it with
    /// `canonicalize`; anyone verifies it with `verifyEvidence` and their own trust. Rejects
    /// with `task_not_found`, `evidence_mismatch` (another contract), ...
    #[napi(
        ts_args_type = "taskId: string, actor: string, contract?: Contract | ContractDocument | null",
        ts_return_type = "Promise<EvidenceBundle>"
    )]
    pub fn evidence(
        &self,
        env: Env,
        task_id: Unknown<'_>,
        actor: Unknown<'_>,
        contract: Option<Unknown<'_>>,
    ) -> napi::Result<AsyncTask<Op>> {
        self.start_job(&env, |js| {
            let task_id = identity(js, task_id.raw(), "task_id")?;
            let actor = identity(js, actor.raw(), "actor")?;
            let contract = contract_document(js, contract.map(|c| c.raw()))?;
            let job: Job = Box::new(move |l: &CoreLedger| {
                l.evidence(&task_id, &actor, contract.as_ref())
                    .map(|b| b.to_value())
            });
            Ok(job)
        })
    }
}
