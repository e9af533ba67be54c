use actionseal_bench::json;
use actionseal_core::{Action, ActionIds, Contract};
use std::hint::black_box;
fn main() {
    let payload = json(include_str!("../payloads/sensitive.json"));
    let member = |k: &str| payload.pointer(&format!("/{k}")).expect(k).clone();
    let marked = Contract::from_value(&member("marked")).unwrap();
    let args = member("args");
    let idsv = member("ids");
    let ids = ActionIds::from_value(&idsv).unwrap();
    let mut n = 0u8;
    let mut salt = move || { n = n.wrapping_add(1); [n; 16] };
    for _ in 0..5_000_000 { black_box(Action::commit(&marked, &args, &ids, &mut salt).unwrap()); }
}
