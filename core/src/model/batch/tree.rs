//! A batch's items, its frozen header and the inclusion proof of each item.
//!
//! The header is `{"contract", "tenant", "semantics", "size", "root"}`: the contract every
//! item is under, their tenant, the [`Semantics`], how many items, and `root`, the RFC 9162
//! Merkle tree hash (§2.1.1) over the items in order, each leaf the 32 bytes of one item's
//! fingerprint, written in standard base64 as a checkpoint's root is. The batch's
//! fingerprint, which a decision binds, is the header's. An item's inclusion proof is
//! `{"index", "path"}`, the §2.1.3 audit path as base64 hashes: at most one per level, so
//! an item is verified against a decision of 1,000 items with ten hashes.

use super::caps::Totals;
use super::{Policy, Semantics};
use crate::error::{Code, Error, Result};
use crate::json::digest::Digest;
use crate::json::value::{OwnedValue, Value};
use crate::model::action::Action;
use crate::model::contract::Contract;
use crate::model::fields::Fields;
use crate::model::ledger::task_id;
use crate::model::ledger::values::{int, object, string};
use crate::tlog::hashes;
use crate::tlog::merkle::{inclusion_proof, leaf_hash, verify_inclusion, Hash, MemoryTree};
use std::collections::HashSet;

/// A batch header as read: what a decision over the batch froze.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// The fingerprint of the contract every item is under.
    pub contract: Digest,
    /// The tenant every item is in.
    pub tenant: String,
    /// How the items stand together.
    pub semantics: Semantics,
    /// How many items.
    pub size: u64,
    /// The Merkle tree hash over the items' fingerprints.
    pub root: Hash,
}

const HEADER_FIELDS: [&str; 5] = ["contract", "root", "semantics", "size", "tenant"];

impl Header {
    /// Reads a header; problems are [`Code::InvalidBatch`] at the field.
    pub fn from_value(v: &Value<'_>) -> Result<Header> {
        let f = Fields::new(v, Code::InvalidBatch, "batch header", &HEADER_FIELDS)?;
        let semantics = Semantics::parse(f.string("semantics")?)
            .map_err(|e| e.with_code(Code::InvalidBatch).in_key("semantics"))?;
        Ok(Header {
            contract: f.digest("contract")?,
            tenant: f.identity("tenant")?.to_owned(),
            semantics,
            size: f.integer("size", 1)? as u64,
            root: hashes::read(f.required("root")?, Code::InvalidBatch)
                .map_err(|e| e.in_key("root"))?,
        })
    }

    /// The header as JSON.
    pub fn to_value(&self) -> OwnedValue {
        object(vec![
            ("contract", string(&self.contract.to_string())),
            ("root", hashes::write(&self.root)),
            ("semantics", string(self.semantics.as_str())),
            ("size", int(self.size as i64)),
            ("tenant", string(&self.tenant)),
        ])
    }
}

/// An item's inclusion proof: where it is in the batch, and the audit path to the root.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ItemProof {
    /// The item's position, from 0.
    pub index: u64,
    /// The §2.1.3 audit path, leaf side first.
    pub path: Vec<Hash>,
}

impl ItemProof {
    /// Reads `{"index", "path"}`; problems are [`Code::InvalidBatch`].
    pub fn from_value(v: &Value<'_>) -> Result<ItemProof> {
        let f = Fields::new(v, Code::InvalidBatch, "inclusion proof", &["index", "path"])?;
        Ok(ItemProof {
            index: f.integer("index", 0)? as u64,
            path: hashes::read_list(f.required("path")?, Code::InvalidBatch)
                .map_err(|e| e.in_key("path"))?,
        })
    }

    /// The proof as JSON.
    pub fn to_value(&self) -> OwnedValue {
        object(vec![
            ("index", int(self.index as i64)),
            ("path", hashes::write_list(&self.path)),
        ])
    }
}

/// An item as its executor holds it: `{"action": <its frozen action>, "proof": <its
/// inclusion proof>}`.
#[derive(Clone, Debug)]
pub struct Item {
    action: OwnedValue,
    proof: ItemProof,
}

impl Item {
    /// Reads an item; problems are [`Code::InvalidBatch`], and an action that is no action
    /// envelope is [`Code::InvalidAction`] under `/action`.
    pub fn from_value(v: &Value<'_>) -> Result<Item> {
        let (action, proof) = item_parts(v)?;
        Ok(Item {
            action: action.clone().into_owned(),
            proof,
        })
    }

    /// The item's frozen action.
    pub fn action(&self) -> &OwnedValue {
        &self.action
    }

    /// Its inclusion proof.
    pub fn proof(&self) -> &ItemProof {
        &self.proof
    }
}

