//! Holding the shapes to core: every input shape is built into a sample that core's reader
//! must accept, and every field, left out or given a value of the wrong type, must make it
//! refuse; every output shape must have exactly the members core writes.

use super::ledger::all_shapes;
use super::shape_types::{all_fields, shape, Shape, Ty};
use super::shapes::shapes;
use super::{batch_probes, evidence_probes, ledger, ledger_probes, proof, quorum_probes};
use crate::decisions::json_value;
use actionseal_core::proof::{self as core_proof, Accept};
use actionseal_core::{
    check, Action, ActionIds, Approval, Contract, DecisionInput, KeySet, ProofPolicy, Registration,
    SigningKey,
};
use serde_json::{json, Map, Value as Json};

/// A value of type `ty` that core accepts there; `n` makes successive times increase.
fn sample(all: &[Shape], ty: &Ty, n: &mut i64) -> Json {
    *n += 1;
    match ty {
        Ty::Str | Ty::Identity => json!("x"),
        Ty::Digest => json!(format!("sha256:{}", "0".repeat(64))),
        // Sixteen zero bytes of salt, a pointer into the arguments and a value.
        Ty::Disclosure => {
            use base64::Engine;
            let text = r#"["AAAAAAAAAAAAAAAAAAAAAA","/args/x",1]"#;
            json!(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(text))
        }
        Ty::Millis => json!(*n),
        Ty::Int => json!(0),
        Ty::Bool => json!(true),
        Ty::OneOf(v) => json!(v[0]),
        Ty::Shape(s) => match ledger::unions().into_iter().find(|u| u.name == *s) {
            Some(u) => json!(u.members[0]),
            None => sample_object(all, shape(all, s), n),
        },
        Ty::List(t) => json!([sample(all, t, n)]),
        Ty::Object => json!({"type": "object"}),
        Ty::Unknown => json!(1),
        Ty::ContractOrDocument | Ty::Contract => {
            sample_object(all, shape(all, "ContractDocument"), n)
        }
        Ty::ApprovalRule => {
            json!({"when": [sample_object(all, shape(all, "ApprovalCondition"), n)]})
        }
        Ty::Nullable(_) => Json::Null,
        Ty::Map(_) => json!({}),
        Ty::Either(tys) => sample(all, &tys[0], n),
    }
}

fn sample_object(all: &[Shape], s: &Shape, n: &mut i64) -> Json {
    let mut m = Map::new();
    // Samples leave optional fields out (a nested `any`/`all` condition would only recurse),
    // except a condition's operator and operand, which the sample condition uses.
    // A breaker event's outcome too, which its sample kind needs.
    for f in all_fields(all, s).into_iter().filter(|f| {
        !f.optional
            || (s.name == "ApprovalCondition" && matches!(f.name, "op" | "value"))
            || (s.name, f.name) == ("BreakerEvent", "outcome")
    }) {
        let v = match (s.name, f.name) {
            // Operands that the sample's operator needs and its pointer names.
            ("ApprovalCondition", "pointer") => json!("/n"),
            ("ApprovalCondition", "value") => json!(1),
            // A quorum needs at least one approver.
            ("QuorumRule", "approvers") => json!(1),
            // A delegate is never its delegator.
            ("DelegationDocument", "delegate") => json!("y"),
            // Counts from 1; the heads file's one version.
            ("ClaimRequest" | "ClaimBatchRequest", "lease_ms")
            | ("AuditHead", "seq")
            | ("ExportedHeads", "version") => {
                json!(1)
            }
            _ => match proof_sample(all, s.name, f.name, &m)
                .or_else(|| batch_probes::sample(s.name, f.name))
            {
                Some(v) => v,
                None => sample(all, &f.ty, n),
            },
        };
        m.insert(f.name.into(), v);
    }
    Json::Object(m)
}

/// A sealed approval record: its `action_digest` is its sample action's fingerprint.
fn sealed_record(all: &[Shape]) -> Json {
    let mut record = sample_object(all, shape(all, "ApprovalRecord"), &mut 0);
    record["action_digest"] = json!(digest_of(&record["action"]));
    record
}

fn digest_of(v: &Json) -> String {
    actionseal_core::fingerprint(&json_value(&v.to_string())).to_string()
}

