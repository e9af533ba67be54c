//! Inputs shared by the benchmarks and the profiling examples, so that both measure the same
//! thing.

use actionseal_core::ledger::Reported;
use actionseal_core::{
    canonicalize, parse, Action, ActionIds, Context, Contract, Object, Options, OwnedValue, Value,
};

use actionseal_core::tlog::note::SignerKey;
use actionseal_ledger::{ClaimOutcome, ClaimRequest, Ledger};

/// A file from `bench/payloads/`.
pub fn payload(name: &str) -> Vec<u8> {
    let path = format!("{}/payloads/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// About 1 MB: the 10 KB payload repeated under distinct keys `part-0000`, ...
pub fn one_megabyte() -> Vec<u8> {
    let ten_k = String::from_utf8(payload("10k.json")).expect("10k.json is UTF-8");
    let mut s = String::from("{");
    let mut i = 0;
    while s.len() < 1_000_000 {
        if i > 0 {
            s.push(',');
        }
        s.push_str(&format!("\"part-{i:04}\":{}", ten_k.trim()));
        i += 1;
    }
    s.push('}');
    s.into_bytes()
}

/// The refund scenario of `examples/refund/`: approval, presented action, and the trusted
/// context with its contract preloaded.
pub fn refund_check() -> (OwnedValue, OwnedValue, Context) {
    let json = |file: &str| {
        let path = format!("{}/../examples/refund/{file}", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        parse(&text, &Options::default())
            .unwrap_or_else(|e| panic!("{path}: {e}"))
            .into_owned()
    };
    let Value::Object(context) = json("context.json") else {
        panic!("the example context is not an object");
    };
    let fields = context
        .iter()
        .filter(|(k, _)| *k != "contract")
        .map(|(k, v)| (k.to_owned().into(), v.clone()))
        .collect();
    let fields = Value::Object(Object::from_entries(fields).expect("context fields"));
    let contract = Contract::from_value(&json("contract.json")).expect("contract");
    let context = Context::with_contract(&fields, Some(contract)).expect("context");
    (json("approval.json"), json("action.json"), context)
}

/// JSON text of this crate's own fixtures, parsed strictly.
pub fn json(text: &str) -> OwnedValue {
    parse(text.as_bytes(), &Options::default())
        .expect("bench JSON")
        .into_owned()
}

/// The refund lifecycles of the ledger benchmark and its profile: the contract of
/// `examples/refund/` (as a document, and compiled), the executor's trusted facts, and the
/// arguments every refund is proposed with.
pub struct Refund {
    pub contract: OwnedValue,
    compiled: Contract,
    pub facts: OwnedValue,
    args: OwnedValue,
}

impl Refund {
    pub fn new() -> Refund {
        Refund::under(json(include_str!("../../examples/refund/contract.json")))
    }

    /// The same refunds under another version of the refund contract (a batchable one).
    pub fn under(contract: OwnedValue) -> Refund {
        let facts = json(&format!(
            r#"{{"tenant": "tenant-a", "policy_version": "refund-policy-2026-08-01", "contract": {},
                "approver_authorized": {{"approver": "user:bob", "authorized": true}},
                "subject_authorized": {{"subject": "user:alice", "authorized": true}}}}"#,
            canonicalize(&contract)
        ));
        Refund {
            compiled: Contract::from_value(&contract).expect("contract"),
            contract,
            facts,
            args: json(r#"{"order_id": "order-17", "amount_minor": 2500, "currency": "USD"}"#),
        }
    }

    /// The refund action of job `job`, as the ledger and the naive lifecycles propose it.
    pub fn action(&self, job: &str) -> OwnedValue {
        let ids = ActionIds {
            tenant: "tenant-a",
            subject: "user:alice",
            job_id: job,
            request_id: "req-1",
            policy_version: "refund-policy-2026-08-01",
        };
        Action::build(&self.compiled, &self.args, &ids)
            .expect("action")
            .value()
            .clone()
    }
}

impl Default for Refund {
    fn default() -> Refund {
        Refund::new()
    }
}

/// One full task lifecycle of job `job`: proposed and decided through `deciding`, claimed and
/// completed through `executing` (the same ledger, or two on one database as two processes
/// would have).
pub fn lifecycle(deciding: &Ledger, executing: &Ledger, f: &Refund, job: &str) {
    let act = f.action(job);
    let t = deciding
        .propose(&act, &f.contract, "agent")
        .expect("propose");
    let now = deciding.now();
    let d = json(&format!(
        r#"{{"approval_id": "{}", "decision_id": "d-{job}", "job_id": "{job}", "request_id": "req-1",
            "action_digest": "{}", "decision": "approved", "approver": "user:bob",
            "decided_at": {now}, "expires_at": {}}}"#,
        t.approval_id.as_deref().unwrap_or(""),
        t.action_digest,
        now + 3_600_000
    ));
    deciding.decide(&d).expect("decide");
    let out = executing
        .claim(&ClaimRequest {
            task_id: &t.id,
            action: &act,
            facts: &f.facts,
            executor: "worker",
            lease_ms: 60_000,
            budget: None,
            proof: Default::default(),
        })
        .expect("claim");
    let ClaimOutcome::Claimed(c, _) = out else {
        panic!("not claimed: {}", out.result())
    };
    executing
        .complete(&t.id, c.fence, Reported::Succeeded, None, "worker")
        .expect("complete");
}

