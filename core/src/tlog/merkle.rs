//! RFC 9162 §2.1 Merkle trees: hashes, inclusion proofs and consistency proofs.
//!
//! A leaf's hash is SHA-256(0x00 || data) and an interior node's SHA-256(0x01 || left ||
//! right), so that no leaf can pose as a node (§2.1.1). A tree of `n` leaves splits at the
//! largest power of two below `n`; the proofs are §2.1.3 (inclusion) and §2.1.4 (consistency),
//! each at most one hash per level, so they grow with the logarithm of the tree's size.
//!
//! A store keeps the tree as its *perfect subtrees*: node (level, index) is the root over the
//! leaves `[index << level, (index + 1) << level)`, written once when its last leaf arrives
//! ([`append`]) and never changed. Every subtree a proof names starts on a boundary of its own
//! size's next power of two, so it is a perfect node or splits into one perfect node and a
//! smaller such subtree: a proof reads at most one node per level for each hash it holds.

use crate::error::{Code, Error, Result};
use crate::json::digest::compressed;
use sha2::{Digest as _, Sha256};
use std::collections::BTreeMap;

/// A SHA-256 hash of a leaf or a subtree.
pub type Hash = [u8; 32];

/// The largest a proof can be: one hash per level of a tree of up to 2^64 leaves.
const MAX_PROOF: usize = 64;

/// The hash of a leaf holding `data` (RFC 9162 §2.1.1).
pub fn leaf_hash(data: &[u8]) -> Hash {
    // 0x00 || data fits one padded block up to 55 bytes: a batch's leaf is a 32-byte
    // fingerprint, hashed on every item's check.
    if data.len() < 55 {
        let mut block = [0u8; 64];
        block[1..=data.len()].copy_from_slice(data);
        block[data.len() + 1] = 0x80;
        block[56..].copy_from_slice(&((data.len() as u64 + 1) * 8).to_be_bytes());
        return compressed(&[block]);
    }
    let mut h = Sha256::new();
    h.update([0u8]);
    h.update(data);
    h.finalize().into()
}

/// The hash of an interior node over its two children. Its message, 0x01 || left || right,
/// is always 65 bytes: two blocks padded here once (FIPS 180-4 §5.1.1) and compressed
/// directly, without the streaming hasher's buffering (a batch item's check hashes ten).
pub fn node_hash(left: &Hash, right: &Hash) -> Hash {
    let mut blocks = [[0u8; 64]; 2];
    blocks[0][0] = 1;
    blocks[0][1..33].copy_from_slice(left);
    blocks[0][33..].copy_from_slice(&right[..31]);
    blocks[1][0] = right[31];
    blocks[1][1] = 0x80;
    blocks[1][56..].copy_from_slice(&(65u64 * 8).to_be_bytes());
    compressed(&blocks)
}

/// The root of the empty tree: SHA-256 of nothing.
pub fn empty_root() -> Hash {
    Sha256::digest([]).into()
}

/// Reads a tree's perfect subtrees: `node(level, index)` is the root over the leaves
/// `[index << level, (index + 1) << level)` (level 0: the leaves' own hashes).
pub trait Nodes {
    /// The perfect subtree's hash; an error when the store does not hold it.
    fn node(&mut self, level: u32, index: u64) -> Result<Hash>;
}

/// The largest power of two below `n` (`n` ≥ 2): where a tree of `n` leaves splits.
fn split(n: u64) -> u64 {
    1 << (63 - (n - 1).leading_zeros())
}

/// The root over the leaves `[start, end)` (non-empty), a subtree as the proofs name them.
fn subtree(nodes: &mut impl Nodes, start: u64, end: u64) -> Result<Hash> {
    let n = end - start;
    if n.is_power_of_two() && start.is_multiple_of(n) {
        return nodes.node(n.trailing_zeros(), start >> n.trailing_zeros());
    }
    let k = split(n);
    let left = subtree(nodes, start, start + k)?;
    let right = subtree(nodes, start + k, end)?;
    Ok(node_hash(&left, &right))
}

/// The root of the tree of the first `size` leaves.
pub fn root_at(nodes: &mut impl Nodes, size: u64) -> Result<Hash> {
    match size {
        0 => Ok(empty_root()),
        _ => subtree(nodes, 0, size),
    }
}

