//! The permit check of the refund scenario against one fingerprint of the same action, in
//! one run. Goal: a full check (fingerprint of the presented action included) costs at most
//! 2x one fingerprint.
//!
//!   cargo bench -p actionseal-bench --bench check

use actionseal_bench::refund_check;
use actionseal_core::{check_approval, check_with, fingerprint, Approval};
use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;

fn bench(c: &mut Criterion) {
    let (approval, action, context) = refund_check();
    assert_eq!(
        check_with(Some(&approval), &action, &context)
            .outcome
            .as_str(),
        "permit"
    );
    let loaded = Approval::from_value(&approval).expect("the example approval loads");
    assert_eq!(
        check_approval(Some(&loaded), &action, &context)
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
    g.bench_function("check_approval(loaded approval, action, context)", |b| {
        b.iter(|| check_approval(Some(black_box(&loaded)), black_box(&action), &context))
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