/// An item's frozen action, borrowed, and its inclusion proof, as [`Item::from_value`] reads
/// them.
pub(crate) fn item_parts<'v, 'a>(v: &'v Value<'a>) -> Result<(&'v Value<'a>, ItemProof)> {
    let f = Fields::new(v, Code::InvalidBatch, "batch item", &["action", "proof"])?;
    let action = f.required("action")?;
    crate::model::action::check_shape(action).map_err(|e| e.in_key("action"))?;
    let proof = ItemProof::from_value(f.required("proof")?).map_err(|e| e.in_key("proof"))?;
    Ok((action, proof))
}

/// The leaf an item's fingerprint is in the batch's tree.
pub fn leaf(item: &Digest) -> Hash {
    leaf_hash(item.as_bytes())
}

/// Checks that `item` (an action) is item `proof.index` of the batch `header` describes:
/// under the batch's contract and tenant, with a path that leads to its root. Returns the
/// item's fingerprint; [`Code::NotInBatch`] otherwise.
pub fn verify_item(header: &Header, item: &Value<'_>, proof: &ItemProof) -> Result<Digest> {
    let digest = crate::fingerprint(item);
    verify_known(header, item, &digest, proof)?;
    Ok(digest)
}

/// [`verify_item`] of an item whose fingerprint is `digest`.
pub(crate) fn verify_known(
    header: &Header,
    item: &Value<'_>,
    digest: &Digest,
    proof: &ItemProof,
) -> Result<()> {
    let field = |key| {
        item.as_object()
            .and_then(|o| o.get(key))
            .and_then(Value::as_str)
    };
    let not_in = |why: String| Error::new(Code::NotInBatch, why);
    if field("contract") != Some(header.contract.text().as_str()) {
        return Err(not_in(
            "the item is under another contract than the batch".into(),
        ));
    }
    if field("tenant") != Some(header.tenant.as_str()) {
        return Err(not_in(
            "the item is in another tenant than the batch".into(),
        ));
    }
    verify_inclusion(
        &leaf(digest),
        proof.index,
        header.size,
        &proof.path,
        &header.root,
    )
    .map_err(|e| not_in(format!("the item's inclusion proof fails: {}", e.message())))
}

/// A batch built from its actions: checked against its contract, with its tree.
#[derive(Clone, Debug)]
pub struct Batch {
    header: Header,
    header_value: OwnedValue,
    digest: Digest,
    actions: Vec<OwnedValue>,
    items: Vec<Digest>,
    tree: MemoryTree,
    totals: Totals,
    policy: Policy,
}

