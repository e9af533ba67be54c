//! Evidence bundles (`verifyEvidence`): core reads the bundle and the trust, checks every
//! proof and decides every code (`actionseal_core::evidence`).

use crate::host::{self, Fail};
use crate::to_js;
use actionseal_core::{evidence, Options};
use wasm_bindgen::prelude::*;

/// Verifies an evidence bundle without any database: the verified timeline, or raises the first failure with its code and the JSON Pointer of the member that broke.
///
/// `bundle` is what `Ledger.evidence` (or `actionseal ledger evidence export`) wrote; `trust`
/// is the verifier's own (`{ ledger_keys, witnesses?, tsa_roots?, approval_keys? }`). Throws
/// `ActionsealError` (`invalid_evidence`, `inclusion_proof_invalid`, `checkpoint_untrusted`,
/// `evidence_incomplete`, `evidence_mismatch`, `evidence_other_task`, a timestamp's or a
/// proof's own code, ...).
#[wasm_bindgen(js_name = verifyEvidence, unchecked_return_type = "EvidenceTimeline")]
pub fn verify_evidence(
    #[wasm_bindgen(unchecked_param_type = "EvidenceBundle")] bundle: JsValue,
    #[wasm_bindgen(unchecked_param_type = "EvidenceTrust")] trust: JsValue,
) -> Result<JsValue, JsValue> {
    let values = [&bundle, &trust];
    let timeline = host::convert(&values, &Options::default(), None, |v, _| {
        evidence::verify_evidence(&v[0], &v[1])
            .map(|t| t.to_value())
            .map_err(Fail::Core)
    })??;
    to_js::value(&timeline)
}
