//! The files generated from core for every runtime's surface: `conformance/codes.json` (every
//! error code and permit reason with its meaning), the TypeScript declarations of both
//! JavaScript packages (the `ErrorCode` and `Reason` unions, `ActionsealError`, and the shapes
//! of the data the approval model takes and returns), and the Literals and TypedDicts of the
//! Python stub. `regen` writes them; `regen --check` fails when one is stale.
//!
//! Codes, reasons, outcomes and condition operators come from core. The data shapes are
//! described once, here ([`shapes`]), and held to core: every shape is built into a sample
//! that core's reader must accept, and every field, left out or given a value of the wrong
//! type, must make it refuse ([`shape_problems`]). A field core adds, drops or retypes fails
//! the check with the shape and field named. The proof shapes (keys, key sets, envelopes,
//! passkey assertions, registrations) are sampled with real key material (`surfaces/proof.rs`),
//! so that core's verifiers accept the samples and a probe learns only from the field it
//! changes; the shapes core only writes (verdicts, verified proofs, signers, registered
//! credentials) must have exactly the members core writes.
//! The ledger's shapes (Node and Python only: the wasm build has no ledger) are in [`ledger`],
//! held to the ledger's readers and to what a real ledger writes.

mod ledger;

use actionseal_core::proof::{self as core_proof, Accept};
use actionseal_core::{
    check, operators, Action, ActionIds, Approval, Code, Contract, DecisionInput, KeySet,
    NoticeKind, ProofPolicy, Reason, Registration, SigningKey, Within, PAYLOAD_TYPE,
};
use serde_json::{json, Map, Value as Json};
use std::path::PathBuf;

mod proof;

/// One generated file: its path under the repository and its whole text.
pub struct Surface {
    pub path: PathBuf,
    pub text: String,
}

/// Every generated file, or what is wrong with the shapes.
pub fn surfaces() -> Result<Vec<Surface>, Vec<String>> {
    let problems = shape_problems();
    if !problems.is_empty() {
        return Err(problems);
    }
    let repo = crate::dir()
        .parent()
        .map_or_else(|| crate::dir().join(".."), std::path::Path::to_path_buf);
    let pyi = repo.join("bindings-python/python/actionseal/_actionseal.pyi");
    let stub =
        std::fs::read_to_string(&pyi).map_err(|e| vec![format!("{}: {e}", pyi.display())])?;
    Ok(vec![
        Surface {
            path: crate::dir().join("codes.json"),
            text: crate::to_pretty(&codes_json()),
        },
        Surface {
            path: repo.join("bindings-node/dts-header.d.ts"),
            text: node_header(),
        },
        Surface {
            path: repo.join("bindings-wasm/src/types.rs"),
            text: wasm_types(),
        },
        Surface {
            path: pyi.clone(),
            text: python_stub(&stub).map_err(|e| vec![format!("{}: {e}", pyi.display())])?,
        },
    ])
}

/// `{"codes": {code: meaning}, "reasons": {reason: {outcome, meaning}}}`, in core's order.
pub fn codes_json() -> Json {
    let codes: Map<String, Json> = Code::ALL
        .iter()
        .map(|c| (c.as_str().to_owned(), c.meaning().into()))
        .collect();
    let reasons: Map<String, Json> = Reason::ALL
        .iter()
        .map(|r| {
            (
                r.as_str().to_owned(),
                json!({"outcome": r.outcome().as_str(), "meaning": r.meaning()}),
            )
        })
        .collect();
    json!({"codes": codes, "reasons": reasons})
}

/// Codes and reasons that core has without a meaning.
pub fn meaning_problems() -> Vec<String> {
    let codes = Code::ALL
        .iter()
        .filter(|c| c.meaning().is_empty())
        .map(|c| {
            format!(
                "core's code {} has no meaning: document its variant",
                c.as_str()
            )
        });
    let reasons = Reason::ALL
        .iter()
        .filter(|r| r.meaning().is_empty())
        .map(|r| {
            format!(
                "core's reason {} has no meaning: document its variant",
                r.as_str()
            )
        });
    codes.chain(reasons).collect()
}

// ---------------------------------------------------------------------------------------
// The data shapes

