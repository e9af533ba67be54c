//! Evidence bundles (`verifyEvidence`): core reads the bundle and the trust, checks every
//! proof and decides every code (`actionseal_core::evidence`).

use crate::host;
use crate::run;
use crate::to_js;
use actionseal_core::{evidence, Options};
use napi::bindgen_prelude::{Env, Unknown};
use napi::{JsValue, Result};
use napi_derive::napi;

/// Verifies an evidence bundle without any database: the verified timeline, or raises the first failure with its code and the JSON Pointer of the member that broke.
///
/// `bundle` is what `Ledger.evidence` (or `actionseal ledger evidence export`) wrote; `trust`
/// is the verifier's own (`{ ledger_keys, witnesses?, tsa_roots?, approval_keys? }`). Throws
/// `ActionsealError` (`invalid_evidence`, `inclusion_proof_invalid`, `checkpoint_untrusted`,
/// `evidence_incomplete`, `evidence_mismatch`, `evidence_other_task`, a timestamp's or a
/// proof's own code, ...).
#[napi(
    ts_args_type = "bundle: EvidenceBundle, trust: EvidenceTrust",
    ts_return_type = "EvidenceTimeline"
)]
pub fn verify_evidence(
    env: Env,
    bundle: Unknown<'_>,
    trust: Unknown<'_>,
) -> Result<Unknown<'static>> {
    run(&env, |js| {
        let values = [bundle.raw(), trust.raw()];
        let timeline = host::with_values(js, values, &Options::default(), None, None, |v, _| {
            let [b, t] = v;
            evidence::verify_evidence(b, t).map(|t| t.to_value())
        })??;
        to_js::value(js, &timeline)
    })
}