/// The key the benchmarks' ledgers sign their Merkle log's checkpoints with.
pub fn log_key() -> SignerKey {
    SignerKey::from_seed("bench.actionseal.example/log", &[7; 32]).expect("log key")
}

/// The median, lowest and highest of `v` (rounds of one measure); `v` is not empty.
pub fn median_and_range(mut v: Vec<f64>) -> (f64, f64, f64) {
    v.sort_by(|a, b| a.total_cmp(b));
    (v[v.len() / 2], v[0], v[v.len() - 1])
}

/// How long one side of a round runs: long enough to hold many calls, short enough that the
/// two sides of a round see the same machine.
pub const WINDOW: std::time::Duration = std::time::Duration::from_millis(40);

/// CPU microseconds per call of `f` over one window.
pub fn window(f: &mut dyn FnMut()) -> f64 {
    let (start, cpu) = (std::time::Instant::now(), cpu_seconds());
    let mut n = 0u64;
    while start.elapsed() < WINDOW {
        for _ in 0..16 {
            f();
        }
        n += 16;
    }
    (cpu_seconds() - cpu) * 1e6 / n as f64
}

/// The median of `v` (sorted in place); `v` is not empty.
pub fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// `lowest-highest` of `v`, to two places.
pub fn range(v: &[f64]) -> String {
    let (lo, hi) = v
        .iter()
        .fold((f64::MAX, f64::MIN), |(l, h), &x| (l.min(x), h.max(x)));
    format!("{lo:.2}-{hi:.2}")
}

/// Filters from the command line (`cargo bench --bench ledger -- normal`): a configuration
/// runs when its label contains one of them, or when there are none. Options (`--name=value`)
/// are not filters.
pub fn wanted(label: &str) -> bool {
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .map(|a| a.to_lowercase())
        .collect();
    filters.is_empty() || filters.iter().any(|f| label.to_lowercase().contains(f))
}

/// `--name=value` from the command line, or `default`.
pub fn option(name: &str, default: f64) -> f64 {
    let prefix = format!("--{name}=");
    std::env::args()
        .find_map(|a| a.strip_prefix(&prefix).and_then(|v| v.parse().ok()))
        .unwrap_or(default)
}

/// This thread's CPU time, in seconds: what `openssl speed` divides by, and what other
/// processes on a shared machine do not inflate.
pub fn cpu_seconds() -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec through a valid pointer.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}
