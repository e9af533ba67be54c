//! Starts the example witness on 127.0.0.1:0 and drives it over HTTP as a log would.

use actionseal_core::tlog::checkpoint::Checkpoint;
use actionseal_core::tlog::merkle::{leaf_hash, MemoryTree};
use actionseal_core::tlog::note::{generate_key, Note, SignerKey, VerifierKey};
use actionseal_core::tlog::witness::{parse_cosignatures, parse_latest_size, Request};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::{env, fs, process};

const ORIGIN: &str = "log.example/audit";

/// A running witness, stopped when dropped.
struct Server {
    child: Child,
    address: String,
    verifier: VerifierKey,
}

impl Server {
    fn start(dir: &Path) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_witness"))
            .arg(dir.join("config.json"))
            .stdout(Stdio::piped())
            .spawn()
            .expect("start the witness");
        let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
        let mut next = || lines.next().expect("a line").expect("read");
        let address = next()
            .strip_prefix("listening on ")
            .expect("address")
            .to_owned();
        let verifier = VerifierKey::parse(next().strip_prefix("verifier ").expect("key")).unwrap();
        Server {
            child,
            address,
            verifier,
        }
    }

    /// (status, content type, body) of a request.
    fn send(&self, method: &str, path: &str, body: &str) -> (u16, String, String) {
        let mut stream = TcpStream::connect(&self.address).expect("connect");
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: witness\r\nContent-Length: {}\r\n\r\n",
            body.len()
        );
        stream.write_all(head.as_bytes()).unwrap();
        stream.write_all(body.as_bytes()).unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).expect("response");
        let (head, body) = response.split_once("\r\n\r\n").expect("head");
        let status = head[9..12].parse().expect("status");
        let content_type = head
            .lines()
            .find_map(|l| l.strip_prefix("Content-Type: "))
            .unwrap_or_default();
        (status, content_type.to_owned(), body.to_owned())
    }
}

impl Server {
    /// The status of an add-checkpoint request.
    fn post(&self, body: &str) -> u16 {
        self.send("POST", "/add-checkpoint", body).0
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A log: its tree and key.
struct Log {
    origin: &'static str,
    tree: MemoryTree,
    key: SignerKey,
}

/// A log named `origin` with the key of seed `[seed; 32]`.
fn log_of(origin: &'static str, seed: u8) -> Log {
    let key = SignerKey::from_seed(origin, &[seed; 32]).unwrap();
    Log {
        origin,
        tree: MemoryTree::new(),
        key,
    }
}

impl Log {
    /// The add-checkpoint body for the tree grown to `size`, with a proof from `old`.
    fn body(&mut self, old: u64, size: u64) -> String {
        while self.tree.size() < size {
            let n = self.tree.size();
            self.tree.push(leaf_hash(format!("event {n}").as_bytes()));
        }
        let checkpoint = Checkpoint::new(self.origin, size, self.tree.root()).unwrap();
        let note = Note::signed(&checkpoint.to_string(), &self.key).unwrap();
        Request::from_tree(&mut self.tree, old, note)
            .unwrap()
            .to_string()
    }
}

fn setup() -> (PathBuf, Log) {
    let dir = env::temp_dir().join(format!("actionseal-witness-{}", process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    let (witness_key, _) = generate_key("witness.example/w1", &[2; 32]).unwrap();
    fs::write(dir.join("witness.key"), witness_key).unwrap();
    let log = log_of(ORIGIN, 1);
    let config = serde_json::json!({
        "listen": "127.0.0.1:0",
        "signer_key_file": dir.join("witness.key"),
        "state_file": dir.join("state.jsonl"),
        "logs": [{"origin": ORIGIN, "keys": [log.key.verifier().to_string()]}],
    });
    fs::write(dir.join("config.json"), config.to_string()).unwrap();
    (dir, log)
}

#[test]
fn cosigns_consistent_checkpoints_and_refuses_the_rest() {
    let (dir, mut log) = setup();
    let server = Server::start(&dir);
    let (status, _, health) = server.send("GET", "/", "");
    assert_eq!(
        (status, health.as_str()),
        (
            200,
            "actionseal example witness witness.example/w1: 1 logs\n"
        )
    );

    // A first checkpoint (old 0), then a consistent one: each answer is a cosignature line
    // that verifies with the witness's key over the checkpoint the log signed.
    for (old, size) in [(0, 3), (3, 10)] {
        let body = log.body(old, size);
        let (status, _, line) = server.send("POST", "/add-checkpoint", &body);
        assert_eq!(status, 200, "{line}");
        let mut note = Request::parse(body.as_bytes()).unwrap().note().clone();
        for cosignature in parse_cosignatures(line.as_bytes()).unwrap() {
            note.push(cosignature).unwrap();
        }
        let verified = note.verify(std::slice::from_ref(&server.verifier)).unwrap();
        assert!(verified[0].timestamp.unwrap() > 1_700_000_000);
    }

    // Inconsistent: a proof altered in its first hash.
    let request = Request::parse(log.body(10, 12).as_bytes()).unwrap();
    let mut proof = request.proof().to_vec();
    proof[0][0] ^= 1;
    let altered = Request::new(10, proof, request.note().clone()).unwrap();
    assert_eq!(server.post(&altered.to_string()), 422);

    // Stale: the log believes the witness is at 3; it answers its latest size.
    let (status, content_type, size) = server.send("POST", "/add-checkpoint", &log.body(3, 12));
    assert_eq!((status, content_type.as_str()), (409, "text/x.tlog.size"));
    assert_eq!(parse_latest_size(size.as_bytes()).unwrap(), 10);

    // Signed by a key the witness does not know for the log; an origin it does not know.
    assert_eq!(server.post(&log_of(ORIGIN, 3).body(0, 1)), 403);
    assert_eq!(server.post(&log_of("other.example/log", 4).body(0, 1)), 404);
    assert_eq!(server.post("old x\n"), 400);
    assert_eq!(server.send("DELETE", "/add-checkpoint", "").0, 405);

    // The state survives a restart: the latest size is still 10.
    drop(server);
    let server = Server::start(&dir);
    let (status, _, size) = server.send("POST", "/add-checkpoint", &log.body(3, 12));
    assert_eq!((status, size.as_str()), (409, "10\n"));
    assert_eq!(server.post(&log.body(10, 12)), 200);
    let state = fs::read_to_string(dir.join("state.jsonl")).unwrap();
    assert_eq!(state.lines().count(), 3);
    let _ = fs::remove_dir_all(&dir);
}
