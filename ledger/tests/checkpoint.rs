//! The audit as a Merkle log (issue 26): the sequencer gives every event one leaf, in event id
//! order; its signed checkpoints, inclusion and consistency proofs verify with core's RFC 9162
//! rules; and a database held to a checkpoint kept elsewhere fails when its audit was
//! truncated, edited and sealed again, rewound, or had an event taken out of the leaf order,
//! and passes when it only grew. On both engines.

mod common;

use actionseal_core::tlog::cosignature::Cosigner;
use actionseal_core::tlog::merkle::{self, leaf_hash, MemoryTree};
use actionseal_core::tlog::note::{Note, SignerKey, VerifierKey};
use actionseal_core::tlog::witness::{add_checkpoint, Log, Request};
use actionseal_core::Code;
use actionseal_ledger::{Checkpoint, EventRef, Ledger};
use common::*;
use std::sync::{Arc, Barrier};

/// The verifier keys a keeper of checkpoints trusts.
fn verifiers() -> Vec<VerifierKey> {
    vec![VerifierKey::parse(LOG_VERIFIER).unwrap()]
}

/// Every event's canonical text, in id order: the log's leaves as they should be.
fn bodies(db: &Db) -> Vec<String> {
    db.texts("SELECT body FROM ledger_events ORDER BY id")
        .into_iter()
        .map(|r| r[0].clone().unwrap())
        .collect()
}

/// The tree of `bodies`, computed in memory.
fn tree_of(bodies: &[String]) -> MemoryTree {
    let mut t = MemoryTree::new();
    for b in bodies {
        t.push(leaf_hash(b.as_bytes()));
    }
    t
}

/// Three whole lifecycles (12 events) and the checkpoint of them, kept outside the database.
fn kept(db: &Db) -> (Ledger, Checkpoint) {
    let l = db.open_logged();
    for i in 0..3 {
        whole_lifecycle(&l, &format!("job-{i}"), &format!("d{i}"), "worker-1");
    }
    let c = l.checkpoint().unwrap();
    assert_eq!(c.size, 12);
    (l, c)
}

/// Switches off the triggers of the Merkle log's tables, as the database's owner can.
fn unprotect_tree(db: &Db) {
    for t in ["leaves", "nodes", "checkpoints", "cosignatures"] {
        match db.engine {
            Engine::Sqlite => db.sql(&format!(
                "DROP TRIGGER ledger_{t}_no_update; DROP TRIGGER ledger_{t}_no_delete;"
            )),
            Engine::Postgres => db.sql(&format!("ALTER TABLE ledger_{t} DISABLE TRIGGER USER")),
        }
    }
}

/// Empties the Merkle log, for the sequencer to build it again from the events as they are
/// now: what an owner who edited the events does to make the database agree with itself.
fn rebuild_tree(db: &Db, l: &Ledger) -> Checkpoint {
    unprotect_tree(db);
    db.sql(
        "DELETE FROM ledger_cosignatures; DELETE FROM ledger_checkpoints;
         DELETE FROM ledger_nodes; DELETE FROM ledger_leaves;",
    );
    l.checkpoint().unwrap()
}

/// Checks that verifying the database against `c` fails with `code`, saying `why`.
fn refused(l: &Ledger, c: &Checkpoint, code: Code, why: &str) {
    let e = l
        .audit_verify_checkpoint(&c.note, &verifiers())
        .map(|v| panic!("verified: {v:?}"))
        .unwrap_err();
    assert_eq!(e.code(), code, "{e}");
    assert!(e.message().contains(why), "{e}");
}

