// Records conformance/vectors/passkey/: real WebAuthn registrations and assertions from
// headless Chromium's CDP virtual authenticator (ctap2, internal, resident key, user
// verification), which answers with ES256, and EdDSA ones made with Node's crypto. The page
// runs on http://localhost:PORT (an IP address is not a valid rpId). Expected results are
// written here by hand; `cargo run -p actionseal-conformance --bin regen` then checks each
// against the core. Runs only when regenerating, never at test time (it needs Chromium).
//   node conformance/tools/record-passkeys.mjs
import { serve, launch } from '../../testing/browser.mjs';
import { b64u, canonical, ed25519Key, readJson, sha256, writeVectors } from './proof-lib.mjs';

const RP_ID = 'localhost';
const record = readJson('examples/refund/approval.json');
const action = readJson('examples/refund/action.json');
const context = readJson('examples/refund/context.json');
const text = (v) => JSON.stringify(v, null, 2);
const fromB64u = (s) => Buffer.from(s, 'base64url');
const challengeOf = (r) => sha256(canonical(r));
/** A record for another action, sealed: its action_digest is the new action's fingerprint. */
const resealed = (r, args) => {
  const a = { ...r.action, args: { ...r.action.args, ...args } };
  return { ...r, action: a, action_digest: 'sha256:' + sha256(canonical(a)).toString('hex') };
};
const other = resealed(record, { amount_minor: 2600 });
const carolRecord = { ...record, approver: 'user:carol' };

// Two origins on the same registrable domain: the second is not in the allowed list.
const servers = [await serve({ '/': '/nonexistent' }, { '/': { type: 'text/html', body: '<!doctype html><title>passkey</title>' } }),
  await serve({ '/': '/nonexistent' }, { '/': { type: 'text/html', body: '<!doctype html><title>other</title>' } })];
