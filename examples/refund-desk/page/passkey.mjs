// The reviewer's passkey on the desk's page. Registration: the approval server issues the
// challenge and verifies the attestation (it files the credential for the executor).
// Approval: the passkey signs the fingerprint of the exact approval record the ledger will hold
// (`passkeyChallenge(record)`), and the assertion travels with the record.

const b64u = (bytes) => btoa(String.fromCharCode(...new Uint8Array(bytes))).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
const fromB64u = (text) => Uint8Array.from(atob(text.replaceAll("-", "+").replaceAll("_", "/")), (c) => c.charCodeAt(0));

/** Registers a passkey for the server's reviewer; resolves to what the server enrolled. */
export async function register(api) {
  const { body: c } = await api("/api/passkeys/challenge", {});
  const credential = await navigator.credentials.create({
    publicKey: {
      rp: { id: c.webauthn.rp_id, name: "actionseal refund desk" },
      user: { id: new TextEncoder().encode(c.approver), name: c.approver, displayName: c.approver },
      challenge: fromB64u(c.challenge),
      pubKeyCredParams: [{ type: "public-key", alg: -7 }, { type: "public-key", alg: -8 }],
      authenticatorSelection: { residentKey: "required", userVerification: "required" },
      attestation: "none",
    },
  });
  const { status, body } = await api("/api/passkeys", {
    challenge: c.challenge,
    registration: {
      credential_id: b64u(credential.rawId),
      attestation_object: b64u(credential.response.attestationObject),
      client_data_json: b64u(credential.response.clientDataJSON),
    },
  });
  if (status !== 200) throw new Error(body.error);
  return body;
}

/** The record with the passkey's assertion over its fingerprint. */
export async function assert(record, credentialId, passkeyChallenge) {
  const assertion = await navigator.credentials.get({
    publicKey: {
      challenge: fromB64u(passkeyChallenge(record)),
      rpId: location.hostname,
      allowCredentials: [{ type: "public-key", id: fromB64u(credentialId) }],
      userVerification: "required",
    },
  });
  return {
    ...record,
    passkey: {
      credential_id: b64u(assertion.rawId),
      authenticator_data: b64u(assertion.response.authenticatorData),
      client_data_json: b64u(assertion.response.clientDataJSON),
      signature: b64u(assertion.response.signature),
    },
  };
}