/// The type of a field.
#[derive(Clone)]
pub enum Ty {
    /// A string.
    Str,
    /// An identity string (non-blank, no surrounding whitespace or control characters).
    Identity,
    /// A fingerprint `sha256:<64 hex>`.
    Digest,
    /// An integer number of milliseconds since the epoch.
    Millis,
    /// An integer.
    Int,
    /// A boolean.
    Bool,
    /// One of these strings.
    OneOf(Vec<&'static str>),
    /// Another shape.
    Shape(&'static str),
    /// A list of these.
    List(Box<Ty>),
    /// A JSON object (a schema, arguments), unchecked here.
    Object,
    /// Any JSON value.
    Unknown,
    /// A loaded `Contract` object or a contract document, or null.
    ContractOrDocument,
    /// A loaded `Contract` object or a contract document.
    Contract,
    /// A contract's approval rule: `"always"`, `"never"` or `{"when": [conditions]}`.
    ApprovalRule,
    /// `T | null`.
    Nullable(Box<Ty>),
    /// An object whose members, under keys of the caller's choosing, are all `T`.
    Map(Box<Ty>),
    /// One of these types.
    Either(Vec<Ty>),
}

/// A field of a shape.
pub struct Field {
    pub name: &'static str,
    pub ty: Ty,
    pub doc: &'static str,
    /// May be left out (in some cases: a condition's `value`, for some operators).
    pub optional: bool,
}

/// A JSON object shape.
pub struct Shape {
    /// The TypeScript interface name (the Python TypedDict is `_` + this).
    pub name: &'static str,
    pub doc: &'static str,
    /// A shape whose fields this one has too.
    pub extends: Option<&'static str>,
    pub fields: Vec<Field>,
    /// Whether core only writes it (a verdict): not probed with a reader.
    pub output: bool,
}

fn field(name: &'static str, ty: Ty, doc: &'static str) -> Field {
    Field {
        name,
        ty,
        doc,
        optional: false,
    }
}

/// The shapes of the data the approval model takes and returns, in declaration order.
pub fn shapes() -> Vec<Shape> {
    let ops = operators().collect::<Vec<_>>();
    let mut out = vec![
        Shape {
            name: "ContractDocument",
            doc: "A tool contract document: what `new Contract(document)` loads. No other field is allowed.",
            extends: None,
            output: false,
            fields: vec![
                field("tool", Ty::Identity, ""),
                field("version", Ty::Identity, ""),
                field("effect", Ty::OneOf(vec!["read", "write"]), ""),
                field("args", Ty::Object, "The tool's arguments: a JSON Schema (actionseal's strict subset) with `type: 'object'`."),
                field("approval", Ty::ApprovalRule, "When a call needs a person: always, never, or when any condition matches."),
                field("cost_minor", Ty::Int, "What one call costs, in minor units of the budget's currency."),
                Field {
                    optional: true,
                    ..field("max_approval_ms", Ty::Int, "The longest an approval may hold (`expires_at - decided_at`), in milliseconds.")
                },
            ],
        },
        Shape {
            name: "ApprovalCondition",
            doc: "One condition of a contract's approval rule. Conditions fail closed (see the README).",
            extends: None,
            output: false,
            fields: vec![
                field("pointer", Ty::Str, "JSON Pointer into the call's arguments (`\"\"` for the element itself inside `any`/`all`)."),
                Field {
                    optional: true,
                    ..field("op", Ty::OneOf(ops), "The comparison; absent when the condition quantifies over an array with `any` or `all`.")
                },
                Field {
                    optional: true,
                    ..field("value", Ty::Unknown, "The operand; absent for `exists` and `absent`, a non-empty array for `in` and `not_in`.")
                },
                Field {
                    optional: true,
                    ..field("any", Ty::Shape("ApprovalCondition"), "The condition holds for some element of the array at `pointer` (never for an empty array).")
                },
                Field {
                    optional: true,
                    ..field("all", Ty::Shape("ApprovalCondition"), "The condition holds for every element of the array at `pointer` (always for an empty array).")
                },
            ],
        },
        Shape {
            name: "ActionIds",
            doc: "Who acts, in which tenant, for which job and request, under which policy: from the executor's server, never from the model. Each a non-blank string without surrounding whitespace or control characters.",
            extends: None,
            output: false,
            fields: vec![
                field("tenant", Ty::Identity, ""),
                field("subject", Ty::Identity, ""),
                field("job_id", Ty::Identity, ""),
                field("request_id", Ty::Identity, "The request identity within the job, stable across retries."),
                field("policy_version", Ty::Identity, ""),
            ],
        },
        Shape {
            name: "ActionEnvelope",
            doc: "An action envelope: exactly what a reviewer approves; its fingerprint is what an approval binds.",
            extends: Some("ActionIds"),
            output: false,
            fields: vec![
                field("tool", Ty::Identity, ""),
                field("contract", Ty::Digest, "The fingerprint of the tool's contract."),
                field("args", Ty::Object, ""),
            ],
        },
        Shape {
            name: "DecisionInput",
            doc: "A reviewer's decision about one action; times in integer milliseconds since the epoch.",
            extends: None,
            output: false,
            fields: vec![
                field("approval_id", Ty::Identity, ""),
                field("decision_id", Ty::Identity, "Identity of the decision callback, for de-duplicating repeated deliveries."),
                field("decision", Ty::OneOf(vec!["approved", "rejected"]), ""),
                field("approver", Ty::Identity, ""),
                field("decided_at", Ty::Millis, ""),
                field("expires_at", Ty::Millis, "When the decision stops holding; after `decided_at`."),
                optional("proposed_digest", Ty::Digest, "The fingerprint of the action as the model proposed it, present only when a reviewer amended it before this decision (it then differs from the decided action's)."),
            ],
        },
        Shape {
            name: "ApprovalRecord",
            doc: "An approval record: the decision, the frozen action and its fingerprint.",
            extends: Some("DecisionInput"),
            output: false,
            fields: vec![
                field("action", Ty::Shape("ActionEnvelope"), ""),
                field("action_digest", Ty::Digest, ""),
            ],
        },
        Shape {
            name: "AmendedAction",
            doc: "A reviewer's edit, checked by `amend` as the ledger's amend checks it: the amended action, both fingerprints and what changed.",
            extends: None,
            output: true,
            fields: vec![
                field("action", Ty::Shape("ActionEnvelope"), "The amended action: what the decision that follows is about."),
                field("action_digest", Ty::Digest, "Its fingerprint: the decision's `action_digest`."),
                field("proposed_digest", Ty::Digest, "The fingerprint of the action the reviewer edited: the decision's `proposed_digest` when the two differ, and a ledger amendment's `amends`."),
                field("amended_pointers", Ty::List(Box::new(Ty::Str)), "JSON Pointers where the amended action differs from the edited one; empty when nothing changed."),
            ],
        },
        Shape {
            name: "NoticeMark",
            doc: "One character a reader could miss or misread, in a string `notices` reports.",
            extends: None,
            output: true,
            fields: vec![
                field("at", Ty::Int, "Its position in the string, in code points from 0."),
                field("code_point", Ty::Str, "Such as `'U+200B'`."),
                field("kind", Ty::OneOf(NoticeKind::ALL.iter().map(|k| k.as_str()).collect()), "Displayed as nothing or a blank (`invisible`), visible but possibly mistaken for an ASCII character (`non_ascii`), or a space at either end."),
            ],
        },
        Shape {
            name: "Notice",
            doc: "A string or key with characters a reader could miss or misread (`notices`).",
            extends: None,
            output: true,
            fields: vec![
                field("pointer", Ty::Str, "JSON Pointer of the string, or of the member whose key it is."),
                field("within", Ty::OneOf(vec![Within::Value.as_str(), Within::Key.as_str()]), "The value at `pointer`, or its key."),
                field("count", Ty::Int, "How many of its characters are noticed."),
                field("marks", Ty::List(Box::new(Ty::Shape("NoticeMark"))), "The first 64 of them, in order."),
            ],
        },
        Shape {
            name: "CheckContext",
            doc: "What the executor's own server knows at dispatch time; never taken from the model.",
            extends: None,
            output: false,
            fields: vec![
                field("now", Ty::Millis, "Milliseconds since the epoch."),
                field("tenant", Ty::Identity, ""),
                field("policy_version", Ty::Identity, ""),
                field("contract", Ty::ContractOrDocument, "The tool's current contract: a `Contract` (not compiled again) or a contract document; `null` when the server has none for the action's tool."),
                field("approver_authorized", Ty::Nullable(Box::new(Ty::Shape("ApproverFact"))), "Whether the approval's approver may still approve; `null` only when no approval is presented."),
                field("subject_authorized", Ty::Shape("SubjectFact"), "Whether the action's subject may still perform it."),
                field("revoked", Ty::Nullable(Box::new(Ty::Shape("RevokedFact"))), "Whether the approval was revoked; `null` only when no approval is presented."),
                Field {
                    optional: true,
                    ..field("proof", Ty::Shape("ProofPolicy"), "Whether every approval must carry proof, and the trusted keys that can give it.")
                },
            ],
        },
        Shape {
            name: "ApproverFact",
            doc: "A trusted fact about one named approver: a fact about anyone else is not believed.",
            extends: None,
            output: false,
            fields: vec![
                field("approver", Ty::Identity, ""),
                field("authorized", Ty::Bool, ""),
            ],
        },
        Shape {
            name: "SubjectFact",
            doc: "A trusted fact about one named subject: a fact about anyone else is not believed.",
            extends: None,
            output: false,
            fields: vec![
                field("subject", Ty::Identity, ""),
                field("authorized", Ty::Bool, ""),
            ],
        },
        Shape {
            name: "RevokedFact",
            doc: "A trusted fact about one named approval: a fact about another approval is not believed.",
            extends: None,
            output: false,
            fields: vec![
                field("approval_id", Ty::Identity, ""),
                field("revoked", Ty::Bool, ""),
            ],
        },
        Shape {
            name: "ActionError",
            doc: "Why an action is invalid: a code and the JSON Pointer of the value concerned.",
            extends: None,
            output: true,
            fields: vec![
                field("code", Ty::Shape("ErrorCode"), ""),
                field("path", Ty::Str, ""),
            ],
        },
        Shape {
            name: "Verdict",
            doc: "The result of `check`.",
            extends: None,
            output: true,
            fields: vec![
                field("outcome", Ty::Shape("Outcome"), "`permit`: dispatch; `reapprove`: send the same task back for approval; `reject`: never run it."),
                field("reasons", Ty::List(Box::new(Ty::Shape("Reason"))), "Every reason found, in a fixed order; empty exactly when permitted."),
                field("drift", Ty::List(Box::new(Ty::Str)), "JSON Pointers where the presented action differs from the approved one."),
                field("action_digest", Ty::Digest, "Fingerprint of the presented action."),
                field("approved_digest", Ty::Nullable(Box::new(Ty::Digest)), "The approved action's fingerprint, when a valid, untampered approval was presented."),
                field("action_error", Ty::Nullable(Box::new(Ty::Shape("ActionError"))), "Why the action is invalid, with the reason `invalid_action`."),
            ],
        },
        Shape {
            name: "Budget",
            doc: "A cumulative budget in integer minor units.",
            extends: None,
            output: false,
            fields: vec![
                field("limit_minor", Ty::Int, ""),
                field("spent_minor", Ty::Int, ""),
            ],
        },
    ];
    out.extend(proof_shapes());
    out
}

/// An optional field.
fn optional(name: &'static str, ty: Ty, doc: &'static str) -> Field {
    Field {
        optional: true,
        ..field(name, ty, doc)
    }
}

/// The shapes of proof of who decided: keys, key sets, envelopes, passkey assertions and
/// registrations, and what verification returns.
fn proof_shapes() -> Vec<Shape> {
    let b64 = |doc| field("", Ty::Str, doc);
    let named = |name, f: Field| Field { name, ..f };
    vec![
        Shape {
            name: "Ed25519Jwk",
            doc: "An Ed25519 public key as a JWK (RFC 8037). Returned with `kid`, the RFC 7638 thumbprint: the keyid a key set files it under.",
            extends: None,
            output: false,
            fields: vec![
                field("kty", Ty::OneOf(vec!["OKP"]), ""),
                field("crv", Ty::OneOf(vec!["Ed25519"]), ""),
                field("x", Ty::Str, "The 32-byte public key, base64url."),
                optional("kid", Ty::Str, "When present, it must be the key's RFC 7638 thumbprint."),
                optional("alg", Ty::OneOf(vec!["EdDSA", "Ed25519"]), ""),
                optional("use", Ty::OneOf(vec!["sig"]), ""),
            ],
        },
        Shape {
            name: "Ed25519PrivateJwk",
            doc: "An Ed25519 private key as a JWK: keep it secret.",
            extends: Some("Ed25519Jwk"),
            output: false,
            fields: vec![field("d", Ty::Str, "The 32-byte seed, base64url; `x` must be its public key.")],
        },
        Shape {
            name: "EnvelopeSignature",
            doc: "The one signature of a signed envelope.",
            extends: None,
            output: false,
            fields: vec![
                field("keyid", Ty::Str, "The signing key's RFC 7638 thumbprint: a hint where to look in the key set, never trusted by itself."),
                named("sig", b64("The Ed25519 signature of the envelope's PAE, base64url.")),
            ],
        },
        Shape {
            name: "SignedEnvelope",
            doc: "A service-signed decision: a DSSE envelope whose payload is the exact canonical bytes of an approval record.",
            extends: None,
            output: false,
            fields: vec![
                field("payloadType", Ty::OneOf(vec![PAYLOAD_TYPE]), ""),
                named("payload", b64("The record's canonical bytes, base64url.")),
                field("signatures", Ty::List(Box::new(Ty::Shape("EnvelopeSignature"))), "Exactly one signature."),
            ],
        },
        Shape {
            name: "PasskeyAssertion",
            doc: "What `navigator.credentials.get` returned, each member base64url.",
            extends: None,
            output: false,
            fields: vec![
                named("credential_id", b64("`rawId`.")),
                named("authenticator_data", b64("`response.authenticatorData`.")),
                named("client_data_json", b64("`response.clientDataJSON`.")),
                named("signature", b64("`response.signature` (ES256: ASN.1 DER).")),
            ],
        },
        Shape {
            name: "PasskeyApprovedRecord",
            doc: "An approval record with the reviewer's passkey assertion over its fingerprint (`passkeyChallenge`).",
            extends: Some("ApprovalRecord"),
            output: false,
            fields: vec![field("passkey", Ty::Shape("PasskeyAssertion"), "")],
        },
        Shape {
            name: "PasskeyRegistration",
            doc: "What `navigator.credentials.create` returned (\"none\" attestation), each member base64url.",
            extends: None,
            output: false,
            fields: vec![
                named("credential_id", b64("`rawId`.")),
                named("attestation_object", b64("`response.attestationObject`.")),
                named("client_data_json", b64("`response.clientDataJSON`.")),
            ],
        },
        Shape {
            name: "ServiceKey",
            doc: "A trusted service key, filed under its keyid, and what it may sign for.",
            extends: None,
            output: false,
            fields: vec![
                field("key", Ty::Either(vec![Ty::Shape("Ed25519Jwk"), Ty::Str]), "The public key: a JWK, or the raw 32 bytes in base64url."),
                optional("valid_from", Ty::Millis, "The key vouches for decisions made at or after this time."),
                optional("valid_until", Ty::Millis, "... and before this time."),
                optional("approvers", Ty::List(Box::new(Ty::Identity)), "The approvers it may sign for; absent: anyone."),
            ],
        },
        Shape {
            name: "PasskeyKey",
            doc: "A registered passkey credential, filed under its credential id (base64url): one reviewer's.",
            extends: None,
            output: false,
            fields: vec![
                named("public_key", b64("The COSE key `verifyRegistration` returned, base64url.")),
                field("approver", Ty::Identity, "The one approver it signs for."),
                optional("valid_from", Ty::Millis, ""),
                optional("valid_until", Ty::Millis, ""),
            ],
        },
        Shape {
            name: "RelyingParty",
            doc: "The WebAuthn relying party: the rpId whose hash assertions must carry, and the origins a ceremony may run on.",
            extends: None,
            output: false,
            fields: vec![
                field("rp_id", Ty::Identity, ""),
                field("origins", Ty::List(Box::new(Ty::Str)), ""),
            ],
        },
        Shape {
            name: "KeySet",
            doc: "The keys and passkeys the executor trusts, from its own server (never from the caller's payload).",
            extends: None,
            output: false,
            fields: vec![
                optional("service_keys", Ty::Map(Box::new(Ty::Shape("ServiceKey"))), "By keyid (each key's RFC 7638 thumbprint)."),
                optional("passkeys", Ty::Map(Box::new(Ty::Shape("PasskeyKey"))), "By credential id."),
                optional("webauthn", Ty::Shape("RelyingParty"), "Required when there are passkeys."),
            ],
        },
        Shape {
            name: "ProofPolicy",
            doc: "A context's `proof`: whether every approval must carry proof, and the keys that can give it.",
            extends: None,
            output: false,
            fields: vec![
                field("required", Ty::Bool, "When true, a bare record is refused (`proof_missing`)."),
                field("keys", Ty::Shape("KeySet"), ""),
            ],
        },
        Shape {
            name: "ServiceSigner",
            doc: "A service key vouched for the decision.",
            extends: None,
            output: true,
            fields: vec![
                field("kind", Ty::OneOf(vec!["service"]), ""),
                field("keyid", Ty::Str, ""),
            ],
        },
        Shape {
            name: "PasskeySigner",
            doc: "A reviewer's passkey vouched for the decision.",
            extends: None,
            output: true,
            fields: vec![
                field("kind", Ty::OneOf(vec!["passkey"]), ""),
                field("credential_id", Ty::Str, ""),
                field("algorithm", Ty::OneOf(vec!["ES256", "EdDSA"]), ""),
            ],
        },
        Shape {
            name: "VerifiedProof",
            doc: "A decision whose proof verified: the record, and who signed it.",
            extends: None,
            output: true,
            fields: vec![
                field("approval", Ty::Shape("ApprovalRecord"), "The record (for a passkey-approved one, without its assertion)."),
                field("signer", Ty::Either(vec![Ty::Shape("ServiceSigner"), Ty::Shape("PasskeySigner")]), ""),
            ],
        },
        Shape {
            name: "PasskeyCredential",
            doc: "A verified registration: what the key set files under `passkeys[credential_id]`, with the reviewer's `approver`.",
            extends: None,
            output: true,
            fields: vec![
                field("algorithm", Ty::OneOf(vec!["ES256", "EdDSA"]), ""),
                field("credential_id", Ty::Str, ""),
                field("public_key", Ty::Str, "The COSE key, base64url."),
            ],
        },
    ]
}

/// The model's shapes and the ledger's: what the Node declarations and the Python stub
/// describe (the wasm build has only the model's).
pub fn all_shapes() -> Vec<Shape> {
    let mut all = shapes();
    all.extend(ledger::shapes());
    all
}

/// Whether `name` is a union of string literals rather than an object shape.
fn is_union(name: &str) -> bool {
    matches!(name, "ErrorCode" | "Reason" | "Outcome")
        || ledger::unions().iter().any(|u| u.name == name)
}

/// The outcomes of a check, in core's order (worst last).
fn outcomes() -> [&'static str; 3] {
    use actionseal_core::Outcome;
    [Outcome::Permit, Outcome::Reapprove, Outcome::Reject].map(Outcome::as_str)
}

// ---------------------------------------------------------------------------------------
// Holding the shapes to core

fn shape<'s>(all: &'s [Shape], name: &str) -> &'s Shape {
    all.iter()
        .find(|s| s.name == name)
        .unwrap_or_else(|| panic!("no shape {name}"))
}

