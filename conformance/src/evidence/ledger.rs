//! The ledger the evidence vectors are exported from: SQLite in memory, a manual clock, the
//! keys of the vectors, refunds decided every way a reviewer can, and an in-process witness.

use crate::decisions::{from_core, to_core};
use actionseal_core::evidence::Bundle;
use actionseal_core::ledger::{link_digest, Observed, Reported};
use actionseal_core::tlog::cosignature::Cosigner;
use actionseal_core::tlog::note::{SignerKey, VerifierKey};
use actionseal_core::tlog::witness::{add_checkpoint, Log};
use actionseal_core::{
    base64url_encode, sign_approval, sign_delegation, Action, Approval, Decision, DecisionInput,
    Digest, KeySet, ProofPolicy, SigningKey,
};
use actionseal_ledger::{
    Checkpoint, ClaimOutcome, ClaimRequest, Clock, Ledger, LedgerOptions, ManualClock, Tsa,
};
use serde_json::{json, Value as Json};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

/// 2025-11-30 10:00 UTC: when the ledger's clock starts.
pub(super) const T0: i64 = 1_764_496_800_000;
pub(super) const MINUTE: i64 = 60_000;
pub(super) const HOUR: i64 = 60 * MINUTE;
/// When the witness cosigns the first export (seconds); later ones a minute apart.
pub(super) const WITNESSED: u64 = 1_764_500_000;

/// The ledger's checkpoint key: the signer key of Go's `golang.org/x/mod/sumdb/note`
/// examples (example_test.go), a published test key.
const LOG_KEY: &str =
    "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz";

pub(super) fn service_key() -> SigningKey {
    SigningKey::from_seed(&[1; 32])
}

/// The approval key the ledger trusts, with an optional `valid_until` (ms).
pub(super) fn approval_keys(valid_until: Option<i64>) -> Json {
    approval_key_window(None, valid_until)
}

/// The approval key the ledger trusts, valid from `valid_from` until `valid_until` (ms), each
/// optional.
pub(super) fn approval_key_window(valid_from: Option<i64>, valid_until: Option<i64>) -> Json {
    let k = service_key();
    let mut entry = json!({"key": base64url_encode(k.public_key().as_bytes())});
    if let Some(f) = valid_from {
        entry["valid_from"] = json!(f);
    }
    if let Some(u) = valid_until {
        entry["valid_until"] = json!(u);
    }
    json!({"service_keys": {k.public_key().keyid(): entry}})
}

/// user:bob's passkey: an EdDSA credential (COSE alg -8) with a key from a fixed seed, for
/// the relying party below.
fn passkey_key() -> SigningKey {
    SigningKey::from_seed(&[2; 32])
}
const PASSKEY_ID: &[u8] = b"bob's passkey";
const RP_ID: &str = "refunds.example";
const ORIGIN: &str = "https://refunds.example";

/// The approval keys with user:bob's passkey and its WebAuthn relying party.
pub(super) fn passkey_keys() -> Json {
    let mut keys = approval_keys(None);
    // A COSE_Key (RFC 9053 §2.2): {1 (kty): 1 (OKP), 3 (alg): -8 (EdDSA), -1 (crv): 6
    // (Ed25519), -2 (x): the 32-byte public key}, in CBOR.
    let mut cose = vec![0xa4, 0x01, 0x01, 0x03, 0x27, 0x20, 0x06, 0x21, 0x58, 0x20];
    cose.extend_from_slice(passkey_key().public_key().as_bytes());
    keys["passkeys"] = json!({base64url_encode(PASSKEY_ID):
        {"public_key": base64url_encode(&cose), "approver": "user:bob"}});
    keys["webauthn"] = json!({"rp_id": RP_ID, "origins": [ORIGIN]});
    keys
}

