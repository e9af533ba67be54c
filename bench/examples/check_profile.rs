//! Runs the refund permit check many times, for profilers:
//!   cargo run --release -p actionseal-bench --example check_profile -- 100000
use actionseal_core::{check_with, parse, Context, Contract, Object, Options, OwnedValue, Value};

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

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000);
    let (approval, action) = (json("approval.json"), json("action.json"));
    let Value::Object(ctx) = json("context.json") else {
        return;
    };
    let fields = Object::from_entries(
        ctx.iter()
            .filter(|(k, _)| *k != "contract")
            .map(|(k, v)| (k.to_owned().into(), v.clone()))
            .collect(),
    )
    .expect("context");
    let contract = Contract::from_value(&json("contract.json")).expect("contract");
    let context = Context::with_contract(&Value::Object(fields), Some(contract)).expect("context");
    let t = std::time::Instant::now();
    for _ in 0..n {
        std::hint::black_box(check_with(Some(&approval), &action, &context));
    }
    println!("{:?} per check", t.elapsed() / n as u32);
}