/// The inclusion proof of leaf `index` in the tree of the first `size` leaves (RFC 9162
/// §2.1.3.1), from the leaf's sibling up.
pub fn inclusion_proof(nodes: &mut impl Nodes, index: u64, size: u64) -> Result<Vec<Hash>> {
    if index >= size {
        return Err(Error::new(
            Code::InclusionProofInvalid,
            format!("leaf {index} is not in a tree of {size} leaves"),
        ));
    }
    // Walk down from the root, noting each sibling; the proof lists them leaf first.
    let (mut start, mut end, mut at) = (0, size, index);
    let mut path = Vec::new();
    while end - start > 1 {
        let k = split(end - start);
        if at < k {
            path.push(subtree(nodes, start + k, end)?);
            end = start + k;
        } else {
            path.push(subtree(nodes, start, start + k)?);
            start += k;
            at -= k;
        }
    }
    path.reverse();
    Ok(path)
}

/// The consistency proof between the trees of the first `old` and the first `new` leaves
/// (RFC 9162 §2.1.4.1); empty when `old` is 0 or equals `new`.
pub fn consistency_proof(nodes: &mut impl Nodes, old: u64, new: u64) -> Result<Vec<Hash>> {
    if old > new {
        return Err(Error::new(
            Code::ConsistencyProofInvalid,
            format!("a tree of {old} leaves cannot precede one of {new}"),
        ));
    }
    if old == 0 || old == new {
        return Ok(Vec::new());
    }
    // SUBPROOF(m, D[start:end], whole) walked down iteratively; `whole` stays true while the
    // old tree is the left edge of the subtree, where the verifier knows its root already.
    let (mut start, mut end, mut m, mut whole) = (0, new, old, true);
    let mut path = Vec::new();
    loop {
        let n = end - start;
        if m == n {
            if !whole {
                path.push(subtree(nodes, start, end)?);
            }
            break;
        }
        let k = split(n);
        if m <= k {
            path.push(subtree(nodes, start + k, end)?);
            end = start + k;
        } else {
            path.push(subtree(nodes, start, start + k)?);
            start += k;
            m -= k;
            whole = false;
        }
    }
    path.reverse();
    Ok(path)
}

/// The perfect nodes that appending `leaves` (leaf hashes) to a tree of `size` leaves
/// completes, as (level, index, hash), the leaves themselves (level 0) included, in the order
/// they complete. Earlier nodes a new one needs are read through `nodes`.
pub fn append(nodes: &mut impl Nodes, size: u64, leaves: &[Hash]) -> Result<Vec<(u32, u64, Hash)>> {
    let mut made: Vec<(u32, u64, Hash)> = Vec::with_capacity(leaves.len() * 2);
    // The nodes made here that a later one may still need as its left child: at most one per
    // level is waiting at any time.
    let mut waiting: BTreeMap<u32, (u64, Hash)> = BTreeMap::new();
    for (i, leaf) in leaves.iter().enumerate() {
        let (mut level, mut index, mut hash) = (0u32, size + i as u64, *leaf);
        loop {
            made.push((level, index, hash));
            if index % 2 == 0 {
                waiting.insert(level, (index, hash));
                break;
            }
            let left = match waiting.remove(&level) {
                Some((at, h)) if at == index - 1 => h,
                _ => nodes.node(level, index - 1)?,
            };
            hash = node_hash(&left, &hash);
            level += 1;
            index /= 2;
        }
    }
    Ok(made)
}

/// Checks that `leaf` (a leaf hash) is leaf `index` of the tree of `size` leaves whose root is
/// `root`, by `proof` (RFC 9162 §2.1.3.2); [`Code::InclusionProofInvalid`] otherwise.
pub fn verify_inclusion(
    leaf: &Hash,
    index: u64,
    size: u64,
    proof: &[Hash],
    root: &Hash,
) -> Result<()> {
    let bad = |why: &str| {
        Err(Error::new(
            Code::InclusionProofInvalid,
            format!("leaf {index} of {size}: {why}"),
        ))
    };
    if index >= size {
        return bad("the index is not below the tree's size");
    }
    if proof.len() > MAX_PROOF {
        return bad("the proof is longer than any tree's height");
    }
    let (mut f, mut s) = (index, size - 1);
    let mut r = *leaf;
    for p in proof {
        if s == 0 {
            return bad("the proof is longer than the leaf's path");
        }
        if f % 2 == 1 || f == s {
            r = node_hash(p, &r);
            if f % 2 == 0 {
                // The leaf's subtree is the last and has no right sibling on these levels.
                while f % 2 == 0 && f != 0 {
                    f >>= 1;
                    s >>= 1;
                }
            }
        } else {
            r = node_hash(&r, p);
        }
        f >>= 1;
        s >>= 1;
    }
    if s != 0 {
        return bad("the proof is shorter than the leaf's path");
    }
    if r != *root {
        return bad("the proof does not lead to the root");
    }
    Ok(())
}