/// The value of a proof field that only real key material makes acceptable: keys, signatures,
/// assertions, registrations (`proof.rs`), given the fields sampled before it (`so_far`).
fn proof_sample(
    all: &[Shape],
    shape: &str,
    field: &str,
    so_far: &Map<String, Json>,
) -> Option<Json> {
    Some(match (shape, field) {
        ("Ed25519Jwk" | "Ed25519PrivateJwk", "x" | "d") => proof::jwk_member(field),
        ("ServiceKey", "key") => proof::jwk_member("x"),
        ("PasskeyKey", "public_key") => {
            json!(actionseal_core::base64url_encode(&proof::cose_key()))
        }
        ("RelyingParty", "rp_id") => json!(proof::RP),
        ("RelyingParty", "origins") => json!([proof::RP]),
        ("SignedEnvelope", _) => proof::envelope(&sealed_record(all))[field].clone(),
        ("EnvelopeSignature", _) => {
            proof::envelope(&sealed_record(all))["signatures"][0][field].clone()
        }
        ("PasskeyAssertion", _) => proof::assertion(&sealed_record(all))[field].clone(),
        ("PasskeyApprovedRecord", "action_digest") => json!(digest_of(so_far.get("action")?)),
        ("PasskeyApprovedRecord", "passkey") => proof::assertion(&Json::Object(so_far.clone())),
        ("PasskeyRegistration", _) => proof::registration().0[field].clone(),
        _ => return None,
    })
}

/// A value of another type than `ty`, which core must refuse there; `None` where any value
/// is allowed.
fn wrong(ty: &Ty) -> Option<Json> {
    Some(match ty {
        Ty::Unknown => return None,
        Ty::Str | Ty::Identity | Ty::Digest | Ty::Disclosure | Ty::OneOf(_) => json!(7),
        Ty::Millis | Ty::Int => json!("7"),
        Ty::Bool => json!(0),
        Ty::Shape(_) | Ty::Object | Ty::ContractOrDocument | Ty::Contract => json!("x"),
        Ty::List(_) | Ty::ApprovalRule => json!(true),
        Ty::Nullable(_) => json!(false),
        Ty::Map(_) => json!("x"),
        Ty::Either(_) => json!(true),
    })
}

/// Whether core's reader of `name` accepts `v`.
fn core_accepts(name: &str, v: &Json) -> Result<(), String> {
    let text = v.to_string();
    let value = crate::decisions::core_value(&text).map_err(|e| e.to_string())?;
    let r = match name {
        "ContractDocument" => Contract::from_value(&value).map(drop),
        "ApprovalCondition" => {
            let doc = json!({"tool": "t", "version": "1", "effect": "read", "cost_minor": 0,
                "args": {"type": "object"}, "approval": {"when": [v]}});
            return core_accepts("ContractDocument", &doc);
        }
        // A quorum is read as part of a contract's approval rule.
        "QuorumRule" => {
            let doc = json!({"tool": "t", "version": "1", "effect": "read", "cost_minor": 0,
                "args": {"type": "object"}, "approval": {"when": "always", "quorum": v}});
            return core_accepts("ContractDocument", &doc);
        }
        "ActionIds" => ActionIds::from_value(&value).map(drop),
        "ActionEnvelope" => Action::from_value(&value).map(drop),
        "DecisionInput" => DecisionInput::from_value(&value).map(drop),
        "ApprovalRecord" => Approval::from_value(&value).map(drop),
        "CheckContext" => {
            let action = crate::decisions::core_value(
                &sample_object(
                    &all_shapes(),
                    shape(&all_shapes(), "ActionEnvelope"),
                    &mut 0,
                )
                .to_string(),
            )
            .map_err(|e| e.to_string())?;
            check(None, &action, &value).map(drop)
        }
        // A fact is read as part of a context: put it in the sample context's place for it
        // (a set's facts are arrays of them).
        "ApproverFact"
        | "SubjectFact"
        | "RevokedFact"
        | "RoleFact"
        | "DecisionRevokedFact"
        | "DelegationRevokedFact" => {
            let (key, fact) = match name {
                "ApproverFact" => ("approver_authorized", v.clone()),
                "SubjectFact" => ("subject_authorized", v.clone()),
                "RevokedFact" => ("revoked", v.clone()),
                "RoleFact" => ("approver_roles", json!([v])),
                "DecisionRevokedFact" => ("revoked", json!([v])),
                _ => ("delegations_revoked", json!([v])),
            };
            let mut ctx =
                sample_object(&all_shapes(), shape(&all_shapes(), "CheckContext"), &mut 0);
            ctx[key] = fact;
            return core_accepts("CheckContext", &ctx);
        }
        "Budget" => actionseal_core::charge(&value, &json_value("0")).map(drop),
        "Ed25519Jwk" => core_proof::public_jwk(&value).map(drop),
        "Ed25519PrivateJwk" => SigningKey::from_value(&value).map(drop),
        "SignedEnvelope" => core_proof::verify(
            &value,
            &json_value(&proof::service_keys().to_string()),
            &json_value("0"),
            Accept::Envelope,
        )
        .map(drop),
        // A signature is read as part of an envelope.
        "EnvelopeSignature" => {
            let mut envelope = proof::envelope(&sealed_record(&shapes()));
            envelope["signatures"] = json!([v]);
            return core_accepts("SignedEnvelope", &envelope);
        }
        "PasskeyApprovedRecord" => {
            let keys = proof::passkeys(v["approver"].as_str().unwrap_or("x"));
            let at = json_value("0");
            core_proof::verify(&value, &json_value(&keys.to_string()), &at, Accept::Passkey)
                .map(drop)
        }
        "PasskeyAssertion" => {
            let mut record = sealed_record(&shapes());
            record["passkey"] = v.clone();
            return core_accepts("PasskeyApprovedRecord", &record);
        }
        "PasskeyRegistration" => {
            let (_, challenge) = proof::registration();
            let rp = json_value(&proof::relying_party().to_string());
            let challenge = json_value(&json!(challenge).to_string());
            core_proof::verify_registration(&value, &challenge, &rp).map(drop)
        }
        // Key set entries are read as part of a key set.
        "ServiceKey" => {
            return core_accepts("KeySet", &json!({"service_keys": {proof::keyid(): v}}));
        }
        "PasskeyKey" => {
            let set = json!({"passkeys": {proof::credential_id(): v}, "webauthn": proof::relying_party()});
            return core_accepts("KeySet", &set);
        }
        "RelyingParty" => return core_accepts("KeySet", &json!({"webauthn": v})),
        "KeySet" => KeySet::from_value(&value).map(drop),
        "ProofPolicy" => ProofPolicy::from_value(&value).map(drop),
        other => match quorum_probes::core_accepts(other, &value) {
            Some(r) => r,
            None => {
                return evidence_probes::core_accepts(other, v)
                    .or_else(|| batch_probes::core_accepts(other, v))
                    .or_else(|| ledger_probes::core_accepts(other, v))
                    .unwrap_or_else(|| Err(format!("no reader for {other}")))
            }
        },
    };
    r.map_err(|e| e.to_string())
}