impl Batch {
    /// Builds a batch of `actions` (in the order given) under `contract`, whose `batch`
    /// member must allow it: every item a valid action under the contract, in one tenant,
    /// each task identity (tenant, job, request) once, at most `max_items` of them, and the
    /// whole within the caps. `server` narrows the contract's policy.
    pub fn build(
        contract: &Contract,
        semantics: Semantics,
        actions: &[Value<'_>],
        server: Option<&Policy>,
    ) -> Result<Batch> {
        let policy = super::policy_of(contract, server)?;
        if actions.is_empty() {
            return Err(Error::new(
                Code::InvalidBatch,
                "a batch has at least one item",
            ));
        }
        if actions.len() as u64 > policy.max_items {
            return Err(Error::new(
                Code::BatchTooLarge,
                format!(
                    "{} items, and the contract lets one decision cover at most {}",
                    actions.len(),
                    policy.max_items
                ),
            ));
        }
        let mut tenant: Option<String> = None;
        let mut seen = HashSet::with_capacity(actions.len());
        let mut owned = Vec::with_capacity(actions.len());
        let mut items = Vec::with_capacity(actions.len());
        let mut totals = Totals::default();
        for (i, v) in actions.iter().enumerate() {
            let at = |e: Error| e.in_index(i);
            contract.validate_action(v).map_err(at)?;
            let action = Action::from_value(v).map_err(at)?;
            let field = |key| {
                v.as_object()
                    .and_then(|o| o.get(key))
                    .and_then(Value::as_str)
            };
            let (t, job, request) = (
                field("tenant").unwrap_or_default(),
                field("job_id").unwrap_or_default(),
                field("request_id").unwrap_or_default(),
            );
            match &tenant {
                None => tenant = Some(t.to_owned()),
                Some(first) if first != t => {
                    return Err(at(Error::new(
                        Code::InvalidBatch,
                        "every item of a batch is in one tenant",
                    )
                    .in_key("tenant")))
                }
                Some(_) => {}
            }
            if !seen.insert(task_id(t, job, request)) {
                return Err(at(Error::new(
                    Code::InvalidBatch,
                    "two items have the same task identity (tenant, job_id, request_id)",
                )));
            }
            totals = policy.caps.admit(&totals, v).map_err(at)?;
            items.push(action.digest());
            owned.push(v.clone().into_owned());
        }
        let tenant = tenant.unwrap_or_default();
        Ok(Batch::assemble(
            contract.digest(),
            tenant,
            semantics,
            owned,
            items,
            totals,
            policy,
        ))
    }

    fn assemble(
        contract: Digest,
        tenant: String,
        semantics: Semantics,
        actions: Vec<OwnedValue>,
        items: Vec<Digest>,
        totals: Totals,
        policy: Policy,
    ) -> Batch {
        let mut tree = MemoryTree::new();
        for item in &items {
            tree.push(leaf(item));
        }
        let header = Header {
            contract,
            tenant,
            semantics,
            size: items.len() as u64,
            root: tree.root(),
        };
        let header_value = header.to_value();
        let digest = crate::fingerprint(&header_value);
        Batch {
            header,
            header_value,
            digest,
            actions,
            items,
            tree,
            totals,
            policy,
        }
    }

    /// The batch without the items at `indices` (a reviewer's deselection), in the same
    /// order: another batch, with another fingerprint. Deselecting no item, an item twice,
    /// an index past the end or every item is [`Code::InvalidBatch`].
    pub fn deselect(&self, indices: &[u64]) -> Result<Batch> {
        let mut drop = vec![false; self.items.len()];
        for (i, &index) in indices.iter().enumerate() {
            // An index past usize (wasm's is 32 bits) is past the end, never wrapped onto another.
            match usize::try_from(index).ok().and_then(|i| drop.get_mut(i)) {
                Some(d) if !*d => *d = true,
                Some(_) => {
                    return Err(
                        Error::new(Code::InvalidBatch, "an item is deselected twice").in_index(i),
                    )
                }
                None => {
                    return Err(Error::new(
                        Code::InvalidBatch,
                        format!("the batch has no item {index}"),
                    )
                    .in_index(i))
                }
            }
        }
        if indices.is_empty() || indices.len() == self.items.len() {
            return Err(Error::new(
                Code::InvalidBatch,
                "a deselection leaves out at least one item and keeps at least one (to decide \
                 on none, reject the batch)",
            ));
        }
        let mut totals = Totals::default();
        let (mut actions, mut items) = (Vec::new(), Vec::new());
        for (i, keep) in drop.iter().map(|d| !d).enumerate() {
            if keep {
                totals = self.policy.caps.admit(&totals, &self.actions[i])?;
                actions.push(self.actions[i].clone());
                items.push(self.items[i]);
            }
        }
        Ok(Batch::assemble(
            self.header.contract,
            self.header.tenant.clone(),
            self.header.semantics,
            actions,
            items,
            totals,
            self.policy.clone(),
        ))
    }

    /// The header, read.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The header as JSON: the document a decision over the batch freezes.
    pub fn header_value(&self) -> &OwnedValue {
        &self.header_value
    }

    /// The batch's fingerprint: its header's.
    pub fn digest(&self) -> Digest {
        self.digest
    }

    /// The items' actions, in order.
    pub fn actions(&self) -> &[OwnedValue] {
        &self.actions
    }

    /// The items' fingerprints, in order.
    pub fn item_digests(&self) -> &[Digest] {
        &self.items
    }

    /// The totals of the whole batch under its caps.
    pub fn totals(&self) -> &Totals {
        &self.totals
    }

    /// The policy the batch was built under (the contract's, narrowed by the server's).
    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// Item `index`'s inclusion proof, or `None` past the end.
    pub fn proof(&self, index: u64) -> Option<ItemProof> {
        let path = inclusion_proof(&mut &self.tree, index, self.header.size).ok()?;
        Some(ItemProof { index, path })
    }

    /// `{"header", "batch_digest", "items": [{"index", "task_id", "action_digest", "proof"}],
    /// "totals", "caps"}`: everything a reviewer's page and an executor need of the batch
    /// besides the actions themselves.
    pub fn to_value(&self) -> OwnedValue {
        let items = self
            .actions
            .iter()
            .zip(&self.items)
            .enumerate()
            .map(|(i, (a, d))| {
                let field = |key| {
                    a.as_object()
                        .and_then(|o| o.get(key))
                        .and_then(Value::as_str)
                };
                let id = task_id(
                    field("tenant").unwrap_or_default(),
                    field("job_id").unwrap_or_default(),
                    field("request_id").unwrap_or_default(),
                );
                let proof = self.proof(i as u64).map_or(Value::Null, |p| p.to_value());
                object(vec![
                    ("action_digest", string(&d.to_string())),
                    ("index", int(i as i64)),
                    ("proof", proof),
                    ("task_id", string(&id)),
                ])
            })
            .collect();
        object(vec![
            ("batch_digest", string(&self.digest.to_string())),
            ("caps", self.policy.caps.to_value()),
            ("header", self.header_value.clone()),
            ("items", Value::Array(items)),
            ("totals", self.totals.summary(&self.policy.caps)),
        ])
    }
}
