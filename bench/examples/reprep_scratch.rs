use rusqlite::{Connection, StatementStatus};
const SQL: &str = "SELECT l.id, l.current, l.generation, l.totals, l.breaker, l.updated_at, b.id, b.lineage, b.tenant, b.semantics, b.header, b.digest, b.proposed_digest, '' AS items, '' AS proposed_items, b.amendments, b.state, b.approval_id, b.decision_id, b.record, b.proof, b.contract, b.proposer, b.created_at, b.updated_at, i.task_id, i.lineage, i.idx, i.batch, i.proof FROM ledger_batch_items i JOIN ledger_batch_lineages l ON l.id = i.lineage JOIN ledger_batches b ON b.id = l.current WHERE i.task_id = ?1";
fn main() {
    let dir = std::env::temp_dir().join(format!("reprep{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("l.db");
    let url = format!("sqlite://{}", path.display());
    drop(actionseal_ledger::Ledger::open(&url).unwrap());
    let c = Connection::open(&path).unwrap();
    let args: Vec<String> = std::env::args().collect();
    let has = |a: &str| args.iter().any(|x| x == a);
    for k in ["x1", "x2", "x3", "x4"] {
        if has("tx") {
            c.execute_batch("BEGIN IMMEDIATE").unwrap();
        }
        if has("cached") {
            let mut st = c.prepare_cached(SQL).unwrap();
            let _ = st.query_map([k], |_| Ok(())).unwrap().count();
            println!(
                "{} reprepares (cached)",
                st.get_status(StatementStatus::RePrepare)
            );
        } else {
            let mut st = c.prepare(SQL).unwrap();
            let _ = st.query_map([k], |_| Ok(())).unwrap().count();
            let _ = st.query_map(["zz"], |_| Ok(())).unwrap().count();
            println!("{} reprepares", st.get_status(StatementStatus::RePrepare));
        }
        if has("tx") {
            c.execute_batch("COMMIT").unwrap();
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}
