//! The check of one item of a batch against the batch's decision (or a quorum's set of
//! them): the decision's proof is opened as for one action, then the item must be in the
//! batch the decision froze (its inclusion proof leads to the header's root), and from there
//! the item is checked exactly as an action approved on its own, against its frozen action.

use super::set::{decide_known, Presented, MAX_SET};
use super::{Context, Verdict};
use crate::batch::tree::{item_parts, verify_known};
use crate::batch::{Header, ItemProof, Semantics};
use crate::json::digest::Digest;
use crate::json::value::OwnedValue;
use crate::json::value::Value;
use crate::model::approval::{read_subject, Record, Subject};
use crate::model::batch::BreakerState;
use crate::model::ledger::values::{int, object, string};
use crate::model::proof::{self, Opened};
use crate::model::reason::{Outcome, Reason};
use crate::Result;

/// Checks a presented action, item `item` of a batch (`{"action": <its frozen action>,
/// "proof": <its inclusion proof>}`), against the batch's decision records and the trusted
/// context given as JSON. Only a malformed context is an error.
pub fn check_item(
    approvals: &[Value<'_>],
    item: &Value<'_>,
    action: &Value<'_>,
    context: &Value<'_>,
) -> Result<Verdict> {
    Ok(check_item_with(
        approvals,
        item,
        action,
        &Context::from_value(context)?,
    ))
}

/// [`check_item`] with a context already read. A malformed item is `not_in_batch`; a
/// context whose `breaker` is `open` adds `breaker_open`.
pub fn check_item_with(
    approvals: &[Value<'_>],
    item: &Value<'_>,
    action: &Value<'_>,
    ctx: &Context,
) -> Verdict {
    // As check_batch_with of one item, without its lists of verdicts and claimable items.
    let mut payloads: Vec<Vec<u8>> = approvals.iter().map(|_| Vec::new()).collect();
    let opened = open(approvals, &mut payloads, ctx);
    let decided: Option<Vec<_>> = opened
        .as_ref()
        .map(|o| o.iter().map(|o| decided(o, ctx)).collect());
    judged(decided.as_deref(), item, action, ctx).0
}

/// The check of several items of one batch against its decision records: each item's
/// verdict, and which items may be claimed under the batch's semantics.
#[derive(Clone, Debug)]
pub struct BatchVerdict {
    /// The semantics the decision froze, when a well-formed, sealed decision was presented.
    pub semantics: Option<Semantics>,
    /// One verdict per item, in the order given.
    pub verdicts: Vec<Verdict>,
    /// The items that may be claimed now (indices into the items given): under
    /// all-or-nothing every item or none, under per-item each permitted item.
    pub claimable: Vec<usize>,
}

impl BatchVerdict {
    /// `{"semantics", "claimable", "verdicts"}` ([`Verdict::to_value`] each).
    pub fn to_value(&self) -> OwnedValue {
        object(vec![
            (
                "claimable",
                Value::Array(self.claimable.iter().map(|i| int(*i as i64)).collect()),
            ),
            (
                "semantics",
                self.semantics.map_or(Value::Null, |s| string(s.as_str())),
            ),
            (
                "verdicts",
                Value::Array(self.verdicts.iter().map(Verdict::to_value).collect()),
            ),
        ])
    }
}

/// Checks each `(item, presented action)` pair against the batch's decision records (their
/// proofs opened, and each record read and sealed, once for all), as [`check_item_with`]
/// checks one.
pub fn check_batch_with(
    approvals: &[Value<'_>],
    items: &[(&Value<'_>, &Value<'_>)],
    ctx: &Context,
) -> BatchVerdict {
    let mut payloads: Vec<Vec<u8>> = approvals.iter().map(|_| Vec::new()).collect();
    let opened = open(approvals, &mut payloads, ctx);
    let decided: Option<Vec<_>> = opened
        .as_ref()
        .map(|o| o.iter().map(|o| decided(o, ctx)).collect());
    let semantics = decided.iter().flatten().find_map(|d| match d {
        Decided::Batch(b) => Some(b.1.semantics),
        _ => None,
    });
    // An item runs once: a later presentation of one (its frozen action's fingerprint, which
    // two items of a batch never share) is refused, and never claimable.
    let mut seen = std::collections::HashSet::with_capacity(items.len());
    let verdicts: Vec<Verdict> = items
        .iter()
        .map(|(item, action)| {
            let (mut verdict, frozen) = judged(decided.as_deref(), item, action, ctx);
            if frozen.is_some_and(|d| !seen.insert(d)) {
                with_reason(&mut verdict, Reason::ItemRepeated);
            }
            verdict
        })
        .collect();
    let permitted = |v: &Verdict| v.outcome == Outcome::Permit;
    let claimable = match semantics {
        None => Vec::new(),
        Some(Semantics::AllOrNothing) if !verdicts.iter().all(permitted) => Vec::new(),
        Some(_) => (0..verdicts.len())
            .filter(|i| permitted(&verdicts[*i]))
            .collect(),
    };
    BatchVerdict {
        semantics,
        verdicts,
        claimable,
    }
}

/// The decision records' proofs opened (their payloads in `payloads`, one per record);
/// `None` when there are more than a set may hold.
fn open<'v, 'a, 'p>(
    approvals: &'v [Value<'a>],
    payloads: &'p mut [Vec<u8>],
    ctx: &Context,
) -> Option<Vec<Opened<'v, 'a, 'p>>> {
    (approvals.len() <= MAX_SET).then(|| {
        approvals
            .iter()
            .zip(payloads.iter_mut())
            .map(|(a, payload)| proof::open(Some(a), ctx.proof(), ctx.now, payload))
            .collect()
    })
}

