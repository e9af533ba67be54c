use super::Group;
use crate::clock::SystemClock;
use crate::sqlite::{Sqlite, Vfs};
use crate::store::{storage, BudgetRow, Done};
use crate::url::Durability;
use actionseal_core::Code;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::mpsc;

/// A fresh directory, removed when dropped.
struct Dir(PathBuf);

impl Dir {
    fn new(name: &str) -> Dir {
        let dir = std::env::temp_dir().join(format!(
            "actionseal-group-commit-{name}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Dir(dir)
    }

    fn ledger(&self) -> Sqlite {
        Sqlite::open_file(&self.0.join("l.db"), Durability::Full, Vfs::shipped(), 0).unwrap()
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn group(l: &Sqlite) -> &Group {
    l.group
        .as_ref()
        .expect("a FULL file ledger groups its commits")
}

fn commits(l: &Sqlite) -> usize {
    group(l).commits.load(Ordering::SeqCst)
}

fn budget(name: &str) -> BudgetRow {
    BudgetRow {
        name: name.to_owned(),
        limit_minor: 100,
        spent_minor: 0,
        reserved_minor: 0,
    }
}

fn stored(l: &Sqlite, name: &str) -> bool {
    l.read(|tx| tx.budget(name)).unwrap().is_some()
}

/// Returns once another thread waits for the turn, so that the operation running this hands
/// its open batch on instead of committing.
fn until_another_waits(g: &Group) {
    while g.waiting.load(Ordering::SeqCst) == 0 {
        std::thread::yield_now();
    }
}

/// Runs `second` on this thread while another thread's operation (writing budget "a") holds
/// the batch open: that operation hands the batch on once `second`'s operation waits for its
/// turn, so both end in one commit. Returns both answers.
fn beside_an_open_batch<R>(
    l: &Sqlite,
    second: impl FnOnce() -> R,
) -> (actionseal_core::Result<()>, R) {
    let (inside, a_is_inside) = mpsc::channel();
    std::thread::scope(|s| {
        let a = s.spawn(|| {
            l.write(&SystemClock, |tx, _| {
                tx.put_budget(&budget("a"))?;
                let _ = inside.send(());
                until_another_waits(group(l));
                Ok(Done::Ok(()))
            })
        });
        a_is_inside.recv().unwrap();
        let b = second();
        (a.join().unwrap(), b)
    })
}

#[test]
fn a_thread_alone_commits_each_operation_at_once() {
    let dir = Dir::new("alone");
    let l = dir.ledger();
    for name in ["a", "b", "c"] {
        l.write(&SystemClock, |tx, _| {
            tx.put_budget(&budget(name)).map(Done::Ok)
        })
        .unwrap();
        assert!(
            stored(&l, name),
            "{name} is visible as soon as its write returns"
        );
    }
    assert_eq!(commits(&l), 3);
}

#[test]
fn overlapping_operations_share_commits_and_every_one_lasts() {
    let dir = Dir::new("overlap");
    let l = dir.ledger();
    let (threads, each) = (8, 40);
    std::thread::scope(|s| {
        for t in 0..threads {
            let l = &l;
            s.spawn(move || {
                for i in 0..each {
                    let name = format!("b-{t}-{i}");
                    l.write(&SystemClock, |tx, _| {
                        tx.put_budget(&budget(&name)).map(Done::Ok)
                    })
                    .unwrap();
                }
            });
        }
    });
    let made = commits(&l);
    assert!(
        made < threads * each,
        "{} operations of {threads} threads took {made} commits",
        threads * each
    );
    drop(l);
    // Another ledger on the file (what a restarted process opens) finds every one.
    let again = dir.ledger();
    for t in 0..threads {
        for i in 0..each {
            assert!(stored(&again, &format!("b-{t}-{i}")), "b-{t}-{i} was lost");
        }
    }
}

#[test]
fn a_failed_operation_undoes_only_its_own_writes() {
    let dir = Dir::new("failed");
    let l = dir.ledger();
    let (a, b) = beside_an_open_batch(&l, || {
        l.write(&SystemClock, |tx, _| -> actionseal_core::Result<Done<()>> {
            tx.put_budget(&budget("b"))?;
            Err(storage("test", "this operation fails after it wrote"))
        })
    });
    a.unwrap();
    assert_eq!(b.unwrap_err().code(), Code::LedgerStorage);
    assert!(stored(&l, "a"));
    assert!(!stored(&l, "b"), "the failed operation's write was kept");
    assert_eq!(commits(&l), 1, "the two operations shared one commit");
}

#[test]
fn a_batch_abandoned_by_a_panic_keeps_nothing_and_frees_its_members() {
    let dir = Dir::new("panic");
    let l = dir.ledger();
    let (a, b) = beside_an_open_batch(&l, || {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            l.write(&SystemClock, |tx, _| -> actionseal_core::Result<Done<()>> {
                tx.put_budget(&budget("b"))?;
                panic!("an operation that panics inside a batch");
            })
        }))
    });
    assert!(b.is_err(), "the panic reaches its own caller");
    let a = a.unwrap_err();
    assert_eq!(a.code(), Code::LedgerStorage, "{a}");
    assert!(
        !stored(&l, "a"),
        "a member was told of a failure, and its write was kept"
    );
    assert!(!stored(&l, "b"));
    // The ledger carries on.
    l.write(&SystemClock, |tx, _| {
        tx.put_budget(&budget("c")).map(Done::Ok)
    })
    .unwrap();
    assert!(stored(&l, "c"));
    assert_eq!(commits(&l), 1);
}