/// Where the shapes and core disagree.
pub fn shape_problems() -> Vec<String> {
    let all = all_shapes();
    let mut problems = Vec::new();
    for s in all.iter().filter(|s| !s.output) {
        // The evidence shapes' samples come from a real export.
        let base = match evidence_probes::sample(s.name) {
            Some(Ok(v)) => v,
            Some(Err(e)) => {
                problems.push(format!("{}: no sample: {e}", s.name));
                continue;
            }
            None => sample_object(&all, s, &mut 0),
        };
        if let Err(e) = core_accepts(s.name, &base) {
            problems.push(format!("{}: core refuses the sample {base}: {e}", s.name));
            continue;
        }
        let mut extra = base.clone();
        extra["surfaces_extra"] = json!(1);
        if core_accepts(s.name, &extra).is_ok() {
            problems.push(format!("{}: core accepts an unknown field", s.name));
        }
        for f in all_fields(&all, s) {
            let mut without = base.clone();
            without.as_object_mut().map(|m| m.remove(f.name));
            // Optional may mean "for some operators only": only required fields are probed.
            if !f.optional && core_accepts(s.name, &without).is_ok() {
                problems.push(format!(
                    "{}.{}: core accepts the shape without it; mark it optional",
                    s.name, f.name
                ));
            }
            if let Some(w) = wrong(&f.ty) {
                let mut retyped = base.clone();
                retyped[f.name] = w.clone();
                if core_accepts(s.name, &retyped).is_ok() {
                    problems.push(format!(
                        "{}.{}: core accepts {w} there; its type here is out of date",
                        s.name, f.name
                    ));
                }
            }
        }
    }
    // What core writes: the same members (the ledger's outputs are held to a real ledger below).
    let model = shapes();
    for s in model.iter().filter(|s| s.output && s.name != "ActionError") {
        let written = output_members(s.name).unwrap_or_else(|e| vec![e]);
        let described: Vec<String> = all_fields(&all, s)
            .iter()
            .map(|f| f.name.to_owned())
            .collect();
        let mut sorted = described.clone();
        sorted.sort();
        if sorted != written {
            problems.push(format!(
                "{}: core writes {written:?}, the shape has {described:?}",
                s.name
            ));
        }
    }
    problems.extend(ledger_probes::fact_problems(&all));
    problems.extend(ledger_probes::output_problems(&all));
    problems
}

