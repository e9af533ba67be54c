use super::*;
use crate::tlog::merkle::{leaf_hash, MemoryTree};
use crate::tlog::note::SignerKey;

const ORIGIN: &str = "log.example/audit";

struct Setup {
    tree: MemoryTree,
    log_key: SignerKey,
    log: Log,
    witness: Cosigner,
}

fn setup() -> Setup {
    let log_key = SignerKey::from_seed(ORIGIN, &[1; 32]).unwrap();
    Setup {
        tree: MemoryTree::new(),
        log: Log::new(ORIGIN, vec![log_key.verifier()]),
        log_key,
        witness: Cosigner::new(SignerKey::from_seed("witness.example/w", &[2; 32]).unwrap()),
    }
}

impl Setup {
    /// Grows the tree to `size` leaves and asks from `old` with the tree's own proof.
    fn request(&mut self, old: u64, size: u64) -> Request {
        while self.tree.size() < size {
            let n = self.tree.size();
            self.tree.push(leaf_hash(format!("event {n}").as_bytes()));
        }
        let checkpoint = Checkpoint::new(ORIGIN, size, self.tree.root()).unwrap();
        let note = Note::signed(&checkpoint.to_string(), &self.log_key).unwrap();
        Request::from_tree(&mut self.tree, old, note).unwrap()
    }

    fn add(&self, latest: Option<Latest>, request: &Request) -> Result<Cosigned, Refusal> {
        add_checkpoint(&self.log, latest, request, &self.witness, 1_700_000_000)
    }
}

fn refused(r: Result<Cosigned, Refusal>) -> (u16, Code) {
    let r = r.unwrap_err();
    (r.status(), r.error().code())
}

#[test]
fn cosigns_a_first_checkpoint_then_a_consistent_one() {
    let mut s = setup();
    let first = s.request(0, 3);
    let one = s.add(None, &first).unwrap();
    assert_eq!(one.latest.size, 3);
    // The cosignature verifies with the witness's key, over the checkpoint the log signed.
    let mut note = first.note().clone();
    note.push(one.cosignature.clone()).unwrap();
    let witness = [s.witness.verifier()];
    assert_eq!(
        note.verify(&witness).unwrap()[0].timestamp,
        Some(1_700_000_000)
    );

    let mut latest = one.latest;
    for (old, new) in [(3, 7), (7, 8), (8, 16), (16, 16)] {
        let next = s.request(old, new);
        latest = s.add(Some(latest), &next).unwrap().latest;
        let root = *next.checkpoint().root();
        assert_eq!(latest, Latest { size: new, root });
    }
}

