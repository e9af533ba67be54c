//! What a task under a quorum (issue 25) keeps and is judged by: its contract, kept on the
//! task when the approval needs a quorum or a separation of duties.

use crate::json::canon;
use actionseal_core::Contract;

/// The contract's document to keep on a task, when its approval needs a quorum or a
/// separation of duties (`None` otherwise: the task's decisions are judged as they always were).
pub(crate) fn kept_contract(contract: &Contract) -> Option<String> {
    let doc = contract.document();
    let approval = doc.as_object()?.get("approval")?;
    let o = approval.as_object()?;
    (o.get("quorum").is_some() || o.get("separation").is_some()).then(|| canon(doc))
}
