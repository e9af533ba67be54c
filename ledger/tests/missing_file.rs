//! A SQLite ledger file that does not exist: created by default (the library starts an
//! embedded ledger on first use), refused with `ledger_not_found` when the opener asks
//! ([`IfMissing::Refuse`], the command line's way), unless the URL says `mode=create`.

mod common;

use actionseal_core::Code;
use actionseal_ledger::{IfMissing, Ledger, LedgerOptions};
use common::temp_dir;

fn refusing() -> LedgerOptions {
    LedgerOptions {
        if_missing: IfMissing::Refuse,
        ..LedgerOptions::default()
    }
}

#[test]
fn a_missing_file_is_refused_and_not_created() {
    let dir = temp_dir();
    let path = dir.join("ledgr.db");
    let e = Ledger::open_with(&format!("sqlite:{}", path.display()), refusing())
        .err()
        .expect("a missing file is refused");
    assert_eq!(e.code(), Code::LedgerNotFound);
    assert!(e.message().contains("ledgr.db"), "{}", e.message());
    // Nothing was created: not the file, nor its log or shared memory.
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    // With the URL's mode=create (alone or with synchronous) it is created, then opens
    // without it.
    for (name, query) in [
        ("a.db", "?mode=create"),
        ("b.db", "?synchronous=normal&mode=create"),
    ] {
        let url = format!("sqlite:{}", dir.join(name).display());
        let l = Ledger::open_with(&format!("{url}{query}"), refusing()).unwrap();
        assert!(l.audit_verify().unwrap().broken.is_none());
        drop(l);
        assert!(dir.join(name).exists());
        Ledger::open_with(&url, refusing()).unwrap();
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn the_library_default_still_creates() {
    let dir = temp_dir();
    let path = dir.join("new.db");
    Ledger::open(&format!("sqlite:{}", path.display())).unwrap();
    assert!(path.exists());
    // A refusing opener does not touch memory or PostgreSQL URLs' meaning.
    Ledger::open_with("sqlite::memory:", refusing()).unwrap();
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn url_options_are_read_strictly() {
    for url in [
        "sqlite:x.db?mode=create&mode=create",
        "sqlite:x.db?synchronous=full&synchronous=normal",
        "sqlite:x.db?mode=rwc",
        "sqlite:x.db?mode=create&",
        "sqlite:x.db?&mode=create",
    ] {
        let e = Ledger::open_with(url, refusing()).err().expect(url);
        assert_eq!(e.code(), Code::InvalidLedgerUrl, "{url}");
    }
}