#[test]
fn refuses_as_the_specification_says() {
    let mut s = setup();
    let first = s.request(0, 4);
    let latest = s.add(None, &first).unwrap().latest;

    // 409: the old size is not the witness's latest; the body is that size.
    let r = s.request(0, 6);
    let stale = s.add(Some(latest), &r).unwrap_err();
    assert_eq!((stale.status(), stale.latest_size()), (409, Some(4)));
    assert_eq!(stale.error().code(), Code::CheckpointConflict);
    assert_eq!(
        (stale.content_type(), stale.body().as_str()),
        ("text/x.tlog.size", "4\n")
    );
    let r = s.request(4, 6);
    assert_eq!(refused(s.add(None, &r)), (409, Code::CheckpointConflict));

    // 422: a proof that does not verify, a fork at the same size, a proof from 0.
    let good = s.request(4, 6);
    let mut proof = good.proof().to_vec();
    proof[0][0] ^= 1;
    let bad = Request::new(4, proof, good.note().clone()).unwrap();
    assert_eq!(
        refused(s.add(Some(latest), &bad)),
        (422, Code::ConsistencyProofInvalid)
    );
    let forked = Latest {
        size: 6,
        root: [0; 32],
    };
    let r = s.request(6, 6);
    assert_eq!(
        refused(s.add(Some(forked), &r)),
        (422, Code::ConsistencyProofInvalid)
    );
    let from_zero = Request::new(0, vec![[0; 32]], first.note().clone()).unwrap();
    assert_eq!(
        refused(s.add(None, &from_zero)),
        (422, Code::ConsistencyProofInvalid)
    );
    let zero = Checkpoint::new(ORIGIN, 0, [0; 32]).unwrap();
    let zero = Note::signed(&zero.to_string(), &s.log_key).unwrap();
    let zero = Request::new(0, vec![], zero).unwrap();
    assert_eq!(
        refused(s.add(None, &zero)),
        (422, Code::ConsistencyProofInvalid)
    );

    // 400: the old size above the checkpoint's.
    let back = Request::new(6, vec![], first.note().clone()).unwrap();
    assert_eq!(refused(s.add(None, &back)), (400, Code::CheckpointInvalid));

    // 403: signed by another key; a trusted key's signature that does not verify.
    let stranger = SignerKey::from_seed(ORIGIN, &[3; 32]).unwrap();
    let foreign = Note::signed(first.note().text(), &stranger).unwrap();
    let foreign = Request::new(0, vec![], foreign).unwrap();
    assert_eq!(
        refused(s.add(None, &foreign)),
        (403, Code::CheckpointUntrusted)
    );
    let text = first.note().to_string().replacen("\n4\n", "\n5\n", 1);
    let altered = Request::new(0, vec![], Note::parse(text.as_bytes()).unwrap()).unwrap();
    assert_eq!(
        refused(s.add(None, &altered)),
        (403, Code::CheckpointUntrusted)
    );

    // 404: another origin.
    let logs = [Log::new("other.example/log", vec![s.log_key.verifier()])];
    assert_eq!(Log::find(&logs, &first).unwrap_err().status(), 404);
    assert_eq!(
        refused(add_checkpoint(&logs[0], None, &first, &s.witness, 1)),
        (404, Code::CheckpointUntrusted)
    );
    assert_eq!(
        Log::find(std::slice::from_ref(&s.log), &first).unwrap(),
        &s.log
    );
}

#[test]
fn requests_read_and_write_the_c2sp_body() {
    let mut s = setup();
    let _ = s.request(0, 5);
    let request = s.request(5, 13);
    let body = request.to_string();
    assert!(body.starts_with("old 5\n"));
    let read = Request::parse(body.as_bytes()).unwrap();
    assert_eq!(read, request);
    assert_eq!(read.to_string(), body);

    let note = request.note().to_string();
    let hash = "PlRNCrwHpqhGrupue0L7gxbjbMiKA9temvuZZDDpkaw=\n";
    let cases = [
        (format!("old 05\n\n{note}"), 4),
        (format!("old -1\n\n{note}"), 4),
        (format!("new 5\n\n{note}"), 0),
        (format!("old 5\n{note}"), 9), // no blank line: the origin is read as a hash ("." at 9)
        (
            format!("old 5\n{}\n{note}", hash.repeat(MAX_PROOF_LINES + 1)),
            6 + 45 * MAX_PROOF_LINES,
        ),
        (
            format!("old 5\n{}\n{note}", hash.replace("kaw=", "kaw")),
            6 + 43,
        ),
        (format!("old 5\n\n{}", note.trim_end()), 7 + note.len() - 1),
        ("old 5".to_owned(), 5),
    ];
    for (body, offset) in cases {
        let e = Request::parse(body.as_bytes()).unwrap_err();
        assert_eq!(e.code(), Code::CheckpointInvalid, "{body:?}");
        assert_eq!(e.offset(), Some(offset), "{body:?}: {e}");
    }
    let long = vec![[0; 32]; MAX_PROOF_LINES + 1];
    assert!(Request::new(0, long, request.note().clone()).is_err());
    let refusal = Refusal::malformed(Request::parse(b"old").unwrap_err());
    assert_eq!(
        (refusal.status(), refusal.content_type()),
        (400, "text/plain; charset=utf-8")
    );
}