#[test]
fn every_event_is_a_leaf_in_id_order_and_proven() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let (l, first) = kept(&db);
        let all = bodies(&db);
        assert_eq!(first.root, tree_of(&all).root(), "{engine:?}");
        let text =
            actionseal_core::tlog::checkpoint::Checkpoint::new("PeterNeumann", 12, first.root)
                .unwrap()
                .to_string();
        assert!(first
            .note
            .starts_with(&format!("{text}\n\u{2014} PeterNeumann ")));
        // Nothing new: the same checkpoint.
        assert_eq!(l.checkpoint().unwrap(), first, "{engine:?}");
        // Every event's inclusion proof, by id and by chain and seq.
        for (i, body) in all.iter().enumerate() {
            let id = i as i64 + 1;
            let p = l.inclusion_proof(EventRef::Id(id), None).unwrap();
            assert_eq!((p.leaf, p.size, &p.event), (i as u64, 12, body));
            merkle::verify_inclusion(
                &leaf_hash(body.as_bytes()),
                p.leaf,
                12,
                &p.proof,
                &first.root,
            )
            .unwrap();
        }
        let e = actionseal_core::ledger::Event::from_value(&json(&all[5])).unwrap();
        let p = l
            .inclusion_proof(
                EventRef::Seq {
                    chain: e.chain,
                    seq: e.seq,
                },
                None,
            )
            .unwrap();
        assert_eq!(p.leaf, 5);
        // A task's events, each proven: what an evidence bundle holds.
        let task = actionseal_core::ledger::task_id("tenant-a", "job-1", "req-1");
        let proofs = l.task_inclusion_proofs(&task, None).unwrap();
        assert_eq!(
            proofs.iter().map(|p| p.leaf).collect::<Vec<_>>(),
            [4, 5, 6, 7]
        );
        for p in &proofs {
            let e = actionseal_core::ledger::Event::from_value(&json(&p.event)).unwrap();
            assert_eq!(e.task.as_deref(), Some(task.as_str()));
            merkle::verify_inclusion(
                &leaf_hash(p.event.as_bytes()),
                p.leaf,
                12,
                &p.proof,
                &first.root,
            )
            .unwrap();
        }
        let e = l.task_inclusion_proofs("task_nope", None).unwrap_err();
        assert_eq!(e.code(), Code::TaskNotFound);
        // A tree of 6 leaves holds the task's first two events, not its last two.
        let e = l.task_inclusion_proofs(&task, Some(6)).unwrap_err();
        assert_eq!(e.code(), Code::InclusionProofInvalid, "{e}");
        // The log grows: a consistency proof links the two checkpoints.
        whole_lifecycle(&l, "job-3", "d3", "worker-1");
        let missing = l.inclusion_proof(EventRef::Id(13), None).unwrap_err();
        assert_eq!(missing.code(), Code::InclusionProofInvalid);
        let second = l.checkpoint().unwrap();
        assert_eq!(second.size, 16);
        assert_eq!(second.root, tree_of(&bodies(&db)).root());
        let proof = l.consistency_proof(12, 16).unwrap();
        for (old, new) in [(12, 17), (16, 12)] {
            let e = l.consistency_proof(old, new).unwrap_err();
            assert_eq!(e.code(), Code::ConsistencyProofInvalid, "{e}");
        }
        merkle::verify_consistency(12, 16, &proof, &first.root, &second.root).unwrap();
        // An older tree: the proof against the first checkpoint's size.
        let p = l.inclusion_proof(EventRef::Id(3), Some(12)).unwrap();
        merkle::verify_inclusion(&leaf_hash(all[2].as_bytes()), 2, 12, &p.proof, &first.root)
            .unwrap();
        assert_eq!(l.checkpoints().unwrap(), vec![first, second], "{engine:?}");
        // The log's tables are append-only.
        for sql in [
            "UPDATE ledger_leaves SET event_id = 1 WHERE leaf = 2",
            "DELETE FROM ledger_nodes",
            "DELETE FROM ledger_checkpoints",
            "UPDATE ledger_checkpoints SET note = ''",
        ] {
            assert!(db.sql_fails(sql), "{engine:?}: {sql}");
        }
    }
}

#[test]
fn a_ledger_without_a_key_makes_no_checkpoint() {
    for engine in engines() {
        let db = Db::fresh(engine);
        assert_eq!(
            db.open().checkpoint().unwrap_err().code(),
            Code::InvalidRequest
        );
    }
}

#[test]
fn an_honest_ledger_that_grew_verifies() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let (l, c) = kept(&db);
        let v = l.audit_verify_checkpoint(&c.note, &verifiers()).unwrap();
        assert_eq!((v.size, v.leaves, v.latest), (12, 12, 12), "{engine:?}");
        whole_lifecycle(&l, "job-3", "d3", "worker-1");
        // Events not yet in the tree are no break, nor a later checkpoint.
        l.audit_verify_checkpoint(&c.note, &verifiers()).unwrap();
        l.checkpoint().unwrap();
        whole_lifecycle(&l, "job-4", "d4", "worker-1");
        let v = l.audit_verify_checkpoint(&c.note, &verifiers()).unwrap();
        assert_eq!((v.size, v.leaves, v.latest), (12, 16, 16), "{engine:?}");
    }
}

