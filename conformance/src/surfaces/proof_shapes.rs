//! The shapes of proof of who decided: keys, key sets, envelopes, passkey assertions and
//! registrations, and what verification returns.

use super::shape_types::{field, optional, Field, Shape, Ty};
use actionseal_core::PAYLOAD_TYPE;

/// The proof shapes, in declaration order.
pub(super) fn proof_shapes() -> Vec<Shape> {
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