/// `record` approved with user:bob's passkey, as a browser's WebAuthn assertion would
/// (WebAuthn Level 3 §7.2): clientDataJSON naming the record's fingerprint as its challenge,
/// authenticator data with UP and UV set, the signature over both.
fn passkey_approved(record: &actionseal_core::OwnedValue) -> Result<Json, String> {
    let challenge = base64url_encode(actionseal_core::fingerprint(record).as_bytes());
    let client = format!(
        r#"{{"type":"webauthn.get","challenge":"{challenge}","origin":"{ORIGIN}","crossOrigin":false}}"#
    );
    // rpIdHash, flags (UP 0x01 | UV 0x04), signCount 1.
    let mut auth = Digest::of(RP_ID.as_bytes()).as_bytes().to_vec();
    auth.push(0x05);
    auth.extend_from_slice(&1u32.to_be_bytes());
    let mut signed = auth.clone();
    signed.extend_from_slice(Digest::of(client.as_bytes()).as_bytes());
    let signature = passkey_key().sign(&signed);
    let mut v = from_core(record)?;
    v["passkey"] = json!({
        "credential_id": base64url_encode(PASSKEY_ID),
        "authenticator_data": base64url_encode(&auth),
        "client_data_json": base64url_encode(client.as_bytes()),
        "signature": base64url_encode(&signature),
    });
    Ok(v)
}

pub(super) fn witness(seed: u8, name: &str) -> Cosigner {
    Cosigner::new(SignerKey::from_seed(name, &[seed; 32]).expect("witness key"))
}

pub(super) fn log_signer() -> SignerKey {
    SignerKey::parse(LOG_KEY).expect("log key")
}

pub(super) fn log_verifier() -> String {
    log_signer().verifier().to_string()
}

fn contract() -> Json {
    serde_json::from_str(include_str!("../../../examples/refund/contract.json")).expect("contract")
}

/// The trust of the y_ vectors: the ledger's key, the witness (quorum 1), the approval key.
pub(super) fn trust() -> Json {
    json!({
        "ledger_keys": [{"key": log_verifier()}],
        "witnesses": {"keys": [witness(9, "witness.example").verifier().to_string()], "quorum": 1},
        "approval_keys": approval_keys(None),
    })
}

/// The fixture's clock: a [`ManualClock`], read `ahead` ms ahead of it once when set (as a
/// server whose verification read a clock running fast).
struct Skewed {
    clock: ManualClock,
    ahead: Arc<AtomicI64>,
}

impl Clock for Skewed {
    fn now_ms(&self) -> i64 {
        self.clock.now_ms() + self.ahead.swap(0, Ordering::SeqCst)
    }
}

/// A ledger in memory on `clock`, signing checkpoints with [`LOG_KEY`], verifying decisions
/// with `keys`, its proven decisions and checkpoints time-stamped by `tsa` when given.
fn open(clock: Skewed, tsa: Option<Tsa>, keys: &Json) -> Result<Ledger, String> {
    let keys = KeySet::from_value(&to_core(keys)?).map_err(|e| e.to_string())?;
    Ledger::open_with(
        "sqlite::memory:",
        LedgerOptions {
            clock: Arc::new(clock),
            proof: Some(ProofPolicy::new(false, keys)),
            checkpoint_signer: Some(log_signer()),
            // The tokens of the vectors are kept or made apart (see tokens.rs).
            tsa,
            ..LedgerOptions::default()
        },
    )
    .map_err(|e| e.to_string())
}

/// A refund of 2500 minor units (above the example's approval threshold) for `job` under
/// `contract`.
fn refund(contract: &Json, job: &str) -> Result<Json, String> {
    let c = actionseal_core::Contract::from_value(&to_core(contract)?).map_err(s)?;
    let ids = actionseal_core::ActionIds {
        tenant: "tenant-a",
        subject: "user:alice",
        job_id: job,
        request_id: "req-1",
        policy_version: "refund-policy-2026-08-01",
    };
    let args = json!({"order_id": "order-17", "amount_minor": 2500, "currency": "USD"});
    from_core(
        Action::build(&c, &to_core(&args)?, &ids)
            .map_err(s)?
            .value(),
    )
}

/// The example contract, its approval a quorum of any two approvers.
pub(super) fn quorum_contract() -> Json {
    let mut c = contract();
    c["approval"] = json!({"when": "always", "quorum": {"approvers": 2}});
    c
}

