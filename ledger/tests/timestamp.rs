//! Trusted time (RFC 3161, issue 26), on both engines: with a time-stamping authority, every
//! checkpoint carries a token over its text and every proven decision a token over its
//! proof, each verified before it is kept, and both verify with core and with `openssl ts`.
//! A TSA that is down fails a checkpoint (kept without a token, stamped by the next call) but
//! never a decision; a TSA that answers garbage, a token for other data or a token from an
//! untrusted root is refused with core's codes.
//!
//! The live TSA is testing/tsa/server.py (`openssl ts` behind HTTP): the tests that need it
//! say so and pass without openssl. The others answer with a fake TSA, core's fixtures.

mod common;

use actionseal_core::ledger::Event;
use actionseal_core::timestamp::{verify_token, TimestampTrust};
use actionseal_core::tlog::note::Note;
use actionseal_core::{
    base64url_decode, base64url_encode, canonicalize, sign_approval, Action, Approval, Code,
    Decision, DecisionInput, KeySet, ProofPolicy, SigningKey,
};
use actionseal_ledger::{Ledger, LedgerOptions, Task, Tsa};
use common::*;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

const TSA_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../testing/tsa");
const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../core/tests/timestamp");

/// A throwaway CA made once for the whole run (`tsa.sh init`); `None` without openssl.
fn ca() -> Option<&'static Path> {
    static CA: OnceLock<Option<PathBuf>> = OnceLock::new();
    CA.get_or_init(|| {
        let has = |tool: &str, arg: &str| {
            Command::new(tool)
                .arg(arg)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
        };
        if !has("openssl", "version") || !has("python3", "--version") {
            eprintln!("openssl or python3 is missing: the tests with a live TSA are skipped");
            return None;
        }
        let dir = temp_dir().join("ca");
        let made = Command::new(format!("{TSA_DIR}/tsa.sh"))
            .arg("init")
            .arg(&dir)
            .stdout(Stdio::null())
            .status()
            .unwrap();
        assert!(made.success(), "tsa.sh init failed");
        Some(dir)
    })
    .as_deref()
}

/// testing/tsa/server.py on a free port, stopped when dropped.
struct LiveTsa {
    child: Child,
    url: String,
    ca: &'static Path,
}

impl LiveTsa {
    /// A live TSA, or `None` (said once) without openssl.
    fn start() -> Option<LiveTsa> {
        let ca = ca()?;
        let mut child = Command::new("python3")
            .arg(format!("{TSA_DIR}/server.py"))
            .arg(ca)
            .args(["--port", "0"])
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = line
            .trim()
            .strip_prefix("listening on ")
            .unwrap()
            .to_owned();
        Some(LiveTsa { child, url, ca })
    }

    fn roots(&self) -> Vec<Vec<u8>> {
        vec![std::fs::read(self.ca.join("root.der")).unwrap()]
    }

    fn tsa(&self) -> Tsa {
        Tsa::new(&self.url, self.roots(), None).unwrap()
    }

    /// Whether `openssl ts -verify` accepts `token` as a time-stamp of `data`.
    fn openssl_verifies(&self, token: &[u8], data: &[u8]) -> bool {
        let dir = temp_dir();
        let (t, d) = (dir.join("token.tst"), dir.join("data"));
        std::fs::write(&t, token).unwrap();
        std::fs::write(&d, data).unwrap();
        Command::new("openssl")
            .args(["ts", "-verify", "-token_in", "-in"])
            .arg(&t)
            .arg("-data")
            .arg(&d)
            .arg("-CAfile")
            .arg(self.ca.join("root.pem"))
            .arg("-untrusted")
            .arg(self.ca.join("intermediate.pem"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .unwrap()
            .success()
    }
}

impl Drop for LiveTsa {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A TSA that answers every request with `answer` (an HTTP answer, head and body).
fn fake_tsa(answer: Vec<u8>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut s) = stream else { return };
            read_request(&mut s);
            let _ = s.write_all(&answer);
        }
    });
    url
}

/// Reads an HTTP request's head and its Content-Length of body.
fn read_request(s: &mut TcpStream) {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") && s.read(&mut byte).unwrap_or(0) == 1 {
        head.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&head).to_lowercase();
    let length = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(0);
    let mut body = vec![0u8; length];
    let _ = s.read_exact(&mut body);
}