/// One item's verdict against the decisions read (`None`: too many to check), with its
/// frozen action's fingerprint when the item could be read.
fn judged(
    decided: Option<&[Decided<'_, '_>]>,
    item: &Value<'_>,
    action: &Value<'_>,
    ctx: &Context,
) -> (Verdict, Option<Digest>) {
    let (mut presented, known, frozen_digest) = match (item_parts(item), decided) {
        (_, None) => (vec![Presented::Invalid], None, None),
        (Err(_), Some(_)) => (vec![Presented::Refused(Reason::NotInBatch)], None, None),
        (Ok((frozen, proof)), Some(decided)) => {
            let digest = crate::fingerprint(frozen);
            let presented = decided
                .iter()
                .map(|d| present(d, frozen, &digest, &proof))
                .collect();
            // The item as frozen is usually the action presented: hashed once, and checked
            // as the frozen value itself, which the seal then finds the same without
            // comparing them again.
            let known = (frozen == action).then_some((frozen, digest));
            (presented, known, Some(digest))
        }
    };
    let (action, known) = match known {
        Some((frozen, digest)) => (frozen, Some(digest)),
        None => (action, None),
    };
    let mut verdict = decide_known(&mut presented, action, known, ctx);
    if ctx.breaker == Some(BreakerState::Open) {
        with_reason(&mut verdict, Reason::BreakerOpen);
    }
    (verdict, frozen_digest)
}

/// `verdict` with a reason of the batch added, in order, its outcome at least the reason's.
fn with_reason(verdict: &mut Verdict, reason: Reason) {
    verdict.reasons.push(reason);
    verdict.reasons.sort();
    verdict.outcome = verdict.outcome.max(reason.outcome());
}

/// A batch decision as opened and read, before any item is put to it.
enum Decided<'v, 'a> {
    /// Malformed, not sealed, or over the contract's batch size.
    Invalid,
    /// Its proof does not hold, for this reason.
    Refused(Reason),
    /// A sealed decision about the batch with this header.
    Batch(Box<(Record<'v, 'a>, Header)>),
}

/// Reads an opened decision: a well-formed batch record whose digest seals its header, of a
/// batch no larger than the contract in force lets one decision cover.
fn decided<'v>(o: &'v Opened<'_, '_, '_>, ctx: &Context) -> Decided<'v, 'v> {
    let v = match (o.refused(), o.record()) {
        (Some(reason), _) => return Decided::Refused(reason),
        (None, None) => return Decided::Invalid,
        (None, Some(v)) => v,
    };
    let Ok((r, Some(header))) = read_subject(v, Subject::Batch) else {
        return Decided::Invalid;
    };
    let allowed = match ctx.contract.as_ref() {
        None => true,
        Some(c) => c.batch().is_some_and(|p| header.size <= p.max_items),
    };
    if !allowed || !r.action_digest.ct_eq(&crate::fingerprint(r.frozen)) {
        return Decided::Invalid;
    }
    Decided::Batch(Box::new((r, header)))
}

/// The decision about the item `frozen` (whose fingerprint is `digest`) that `d` is, if the
/// item is in its batch: from here the item's frozen action is what was decided.
fn present<'v>(
    d: &Decided<'v, 'v>,
    frozen: &'v Value<'v>,
    digest: &Digest,
    proof: &ItemProof,
) -> Presented<'v, 'v> {
    match d {
        Decided::Invalid => Presented::Invalid,
        Decided::Refused(reason) => Presented::Refused(*reason),
        Decided::Batch(b) => match verify_known(&b.1, frozen, digest, proof) {
            Err(_) => Presented::Refused(Reason::NotInBatch),
            Ok(()) => Presented::Record(
                Record {
                    frozen,
                    action_digest: *digest,
                    ..b.0
                },
                None,
            ),
        },
    }
}

/// Checks items of one batch (`items`: an array of `{"action", "proof"}`) against the batch's
/// decision records, each presented as the same index of `actions`, under the trusted
/// context given as JSON; [`BatchVerdict::to_value`]. A malformed context, or `items` and
/// `actions` that are not arrays of one length, is an error.
pub fn check_batch(
    approvals: &[Value<'_>],
    items: &Value<'_>,
    actions: &Value<'_>,
    context: &Value<'_>,
) -> Result<BatchVerdict> {
    check_batch_values(approvals, items, actions, &Context::from_value(context)?)
}

/// [`check_batch`] with a context already read (a binding's, whose contract may be loaded):
/// `items` and `actions` arrays of one length, else [`crate::Code::InvalidRequest`].
pub fn check_batch_values(
    approvals: &[Value<'_>],
    items: &Value<'_>,
    actions: &Value<'_>,
    ctx: &Context,
) -> Result<BatchVerdict> {
    match (items, actions) {
        (Value::Array(items), Value::Array(actions)) if items.len() == actions.len() => {
            let pairs: Vec<_> = items.iter().zip(actions).collect();
            Ok(check_batch_with(approvals, &pairs, ctx))
        }
        _ => Err(crate::Error::new(
            crate::Code::InvalidRequest,
            "items and actions are arrays of one length",
        )),
    }
}