/// Every field of a shape, its base's first.
fn all_fields<'s>(all: &'s [Shape], s: &'s Shape) -> Vec<&'s Field> {
    let mut out = s
        .extends
        .map_or_else(Vec::new, |b| all_fields(all, shape(all, b)));
    out.extend(s.fields.iter());
    out
}

/// A value of type `ty` that core accepts there; `n` makes successive times increase.
fn sample(all: &[Shape], ty: &Ty, n: &mut i64) -> Json {
    *n += 1;
    match ty {
        Ty::Str | Ty::Identity => json!("x"),
        Ty::Digest => json!(format!("sha256:{}", "0".repeat(64))),
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
    for f in all_fields(all, s).into_iter().filter(|f| {
        !f.optional || (s.name == "ApprovalCondition" && matches!(f.name, "op" | "value"))
    }) {
        let v = match (s.name, f.name) {
            // Operands that the sample's operator needs and its pointer names.
            ("ApprovalCondition", "pointer") => json!("/n"),
            ("ApprovalCondition", "value") => json!(1),
            // Counts from 1; the heads file's one version.
            ("ClaimRequest", "lease_ms") | ("AuditHead", "seq") | ("ExportedHeads", "version") => {
                json!(1)
            }
            _ => match proof_sample(all, s.name, f.name, &m) {
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
        Ty::Str | Ty::Identity | Ty::Digest | Ty::OneOf(_) => json!(7),
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
        // A fact is read as part of a context: put it in the sample context's place for it.
        "ApproverFact" | "SubjectFact" | "RevokedFact" => {
            let key = match name {
                "ApproverFact" => "approver_authorized",
                "SubjectFact" => "subject_authorized",
                _ => "revoked",
            };
            let mut ctx =
                sample_object(&all_shapes(), shape(&all_shapes(), "CheckContext"), &mut 0);
            ctx[key] = v.clone();
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
        other => {
            return ledger::core_accepts(other, v)
                .unwrap_or_else(|| Err(format!("no reader for {other}")))
        }
    };
    r.map_err(|e| e.to_string())
}

fn json_value(text: &str) -> actionseal_core::OwnedValue {
    crate::decisions::core_value(text).expect("JSON")
}

/// Where the shapes and core disagree.
pub fn shape_problems() -> Vec<String> {
    let all = all_shapes();
    let mut problems = Vec::new();
    for s in all.iter().filter(|s| !s.output) {
        let base = sample_object(&all, s, &mut 0);
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
    problems.extend(ledger::output_problems(&all));
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
        other => return Err(format!("no writer for {other}")),
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
    keys.sort();
    Ok(keys)
}

// ---------------------------------------------------------------------------------------
// TypeScript

fn ts_type(ty: &Ty) -> String {
    match ty {
        Ty::Str | Ty::Identity | Ty::Digest => "string".into(),
        Ty::Millis | Ty::Int => "number".into(),
        Ty::Bool => "boolean".into(),
        Ty::OneOf(v) => v
            .iter()
            .map(|s| format!("'{s}'"))
            .collect::<Vec<_>>()
            .join(" | "),
        Ty::Shape(s) => (*s).into(),
        Ty::List(t) => match **t {
            Ty::Shape(_) | Ty::Str => format!("{}[]", ts_type(t)),
            _ => format!("Array<{}>", ts_type(t)),
        },
        Ty::Object => "object".into(),
        Ty::Unknown => "unknown".into(),
        Ty::ContractOrDocument => "Contract | ContractDocument | null".into(),
        Ty::Contract => "Contract | ContractDocument".into(),
        Ty::ApprovalRule => "'always' | 'never' | { when: ApprovalCondition[] }".into(),
        Ty::Nullable(t) => format!("{} | null", ts_type(t)),
        Ty::Map(t) => format!("{{ [key: string]: {} }}", ts_type(t)),
        Ty::Either(tys) => tys.iter().map(ts_type).collect::<Vec<_>>().join(" | "),
    }
}

/// `/** ... */` wrapped at 96 columns, indented by `indent`.
fn ts_doc(out: &mut String, doc: &str, indent: &str) {
    if doc.is_empty() {
        return;
    }
    let one = format!("{indent}/** {doc} */");
    if one.len() <= 100 {
        out.push_str(&one);
        out.push('\n');
        return;
    }
    out.push_str(&format!("{indent}/**\n"));
    for line in wrap(doc, 96 - indent.len() - 3) {
        out.push_str(&format!("{indent} * {line}\n"));
    }
    out.push_str(&format!("{indent} */\n"));
}

fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.len() + 1 + word.len() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// A union type of string literals, one per line, each with its meaning.
fn ts_union(out: &mut String, name: &str, doc: &str, members: &[(&str, &str)]) {
    ts_doc(out, doc, "");
    out.push_str(&format!("export type {name} =\n"));
    for (m, meaning) in members {
        ts_doc(out, meaning, "  ");
        out.push_str(&format!("  | '{m}'\n"));
    }
    out.push('\n');
}

/// The declarations of the JavaScript packages: unions and data shapes, the ledger's too for
/// the Node package.
fn ts_declarations(with_ledger: bool) -> String {
    let mut out = String::new();
    let codes: Vec<(&str, &str)> = Code::ALL
        .iter()
        .map(|c| (c.as_str(), c.meaning()))
        .collect();
    ts_union(
        &mut out,
        "ErrorCode",
        "The stable codes every function throws, with their meaning (conformance/codes.json). A code is never renamed or reused.",
        &codes,
    );
    let reasons: Vec<(&str, &str)> = Reason::ALL
        .iter()
        .map(|r| (r.as_str(), r.meaning()))
        .collect();
    ts_union(
        &mut out,
        "Reason",
        "Why a check did not permit, in the order checks report them (conformance/codes.json gives each one's outcome).",
        &reasons,
    );
    let outcomes: Vec<(&str, &str)> = outcomes().iter().map(|o| (*o, "")).collect();
    ts_union(
        &mut out,
        "Outcome",
        "What the executor does with a checked call.",
        &outcomes,
    );
    let all = if with_ledger { all_shapes() } else { shapes() };
    if with_ledger {
        for u in ledger::unions() {
            let members: Vec<(&str, &str)> = u.members.iter().map(|m| (*m, "")).collect();
            ts_union(&mut out, u.name, u.doc, &members);
        }
    }
    for s in &all {
        ts_doc(&mut out, s.doc, "");
        let extends = s.extends.map_or(String::new(), |b| format!(" extends {b}"));
        out.push_str(&format!("export interface {}{extends} {{\n", s.name));
        for f in &s.fields {
            ts_doc(&mut out, f.doc, "  ");
            let ty = match (s.name, f.name) {
                ("ActionEnvelope", "args") => "{ [key: string]: unknown }".to_owned(),
                _ => ts_type(&f.ty),
            };
            let q = if f.optional { "?" } else { "" };
            out.push_str(&format!("  {}{q}: {ty}\n", f.name));
        }
        out.push_str("}\n\n");
    }
    out
}

const ERROR_DOC: &str = "What every function throws for input it refuses. `message` is `\"<code>: <explanation>\"` followed by the location, if any; only `code`, `path` and `offset` are stable. An exception thrown by a getter or a Proxy trap of a value is passed on unchanged instead.";

/// The members of `ActionsealError`, the same in both packages and in the Python stub.
fn ts_error_members() -> String {
    [
        "  /** Stable snake_case code. */\n  code: ErrorCode\n",
        "  /** JSON Pointer (RFC 6901) to the offending value; `''` for the root. */\n  path: string\n",
        "  /** Byte offset in the UTF-8 JSON text, for errors found in JSON text; else `null`. */\n  offset: number | null\n",
    ]
    .concat()
}

const GENERATED: &str = "Generated by `cargo run -p actionseal-conformance --bin regen` from core (conformance/src/surfaces.rs); do not edit.";

/// `bindings-node/dts-header.d.ts`: napi-rs puts it at the top of `index.d.ts`.
fn node_header() -> String {
    let mut out = format!(
        "/* auto-generated by NAPI-RS from src/ and dts-header.d.ts; do not edit */\n/* eslint-disable */\n// {GENERATED}\n\n"
    );
    out.push_str(&ts_declarations(true));
    ts_doc(&mut out, ERROR_DOC, "");
    out.push_str("export interface ActionsealError extends Error {\n");
    out.push_str(&ts_error_members());
    out.push_str("}\n");
    out
}

/// `bindings-wasm/src/types.rs`: the declarations wasm-bindgen adds to the package's
/// `.d.ts`.
fn wasm_types() -> String {
    let mut ts = ts_declarations(false);
    ts_doc(&mut ts, ERROR_DOC, "");
    ts.push_str("export declare class ActionsealError extends Error {\n");
    ts.push_str(&ts_error_members());
    ts.push_str("  constructor(code: ErrorCode, message: string, path?: string, offset?: number | null)\n}\n\n");
    ts.push_str("/** Options of the JSON functions. */\nexport interface Options {\n");
    ts.push_str("  /**\n   * Number profile: `'strict'` (the default) refuses numbers whose value canonicalization\n   * would change; `'rfc8785'` rounds them as plain RFC 8785 does.\n   */\n");
    ts.push_str("  profile?: 'strict' | 'rfc8785'\n}\n\n/** A JSON text: a string, or its UTF-8 bytes. */\nexport type JsonText = string | Uint8Array\n\n");
    ts.push_str("/** What a call needs: whether an approval, and the JSON Pointer of the contract rule that decided. */\nexport interface Requirement {\n  required: boolean\n  /** `'/approval'`, `'/approval/when/<i>'` (the first matching condition) or `'/approval/when'`. */\n  rule: string\n}\n");
    format!(
        "//! The TypeScript declarations of the data this package takes and returns.\n//!\n//! {GENERATED}\n\nuse wasm_bindgen::prelude::*;\n\n#[wasm_bindgen(typescript_custom_section)]\nconst TYPES: &'static str = r#\"\n{ts}\"#;\n"
    )
}

// ---------------------------------------------------------------------------------------
// Python

const PY_BEGIN: &str =
    "# --- generated by regen (conformance/src/surfaces.rs) from core: do not edit ---\n";
const PY_END: &str = "# --- end of generated ---\n";

fn py_literal(name: &str, members: &[&str]) -> String {
    let mut s = format!("{name} = Literal[\n");
    for m in members {
        s.push_str(&format!("    \"{m}\",\n"));
    }
    s.push_str("]\n");
    s
}

fn py_type(ty: &Ty) -> String {
    match ty {
        Ty::Str | Ty::Identity | Ty::Digest => "str".into(),
        Ty::Millis | Ty::Int => "int".into(),
        Ty::Bool => "bool".into(),
        Ty::OneOf(v) => format!(
            "Literal[{}]",
            v.iter()
                .map(|s| format!("\"{s}\""))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Ty::Shape(s) if is_union(s) => (*s).into(),
        Ty::Shape(s) if PY_SHAPES.contains(s) => format!("_{s}"),
        // Shapes the stub has no TypedDict for (an action envelope, an approval record).
        Ty::Shape(_) => "Dict[str, Any]".into(),
        Ty::List(t) => format!("List[{}]", py_type(t)),
        Ty::Object => "Dict[str, Any]".into(),
        Ty::Unknown => "Any".into(),
        Ty::ContractOrDocument => "Union[\"Contract\", Dict[str, Any], None]".into(),
        Ty::Contract => "Union[\"Contract\", Dict[str, Any]]".into(),
        Ty::ApprovalRule => "Union[str, Dict[str, Any]]".into(),
        Ty::Nullable(t) => format!("Optional[{}]", py_type(t)),
        Ty::Map(t) => format!("Dict[str, {}]", py_type(t)),
        Ty::Either(tys) => format!(
            "Union[{}]",
            tys.iter().map(py_type).collect::<Vec<_>>().join(", ")
        ),
    }
}

/// `class _Name(TypedDict)` for a shape: its required fields, then (in a subclass with
/// `total=False`) its optional ones.
fn py_typed_dict(out: &mut String, s: &Shape) {
    let base = s.extends.map_or("TypedDict".to_owned(), |b| {
        assert!(
            PY_SHAPES.contains(&b),
            "{b} is not declared in the Python stub"
        );
        format!("_{b}")
    });
    let doc = |out: &mut String, text: &str, indent: &str| {
        if !text.is_empty() {
            out.push_str(&format!(
                "{indent}\"\"\"{}\"\"\"\n",
                text.replace('`', "``")
            ));
        }
    };
    let fields = |out: &mut String, optional: bool| {
        for f in s.fields.iter().filter(|f| f.optional == optional) {
            out.push_str(&format!("    {}: {}\n", f.name, py_type(&f.ty)));
            doc(out, f.doc, "    ");
        }
    };
    if s.fields.iter().any(|f| f.optional) {
        out.push_str(&format!("\nclass _{}Required({base}):\n", s.name));
        doc(out, s.doc, "    ");
        out.push('\n');
        fields(out, false);
        out.push_str(&format!(
            "\nclass _{0}(_{0}Required, total=False):\n",
            s.name
        ));
        doc(out, s.doc, "    ");
        out.push('\n');
        fields(out, true);
    } else {
        out.push_str(&format!("\nclass _{}({base}):\n", s.name));
        doc(out, s.doc, "    ");
        out.push('\n');
        fields(out, false);
    }
}

/// The shapes the stub has a TypedDict for: what the functions and the ledger's methods return,
/// and the ledger's decision envelope and facts (the ledger's requests are keyword arguments).
const PY_SHAPES: [&str; 35] = [
    "ActionError",
    "Verdict",
    "AmendedAction",
    "NoticeMark",
    "Notice",
    "Budget",
    "Ed25519Jwk",
    "Ed25519PrivateJwk",
    "EnvelopeSignature",
    "SignedEnvelope",
    "ServiceSigner",
    "PasskeySigner",
    "VerifiedProof",
    "PasskeyCredential",
    "ApproverFact",
    "SubjectFact",
    "DecisionEnvelope",
    "ClaimFacts",
    "DecisionProof",
    "LedgerTask",
    "AmendmentRecord",
    "Amended",
    "Decided",
    "ClaimedProof",
    "Claim",
    "ClaimOutcome",
    "LedgerPolicy",
    "Revocation",
    "LedgerBudget",
    "LedgerEvent",
    "TaskHistory",
    "AuditHead",
    "AuditBreak",
    "ExportedHeads",
    "AuditReport",
];

/// The generated block of the stub: the Literals of codes, reasons, outcomes and the ledger's
/// unions, and the TypedDicts of [`PY_SHAPES`].
fn python_block() -> String {
    let mut out = String::from(PY_BEGIN);
    let codes: Vec<&str> = Code::ALL.iter().map(|c| c.as_str()).collect();
    let reasons: Vec<&str> = Reason::ALL.iter().map(|r| r.as_str()).collect();
    out.push_str("# The stable error codes (conformance/codes.json).\n");
    out.push_str(&py_literal("ErrorCode", &codes));
    out.push_str("# Why a check did not permit, in report order.\n");
    out.push_str(&py_literal("Reason", &reasons));
    out.push_str(&py_literal("Outcome", &outcomes()));
    for u in ledger::unions() {
        out.push_str(&format!("# {}\n", u.doc.replace('`', "")));
        out.push_str(&py_literal(u.name, &u.members));
    }
    let all = all_shapes();
    for name in PY_SHAPES {
        py_typed_dict(&mut out, shape(&all, name));
    }
    out.push_str(PY_END);
    out
}

/// The stub with its generated block replaced.
fn python_stub(stub: &str) -> Result<String, String> {
    let start = stub
        .find(PY_BEGIN)
        .ok_or("the generated block's first line is missing")?;
    let end = stub[start..]
        .find(PY_END)
        .map(|i| start + i + PY_END.len())
        .ok_or("the generated block's last line is missing")?;
    Ok(format!(
        "{}{}{}",
        &stub[..start],
        python_block(),
        &stub[end..]
    ))
}