pub(super) fn s(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// How a task's approval is decided.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Decided {
    /// An approval record signed with the service key.
    Signed,
    /// A bare decision envelope (no proof).
    Bare,
    /// Rejected (bare).
    Rejected,
    /// Signed by user:bob on behalf of user:carol, through her signed delegation link.
    Delegated,
    /// Two signed approvals under a contract that needs two approvers.
    Quorum,
    /// Amended by a reviewer (1500 minor units), then approved with a signed record.
    Amended,
    /// Approved with user:bob's passkey (see [`passkey_keys`]).
    Passkey,
    /// Signed, and verified as it arrived by a clock read a minute ahead of the one that
    /// dates its event: `verified_at` after the event's `at`.
    VerifiedAhead,
}

/// The ledger of the vectors and its clock.
pub(super) struct Fixture {
    l: Ledger,
    clock: ManualClock,
    ahead: Arc<AtomicI64>,
    cosigned: u64,
}

impl Fixture {
    pub(super) fn new() -> Result<Fixture, String> {
        Fixture::with(None, &approval_keys(None))
    }

    /// The ledger verifying decisions with `keys`, its proven decisions and checkpoints
    /// time-stamped by `tsa` when given.
    pub(super) fn with(tsa: Option<Tsa>, keys: &Json) -> Result<Fixture, String> {
        let clock = ManualClock::new(T0);
        let ahead = Arc::new(AtomicI64::new(0));
        let skewed = Skewed {
            clock: clock.clone(),
            ahead: Arc::clone(&ahead),
        };
        Ok(Fixture {
            l: open(skewed, tsa, keys)?,
            clock,
            ahead,
            cosigned: WITNESSED,
        })
    }