/// Only a checkpoint that the log's trusted key signed, as its origin, is held against the
/// database; one that does not read is refused as such.
#[test]
fn an_untrusted_or_malformed_checkpoint_is_refused() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let (l, c) = kept(&db);
        let other = SignerKey::from_seed("PeterNeumann", &[1; 32]).unwrap();
        let renamed = SignerKey::from_seed("mallory", &[1; 32]).unwrap();
        for (note, keys, code) in [
            (
                c.note.clone(),
                vec![other.verifier()],
                Code::CheckpointUntrusted,
            ),
            (
                c.note.replacen("\n12\n", "\n11\n", 1),
                verifiers(),
                Code::CheckpointUntrusted,
            ),
            (
                c.note.replace('\u{2014}', "-"),
                verifiers(),
                Code::CheckpointInvalid,
            ),
        ] {
            let e = l.audit_verify_checkpoint(&note, &keys).unwrap_err();
            assert_eq!(e.code(), code, "{engine:?}: {e}");
        }
        // Signed by a trusted key that is not named as the log's origin.
        let text = c
            .note
            .split_once("\n\n")
            .unwrap()
            .0
            .replacen("PeterNeumann", "mallory", 1);
        let note = Note::signed(&format!("{text}\n"), &renamed)
            .unwrap()
            .to_string();
        let e = l
            .audit_verify_checkpoint(&note, &[renamed.verifier()])
            .unwrap_err();
        assert_eq!(e.code(), Code::CheckpointUntrusted, "{engine:?}: {e}");
    }
}

/// A witness (core's rule, as a witness server runs it) cosigns the ledger's checkpoints from
/// the requests the ledger makes, and the ledger keeps only cosignatures that verify.
#[test]
fn a_witness_cosigns_and_the_ledger_keeps_its_lines() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let (l, _) = kept(&db);
        let witness = Cosigner::new(SignerKey::from_seed("witness.example", &[7; 32]).unwrap());
        let logs = [Log::new("PeterNeumann", verifiers())];
        // What the witness receives is the request body, read back.
        let send = |old: u64| {
            Request::parse(l.witness_request(old).unwrap().to_string().as_bytes()).unwrap()
        };
        let asked = send(0);
        let log = Log::find(&logs, &asked).unwrap();
        let ok = add_checkpoint(log, None, &asked, &witness, 1_764_496_800).unwrap();
        let cosigned = l
            .add_cosignatures(
                12,
                &witness.verifier(),
                std::slice::from_ref(&ok.cosignature),
            )
            .unwrap();
        assert_eq!(
            cosigned.cosignatures,
            vec![ok.cosignature.to_string()],
            "{engine:?}"
        );
        let both = [verifiers(), vec![witness.verifier()]].concat();
        let n = Note::parse(cosigned.cosigned_note().as_bytes()).unwrap();
        assert_eq!(n.verify(&both).unwrap().len(), 2);
        assert_eq!(l.checkpoints().unwrap()[0], cosigned);
        l.audit_verify_checkpoint(&cosigned.cosigned_note(), &verifiers())
            .unwrap();
        // The log grows: the next request proves it from the witness's size.
        whole_lifecycle(&l, "job-3", "d3", "worker-1");
        l.checkpoint().unwrap();
        let again =
            add_checkpoint(log, Some(ok.latest), &send(12), &witness, 1_764_496_900).unwrap();
        l.add_cosignatures(
            16,
            &witness.verifier(),
            std::slice::from_ref(&again.cosignature),
        )
        .unwrap();
        // A request from a stale size is a 409 naming the witness's.
        let stale =
            add_checkpoint(log, Some(again.latest), &send(0), &witness, 1_764_496_901).unwrap_err();
        assert_eq!((stale.status(), stale.latest_size()), (409, Some(16)));
        // Lines the witness did not make for that checkpoint are not kept.
        let other = Cosigner::new(SignerKey::from_seed("witness.example", &[8; 32]).unwrap());
        let forged = other.cosign(asked.checkpoint(), 1_764_496_800).unwrap();
        for (size, line) in [(12, forged), (16, ok.cosignature.clone())] {
            let e = l
                .add_cosignatures(size, &witness.verifier(), &[line])
                .unwrap_err();
            assert_eq!(e.code(), Code::CheckpointUntrusted, "{engine:?}");
        }
        assert_eq!(l.checkpoints().unwrap()[1].cosignatures.len(), 1);
    }
}

