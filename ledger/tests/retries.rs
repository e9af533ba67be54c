//! The ledger counts each time an operation runs again, by reason: PostgreSQL names its
//! reasons (the `postgres` module's table), SQLite reports none.

mod common;

use common::*;

#[test]
fn retries_are_counted_by_reason() {
    for engine in engines() {
        let db = Db::fresh(engine);
        let (proposing, other) = (db.open(), db.open());
        let (contract, act) = (refund_contract(), refund("job-1", "req-1", 2500));
        let t = proposing.propose(&act, &contract, "agent").unwrap();
        // The same proposal from a ledger that did not write it: its first attempt inserts
        // without looking, meets the task, and runs again looking (a duplicate).
        let again = other.propose(&act, &contract, "agent").unwrap();
        assert_eq!(again.id, t.id, "{engine:?}");
        let (proposing, other) = (proposing.retries(), other.retries());
        match engine {
            Engine::Sqlite => assert!(proposing.is_empty() && other.is_empty(), "{engine:?}"),
            Engine::Postgres => {
                assert_eq!(proposing.len(), 10, "every reason is reported");
                assert!(proposing.values().all(|&n| n == 0), "{proposing:?}");
                let ran_again: Vec<_> = other.iter().filter(|(_, &n)| n > 0).collect();
                assert_eq!(ran_again, [(&"proposal_exists", &1)], "{other:?}");
            }
        }
    }
}