const origins = servers.map((s) => s.origin.replace('127.0.0.1', 'localhost'));
const browser = await launch();
const { page } = browser;
let out;
try {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
  });
  await page.goto(origins[0] + '/');

  const register = (name, challenge) => page.evaluate(async ({ rpId, name, challenge }) => {
    const b = (buf) => btoa(String.fromCharCode(...new Uint8Array(buf))).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
    const c = await navigator.credentials.create({ publicKey: {
      rp: { id: rpId, name: 'actionseal' },
      user: { id: new TextEncoder().encode(name), name, displayName: name },
      challenge: new Uint8Array(challenge),
      pubKeyCredParams: [{ type: 'public-key', alg: -7 }],
      authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
      attestation: 'none',
    } });
    return { credential_id: b(c.rawId), attestation_object: b(c.response.attestationObject), client_data_json: b(c.response.clientDataJSON) };
  }, { rpId: RP_ID, name, challenge: [...challenge] });

  const assert = (credentialId, challenge, userVerification = 'required') => page.evaluate(async ({ rpId, id, challenge, userVerification }) => {
    const b = (buf) => btoa(String.fromCharCode(...new Uint8Array(buf))).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
    const raw = Uint8Array.from(atob(id.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
    const c = await navigator.credentials.get({ publicKey: {
      challenge: new Uint8Array(challenge), rpId, userVerification,
      allowCredentials: [{ type: 'public-key', id: raw }],
    } });
    return { credential_id: b(c.rawId), authenticator_data: b(c.response.authenticatorData),
      client_data_json: b(c.response.clientDataJSON), signature: b(c.response.signature) };
  }, { rpId: RP_ID, id: credentialId, challenge: [...challenge], userVerification });

  const regChallenge = sha256('actionseal registration challenge');
  const bob = await register('user:bob', regChallenge);
  const carol = await register('user:carol', regChallenge);
  const bobApproves = await assert(bob.credential_id, challengeOf(record));
  const bobOther = await assert(bob.credential_id, challengeOf(other));
  const carolApproves = await assert(carol.credential_id, challengeOf(record));
  const carolOwn = await assert(carol.credential_id, challengeOf(carolRecord));
  await cdp.send('WebAuthn.setUserVerified', { authenticatorId, isUserVerified: false });
  const bobUnverified = await assert(bob.credential_id, challengeOf(record), 'discouraged');
  await cdp.send('WebAuthn.setUserVerified', { authenticatorId, isUserVerified: true });
  await page.goto(origins[1] + '/');
  const bobElsewhere = await assert(bob.credential_id, challengeOf(record));
  out = { bob, carol, bobApproves, bobOther, carolApproves, carolOwn, bobUnverified, bobElsewhere, regChallenge };
} finally {
  await browser.close();
  for (const s of servers) await s.close();
}

// ---- EdDSA: an authenticator made with Node's crypto. ----
const cborHead = (major, n) => n < 24 ? Buffer.from([(major << 5) | n])
  : n < 256 ? Buffer.from([(major << 5) | 24, n]) : Buffer.from([(major << 5) | 25, n >> 8, n & 255]);
const cborText = (s) => Buffer.concat([cborHead(3, Buffer.byteLength(s)), Buffer.from(s)]);
const cborBytes = (b) => Buffer.concat([cborHead(2, b.length), b]);
const ed = ed25519Key(sha256('actionseal vector passkey EdDSA'));
// COSE_Key {1: 1 (OKP), 3: -8 (EdDSA), -1: 6 (Ed25519), -2: x}
const edCose = Buffer.concat([Buffer.from([0xa4, 0x01, 0x01, 0x03, 0x27, 0x20, 0x06, 0x21]), cborBytes(fromB64u(ed.x))]);
const edId = sha256('actionseal EdDSA credential').subarray(0, 16);
const rpIdHash = sha256(RP_ID);
const authData = (flags, counter, extra = Buffer.alloc(0)) => {
  const c = Buffer.alloc(4);
  c.writeUInt32BE(counter);
  return Buffer.concat([rpIdHash, Buffer.from([flags]), c, extra]);
};
const edAssert = (r, { flags = 0x05, type = 'webauthn.get', origin = origins[0] } = {}) => {
  const clientData = Buffer.from(JSON.stringify({ type, challenge: b64u(challengeOf(r)), origin, crossOrigin: false }));
  const data = authData(flags, 7);
  return { credential_id: b64u(edId), authenticator_data: b64u(data), client_data_json: b64u(clientData),
    signature: b64u(ed.sign(Buffer.concat([data, sha256(clientData)]))) };
};
const edAttestation = Buffer.concat([Buffer.from([0xa3]), cborText('fmt'), cborText('none'), cborText('attStmt'), Buffer.from([0xa0]),
  cborText('authData'), cborBytes(authData(0x45, 0, Buffer.concat([Buffer.alloc(16), Buffer.from([0, edId.length]), edId, edCose])))]);
const edRegistration = { credential_id: b64u(edId), attestation_object: b64u(edAttestation),
  client_data_json: b64u(JSON.stringify({ type: 'webauthn.create', challenge: b64u(out.regChallenge), origin: origins[0], crossOrigin: false })) };

// ---- The vectors. ----
const coseOf = (registration) => {
  // The COSE key sits after the 37-byte header, aaguid and credential id of authData; the
  // attestation object of a "none" registration ends with it. Node reads only the lengths.
  const att = fromB64u(registration.attestation_object);
  const at = att.indexOf(Buffer.from('authData')) + 8;
  const len = att[at] === 0x58 ? att[at + 1] : att.readUInt16BE(at + 1);
  const data = att.subarray(at + (att[at] === 0x58 ? 2 : 3), at + (att[at] === 0x58 ? 2 : 3) + len);
  const idLen = data.readUInt16BE(37 + 16);
  return b64u(data.subarray(37 + 18 + idLen));
};
const webauthn = { rp_id: RP_ID, origins: [origins[0]] };
const keySet = (passkeys, rp = webauthn) => text({ passkeys, webauthn: rp });
const entry = (registration, approver, extra = {}) => ({ [registration.credential_id]: { public_key: coseOf(registration), approver, ...extra } });
const trusted = { ...entry(out.bob, record.approver), ...entry(out.carol, 'user:carol'),
  [b64u(edId)]: { public_key: b64u(edCose), approver: record.approver } };
const trustAll = keySet(trusted);
const attach = (r, assertion) => ({ ...r, passkey: assertion });
const failed = (error, path) => ({ error, path });
// `at` is the verifier's time, at which the credential's window is judged (never the record's
// decided_at, which the signer writes); by default the decision's time, as a ledger records its arrival.
const verify = (description, approval, expect, keys = trustAll, at = JSON.parse(text(approval)).decided_at) =>
  ({ description, op: 'verify', keys, approval: text(approval), at, expect });
const withPasskey = (assertion, change) => ({ ...assertion, ...change });
const flipB64 = (s, index) => { const b = fromB64u(s); b[index] ^= 0x01; return b64u(b); };
const es256 = (credential_id) => ({ kind: 'passkey', credential_id, algorithm: 'ES256' });

// DER ECDSA: the s of a signature, and the same signature with s replaced by n - s.
const N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;
const derParts = (sig) => { const b = fromB64u(sig); const rl = b[3]; const r = b.subarray(4, 4 + rl); const s = b.subarray(6 + rl, 6 + rl + b[5 + rl]); return { r, s }; };
const derInt = (n) => { let h = n.toString(16); if (h.length % 2) h = '0' + h; let b = Buffer.from(h, 'hex'); if (b[0] & 0x80) b = Buffer.concat([Buffer.from([0]), b]); return Buffer.concat([Buffer.from([2, b.length]), b]); };
const der = (r, s) => { const body = Buffer.concat([derInt(r), derInt(s)]); return Buffer.concat([Buffer.from([0x30, body.length]), body]); };
const big = (b) => BigInt('0x' + b.toString('hex'));
const { r, s } = derParts(out.bobApproves.signature);
const highS = big(s) > N / 2n;
const complement = b64u(der(big(r), N - big(s)));
const [lowSig, highSig] = highS ? [complement, out.bobApproves.signature] : [out.bobApproves.signature, complement];

const v = {};
v.y_register_es256 = { description: 'A registration recorded from Chromium\'s virtual authenticator: "none" attestation, ES256', op: 'register',
  registration: text(out.bob), challenge: b64u(out.regChallenge), webauthn: text(webauthn),
  expect: { algorithm: 'ES256', credential_id: out.bob.credential_id, public_key: coseOf(out.bob) } };
v.y_register_eddsa = { description: 'An EdDSA registration built with node:crypto', op: 'register',
  registration: text(edRegistration), challenge: b64u(out.regChallenge), webauthn: text(webauthn),
  expect: { algorithm: 'EdDSA', credential_id: b64u(edId), public_key: b64u(edCose) } };
v.n_challenge_mismatch_register = { description: 'A registration for another challenge', op: 'register', registration: text(out.bob),
  challenge: b64u(sha256('another')), webauthn: text(webauthn), expect: failed('challenge_mismatch', '/client_data_json') };
v.n_origin_not_allowed_register = { description: 'A registration whose origin is not allowed', op: 'register', registration: text(out.bob),
  challenge: b64u(out.regChallenge), webauthn: text({ rp_id: RP_ID, origins: [origins[1]] }), expect: failed('origin_not_allowed', '/client_data_json') };
v.n_invalid_registration_unknown_field = { description: 'A registration with a member WebAuthn\'s PublicKeyCredential has but the registration format does not (type)', op: 'register',
  registration: text({ ...out.bob, type: 'public-key' }), challenge: b64u(out.regChallenge), webauthn: text(webauthn), expect: failed('invalid_registration', '/type') };
v.y_challenge_refund = { description: 'The challenge a passkey signs: the fingerprint of the record without proof fields', op: 'challenge',
  approval: text(record), expect: { challenge: b64u(challengeOf(record)) } };
v.y_challenge_ignores_the_assertion = { description: 'The same challenge with the assertion attached', op: 'challenge',
  approval: text(attach(record, out.bobApproves)), expect: { challenge: b64u(challengeOf(record)) } };

v.y_verify_es256 = verify('An ES256 assertion recorded from Chromium', attach(record, out.bobApproves), { approval: canonical(record), signer: es256(out.bob.credential_id) });
v.y_verify_es256_low_s = verify('The recorded assertion with a low s (s <= n/2)', attach(record, withPasskey(out.bobApproves, { signature: lowSig })), { signer: es256(out.bob.credential_id) });
v.y_verify_es256_high_s = verify('The same with a high s (n - s): accepted, as authenticators emit both', attach(record, withPasskey(out.bobApproves, { signature: highSig })), { signer: es256(out.bob.credential_id) });
v.y_verify_eddsa = verify('An EdDSA assertion made with node:crypto', attach(record, edAssert(record)), { signer: { kind: 'passkey', credential_id: b64u(edId), algorithm: 'EdDSA' } });
v.y_verify_own_approver = verify('Carol approves a record naming her', attach(carolRecord, out.carolOwn), { signer: es256(out.carol.credential_id) });
v.n_invalid_signature_tampered_authenticator_data = verify('One bit of authenticatorData flipped (the counter)',
  attach(record, withPasskey(out.bobApproves, { authenticator_data: flipB64(out.bobApproves.authenticator_data, 36) })), failed('invalid_signature', '/passkey/signature'));
v.n_invalid_signature_tampered_client_data = verify('One bit of clientDataJSON flipped',
  attach(record, withPasskey(out.bobApproves, { client_data_json: flipB64(out.bobApproves.client_data_json, 20) })), failed('invalid_signature', '/passkey/signature'));
v.n_invalid_signature_tampered_signature = verify('One bit of the DER signature flipped',
  attach(record, withPasskey(out.bobApproves, { signature: flipB64(out.bobApproves.signature, 12) })), failed('invalid_signature', '/passkey/signature'));
v.n_invalid_signature_der_trailing_bytes = verify('The DER signature followed by a zero byte',
  attach(record, withPasskey(out.bobApproves, { signature: b64u(Buffer.concat([fromB64u(out.bobApproves.signature), Buffer.from([0])])) })),
  failed('invalid_signature', '/passkey/signature'));
const fixed32 = (n) => Buffer.from(n.toString(16).padStart(64, '0'), 'hex');
v.n_invalid_signature_der_raw_form = verify('r || s without DER (the COSE form WebAuthn does not use)',
  attach(record, withPasskey(out.bobApproves, { signature: b64u(Buffer.concat([fixed32(big(r)), fixed32(big(s))])) })),
  failed('invalid_signature', '/passkey/signature'));
v.n_invalid_signature_eddsa_tampered = verify('An EdDSA assertion with a flipped signature bit',
  attach(record, (() => { const a = edAssert(record); return { ...a, signature: flipB64(a.signature, 3) }; })()), failed('invalid_signature', '/passkey/signature'));
v.n_challenge_mismatch = verify('Bob\'s assertion for another amount, attached to this record', attach(record, out.bobOther), failed('challenge_mismatch', '/passkey/client_data_json'));
v.n_challenge_mismatch_resealed = verify('Bob\'s assertion for this record, attached to a sealed record of another amount', attach(other, out.bobApproves),
  failed('challenge_mismatch', '/passkey/client_data_json'));
v.n_invalid_approval_action_changed = verify('One byte of the action changed, the digest left alone', attach({ ...record, action: { ...record.action, job_id: 'job-7f94' } }, out.bobApproves),
  failed('invalid_approval', '/action_digest'));
v.n_origin_not_allowed = verify('An assertion made on another origin of the same rpId', attach(record, out.bobElsewhere), failed('origin_not_allowed', '/passkey/client_data_json'));
v.n_rp_id_mismatch = verify('A key set for another relying party id', attach(record, out.bobApproves), failed('rp_id_mismatch', '/passkey/authenticator_data'),
  keySet(trusted, { rp_id: 'example.com', origins: [origins[0]] }));
v.n_user_not_verified = verify('An assertion without user verification (UV clear)', attach(record, out.bobUnverified), failed('user_not_verified', '/passkey/authenticator_data'));
v.n_user_not_verified_eddsa = verify('An EdDSA assertion with UP only', attach(record, edAssert(record, { flags: 0x01 })), failed('user_not_verified', '/passkey/authenticator_data'));
v.n_invalid_assertion_create_type = verify('clientDataJSON of type webauthn.create', attach(record, edAssert(record, { type: 'webauthn.create' })),
  failed('invalid_assertion', '/passkey/client_data_json'));
v.n_invalid_assertion_attested_data = verify('AT set in an assertion', attach(record, edAssert(record, { flags: 0x45 })), failed('invalid_assertion', '/passkey/authenticator_data'));
v.n_unknown_key_credential = verify('A credential the key set does not hold', attach(record, out.bobApproves), failed('unknown_key', '/passkey/credential_id'),
  keySet({ ...entry(out.carol, 'user:carol') }));
v.n_signer_not_allowed_other_approver = verify('Carol\'s credential signing Bob\'s record', attach(record, out.carolApproves), failed('signer_not_allowed', ''));
v.n_key_outside_window = verify('Judged before the credential became valid', attach(record, out.bobApproves), failed('key_outside_window', ''),
  keySet(entry(out.bob, record.approver, { valid_from: record.decided_at + 1 })));
v.n_key_outside_window_backdated = verify('A credential retired 1 ms after the record\'s decided_at, judged at the verifier\'s time after its retirement',
  attach(record, out.bobApproves), failed('key_outside_window', ''), keySet(entry(out.bob, record.approver, { valid_until: record.decided_at + 1 })), context.now);
v.n_invalid_assertion_unknown_field = verify('An extra member in the assertion', attach(record, { ...out.bobApproves, user_handle: 'Ym9i' }), failed('invalid_assertion', '/passkey/user_handle'));
v.n_invalid_base64_padded_signature = verify('A padded signature', attach(record, withPasskey(out.bobApproves, { signature: fromB64u(out.bobApproves.signature).toString('base64') })),
  failed('invalid_base64', '/passkey/signature'));
v.n_invalid_key_set_no_relying_party = verify('Passkeys without the relying party', attach(record, out.bobApproves), failed('invalid_key_set', '/webauthn'),
  text({ passkeys: entry(out.bob, record.approver) }));

const proofContext = (passkeys = trusted) => text({ ...context, proof: { required: true, keys: { passkeys, webauthn } } });
const check = (description, approval, expect, ctx = proofContext()) => ({ description, op: 'check', approval: text(approval), action: text(action), context: ctx, expect });
v.y_check_passkey = check('Bob\'s passkey approval permits', attach(record, out.bobApproves), { outcome: 'permit', reasons: [] });
v.y_check_passkey_eddsa = check('An EdDSA passkey approval permits', attach(record, edAssert(record)), { outcome: 'permit', reasons: [] });
v.n_reject_check_passkey_action_changed = check('One byte of the frozen action changed after Bob approved', attach({ ...record, action: { ...record.action, job_id: 'job-7f94' } }, out.bobApproves),
  { outcome: 'reject', reasons: ['proof_invalid'] });
v.n_reject_check_passkey_other_approver = check('Carol\'s credential signing Bob\'s record', attach(record, out.carolApproves), { outcome: 'reject', reasons: ['signer_not_allowed'] });
v.n_reject_check_passkey_unknown = check('A credential the server does not hold', attach(record, out.bobApproves), { outcome: 'reject', reasons: ['key_untrusted'] },
  proofContext(entry(out.carol, 'user:carol')));
v.n_reject_check_passkey_unverified = check('No user verification', attach(record, out.bobUnverified), { outcome: 'reject', reasons: ['proof_invalid'] });

writeVectors('passkey', v);
// The size-bound vectors are built from the ones just written.
await import('./make-passkey-limit-vectors.mjs');