#[test]
fn reads_the_c2sp_example_request() {
    // c2sp.org/tlog-witness, "Example request body".
    let body = "old 20852014\n\
        PlRNCrwHpqhGrupue0L7gxbjbMiKA9temvuZZDDpkaw=\n\
        jrJZDmY8Y7SyJE0MWLpLozkIVMSMZcD5kvuKxPC3swk=\n\
        5+pKlUdi2LeF/BcMHBn+Ku6yhPGNCswZZD1X/6QgPd8=\n\
        /6WVhPs2CwSsb5rYBH5cjHV/wSmA79abXAwhXw3Kj/0=\n\
        \n\
        example.com/behind-the-sofa\n\
        20852163\n\
        CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n\
        \n\
        — example.com/behind-the-sofa Az3grlgtzPICa5OS8npVmf1Myq/5IZniMp+ZJurmRDeOoRDe4URYN7u5/Zhcyv2q1gGzGku9nTo+zyWE+xeMcTOAYQ8=\n\
        — example.com/behind-the-sofa opLqBQsREYCgu6xQkYQwJr9fo45a62DN9EdmHXnZdXNqlcVGlCum2Wks+49/V6267UEjw6QUXTS5Rovnzv++qbSzm9Q=\n";
    let request = Request::parse(body.as_bytes()).unwrap();
    assert_eq!(request.old_size(), 20852014);
    assert_eq!(request.proof().len(), 4);
    assert_eq!(request.proof()[3][0], 0xff);
    assert_eq!(request.checkpoint().size(), 20852163);
    assert_eq!(request.note().signatures().len(), 2);
    assert_eq!(request.to_string(), body);
}

#[test]
fn a_log_reads_the_witness_answers() {
    let mut s = setup();
    let request = s.request(0, 2);
    let cosigned = s.add(None, &request).unwrap();
    let lines = parse_cosignatures(cosigned.cosignature.to_string().as_bytes()).unwrap();
    assert_eq!(lines, std::slice::from_ref(&cosigned.cosignature));
    let mut note = request.note().clone();
    note.push(lines[0].clone()).unwrap();
    assert!(note.verify(&[s.witness.verifier()]).is_ok());

    let request = s.request(0, 3);
    let stale = s.add(Some(cosigned.latest), &request).unwrap_err();
    assert_eq!(parse_latest_size(stale.body().as_bytes()).unwrap(), 2);

    for (body, offset) in [("", 0), ("— w AAAA\n", 6), ("x\n", 0), ("— w\n", 4)] {
        let e = parse_cosignatures(body.as_bytes()).unwrap_err();
        assert_eq!(
            (e.code(), e.offset()),
            (
                Code::CheckpointInvalid,
                Some(offset).filter(|_| !body.is_empty())
            ),
            "{body:?}"
        );
    }
    for body in ["2", "02\n", "2\n3\n", "-1\n"] {
        assert_eq!(
            parse_latest_size(body.as_bytes()).unwrap_err().code(),
            Code::CheckpointInvalid,
            "{body:?}"
        );
    }
}

mod edits {
    use super::*;
    use proptest::prelude::*;

    /// A valid request body: old size, a proof, a note with a log signature and a cosignature.
    fn body() -> Vec<u8> {
        let mut s = setup();
        let _ = s.request(0, 5);
        let request = s.request(5, 13);
        let mut note = request.note().clone();
        let checkpoint = request.checkpoint().clone();
        note.push(s.witness.cosign(&checkpoint, 1_700_000_000).unwrap())
            .unwrap();
        Request::new(5, request.proof().to_vec(), note)
            .unwrap()
            .to_string()
            .into_bytes()
    }

    proptest! {
        /// Strict readers: whatever edit a body survives, it renders back to exactly the
        /// bytes read (one text per request), and no edit makes a reader panic.
        #[test]
        fn accepted_edits_render_back_unchanged(
            edits in prop::collection::vec((any::<prop::sample::Index>(), 0u8..4, any::<u8>()), 1..4)
        ) {
            let mut bytes = body();
            for (at, kind, byte) in edits {
                if bytes.is_empty() {
                    break;
                }
                let i = at.index(bytes.len());
                let byte = [b'\n', b' ', b'=', b'A', b'+', b'0', 0xE2, byte][usize::from(byte % 8)];
                match kind {
                    0 => bytes[i] = byte,
                    1 => bytes.insert(i, byte),
                    2 => { bytes.remove(i); }
                    _ => bytes.truncate(i),
                }
            }
            if let Ok(request) = Request::parse(&bytes) {
                prop_assert_eq!(request.to_string().into_bytes(), bytes.clone());
            }
            let _ = parse_cosignatures(&bytes);
            let _ = parse_latest_size(&bytes);
            if let Ok(text) = std::str::from_utf8(&bytes) {
                if let Ok(c) = Checkpoint::parse(text) {
                    prop_assert_eq!(c.to_string(), text);
                }
            }
        }
    }
}
