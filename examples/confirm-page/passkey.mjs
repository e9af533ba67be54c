// The passkey part of the confirmation page: a reviewer registers a passkey once, then approves
// with it. The passkey signs the decision itself: the challenge of `navigator.credentials.get`
// is the 32 bytes of the fingerprint of the approval record (`passkeyChallenge`), which binds
// the action's (or the batch's) digest, the approver, the decision and its expiry. The page
// attaches the assertion to the record and verifies it in WebAssembly, as the executor will.
//
// The page stands in for the approval service here: it issues the registration challenge and
// checks the registration itself (`verifyRegistration`), then shows the key set entry the
// executor's server would file. The relying party is this page's host and origin.

const b64u = (bytes) => btoa(String.fromCharCode(...new Uint8Array(bytes))).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
const fromB64u = (text) => Uint8Array.from(atob(text.replaceAll("-", "+").replaceAll("_", "/")), (c) => c.charCodeAt(0));

/** The relying party: this page's host (never an IP address) and origin. */
export const relyingParty = () => ({ rp_id: location.hostname, origins: [location.origin] });

/** The key set that trusts `passkey` (as `register` returns it) for its approver. */
export const keySet = (passkey) => ({
  passkeys: { [passkey.credential_id]: { public_key: passkey.public_key, approver: passkey.approver } },
  webauthn: relyingParty(),
});

/**
 * Registers a new passkey for `approver` ("none" attestation, ES256 or EdDSA, user
 * verification required) and verifies the registration; resolves to `{approver,
 * credential_id, public_key, algorithm}`.
 */
export async function register(api, approver) {
  const challenge = crypto.getRandomValues(new Uint8Array(32));
  const credential = await navigator.credentials.create({
    publicKey: {
      rp: { id: location.hostname, name: "actionseal confirmation" },
      user: { id: new TextEncoder().encode(approver), name: approver, displayName: approver },
      challenge,
      // ES256, which every platform authenticator has, else EdDSA.
      pubKeyCredParams: [{ type: "public-key", alg: -7 }, { type: "public-key", alg: -8 }],
      authenticatorSelection: { residentKey: "required", userVerification: "required" },
      attestation: "none",
    },
  });
  const registered = api.verifyRegistration(
    {
      credential_id: b64u(credential.rawId),
      attestation_object: b64u(credential.response.attestationObject),
      client_data_json: b64u(credential.response.clientDataJSON),
    },
    b64u(challenge),
    relyingParty(),
  );
  return { approver, ...registered };
}

/**
 * Has `passkey` sign `record` and returns the passkey-approved record, verified here against
 * the passkey's key set: `{record, verified}`.
 */
export async function approve(api, record, passkey) {
  const assertion = await navigator.credentials.get({
    publicKey: {
      challenge: fromB64u(api.passkeyChallenge(record)),
      rpId: location.hostname,
      allowCredentials: [{ type: "public-key", id: fromB64u(passkey.credential_id) }],
      userVerification: "required",
    },
  });
  const signed = {
    ...record,
    passkey: {
      credential_id: b64u(assertion.rawId),
      authenticator_data: b64u(assertion.response.authenticatorData),
      client_data_json: b64u(assertion.response.clientDataJSON),
      signature: b64u(assertion.response.signature),
    },
  };
  // A batch decision is verified as a batch decision: neither kind of record reads as the other.
  const verify = record.batch_digest === undefined ? api.verifyPasskey : api.batchVerifyDecision;
  return { record: signed, verified: verify(signed, keySet(passkey), Date.now()) };
}

/**
 * The passkey panel of the decision form: the Register button, what was registered, and
 * whether "Approve with passkey" may be used (a passkey registered for the approver typed).
 * `ui` holds the elements; returns `{refresh(), current()}`.
 */
export function panel(api, ui) {
  let passkey = null;
  const refresh = () => {
    const usable = passkey !== null && ui.approver.value === passkey.approver;
    ui.approveButton.disabled = ui.registerButton.disabled || !usable || (ui.blocked?.() ?? false);
  };
  const show = () => {
    if (passkey === null) return;
    ui.status.dataset.registered = passkey.credential_id;
    ui.status.dataset.algorithm = passkey.algorithm;
    ui.status.textContent = `Registered for ${passkey.approver}: credential ${passkey.credential_id.slice(0, 12)}… (${passkey.algorithm}), verified in this page.`;
    ui.keys.textContent = `${JSON.stringify(keySet(passkey), null, 2)}\n`;
    ui.entry.hidden = false;
  };
  ui.registerButton.addEventListener("click", async () => {
    ui.problem.hidden = true;
    try {
      // The approver is checked as an identity by core when the record is made; here it only
      // names the passkey's user.
      if (ui.approver.value.trim() === "") throw new Error("type the approver's identity first");
      passkey = await register(api, ui.approver.value);
      show();
    } catch (err) {
      ui.problem.hidden = false;
      ui.problem.textContent = `Passkey registration failed: ${err.message}`;
    }
    refresh();
  });
  ui.approver.addEventListener("input", refresh);
  return { refresh, current: () => passkey };
}
