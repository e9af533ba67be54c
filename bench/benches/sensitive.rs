//! The cost of committing an action's sensitive values (issue 29), in interleaved rounds of
//! this thread's CPU time, as `benches/batch.rs` measures: a refund with three sensitive
//! fields (a card number, a customer's e-mail and phone; `payloads/sensitive.json`, which the
//! binding benches commit too) against the same refund under the same contract without
//! `sensitive`. Goal: at most 1.5x.
//!
//! Two rows: what a host calls (`Action::commit`: arguments validated, envelope built, three
//! disclosures made, committed, fingerprinted; against `Action::build`), and core's part alone
//! (an envelope built once committed and fingerprinted, against fingerprinting it). Salts come
//! from a counter here: the host's CSPRNG is the bindings' cost (their benches include it).
//!
//!   cargo bench -p actionseal-bench --bench sensitive
//!
//! Each row is the median and range over rounds of the per-round ratio, with both sides' µs.
//! Not a test: nothing here asserts a time (`-- --test` only checks both sides once).

use actionseal_bench::{json, median, range, window};
use actionseal_core::sensitive::{commit, SALT_BYTES};
use actionseal_core::{fingerprint, Action, ActionIds, Contract, OwnedValue};
use std::hint::black_box;

const ROUNDS: usize = 20;

fn main() {
    let quick = std::env::args().any(|a| a == "--test");
    // The refund every runtime's bench commits: `payloads/sensitive.json`.
    let payload = json(include_str!("../payloads/sensitive.json"));
    let member = |k: &str| payload.pointer(&format!("/{k}")).expect(k).clone();
    let contract = |k: &str| Contract::from_value(&member(k)).expect("contract");
    let (marked, plain, args, ids) = (
        contract("marked"),
        contract("plain"),
        member("args"),
        member("ids"),
    );
    let ids = ActionIds::from_value(&ids).expect("ids");
    let mut n = 0u8;
    let mut salt = move || {
        n = n.wrapping_add(1);
        [n; SALT_BYTES]
    };
    let (committed, disclosures) = Action::commit(&marked, &args, &ids, &mut salt).expect("commit");
    assert_eq!(disclosures.len(), 3, "three sensitive fields");
    assert_ne!(
        committed.digest(),
        Action::build(&plain, &args, &ids).expect("build").digest()
    );
    let envelope: OwnedValue = Action::build(&marked, &args, &ids)
        .expect("build")
        .value()
        .clone();
    let sensitive = marked.sensitive().expect("sensitive").clone();
    if quick {
        println!("sensitive: both sides run");
        return;
    }

    let mut host = |with: bool| -> f64 {
        if with {
            window(&mut || {
                black_box(Action::commit(&marked, &args, &ids, &mut salt).expect("commit"));
            })
        } else {
            window(&mut || {
                black_box(Action::build(&plain, &args, &ids).expect("build"));
            })
        }
    };
    let row = |name: &str, side: &mut dyn FnMut(bool) -> f64| {
        let (mut ratios, mut with, mut without) = (Vec::new(), Vec::new(), Vec::new());
        side(true);
        side(false);
        for _ in 0..ROUNDS {
            let (w, o) = (side(true), side(false));
            ratios.push(w / o);
            with.push(w);
            without.push(o);
        }
        let spread = range(&ratios);
        println!(
            "{name}: {:.2}x ({spread}), {:.2} µs with three sensitive fields, {:.2} µs without",
            median(&mut ratios),
            median(&mut with),
            median(&mut without)
        );
    };
    row("Action::commit against Action::build", &mut host);
    let mut m = 0u8;
    let mut core = |with: bool| -> f64 {
        if with {
            window(&mut || {
                let (v, d) = commit(&sensitive, &envelope, &mut || {
                    m = m.wrapping_add(1);
                    [m; SALT_BYTES]
                });
                black_box((fingerprint(&v), d));
            })
        } else {
            window(&mut || {
                black_box(fingerprint(&envelope));
            })
        }
    };
    row("commit + fingerprint against fingerprint", &mut core);
}