/// Checks that the database fails against `c` with the leaf of event `gone`, and once the
/// tree is built again from the events left, as smaller than `c`.
fn lost_an_event(db: &Db, l: &Ledger, c: &Checkpoint, gone: i64) {
    refused(
        l,
        c,
        Code::AuditChainBroken,
        &format!("event {gone} is gone"),
    );
    rebuild_tree(db, l);
    refused(
        l,
        c,
        Code::AuditChainBroken,
        "fewer than the checkpoint's 12",
    );
}

/// The last event deleted: the leaves name an event that is gone; with the tree built again
/// from what is left, it is smaller than the checkpoint.
#[test]
fn a_truncated_audit_fails() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let (l, c) = kept(&db);
        unprotect(&db);
        db.sql("DELETE FROM ledger_events WHERE id = 12");
        lost_an_event(&db, &l, &c, 12);
    }
}

/// An event edited and its chain sealed again: nothing in the database can tell, even with
/// the tree built again; the kept checkpoint can.
#[test]
fn an_edited_and_resealed_event_fails() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let (l, c) = kept(&db);
        let chain = actionseal_core::ledger::chain_of(Some(&actionseal_core::ledger::task_id(
            "tenant-a", "job-1", "req-1",
        )));
        unprotect(&db);
        reseal(&db, chain, 3, |e| e.actor = "mallory".into());
        assert!(l.audit_verify().unwrap().broken.is_none(), "{engine:?}");
        refused(&l, &c, Code::AuditChainBroken, "is not the checkpoint's");
        let rebuilt = rebuild_tree(&db, &l);
        assert_eq!(rebuilt.size, 12);
        l.audit_verify_checkpoint(&rebuilt.note, &verifiers())
            .unwrap();
        refused(&l, &c, Code::AuditChainBroken, "is not the checkpoint's");
    }
}

/// A task's row and events restored to an older copy (its last event gone, its chain's head
/// and its row moved back to what they were), with the tree built again.
#[test]
fn a_rewound_row_fails() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let (l, c) = kept(&db);
        let id = actionseal_core::ledger::task_id("tenant-a", "job-0", "req-1");
        let chain = actionseal_core::ledger::chain_of(Some(&id));
        unprotect(&db);
        db.sql(&format!(
            "UPDATE ledger_tasks SET state = 'claimed', last_event = (SELECT task_prev FROM \
               ledger_events WHERE id = ledger_tasks.last_event) WHERE id = '{id}';
             DELETE FROM ledger_events WHERE chain = {chain} AND seq = 4;
             UPDATE ledger_head SET seq = 3, digest = (SELECT digest FROM ledger_events
               WHERE chain = {chain} AND seq = 3) WHERE chain = {chain};"
        ));
        lost_an_event(&db, &l, &c, 4);
    }
}

/// A leaf taken out of the order and the later leaves moved down to close the gap.
#[test]
fn an_event_removed_from_the_leaf_order_fails() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let (l, c) = kept(&db);
        unprotect_tree(&db);
        db.sql(
            "CREATE TABLE kept AS SELECT leaf, event_id, hash FROM ledger_leaves WHERE leaf > 5;
             DELETE FROM ledger_leaves WHERE leaf >= 5;
             INSERT INTO ledger_leaves SELECT leaf - 1, event_id, hash FROM kept;
             DROP TABLE kept;",
        );
        refused(
            &l,
            &c,
            Code::AuditChainBroken,
            "taken out of the leaf order",
        );
    }
}