/// The members, sorted, of what core writes for an output shape.
fn output_members(name: &str) -> Result<Vec<String>, String> {
    let all = shapes();
    let keys = |v: &Json| -> Vec<String> {
        let mut k: Vec<String> = v
            .as_object()
            .map(|o| o.keys().cloned().collect())
            .unwrap_or_default();
        k.sort();
        k
    };
    let json_of = |v: &actionseal_core::OwnedValue| -> Json {
        serde_json::from_str(&actionseal_core::canonicalize(v)).expect("JSON")
    };
    let verified = |approval: &Json, keys: &Json| -> Result<Json, String> {
        core_proof::verify(
            &json_value(&approval.to_string()),
            &json_value(&keys.to_string()),
            &json_value("0"),
            Accept::Either,
        )
        .map(|v| json_of(&v))
        .map_err(|e| e.to_string())
    };
    let record = sealed_record(&all);
    let passkey = || {
        let mut r = record.clone();
        r["passkey"] = proof::assertion(&record);
        verified(&r, &proof::passkeys("x"))
    };
    Ok(match name {
        "Verdict" => return verdict_members(),
        "AmendedAction" => {
            let (document, ids) = (
                json_value(
                    &sample_object(&all, shape(&all, "ContractDocument"), &mut 0).to_string(),
                ),
                json_value(&sample_object(&all, shape(&all, "ActionIds"), &mut 0).to_string()),
            );
            let contract = Contract::from_value(&document).map_err(|e| e.to_string())?;
            let ids = ActionIds::from_value(&ids).map_err(|e| e.to_string())?;
            let action =
                Action::build(&contract, &json_value("{}"), &ids).map_err(|e| e.to_string())?;
            let amended = actionseal_core::ledger::amend(action.value(), action.value(), &contract)
                .map_err(|e| e.to_string())?;
            keys(&json_of(&amended.to_value()))
        }
        "CommittedAction" => {
            let document = json_value(
                &sample_object(&all, shape(&all, "ContractDocument"), &mut 0).to_string(),
            );
            let contract = Contract::from_value(&document).map_err(|e| e.to_string())?;
            let ids =
                json_value(&sample_object(&all, shape(&all, "ActionIds"), &mut 0).to_string());
            let never = |_: &mut [[u8; 16]]| Err("no place to salt".to_owned());
            let committed = actionseal_core::sensitive::calls::commit(
                &contract,
                &json_value("{}"),
                &ids,
                &json_value("[]"),
                never,
            )?
            .map_err(|e| e.to_string())?;
            keys(&json_of(&committed))
        }
        "Notice" | "NoticeMark" => {
            let found = json_of(&actionseal_core::notices_value(&json_value(
                r#"{"x": "\u043e"}"#,
            )));
            keys(if name == "Notice" {
                &found[0]
            } else {
                &found[0]["marks"][0]
            })
        }
        "VerifiedProof" => keys(&verified(
            &proof::envelope(&record),
            &proof::service_keys(),
        )?),
        "ServiceSigner" => {
            keys(&verified(&proof::envelope(&record), &proof::service_keys())?["signer"])
        }
        "PasskeySigner" => keys(&passkey()?["signer"]),
        "PasskeyCredential" => {
            let (registration, challenge) = proof::registration();
            let challenge =
                actionseal_core::base64url_decode(&challenge).map_err(|e| e.to_string())?;
            let r = Registration::verify(
                &json_value(&registration.to_string()),
                &challenge,
                &json_value(&proof::relying_party().to_string()),
            )
            .map_err(|e| e.to_string())?;
            keys(&json_of(&r.to_value()))
        }
        other => {
            let sample = |s: &Shape| sample_object(&all, s, &mut 0);
            return quorum_probes::output_members(&all, sample, other)
                .or_else(|| batch_probes::output_members(&all, sample, other))
                .or_else(|| evidence_probes::output_members(other))
                .unwrap_or_else(|| Err(format!("no writer for {other}")));
        }
    })
}

/// The members of a verdict core writes, sorted.
fn verdict_members() -> Result<Vec<String>, String> {
    let all = shapes();
    let value = |name: &str| {
        let text = sample_object(&all, shape(&all, name), &mut 0).to_string();
        crate::decisions::core_value(&text).map_err(|e| e.to_string())
    };
    let verdict = check(None, &value("ActionEnvelope")?, &value("CheckContext")?)
        .map_err(|e| e.to_string())?
        .to_value();
    let mut keys: Vec<String> = verdict
        .as_object()
        .map(|o| o.iter().map(|(k, _)| k.to_owned()).collect())
        .unwrap_or_default();
    // Under a quorum, the verdict has its state too.
    keys.extend(quorum_probes::verdict_members()?);
    keys.sort();
    keys.dedup();
    Ok(keys)
}
