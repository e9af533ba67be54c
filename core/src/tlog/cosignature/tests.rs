use super::signed::verify;
use super::*;
use crate::tlog::note::Note;

fn cosigner() -> Cosigner {
    Cosigner::new(SignerKey::from_seed("witness.example/w1", &[9; 32]).unwrap())
}

fn checkpoint() -> Checkpoint {
    Checkpoint::parse(
        "example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n",
    )
    .unwrap()
}

#[test]
fn a_real_witness_key_string_reads() {
    // A witness-network key (transparency-dev/formats' tests): type 0x04, its own key ID.
    let text = "remora.n621.de+da77ade7+BOvN63jn/bLvkieywe8R6UYAtVtNbZpXh34x7onlmtw2";
    let key = VerifierKey::parse(text).unwrap();
    assert_eq!(key.kind(), KeyType::Cosignature);
    assert_eq!(key.to_string(), text);
}

#[test]
fn signs_the_header_the_time_and_the_checkpoint() {
    let w = cosigner();
    let c = checkpoint();
    let sig = w.cosign(&c, 1679315147).unwrap();
    assert_eq!(sig.name(), "witness.example/w1");
    assert_eq!(sig.id(), w.id());
    assert_eq!(sig.bytes()[..8], 1679315147u64.to_be_bytes());
    let expected = [
        "cosignature/v1\ntime 1679315147\n",
        "example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n",
    ]
    .concat();
    assert_eq!(message(&c.to_string(), 1679315147), expected.as_bytes());
    let public = w.verifier();
    public
        .public_key()
        .verify(expected.as_bytes(), &sig.bytes()[8..])
        .unwrap();
    assert_eq!(
        verify(public.public_key(), &c.to_string(), sig.bytes()).unwrap(),
        1679315147
    );
}

#[test]
fn a_cosigned_note_verifies_with_the_witness_key_only() {
    let w = cosigner();
    let log = SignerKey::from_seed("example.com/behind-the-sofa", &[1; 32]).unwrap();
    let c = checkpoint();
    let mut n = Note::signed(&c.to_string(), &log).unwrap();
    n.push(w.cosign(&c, 1700000000).unwrap()).unwrap();
    let read = Note::parse(n.to_string().as_bytes()).unwrap();
    let witness = [w.verifier()];
    let verified = read.verify(&witness).unwrap();
    assert_eq!(verified[0].timestamp, Some(1700000000));
    // The same key as a plain Ed25519 (0x01) key has another key ID: ignored, so untrusted.
    let plain = [SignerKey::from_seed("witness.example/w1", &[9; 32])
        .unwrap()
        .verifier()];
    assert_eq!(
        read.verify(&plain).unwrap_err().code(),
        Code::CheckpointUntrusted
    );
    // Both the log's and the witness's signatures verify together.
    assert_eq!(
        read.verify(&[log.verifier(), w.verifier()]).unwrap().len(),
        2
    );
}

#[test]
fn altered_cosignatures_fail() {
    let w = cosigner();
    let c = checkpoint();
    let sig = w.cosign(&c, 1700000000).unwrap();
    let key = w.verifier();
    let text = c.to_string();
    let mut later = sig.bytes().to_vec();
    later[7] ^= 1; // another time
    let mut huge = sig.bytes().to_vec();
    huge[0] = 0x80; // above 2^63 - 1
    for bytes in [&later[..], &huge[..], &sig.bytes()[..8], &sig.bytes()[..71]] {
        let e = verify(key.public_key(), &text, bytes).unwrap_err();
        assert_eq!(e.code(), Code::InvalidSignature);
    }
    assert!(verify(key.public_key(), &text.replace("63\n", "64\n"), sig.bytes()).is_err());
    for t in [0, MAX_TIMESTAMP + 1] {
        assert_eq!(w.cosign(&c, t).unwrap_err().code(), Code::CheckpointInvalid);
    }
    assert!(w.cosign(&c, MAX_TIMESTAMP).is_ok());
}

#[test]
fn the_c2sp_example_line_has_the_layout() {
    // c2sp.org/tlog-cosignature's example: key ID, then the time of its example message
    // ("time 1679315147"), then 64 signature bytes.
    let line = "— witness.example.com/w1 jWbPPwAAAABkGFDLEZMHwSRaJNiIDoe9DYn/zXcrtPHeolMI5OWXEhZCB9dlrDJsX3b2oyin1nPZqhf5nNo0xUe+mbIUBkBIfZ+qnA==";
    let sig = Signature::parse_line(line, 0).unwrap();
    assert_eq!(sig.bytes().len(), 8 + 64);
    assert_eq!(sig.bytes()[..8], 1679315147u64.to_be_bytes());
    assert_eq!(format!("{sig}"), format!("{line}\n"));
}