    /// Proposes the refund of `job`, decides it, and unless rejected claims it and completes
    /// it with `reported`; returns the task's id.
    pub(super) fn task(
        &self,
        job: &str,
        decided: Decided,
        reported: Reported,
    ) -> Result<String, String> {
        let contract = if decided == Decided::Quorum {
            quorum_contract()
        } else {
            contract()
        };
        let contract_core = to_core(&contract)?;
        let act = refund(&contract, job)?;
        let t = self
            .l
            .propose(&to_core(&act)?, &contract_core, "agent:7")
            .map_err(s)?;
        let (t, act, proposed_digest) = if decided == Decided::Amended {
            let mut amended = act.clone();
            amended["args"]["amount_minor"] = json!(1500);
            let a = json!({"task_id": t.id, "amends": t.action_digest.to_string(),
                           "action": amended, "reviewer": "user:carol",
                           "reason": "the customer asked for less"});
            self.clock.advance(MINUTE).unwrap();
            let done = self.l.amend(&to_core(&a)?, &contract_core).map_err(s)?;
            (done.task, amended, Some(t.action_digest))
        } else {
            (t, act, None)
        };
        let approval_id = t.approval_id.clone().ok_or("no approval round")?;
        let action = Action::from_value(&to_core(&act)?).map_err(s)?;
        // Who decides: user:bob; on behalf of user:carol through her link when delegated;
        // user:bob and user:dave under the quorum.
        let link = sign_delegation(
            &to_core(
                &json!({"delegation_id": "dlg-bob", "delegator": "user:carol",
                "delegate": "user:bob", "tenant": "tenant-a", "tools": ["refund_create"],
                "not_before": 0, "not_after": 9_000_000_000_000_i64}),
            )?,
            &service_key(),
        )
        .map_err(s)?;
        let links = [link];
        let approvers: &[&str] = if decided == Decided::Quorum {
            &["user:bob", "user:dave"]
        } else {
            &["user:bob"]
        };
        for (n, approver) in approvers.iter().enumerate() {
            self.clock.advance(MINUTE).unwrap();
            let decision_id = format!("d-{job}-{n}");
            let delegated = decided == Decided::Delegated;
            let input = DecisionInput {
                approval_id: &approval_id,
                decision_id: &decision_id,
                decision: if decided == Decided::Rejected {
                    Decision::Rejected
                } else {
                    Decision::Approved
                },
                approver,
                decided_at: self.l.now(),
                expires_at: self.l.now() + HOUR,
                proposed_digest,
                role: None,
                on_behalf_of: delegated.then_some("user:carol"),
                delegation: delegated.then_some(&links[..]),
            };
            let record = Approval::decide(&action, &input).map_err(s)?;
            let presented = match decided {
                Decided::Bare | Decided::Rejected => {
                    // An envelope as a reviewer's tool posts it, without the action.
                    to_core(&json!({
                        "approval_id": approval_id, "decision_id": decision_id,
                        "job_id": t.job_id, "request_id": t.request_id,
                        "action_digest": t.action_digest.to_string(),
                        "decision": if decided == Decided::Rejected { "rejected" } else { "approved" },
                        "approver": approver, "decided_at": input.decided_at,
                        "expires_at": input.expires_at,
                    }))?
                }
                Decided::Passkey => to_core(&passkey_approved(record.value())?)?,
                _ => sign_approval(record.value(), &service_key()).map_err(s)?,
            };
            if decided == Decided::VerifiedAhead {
                // The ledger reads its clock once as the decision arrives (verified_at).
                self.ahead.store(MINUTE, Ordering::SeqCst);
            }
            self.l.decide(&presented).map_err(s)?;
        }
        if decided == Decided::Rejected {
            return Ok(t.id);
        }
        self.clock.advance(MINUTE).unwrap();
        let authorized: Vec<Json> = ["user:bob", "user:carol", "user:dave"]
            .iter()
            .map(|a| json!({"approver": a, "authorized": true}))
            .collect();
        let revoked = json!([{"delegation": link_digest(&links[0]).to_string(), "revoked": false}]);
        let facts = json!({
            "tenant": "tenant-a", "policy_version": "refund-policy-2026-08-01", "contract": contract,
            "approver_authorized": authorized,
            "subject_authorized": {"subject": "user:alice", "authorized": true},
            "delegations_revoked": revoked,
        });
        let facts = to_core(&facts)?;
        let act = to_core(&act)?;
        let out = self
            .l
            .claim(&ClaimRequest {
                task_id: &t.id,
                action: &act,
                facts: &facts,
                executor: "worker-1",
                lease_ms: HOUR,
                budget: None,
                proof: Default::default(),
            })
            .map_err(s)?;
        let ClaimOutcome::Claimed(c, _) = out else {
            return Err(format!("{job}: not claimed: {}", out.result()));
        };
        self.clock.advance(MINUTE).unwrap();
        let unknown = matches!(reported, Reported::Unknown);
        self.l
            .complete(&t.id, c.fence, reported, None, "worker-1")
            .map_err(s)?;
        if unknown {
            // The executor timed out; the business system says it ran.
            self.clock.advance(MINUTE).unwrap();
            self.l
                .reconcile(&t.id, Observed::Succeeded, None, "user:ops")
                .map_err(s)?;
        }
        Ok(t.id)
    }