/// Checks that the tree of `old` leaves with root `old_root` is a prefix of the tree of `new`
/// leaves with root `new_root`, by `proof` (RFC 9162 §2.1.4.2); an empty old tree precedes
/// every tree, and equal sizes need equal roots and an empty proof.
/// [`Code::ConsistencyProofInvalid`] otherwise.
pub fn verify_consistency(
    old: u64,
    new: u64,
    proof: &[Hash],
    old_root: &Hash,
    new_root: &Hash,
) -> Result<()> {
    let bad = |why: &str| {
        Err(Error::new(
            Code::ConsistencyProofInvalid,
            format!("from {old} to {new} leaves: {why}"),
        ))
    };
    if old > new {
        return bad("the old tree is larger than the new one");
    }
    if proof.len() > MAX_PROOF {
        return bad("the proof is longer than any tree's height");
    }
    if old == 0 || old == new {
        if !proof.is_empty() {
            return bad("the proof must be empty");
        }
        if old == new && old_root != new_root {
            return bad("the same size has two roots");
        }
        return Ok(());
    }
    let Some((first, rest)) = proof.split_first() else {
        return bad("the proof is empty");
    };
    // When the old tree is a perfect subtree, its root starts both computations.
    let (start, rest) = if old.is_power_of_two() {
        (old_root, proof)
    } else {
        (first, rest)
    };
    let (mut f, mut s) = (old - 1, new - 1);
    while f % 2 == 1 {
        f >>= 1;
        s >>= 1;
    }
    let (mut fr, mut sr) = (*start, *start);
    for c in rest {
        if s == 0 {
            return bad("the proof is longer than the trees' paths");
        }
        if f % 2 == 1 || f == s {
            fr = node_hash(c, &fr);
            sr = node_hash(c, &sr);
            if f % 2 == 0 {
                while f % 2 == 0 && f != 0 {
                    f >>= 1;
                    s >>= 1;
                }
            }
        } else {
            sr = node_hash(&sr, c);
        }
        f >>= 1;
        s >>= 1;
    }
    if s != 0 {
        return bad("the proof is shorter than the trees' paths");
    }
    if fr != *old_root {
        return bad("the proof does not lead to the old root");
    }
    if sr != *new_root {
        return bad("the proof does not lead to the new root");
    }
    Ok(())
}

/// A tree held in memory, level by level: for tests, for a verifier that rebuilds a tree from
/// its leaves, and for a log small enough to keep whole.
#[derive(Clone, Debug, Default)]
pub struct MemoryTree {
    levels: Vec<Vec<Hash>>,
}

impl MemoryTree {
    /// An empty tree.
    pub fn new() -> MemoryTree {
        MemoryTree::default()
    }

    /// How many leaves it holds.
    pub fn size(&self) -> u64 {
        self.levels.first().map_or(0, |l| l.len() as u64)
    }

    /// Appends a leaf hash, and each perfect node it completes.
    pub fn push(&mut self, leaf: Hash) {
        let (mut level, mut hash) = (0, leaf);
        loop {
            if self.levels.len() == level {
                self.levels.push(Vec::new());
            }
            let row = &mut self.levels[level];
            row.push(hash);
            if row.len() % 2 == 1 {
                break;
            }
            let [.., left, right] = row.as_slice() else {
                break;
            };
            hash = node_hash(left, right);
            level += 1;
        }
    }

    /// The root of the whole tree.
    pub fn root(&mut self) -> Hash {
        let size = self.size();
        // It holds every perfect node of its own size, so the root cannot be missing.
        root_at(self, size).unwrap_or_else(|_| empty_root())
    }
}

impl Nodes for MemoryTree {
    fn node(&mut self, level: u32, index: u64) -> Result<Hash> {
        (&*self).node(level, index)
    }
}

/// A tree held in memory is read without changing it: proofs need only a shared borrow.
impl Nodes for &MemoryTree {
    fn node(&mut self, level: u32, index: u64) -> Result<Hash> {
        self.levels
            .get(level as usize)
            .and_then(|l| l.get(usize::try_from(index).ok()?))
            .copied()
            .ok_or_else(|| {
                Error::new(
                    Code::InclusionProofInvalid,
                    format!("the tree has no node at level {level}, index {index}"),
                )
            })
    }
}

#[cfg(test)]
mod tests;