/// The leaves swapped, or a gap left in them.
#[test]
fn leaves_out_of_order_or_missing_fail() {
    for engine in engines() {
        for (sql, why) in [
            (
                "UPDATE ledger_leaves SET event_id = -event_id WHERE leaf IN (3, 4);
                 UPDATE ledger_leaves SET event_id = 4 WHERE leaf = 4;
                 UPDATE ledger_leaves SET event_id = 5 WHERE leaf = 3;",
                "out of event order",
            ),
            (
                "DELETE FROM ledger_leaves WHERE leaf = 7",
                "skip from 7 to 8",
            ),
        ] {
            let db = Db::fresh(engine);
            let (l, c) = kept(&db);
            unprotect_tree(&db);
            db.sql(sql);
            refused(&l, &c, Code::AuditChainBroken, why);
        }
    }
}

/// The database's own later checkpoint must follow from the kept one through its stored
/// nodes (which its proofs are read from), and must not be missing.
#[test]
fn the_databases_checkpoints_are_held_to_the_kept_one() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let (l, c) = kept(&db);
        whole_lifecycle(&l, "job-3", "d3", "worker-1");
        l.checkpoint().unwrap();
        unprotect_tree(&db);
        let zero = match engine {
            Engine::Sqlite => "zeroblob(32)",
            Engine::Postgres => "decode(repeat('00', 32), 'hex')",
        };
        db.sql(&format!(
            "UPDATE ledger_nodes SET hash = {zero} WHERE level = 2 AND idx = 2"
        ));
        refused(
            &l,
            &c,
            Code::ConsistencyProofInvalid,
            "does not lead to the old root",
        );
        db.sql("DELETE FROM ledger_checkpoints");
        refused(
            &l,
            &c,
            Code::AuditChainBroken,
            "its checkpoints were rewound",
        );
    }
}

/// 16 writers and two sequencers in a loop: every event is a leaf exactly once, each chain's
/// leaves are in seq order, and every checkpoint's root is its events' root and consistent
/// with the next. (On PostgreSQL this fails when the sequencer reads past the settled event
/// id: an event whose id was taken before the sequencer read, committed after, is never a
/// leaf; and the two sequencers overtake each other, which the second one's write must
/// notice.) Each writer and sequencer on a handle of its own, and all on one handle (on a
/// SQLite file with FULL, whose writers batch their commits: the sequencer takes its turn
/// among them).
#[test]
fn writers_and_a_sequencer_race() {
    const WRITERS: usize = 16;
    const EACH: usize = 10;
    for (engine, shared) in engines().into_iter().flat_map(|e| [(e, false), (e, true)]) {
        let db = if shared {
            Db::fresh(engine)
        } else {
            Db::fast(engine)
        };
        let sequencer = Arc::new(db.open_logged());
        let second = match shared {
            true => sequencer.clone(),
            false => Arc::new(db.open_logged()),
        };
        let writers: Vec<Arc<Ledger>> = (0..WRITERS)
            .map(|_| match shared {
                true => sequencer.clone(),
                false => Arc::new(db.open()),
            })
            .collect();
        let start = Barrier::new(WRITERS + 2);
        let done = std::sync::atomic::AtomicUsize::new(0);
        std::thread::scope(|s| {
            for (w, l) in writers.iter().enumerate() {
                let (start, done) = (&start, &done);
                s.spawn(move || {
                    start.wait();
                    for i in 0..EACH {
                        whole_lifecycle(l, &format!("job-{w}-{i}"), &format!("d-{w}-{i}"), "w");
                    }
                    done.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                });
            }
            for l in [&sequencer, &second] {
                let (start, done) = (&start, &done);
                s.spawn(move || {
                    start.wait();
                    while done.load(std::sync::atomic::Ordering::SeqCst) < WRITERS {
                        l.checkpoint().unwrap();
                    }
                });
            }
        });
        let last = sequencer.checkpoint().unwrap();
        let events = (WRITERS * EACH * 4) as u64;
        let engine = (engine, shared);
        assert_eq!(last.size, events, "{engine:?}");
        let counts = db.texts(
            "SELECT CAST(count(*) AS TEXT), CAST(count(DISTINCT event_id) AS TEXT), \
             CAST((SELECT count(*) FROM ledger_events e WHERE NOT EXISTS \
               (SELECT 1 FROM ledger_leaves l WHERE l.event_id = e.id)) AS TEXT) \
             FROM ledger_leaves",
        );
        let n = events.to_string();
        assert_eq!(
            counts[0],
            vec![Some(n.clone()), Some(n), Some("0".to_owned())],
            "{engine:?}: every event a leaf exactly once"
        );
        let order = db.texts(
            "SELECT e.body FROM ledger_leaves l JOIN ledger_events e ON e.id = l.event_id \
             ORDER BY l.leaf",
        );
        let mut seqs = std::collections::HashMap::new();
        let mut tree = MemoryTree::new();
        for r in &order {
            let body = r[0].as_deref().unwrap();
            let e = actionseal_core::ledger::Event::from_value(&json(body)).unwrap();
            let prev = seqs.insert(e.chain, e.seq).unwrap_or(0);
            assert_eq!(
                e.seq,
                prev + 1,
                "{engine:?}: chain {} out of seq order",
                e.chain
            );
            tree.push(leaf_hash(body.as_bytes()));
        }
        let checkpoints = sequencer.checkpoints().unwrap();
        assert!(checkpoints.len() > 2, "{engine:?}: the sequencer raced");
        for pair in checkpoints.windows(2) {
            let (a, b) = (&pair[0], &pair[1]);
            for c in [a, b] {
                assert_eq!(
                    merkle::root_at(&mut tree, c.size).unwrap(),
                    c.root,
                    "{engine:?}"
                );
            }
            let proof = sequencer.consistency_proof(a.size, b.size).unwrap();
            merkle::verify_consistency(a.size, b.size, &proof, &a.root, &b.root).unwrap();
        }
        let first = &checkpoints[0];
        sequencer
            .audit_verify_checkpoint(&first.note, &verifiers())
            .unwrap();
    }
}

