//! The documentation says what the code does: every number of audit chains the READMEs and
//! the docs give is core's `CHAINS`, the one place it is written (they said 16 while the code
//! had 256); every limit they name (`MAX_QUORUM`, `MAX_SET`, `MAX_DELEGATION_LINKS`) is
//! core's; and CONTRACTS.md's reasons table is core's reasons, in order, with their outcomes.

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
    // The ledger's page, where the chains are described.
    let ledger = repo.join("docs/LEDGER.md");
    let mut in_ledger = 0;
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        for n in chain_counts(&text) {
            assert_eq!(
                n,
                CHAINS.to_string(),
                "{} says {n} audit chains; the code has CHAINS = {CHAINS}",
                f.display()
            );
            in_ledger += usize::from(*f == ledger);
        }
    }
    assert!(
        in_ledger > 0,
        "docs/LEDGER.md no longer says how many chains"
    );
    assert_eq!(
        chain_counts("one of 16 SHA-256 hash\n  chains, 3 audit chains; a chain of 200"),
        ["16", "3"]
    );
}

/// The integer closest before each `` `NAME` `` in `text` (within the 48 bytes before it), for
/// every name: how a document states a limit, "at most 32 records (`MAX_SET`)".
fn limits_named<'a>(text: &str, names: &[&'a str]) -> Vec<(&'a str, Option<u64>)> {
    let mut out = Vec::new();
    for name in names {
        let quoted = format!("`{name}`");
        for (at, _) in text.match_indices(&quoted) {
            let mut from = at.saturating_sub(48);
            while !text.is_char_boundary(from) {
                from += 1;
            }
            let number = text[from..at]
                .split(|c: char| !c.is_ascii_digit())
                .rfind(|w| !w.is_empty())
                .and_then(|w| w.parse().ok());
            out.push((*name, number));
        }
    }
    out
}

#[test]
fn the_docs_give_the_limits_the_code_has() {
    use actionseal_core::{MAX_DELEGATION_LINKS, MAX_QUORUM, MAX_SET};
    let limits = [
        ("MAX_QUORUM", u64::from(MAX_QUORUM)),
        ("MAX_SET", MAX_SET as u64),
        ("MAX_DELEGATION_LINKS", MAX_DELEGATION_LINKS as u64),
    ];
    let names: Vec<&str> = limits.iter().map(|(n, _)| *n).collect();
    let repo = dir().join("..");
    for file in ["docs/MODEL.md", "docs/CONTRACTS.md"] {
        let text = std::fs::read_to_string(repo.join(file)).unwrap();
        let found = limits_named(&text, &names);
        for (name, value) in limits {
            let stated: Vec<_> = found.iter().filter(|(n, _)| *n == name).collect();
            assert!(!stated.is_empty(), "{file} no longer states {name}");
            for (_, n) in stated {
                assert_eq!(
                    *n,
                    Some(value),
                    "{file} gives {name} as {n:?}; the code has {value}"
                );
            }
        }
    }
    assert_eq!(
        limits_named(
            "at most 32 records (`MAX_SET`), up to 4 (`B`)",
            &["MAX_SET", "B"]
        ),
        [("MAX_SET", Some(32)), ("B", Some(4))]
    );
}

#[test]
fn the_reasons_table_is_the_codes() {
    use actionseal_core::Reason;
    let path = dir().join("../docs/CONTRACTS.md");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines = text
        .lines()
        .skip_while(|l| !l.starts_with("| reason | when | outcome |"));
    assert!(lines.next().is_some(), "CONTRACTS.md has no reasons table");
    let rows: Vec<(String, String)> = lines
        .skip(1)
        .take_while(|l| l.starts_with('|'))
        .map(|l| {
            let cells: Vec<&str> = l.trim_matches('|').split(" | ").map(str::trim).collect();
            (
                cells[0].trim_matches('`').to_owned(),
                (*cells.last().unwrap()).to_owned(),
            )
        })
        .collect();
    let code: Vec<(String, String)> = Reason::ALL
        .iter()
        .map(|r| (r.as_str().to_owned(), r.outcome().as_str().to_owned()))
        .collect();
    assert_eq!(
        rows, code,
        "docs/CONTRACTS.md's reasons table must list every reason, in report order, with its outcome"
    );
}
