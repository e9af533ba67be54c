use super::WRITES;
use crate::sqlite::{open_file, Vfs};
use crate::url::Durability;
use rusqlite::Connection;
use std::path::PathBuf;

/// A fresh directory, removed when dropped.
struct Dir(PathBuf);

impl Dir {
    fn new(name: &str) -> Dir {
        let dir =
            std::env::temp_dir().join(format!("actionseal-log-vfs-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Dir(dir)
    }

    fn db(&self) -> PathBuf {
        self.0.join("l.db")
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A ledger's connection (this VFS, spilling off) with a table of blobs.
fn ledger_conn(dir: &Dir) -> Connection {
    let c = open_file(&dir.db(), Durability::Normal, Vfs::shipped()).unwrap();
    c.execute_batch("CREATE TABLE IF NOT EXISTS t(id INTEGER PRIMARY KEY, b BLOB NOT NULL)")
        .unwrap();
    c
}

/// Inserts `rows` blobs of `size` bytes, in one transaction.
fn insert(c: &mut Connection, rows: usize, size: usize) {
    let tx = c.transaction().unwrap();
    for i in 0..rows {
        tx.execute("INSERT INTO t(b) VALUES (?1)", [vec![i as u8; size]])
            .unwrap();
    }
    tx.commit().unwrap();
}

fn count(c: &Connection) -> i64 {
    c.query_row("SELECT count(*) FROM t", [], |r| r.get(0))
        .unwrap()
}

fn integrity(c: &Connection) -> String {
    c.query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap()
}

#[test]
fn a_ledger_connection_uses_it_and_never_spills() {
    assert!(super::registered());
    let dir = Dir::new("spill");
    let c = ledger_conn(&dir);
    let spill: i64 = c.query_row("PRAGMA cache_spill", [], |r| r.get(0)).unwrap();
    assert_eq!(
        spill, 0,
        "frames written outside a commit could stay gathered"
    );
    let before = WRITES.get();
    insert(&mut ledger_conn(&dir), 1, 10);
    assert!(
        WRITES.get() > before,
        "the ledger's log is not written by this VFS"
    );
}

#[test]
fn a_commit_of_many_pages_is_one_write_and_visible_at_once() {
    let dir = Dir::new("commit");
    let mut c = ledger_conn(&dir);
    let other = Connection::open(dir.db()).unwrap(); // the default VFS
    assert_eq!(count(&other), 0);
    let before = WRITES.get();
    // About 20 pages of 2 KiB: without this VFS, two writes a frame.
    insert(&mut c, 20, 1500);
    assert_eq!(WRITES.get() - before, 1);
    // Committed means readable by another connection, before anything else touches the log.
    assert_eq!(count(&other), 20);
    for round in 0..50 {
        insert(&mut c, 3, 700);
        assert_eq!(count(&other), 20 + 3 * (round + 1));
    }
    assert_eq!(integrity(&other), "ok");
}

#[test]
fn a_transaction_larger_than_the_limit_is_written_in_order() {
    let dir = Dir::new("large");
    let mut c = ledger_conn(&dir);
    let before = WRITES.get();
    // 4 MiB in one transaction: gathered bytes are written each time they pass the limit.
    insert(&mut c, 2048, 2048);
    assert!(WRITES.get() - before >= 4);
    let other = Connection::open(dir.db()).unwrap();
    assert_eq!(count(&other), 2048);
    let sum: i64 = other
        .query_row("SELECT sum(length(b)) FROM t", [], |r| r.get(0))
        .unwrap();
    assert_eq!(sum, 2048 * 2048);
    assert_eq!(integrity(&other), "ok");
}

#[test]
fn a_rolled_back_transaction_leaves_nothing_to_write_over_others_frames() {
    let dir = Dir::new("rollback");
    let mut c = ledger_conn(&dir);
    c.execute_batch("PRAGMA cache_size=10").unwrap();
    insert(&mut c, 5, 100);
    // An empty log, so that the rollback reads nothing back from it (which would write what
    // is gathered while this connection still holds the write lock).
    c.execute_batch("PRAGMA wal_checkpoint(TRUNCATE)").unwrap();
    // A transaction far larger than the page cache, rolled back: with spilling on, its pages
    // would be gathered as frames of no commit, and written later over the other writer's
    // frames below (this test then finds the file corrupt).
    {
        let tx = c.transaction().unwrap();
        for i in 0..400 {
            tx.execute("INSERT INTO t(b) VALUES (?1)", [vec![i as u8; 1500]])
                .unwrap();
        }
        tx.rollback().unwrap();
    }
    // Another writer takes the same place in the log...
    let mut other = Connection::open(dir.db()).unwrap();
    other.execute_batch("PRAGMA wal_autocheckpoint=0").unwrap();
    insert(&mut other, 400, 1500);
    // ... and this connection writes after it.
    insert(&mut c, 9, 100);
    let fresh = Connection::open(dir.db()).unwrap();
    assert_eq!(count(&fresh), 414);
    assert_eq!(integrity(&fresh), "ok");
    let sum: i64 = fresh
        .query_row("SELECT sum(length(b)) FROM t", [], |r| r.get(0))
        .unwrap();
    assert_eq!(sum, 5 * 100 + 400 * 1500 + 9 * 100);
    let ids: Vec<i64> = fresh
        .prepare("SELECT id FROM t ORDER BY id")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(ids, (1..=414).collect::<Vec<_>>());
}

#[test]
fn the_log_survives_reopening_and_checkpoints() {
    let dir = Dir::new("reopen");
    {
        let mut c = ledger_conn(&dir);
        for _ in 0..30 {
            insert(&mut c, 4, 900);
        }
    }
    let mut c = ledger_conn(&dir);
    assert_eq!(count(&c), 120);
    c.execute_batch("PRAGMA wal_checkpoint(TRUNCATE)").unwrap();
    insert(&mut c, 4, 900);
    drop(c);
    let fresh = Connection::open(dir.db()).unwrap();
    assert_eq!(count(&fresh), 124);
    assert_eq!(integrity(&fresh), "ok");
}

#[test]
fn every_commit_is_in_the_file_when_it_returns_whatever_its_size() {
    assert!(super::registered());
    // 512-byte pages and commits of 450 to 530 frames, on both sides of the limit on gathered
    // bytes: each commit's frames are all in the file when it returns, as many as SQLite
    // published to other connections.
    for rows in 440..520 {
        let dir = Dir::new(&format!("sizes-{rows}"));
        let mut c = Connection::open_with_flags_and_vfs(
            dir.db(),
            rusqlite::OpenFlags::default(),
            super::NAME,
        )
        .unwrap();
        c.execute_batch(
            "PRAGMA cache_spill=OFF; PRAGMA page_size=512; PRAGMA journal_mode=WAL;
             PRAGMA synchronous=NORMAL;
             PRAGMA wal_autocheckpoint=0;
             CREATE TABLE t(id INTEGER PRIMARY KEY, b BLOB NOT NULL);",
        )
        .unwrap();
        // The log holds only this transaction's frames after its header: start it afresh.
        c.execute_batch("PRAGMA wal_checkpoint(TRUNCATE)").unwrap();
        insert(&mut c, rows, 400);
        let wal = std::fs::metadata(dir.0.join("l.db-wal")).unwrap().len();
        // How many frames SQLite published, read by another connection.
        let other = Connection::open(dir.db()).unwrap();
        let frames: i64 = other
            .query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |r| r.get(1))
            .unwrap();
        assert!(
            wal >= 32 + frames as u64 * 536,
            "{rows} rows: {frames} frames published, {wal} bytes in the log"
        );
        assert_eq!(count(&other), rows as i64);
    }
}