/// On PostgreSQL the sequencer waits for the writers in flight without a lock that writers
/// wait for. Writer A holds a row; writer B inserted an event (so the sequencer waits for it)
/// and waits for A's row; then A inserts. Had the sequencer locked the events table, A would
/// be queued behind that lock: a cycle that only PostgreSQL's deadlock check ends, after
/// `deadlock_timeout` (1 s by default, every writer stalled that long), by moving A ahead.
/// The deadlock check is put off here, so that with the table locked, A's insert is still
/// waiting when its statement timeout ends it. Both writers go on, and the checkpoint is made
/// once they are done.
#[test]
fn the_sequencer_holds_no_writer_back() {
    const EVENT: &str = "INSERT INTO ledger_events (chain, seq, at, tenant, task, kind, body, \
                         digest, task_prev) VALUES (0, $1, 0, 't', NULL, 'x', '{}', 'x', 0)";
    let pause = || std::thread::sleep(std::time::Duration::from_millis(300));
    for engine in engines() {
        if engine != Engine::Postgres {
            continue;
        }
        let db = Db::fresh(engine);
        db.sql(
            "DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET deadlock_timeout = %L', \
             current_database(), '60s'); END $$",
        );
        let l = db.open_logged();
        whole_lifecycle(&l, "job-0", "d0", "w");
        db.sql("CREATE TABLE held (id int PRIMARY KEY); INSERT INTO held VALUES (1)");
        let connect = || postgres::Client::connect(&db.url, postgres::NoTls).unwrap();
        let mut a = connect();
        a.batch_execute("SET statement_timeout = '10s'; BEGIN")
            .unwrap();
        a.query("SELECT id FROM held WHERE id = 1 FOR UPDATE", &[])
            .unwrap();
        std::thread::scope(|s| {
            let b = s.spawn(|| {
                let mut b = connect();
                b.batch_execute("BEGIN").unwrap();
                b.execute(EVENT, &[&1_000_001_i64]).unwrap();
                let held = b.query("SELECT id FROM held WHERE id = 1 FOR UPDATE", &[]);
                b.batch_execute("ROLLBACK").unwrap();
                held.map(|_| ())
            });
            pause(); // B holds the events' lock and waits for A
            let sequencer = s.spawn(|| l.checkpoint());
            pause(); // the sequencer waits for B
            let inserted = a.execute(EVENT, &[&1_000_002_i64]).map(|_| ());
            a.batch_execute("ROLLBACK").unwrap();
            assert!(inserted.is_ok(), "A's insert: {inserted:?}");
            let held = b.join().unwrap();
            assert!(held.is_ok(), "B, waiting for A's row: {held:?}");
            assert_eq!(sequencer.join().unwrap().unwrap().size, 4);
        });
    }
}

