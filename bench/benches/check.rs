//! The permit check of the refund scenario against one fingerprint of the same action, in
//! one run. Goal: a full check (fingerprint of the presented action included) costs at most
//! 2x one fingerprint.
//!
//!   cargo bench -p actionseal-bench --bench check

use actionseal_core::{check_with, fingerprint, parse, Context, Contract, Options, OwnedValue};
use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;

fn json(path: &str) -> OwnedValue {
    let text = std::fs::read(format!(
        "{}/../examples/refund/{path}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .expect("example file");
    parse(&text, &Options::default())
        .expect("example JSON")
        .into_owned()
}

fn bench(c: &mut Criterion) {
    let approval = json("approval.json");
    let action = json("action.json");
    let context_doc = json("context.json");
    let contract = Contract::from_value(&json("contract.json")).expect("contract");
    let fields = match &context_doc {
        actionseal_core::Value::Object(o) => actionseal_core::Value::Object(
            actionseal_core::Object::from_entries(
                o.iter()
                    .filter(|(k, _)| *k != "contract")
                    .map(|(k, v)| (k.to_owned().into(), v.clone()))
                    .collect(),
            )
            .expect("context"),
        ),
        _ => unreachable!("the example context is an object"),
    };
    let context = Context::with_contract(&fields, Some(contract)).expect("context");
    assert_eq!(
        check_with(Some(&approval), &action, &context)
            .outcome
            .as_str(),
        "permit"
    );
    let mut g = c.benchmark_group("refund");
    g.bench_function("fingerprint(action)", |b| {
        b.iter(|| fingerprint(black_box(&action)))
    });
    g.bench_function("check_with(approval, action, context)", |b| {
        b.iter(|| check_with(Some(black_box(&approval)), black_box(&action), &context))
    });
    g.bench_function("check_with(...).to_value()", |b| {
        b.iter(|| check_with(Some(black_box(&approval)), black_box(&action), &context).to_value())
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30).warm_up_time(std::time::Duration::from_millis(500)).measurement_time(std::time::Duration::from_secs(2));
    targets = bench
}
criterion_main!(benches);