    /// Proposes three refunds of `job` as one per-item batch under the example contract made
    /// batchable, approves the batch (user:bob; bare, or [`Decided::Signed`] with a record
    /// signed by the service key; [`Decided::Quorum`]: bare decisions of user:bob, then
    /// user:dave, under the quorum contract), and claims and completes item 1; returns item
    /// 1's task id.
    pub(super) fn batch_item(&self, job: &str, decided: Decided) -> Result<String, String> {
        let mut contract = match decided {
            Decided::Quorum => quorum_contract(),
            _ => contract(),
        };
        contract["batch"] = json!({"max_items": 10});
        let c = actionseal_core::Contract::from_value(&to_core(&contract)?).map_err(s)?;
        let actions = (0..3)
            .map(|i| {
                let ids = actionseal_core::ActionIds {
                    tenant: "tenant-a",
                    subject: "user:alice",
                    job_id: job,
                    request_id: &format!("req-{i}"),
                    policy_version: "refund-policy-2026-08-01",
                };
                let args = json!({"order_id": format!("order-{i}"), "amount_minor": 2500,
                                  "currency": "USD"});
                let built = Action::build(&c, &to_core(&args)?, &ids).map_err(s)?;
                Ok(built.value().clone())
            })
            .collect::<Result<Vec<_>, String>>()?;
        let contract_core = to_core(&contract)?;
        let b = self
            .l
            .propose_batch(
                &actions,
                &contract_core,
                actionseal_core::batch::Semantics::PerItem,
                "agent:7",
            )
            .map_err(s)?;
        let approvers: &[&str] = match decided {
            Decided::Quorum => &["user:bob", "user:dave"],
            _ => &["user:bob"],
        };
        for (n, approver) in approvers.iter().enumerate() {
            self.clock.advance(MINUTE).unwrap();
            // The first decision's id is the one a batch decided alone has.
            let decision_id = match n {
                0 => format!("d-{job}"),
                n => format!("d-{job}-{n}"),
            };
            let drafted = b
                .decision(&actionseal_ledger::DecisionDraft {
                    decision_id: &decision_id,
                    decision: Decision::Approved,
                    approver,
                    decided_at: self.l.now(),
                    expires_at: self.l.now() + HOUR,
                })
                .map_err(s)?;
            let presented = match decided {
                Decided::Signed => {
                    sign_approval(drafted.record.value(), &service_key()).map_err(s)?
                }
                _ => drafted.envelope.to_value(),
            };
            self.l.decide_batch(&presented).map_err(s)?;
        }
        self.clock.advance(MINUTE).unwrap();
        let item = b.items[1].0.clone();
        let authorized: Vec<Json> = approvers
            .iter()
            .map(|a| json!({"approver": a, "authorized": true}))
            .collect();
        let facts = to_core(&json!({
            "tenant": "tenant-a", "policy_version": "refund-policy-2026-08-01", "contract": contract,
            "approver_authorized": authorized,
            "subject_authorized": {"subject": "user:alice", "authorized": true},
        }))?;
        let out = self
            .l
            .claim_item(&ClaimRequest {
                task_id: &item,
                action: &actions[1],
                facts: &facts,
                executor: "worker-1",
                lease_ms: HOUR,
                budget: None,
                proof: Default::default(),
            })
            .map_err(s)?;
        let ClaimOutcome::Claimed(claimed, _) = out else {
            return Err(format!("{job}: item 1 not claimed: {}", out.result()));
        };
        self.clock.advance(MINUTE).unwrap();
        self.l
            .complete_item(&item, claimed.fence, Reported::Succeeded, None, "worker-1")
            .map_err(s)?;
        Ok(item)
    }

    /// The bundle of `task`, its checkpoint cosigned by `cosigner` a minute after the last.
    pub(super) fn export(&mut self, task: &str, cosigner: &Cosigner) -> Result<Json, String> {
        self.clock.advance(MINUTE).unwrap();
        let at = self.cosigned;
        self.cosigned += 60;
        let l = &self.l;
        let b = l
            .evidence_with(task, "auditor:carol", None, |c| cosign(l, c, cosigner, at))
            .map_err(s)?;
        bundle_json(&b)
    }
}

fn bundle_json(b: &Bundle) -> Result<Json, String> {
    from_core(&b.to_value())
}

/// Has `checkpoint` cosigned by `cosigner` at `seconds` (an in-process witness that has seen
/// nothing of this log before).
fn cosign(
    l: &Ledger,
    checkpoint: Checkpoint,
    cosigner: &Cosigner,
    seconds: u64,
) -> actionseal_core::Result<Checkpoint> {
    let request = l.witness_request(0)?;
    let log = Log::new(
        request.checkpoint().origin(),
        vec![VerifierKey::parse(&log_verifier())?],
    );
    let cosigned =
        add_checkpoint(&log, None, &request, cosigner, seconds).map_err(|r| r.error().clone())?;
    l.add_cosignatures(
        checkpoint.size,
        &cosigner.verifier(),
        &[cosigned.cosignature],
    )
}