/// A version 6 ledger (no Merkle log) with events upgrades in place: its first checkpoint
/// holds every old event, and opening finds the new tables protected.
#[test]
fn a_version_6_ledger_is_upgraded_in_place() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let l = db.open();
        for i in 0..2 {
            whole_lifecycle(&l, &format!("job-{i}"), &format!("d{i}"), "worker-1");
        }
        let audit = l.audit_export().unwrap();
        drop(l);
        downgrade_to_v6(&db);
        let l = db.open_logged();
        assert_eq!(
            l.audit_export().unwrap(),
            audit,
            "{engine:?}: nothing recorded"
        );
        assert_eq!(
            db.texts("SELECT CAST(max(version) AS TEXT) FROM ledger_schema"),
            vec![vec![Some("11".to_owned())]]
        );
        let c = l.checkpoint().unwrap();
        assert_eq!(c.size, 8, "{engine:?}");
        assert_eq!(c.root, tree_of(&bodies(&db)).root());
        l.audit_verify_checkpoint(&c.note, &verifiers()).unwrap();
        let old = actionseal_core::ledger::task_id("tenant-a", "job-0", "req-1");
        assert_eq!(l.task_inclusion_proofs(&old, None).unwrap().len(), 4);
        assert!(db.sql_fails("DELETE FROM ledger_leaves"), "{engine:?}");
    }
}

/// A checkpoint's RFC 3161 token, asked for once the checkpoint is signed, may be set once;
/// nothing else of a checkpoint changes, and the triggers that allow it are the ledger's.
#[test]
fn a_checkpoints_token_is_set_once() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let (l, _) = kept(&db);
        drop(l);
        let token = match engine {
            Engine::Sqlite => "X'3082'",
            Engine::Postgres => "'\\x3082'::bytea",
        };
        let set = format!("UPDATE ledger_checkpoints SET timestamp = {token}");
        assert!(db.sql_fails(&format!("{set}, at = 1")), "{engine:?}");
        db.sql(&set);
        for sql in [
            set.as_str(),
            "UPDATE ledger_checkpoints SET timestamp = NULL",
        ] {
            assert!(db.sql_fails(sql), "{engine:?}: {sql}");
        }
        assert_eq!(
            audit_events(&db.open()).len(),
            12,
            "{engine:?}: nothing restored"
        );
    }
}

/// A trigger of the log's tables found missing or disabled is restored on open, and the
/// audit records it, as for the events'.
#[test]
fn the_logs_triggers_are_restored_and_recorded() {
    for engine in engines() {
        let cases: &[(&str, &str)] = match engine {
            Engine::Sqlite => &[
                (
                    "DROP TRIGGER ledger_nodes_no_delete",
                    "ledger_nodes_no_delete: missing",
                ),
                (
                    "DROP TRIGGER ledger_checkpoints_no_update;
                     CREATE TRIGGER ledger_checkpoints_no_update BEFORE UPDATE ON
                     ledger_checkpoints WHEN 0 BEGIN SELECT RAISE(ABORT, 'no'); END;",
                    "ledger_checkpoints_no_update: altered",
                ),
            ],
            Engine::Postgres => &[
                (
                    "ALTER TABLE ledger_leaves DISABLE TRIGGER ledger_leaves_no_change",
                    "ledger_leaves_no_change: disabled",
                ),
                (
                    "CREATE OR REPLACE FUNCTION ledger_checkpoints_stamp_once() RETURNS trigger
                     LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$",
                    "ledger_checkpoints_no_change: altered",
                ),
            ],
        };
        for (sql, found) in cases {
            let db = Db::fresh(engine);
            drop(kept(&db));
            db.sql(sql);
            let l = db.open();
            for sql in [
                "DELETE FROM ledger_nodes",
                "DELETE FROM ledger_leaves",
                "UPDATE ledger_checkpoints SET at = 1",
            ] {
                assert!(db.sql_fails(sql), "{engine:?}: {sql}");
            }
            let events = audit_events(&l);
            let last = events.last().unwrap();
            assert_eq!(str_field(last, "kind"), "append_only_restored");
            assert_eq!(
                field(last, "detail"),
                &json(&format!(r#"{{"problems": ["{found}"]}}"#)),
                "{engine:?}"
            );
        }
    }
}