/// A `200 application/timestamp-reply` answer carrying `body`.
fn reply(body: &[u8]) -> Vec<u8> {
    let mut a = format!(
        "HTTP/1.0 200 OK\r\nContent-Type: application/timestamp-reply\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    a.extend_from_slice(body);
    a
}

/// A URL where nothing listens.
fn down_tsa() -> String {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    format!("http://127.0.0.1:{port}/")
}

/// A TSA trusting core's fixture root (testing/tsa's tokens in core/tests/timestamp).
fn fixture_tsa(url: &str) -> Tsa {
    let root = std::fs::read(format!("{FIXTURES}/root.der")).unwrap();
    Tsa::new(url, vec![root], None)
        .unwrap()
        .with_timeout(Duration::from_secs(2))
}

fn service_key() -> SigningKey {
    SigningKey::from_seed(&[1; 32])
}

fn keys() -> KeySet {
    let k = service_key();
    KeySet::from_value(&json(&format!(
        r#"{{"service_keys": {{"{}": {{"key": "{}"}}}}}}"#,
        k.public_key().keyid(),
        base64url_encode(k.public_key().as_bytes()),
    )))
    .unwrap()
}

/// A ledger that signs checkpoints, verifies signed decisions, and asks `tsa`.
fn open(db: &Db, tsa: Option<Tsa>) -> Ledger {
    let options = LedgerOptions {
        checkpoint_signer: Some(actionseal_core::tlog::note::SignerKey::parse(LOG_KEY).unwrap()),
        proof: Some(ProofPolicy::new(false, keys())),
        tsa,
        ..LedgerOptions::default()
    };
    Ledger::open_with(&db.url, options).unwrap()
}

/// The checkpoint's text: what its token covers.
fn text(note: &str) -> String {
    Note::parse(note.as_bytes()).unwrap().text().to_owned()
}

/// A proposed refund decided by a record signed with the service key; the task's decided
/// event.
fn signed_decision(l: &Ledger, job: &str) -> Event {
    let task: Task = l
        .propose(&refund(job, "req-1", 2500), &refund_contract(), "agent")
        .unwrap();
    let action = Action::from_value(task.action.value()).unwrap();
    let now = l.now();
    let record = Approval::decide(
        &action,
        &DecisionInput {
            approval_id: task.approval_id.as_deref().unwrap(),
            decision_id: &format!("d-{job}"),
            decision: Decision::Approved,
            approver: "user:bob",
            decided_at: now,
            expires_at: now + HOUR,
            proposed_digest: None,
            role: None,
            on_behalf_of: None,
            delegation: None,
        },
    )
    .unwrap();
    let envelope = sign_approval(record.value(), &service_key()).unwrap();
    l.decide(&envelope).unwrap();
    let (_, events) = l.task_history(&task.id).unwrap();
    events
        .into_iter()
        .find(|e| e.kind.as_str() == "decided")
        .unwrap()
}

/// The decided event's token and the bytes it covers (the canonical proof).
fn decision_token(e: &Event) -> Option<(Vec<u8>, Vec<u8>)> {
    let detail = e.detail.as_object().unwrap();
    let token = detail.get("timestamp")?.as_str().unwrap();
    let proof = canonicalize(detail.get("proof").unwrap());
    Some((base64url_decode(token).unwrap(), proof.into_bytes()))
}

#[test]
fn checkpoints_carry_tokens_that_verify_with_openssl() {
    let Some(live) = LiveTsa::start() else { return };
    for engine in engines() {
        let db = Db::fast(engine);
        let l = open(&db, Some(live.tsa()));
        whole_lifecycle(&l, "job-1", "d1", "worker-1");
        let c = l.checkpoint().unwrap();
        let token = c.timestamp.clone().expect("a token");
        let data = text(&c.note);
        let trust = TimestampTrust {
            roots: live.roots(),
            ..TimestampTrust::default()
        };
        let stamp = verify_token(&token, data.as_bytes(), &trust).unwrap();
        assert!((stamp.gen_time_ms - c.at).abs() < 60_000, "{engine:?}");
        assert!(live.openssl_verifies(&token, data.as_bytes()), "{engine:?}");
        assert!(
            !live.openssl_verifies(&token, c.note.as_bytes()),
            "{engine:?}: the text only"
        );
        // Kept as returned, and not asked again while the tree has not grown.
        assert_eq!(l.checkpoints().unwrap(), vec![c.clone()], "{engine:?}");
        assert_eq!(l.checkpoint().unwrap(), c, "{engine:?}");
        whole_lifecycle(&l, "job-2", "d2", "worker-1");
        let next = l.checkpoint().unwrap();
        assert_ne!(next.timestamp, c.timestamp, "{engine:?}");
        assert!(live.openssl_verifies(
            next.timestamp.as_deref().unwrap(),
            text(&next.note).as_bytes()
        ));
        // A handle without a TSA reads the tokens too.
        assert_eq!(
            db.open().checkpoints().unwrap(),
            vec![c, next],
            "{engine:?}"
        );
        assert!(l.audit_verify().unwrap().broken.is_none(), "{engine:?}");
    }
}

#[test]
fn a_tsa_that_is_down_fails_the_checkpoint_and_the_next_call_stamps_it() {
    let Some(live) = LiveTsa::start() else { return };
    for engine in engines() {
        let db = Db::fast(engine);
        let down = Tsa::new(&down_tsa(), live.roots(), None).unwrap();
        let l = open(&db, Some(down));
        whole_lifecycle(&l, "job-1", "d1", "worker-1");
        let e = l.checkpoint().unwrap_err();
        assert_eq!(e.code(), Code::TimestampUnavailable, "{engine:?}: {e}");
        assert!(e.message().contains("stored and signed"), "{e}");
        // Kept, signed, without a token; proofs work as for any checkpoint.
        let kept = l.checkpoints().unwrap();
        assert_eq!(
            (kept.len(), kept[0].size, kept[0].timestamp.is_none()),
            (1, 4, true)
        );
        assert_eq!(
            l.inclusion_proof(actionseal_ledger::EventRef::Id(1), None)
                .unwrap()
                .size,
            4
        );
        // The TSA is back: the next call stamps that same checkpoint.
        let c = open(&db, Some(live.tsa())).checkpoint().unwrap();
        assert_eq!((c.size, &c.note), (4, &kept[0].note), "{engine:?}");
        assert!(live.openssl_verifies(c.timestamp.as_deref().unwrap(), text(&c.note).as_bytes()));
    }
}

#[test]
fn a_tsa_answering_no_valid_token_is_refused_with_its_code() {
    let fixture = |name: &str| std::fs::read(format!("{FIXTURES}/{name}")).unwrap();
    let cases = [
        // Bytes that are no TimeStampResp.
        (reply(b"garbage"), Code::TimestampInvalid),
        // A token (openssl's, from a trusted root) for other data, another request's nonce.
        (reply(&fixture("rsa.tsr")), Code::TimestampMismatch),
        // A rejection.
        (reply(&fixture("rejected.tsr")), Code::TimestampInvalid),
        // A signature that does not verify.
        (reply(&fixture("bad-signature.tsr")), Code::TimestampInvalid),
        // Not a time-stamp reply at all.
        (
            b"HTTP/1.0 200 OK\r\nContent-Type: text/html\r\n\r\n<html></html>".to_vec(),
            Code::TimestampUnavailable,
        ),
        (
            b"HTTP/1.0 503 Busy\r\nContent-Length: 0\r\n\r\n".to_vec(),
            Code::TimestampUnavailable,
        ),
    ];
    for engine in engines() {
        for (answer, code) in &cases {
            let db = Db::fast(engine);
            let l = open(&db, Some(fixture_tsa(&fake_tsa(answer.clone()))));
            whole_lifecycle(&l, "job-1", "d1", "worker-1");
            let e = l.checkpoint().unwrap_err();
            assert_eq!(e.code(), *code, "{engine:?}: {e}");
            // Nothing unverified is kept: the checkpoint has no token.
            let kept = l.checkpoints().unwrap();
            assert_eq!(
                (kept.len(), kept[0].timestamp.is_none()),
                (1, true),
                "{engine:?}"
            );
            // A decision is recorded all the same, without a token.
            let decided = signed_decision(&l, "job-2");
            assert!(decision_token(&decided).is_none(), "{engine:?}");
        }
    }
}

#[test]
fn a_token_from_a_root_not_configured_is_untrusted() {
    let Some(live) = LiveTsa::start() else { return };
    for engine in engines() {
        let db = Db::fast(engine);
        let l = open(&db, Some(fixture_tsa(&live.url)));
        whole_lifecycle(&l, "job-1", "d1", "worker-1");
        let e = l.checkpoint().unwrap_err();
        assert_eq!(e.code(), Code::TimestampUntrusted, "{engine:?}: {e}");
    }
}

#[test]
fn proven_decisions_carry_tokens_over_their_proof() {
    let Some(live) = LiveTsa::start() else { return };
    for engine in engines() {
        let db = Db::fast(engine);
        let l = open(&db, Some(live.tsa()));
        let before = l.now();
        let decided = signed_decision(&l, "job-1");
        let (token, proof) = decision_token(&decided).expect("a token");
        let trust = TimestampTrust {
            roots: live.roots(),
            ..TimestampTrust::default()
        };
        let stamp = verify_token(&token, &proof, &trust).unwrap();
        let verified_at = decided
            .detail
            .as_object()
            .unwrap()
            .get("verified_at")
            .unwrap();
        assert!(
            stamp.gen_time_ms >= before - 1000 && stamp.gen_time_ms <= l.now() + 1000,
            "{engine:?}: genTime {} near verified_at {verified_at:?}",
            stamp.gen_time_ms
        );
        assert!(live.openssl_verifies(&token, &proof), "{engine:?}");
        // A bare decision has no proof to stamp.
        let t = l
            .propose(&refund("job-2", "req-1", 2500), &refund_contract(), "agent")
            .unwrap();
        l.decide(&decision(&t, "d-bare", "approved", l.now(), HOUR))
            .unwrap();
        let (_, events) = l.task_history(&t.id).unwrap();
        let bare = events
            .iter()
            .find(|e| e.kind.as_str() == "decided")
            .unwrap();
        assert!(decision_token(bare).is_none());
        // The audit (chains and replay) holds with the token in the event.
        assert!(l.audit_verify().unwrap().broken.is_none(), "{engine:?}");
        // With the TSA down, a decision is still recorded, without a token.
        let down = Tsa::new(&down_tsa(), live.roots(), None).unwrap();
        let l = open(&db, Some(down));
        assert!(
            decision_token(&signed_decision(&l, "job-3")).is_none(),
            "{engine:?}"
        );
    }
}

/// An evidence bundle carries the checkpoint's token and the decision's: with the TSA's root
/// in the verifier's trust, the checkpoint's time is the token's, and the approval key is
/// judged at the decision token's time instead of the ledger's (here a year apart: the
/// ledger's clock is set back, the TSA's is not), so a key retired in between no longer
/// vouches for the decision; without the root, the ledger's time is used and said so.
#[test]
fn bundles_carry_both_tokens_and_keys_are_judged_at_them() {
    use actionseal_core::evidence::verify_evidence;
    let Some(live) = LiveTsa::start() else { return };
    let b64 = |der: &[u8]| {
        use std::fmt::Write as _;
        // Standard base64 (the trust's roots), written here to stay independent of core.
        const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let mut s = String::new();
        for c in der.chunks(3) {
            let n = c.iter().fold(0u32, |n, b| n << 8 | u32::from(*b)) << (8 * (3 - c.len()));
            for i in 0..=c.len() {
                s.push(A[(n >> (18 - 6 * i) & 63) as usize] as char);
            }
            for _ in c.len()..3 {
                let _ = write!(s, "=");
            }
        }
        s
    };
    for engine in engines() {
        let db = Db::fast(engine);
        let clock = actionseal_ledger::ManualClock::new(T0);
        let options = LedgerOptions {
            clock: std::sync::Arc::new(clock.clone()),
            checkpoint_signer: Some(
                actionseal_core::tlog::note::SignerKey::parse(LOG_KEY).unwrap(),
            ),
            proof: Some(ProofPolicy::new(false, keys())),
            tsa: Some(live.tsa()),
            ..LedgerOptions::default()
        };
        let l = Ledger::open_with(&db.url, options).unwrap();
        let decided = signed_decision(&l, "job-1");
        let task = decided.task.clone().unwrap();
        let bundle = l.evidence(&task, "auditor:carol", None).unwrap();
        assert!(bundle.checkpoint.timestamp.is_some(), "{engine:?}");
        let bundle = json(&canonicalize(&bundle.to_value()));
        let k = service_key();
        let trust = |roots: bool, until: i64| {
            let roots = if roots {
                format!(r#", "tsa_roots": ["{}"]"#, b64(&live.roots()[0]))
            } else {
                String::new()
            };
            json(&format!(
                r#"{{"ledger_keys": [{{"key": "{LOG_VERIFIER}"}}]{roots},
                    "approval_keys": {{"service_keys": {{"{}": {{"key": "{}", "valid_until": {until}}}}}}}}}"#,
                k.public_key().keyid(),
                base64url_encode(k.public_key().as_bytes()),
            ))
        };
        let year = 365 * 24 * HOUR;
        let t = verify_evidence(&bundle, &trust(true, T0 + 10 * year))
            .unwrap_or_else(|e| panic!("{engine:?}: {e}"))
            .to_value();
        let text = canonicalize(&t);
        assert!(
            text.contains(r#""time_source":"rfc3161""#),
            "{engine:?}: {text}"
        );
        assert!(
            text.contains(r#""verified_by":"rfc3161""#),
            "{engine:?}: {text}"
        );
        // Retired after the ledger recorded the decision, before the TSA stamped it.
        let e = verify_evidence(&bundle, &trust(true, T0 + HOUR)).unwrap_err();
        assert_eq!(e.path(), "/decisions/0", "{engine:?}: {e}");
        let t = verify_evidence(&bundle, &trust(false, T0 + HOUR))
            .unwrap_or_else(|e| panic!("{engine:?}: {e}"))
            .to_value();
        let text = canonicalize(&t);
        assert!(
            text.contains(r#""verified_by":"ledger""#),
            "{engine:?}: {text}"
        );
        assert!(text.contains(r#""time_source":null"#), "{engine:?}: {text}");
    }
}
