//! The documentation says what the code does: every number of audit chains the README and
//! the docs give is core's `CHAINS`, the one place it is written (they said 16 while the code
//! had 256).

use actionseal_conformance::dir;
use actionseal_core::ledger::CHAINS;

/// Every "<n> [SHA-256] [hash|audit] chains" in `text` (across line breaks), as the `n`.
fn chain_counts(text: &str) -> Vec<String> {
    let words: Vec<String> = text
        .split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        })
        .collect();
    let mut out = Vec::new();
    for (i, w) in words.iter().enumerate() {
        if w != "chains" {
            continue;
        }
        let mut j = i;
        while j > 0 && matches!(words[j - 1].as_str(), "sha-256" | "hash" | "audit") {
            j -= 1;
        }
        if let Some(n) = j.checked_sub(1).map(|k| &words[k]) {
            if !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()) {
                out.push(n.clone());
            }
        }
    }
    out
}

#[test]
fn the_docs_give_the_number_of_audit_chains_the_code_has() {
    let repo = dir().join("..");
    let mut files = vec![
        repo.join("README.md"),
        repo.join("bindings-python/README.md"),
        repo.join("bindings-node/README.md"),
    ];
    for entry in std::fs::read_dir(repo.join("docs")).unwrap() {
        files.push(entry.unwrap().path());
    }
    let readme = files[0].clone();
    let mut in_readme = 0;
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        for n in chain_counts(&text) {
            assert_eq!(
                n,
                CHAINS.to_string(),
                "{} says {n} audit chains; the code has CHAINS = {CHAINS}",
                f.display()
            );
            in_readme += usize::from(*f == readme);
        }
    }
    assert!(in_readme > 0, "the README no longer says how many chains");
    assert_eq!(
        chain_counts("one of 16 SHA-256 hash\n  chains, 3 audit chains; a chain of 200"),
        ["16", "3"]
    );
}
