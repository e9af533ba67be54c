//! The published RFC 6962 test vectors, and every proof of every tree up to 70 leaves held to
//! the RFC's recursive definitions, written here a second time as literally as the RFC states
//! them.

use super::*;

/// The reference suite's leaves (certificate-transparency's test data).
fn reference_leaves() -> Vec<Hash> {
    let hex = [
        "",
        "00",
        "10",
        "2021",
        "3031",
        "40414243",
        "5051525354555657",
        "606162636465666768696a6b6c6d6e6f",
    ];
    hex.iter().map(|h| leaf_hash(&unhex(h))).collect()
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

fn hex(h: &Hash) -> String {
    h.iter().map(|b| format!("{b:02x}")).collect()
}

fn tree(leaves: &[Hash]) -> MemoryTree {
    let mut t = MemoryTree::new();
    for l in leaves {
        t.push(*l);
    }
    t
}

#[test]
fn the_published_roots_and_inclusion_proofs() {
    let roots = [
        "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
        "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
        "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
        "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
        "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
        "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
        "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
    ];
    let leaves = reference_leaves();
    let mut t = tree(&leaves);
    assert_eq!(
        hex(&empty_root()),
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    );
    for (n, root) in roots.iter().enumerate() {
        assert_eq!(
            hex(&root_at(&mut t, n as u64 + 1).unwrap()),
            *root,
            "size {}",
            n + 1
        );
    }
    let path = |t: &mut MemoryTree, i| -> Vec<String> {
        inclusion_proof(t, i, 8).unwrap().iter().map(hex).collect()
    };
    assert_eq!(
        path(&mut t, 0),
        [
            "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
        ]
    );
    assert_eq!(
        path(&mut t, 5),
        [
            "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
            "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
        ]
    );
}

/// MTH(D[n]) as RFC 9162 §2.1.1 defines it.
fn mth(d: &[Hash]) -> Hash {
    match d.len() {
        0 => empty_root(),
        1 => d[0],
        n => {
            let k = split(n as u64) as usize;
            node_hash(&mth(&d[..k]), &mth(&d[k..]))
        }
    }
}

/// PATH(m, D[n]) as §2.1.3.1 defines it.
fn path(m: usize, d: &[Hash]) -> Vec<Hash> {
    if d.len() <= 1 {
        return Vec::new();
    }
    let k = split(d.len() as u64) as usize;
    let (mut p, sibling) = if m < k {
        (path(m, &d[..k]), mth(&d[k..]))
    } else {
        (path(m - k, &d[k..]), mth(&d[..k]))
    };
    p.push(sibling);
    p
}

/// SUBPROOF(m, D[n], b) as §2.1.4.1 defines it.
fn subproof(m: usize, d: &[Hash], b: bool) -> Vec<Hash> {
    let n = d.len();
    if m == n {
        return if b { Vec::new() } else { vec![mth(d)] };
    }
    let k = split(n as u64) as usize;
    let (mut p, sibling) = if m <= k {
        (subproof(m, &d[..k], b), mth(&d[k..]))
    } else {
        (subproof(m - k, &d[k..], false), mth(&d[..k]))
    };
    p.push(sibling);
    p
}

fn leaves(n: usize) -> Vec<Hash> {
    (0..n)
        .map(|i| leaf_hash(format!("event {i}").as_bytes()))
        .collect()
}

#[test]
fn every_root_and_proof_up_to_70_leaves_is_the_rfcs() {
    let all = leaves(70);
    let mut t = tree(&all);
    for n in 1..=all.len() {
        let d = &all[..n];
        let root = mth(d);
        assert_eq!(root_at(&mut t, n as u64).unwrap(), root, "root of {n}");
        for m in 0..n {
            let proof = inclusion_proof(&mut t, m as u64, n as u64).unwrap();
            assert_eq!(proof, path(m, d), "path of {m} in {n}");
            verify_inclusion(&d[m], m as u64, n as u64, &proof, &root).unwrap();
        }
        for m in 1..=n {
            let proof = consistency_proof(&mut t, m as u64, n as u64).unwrap();
            let expected = if m == n {
                Vec::new()
            } else {
                subproof(m, d, true)
            };
            assert_eq!(proof, expected, "proof from {m} to {n}");
            verify_consistency(m as u64, n as u64, &proof, &mth(&d[..m]), &root).unwrap();
        }
    }
}

#[test]
fn append_in_batches_makes_the_same_nodes_as_one_at_a_time() {
    let all = leaves(70);
    let whole = tree(&all);
    for batch in [1, 2, 3, 7, 16, 33] {
        let mut store = MemoryTree::new();
        let mut size = 0u64;
        for chunk in all.chunks(batch) {
            for (level, index, hash) in append(&mut store, size, chunk).unwrap() {
                let row = level as usize;
                if store.levels.len() == row {
                    store.levels.push(Vec::new());
                }
                assert_eq!(
                    store.levels[row].len() as u64,
                    index,
                    "nodes complete in order"
                );
                store.levels[row].push(hash);
            }
            size += chunk.len() as u64;
        }
        assert_eq!(store.levels, whole.levels, "batches of {batch}");
    }
}

#[test]
fn any_change_to_an_inclusion_proof_fails() {
    let all = leaves(45);
    let mut t = tree(&all);
    let root = t.root();
    for m in [0u64, 1, 17, 31, 32, 44] {
        let proof = inclusion_proof(&mut t, m, 45).unwrap();
        let leaf = &all[m as usize];
        let refused = |leaf: &Hash, index: u64, size: u64, proof: &[Hash], root: &Hash| {
            let e = verify_inclusion(leaf, index, size, proof, root).unwrap_err();
            assert_eq!(e.code(), Code::InclusionProofInvalid);
        };
        for i in 0..proof.len() {
            for bit in [0, 77, 255] {
                let mut p = proof.clone();
                p[i][bit / 8] ^= 1 << (bit % 8);
                refused(leaf, m, 45, &p, &root);
            }
        }
        refused(&all[(m as usize + 1) % 45], m, 45, &proof, &root);
        refused(leaf, m ^ 1, 45, &proof, &root);
        // (Another size may have the same path's shape: the signed checkpoint binds the size
        // to the root, which is why a proof is always checked against a checkpoint's pair.)
        refused(leaf, m, 45, &proof[..proof.len() - 1], &root);
        let mut longer = proof.clone();
        longer.push(root);
        refused(leaf, m, 45, &longer, &root);
        refused(leaf, 45, 45, &proof, &root);
        refused(leaf, m, 45, &proof, &leaf_hash(b"another root"));
    }
}

#[test]
fn any_change_to_a_consistency_proof_fails() {
    let all = leaves(45);
    let mut t = tree(&all);
    let new_root = t.root();
    for m in [1u64, 2, 3, 16, 31, 32, 44] {
        let old_root = root_at(&mut t, m).unwrap();
        let proof = consistency_proof(&mut t, m, 45).unwrap();
        let refused = |old: u64, new: u64, proof: &[Hash], a: &Hash, b: &Hash| {
            let e = verify_consistency(old, new, proof, a, b).unwrap_err();
            assert_eq!(e.code(), Code::ConsistencyProofInvalid, "{old} to {new}");
        };
        for i in 0..proof.len() {
            let mut p = proof.clone();
            p[i][3] ^= 0x40;
            refused(m, 45, &p, &old_root, &new_root);
        }
        refused(m, 45, &proof, &new_root, &new_root);
        refused(m, 45, &proof, &old_root, &old_root);
        if !m.is_power_of_two() {
            refused(m + 1, 45, &proof, &old_root, &new_root);
        }
        refused(m, 45, &proof[..proof.len() - 1], &old_root, &new_root);
        let mut longer = proof.clone();
        longer.push(old_root);
        refused(m, 45, &longer, &old_root, &new_root);
    }
    // The edges: the empty tree precedes any; a size is consistent with itself only.
    verify_consistency(0, 45, &[], &empty_root(), &new_root).unwrap();
    verify_consistency(45, 45, &[], &new_root, &new_root).unwrap();
    let e = verify_consistency(45, 45, &[], &empty_root(), &new_root).unwrap_err();
    assert_eq!(e.code(), Code::ConsistencyProofInvalid);
    let e = verify_consistency(0, 45, &[new_root], &empty_root(), &new_root).unwrap_err();
    assert_eq!(e.code(), Code::ConsistencyProofInvalid);
    let e = verify_consistency(46, 45, &[], &new_root, &new_root).unwrap_err();
    assert_eq!(e.code(), Code::ConsistencyProofInvalid);
    let e = consistency_proof(&mut t, 46, 45).unwrap_err();
    assert_eq!(e.code(), Code::ConsistencyProofInvalid);
}

#[test]
fn a_rewritten_history_is_inconsistent_with_the_old_root() {
    // The red-team's rewrites, as a log sees them: an edited leaf, a removed leaf (the rest
    // moved up), and a truncation followed by new leaves.
    let all = leaves(40);
    let mut honest = tree(&all[..30]);
    let old_root = honest.root();
    let mut edited = all.clone();
    edited[12] = leaf_hash(b"edited");
    let mut removed = all.clone();
    removed.remove(12);
    let mut truncated = all[..25].to_vec();
    truncated.extend(leaves(60)[45..60].iter().copied());
    for (name, history) in [
        ("edited", edited),
        ("removed", removed),
        ("truncated", truncated),
    ] {
        let mut t = tree(&history);
        let size = t.size();
        let proof = consistency_proof(&mut t, 30, size).unwrap();
        let e = verify_consistency(30, size, &proof, &old_root, &t.root()).unwrap_err();
        assert_eq!(e.code(), Code::ConsistencyProofInvalid, "{name}");
    }
}

#[test]
fn proofs_grow_with_the_logarithm() {
    let mut t = tree(&leaves(1000));
    for size in [1u64, 10, 100, 1000] {
        let bound = 64 - (size - 1).leading_zeros() as usize;
        for index in [0, size / 2, size - 1] {
            assert!(inclusion_proof(&mut t, index, size).unwrap().len() <= bound);
        }
        for old in [1, size / 3 + 1, size] {
            assert!(consistency_proof(&mut t, old, size).unwrap().len() <= bound + 1);
        }
    }
}

/// The node hash padded by hand is SHA-256 of its 65-byte message, whatever the children's
/// bytes (a padding that misplaced one byte would differ for some of them).
#[test]
fn node_hash_is_sha256_of_its_message() {
    let mut left = [0u8; 32];
    let mut right = [0u8; 32];
    for i in 0..64u8 {
        left[usize::from(i) % 32] = i.wrapping_mul(37);
        right[31 - usize::from(i) % 32] = i.wrapping_mul(91) ^ 0x80;
        let mut h = Sha256::new();
        h.update([1u8]);
        h.update(left);
        h.update(right);
        let expected: Hash = h.finalize().into();
        assert_eq!(node_hash(&left, &right), expected, "at {i}");
    }
}

#[test]
fn leaf_hash_is_sha256_of_its_message_at_every_length() {
    // Both sides of the one-block path (messages of up to 55 bytes) and past two blocks.
    for len in 0..=130usize {
        let data: Vec<u8> = (0..len).map(|i| (i * 151 + len) as u8).collect();
        let mut h = Sha256::new();
        h.update([0u8]);
        h.update(&data);
        let expected: Hash = h.finalize().into();
        assert_eq!(leaf_hash(&data), expected, "{len} bytes");
    }
}
