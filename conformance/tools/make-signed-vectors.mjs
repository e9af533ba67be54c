// Writes conformance/vectors/signed/: Ed25519, PAE, key, sign, verify and check vectors whose
// inputs are made with Node's crypto (not actionseal's core), from fixed seeds, so a rerun
// writes the same bytes. Expected results are written here by hand; then
//   cargo run -p actionseal-conformance --bin regen
// checks every one against the core and fills in the rest. Runs only when regenerating.
//   node conformance/tools/make-signed-vectors.mjs
import { b64u, canonical, envelope, labelledKey, PAYLOAD_TYPE, readJson, sha256, writeVectors } from './proof-lib.mjs';

const A = labelledKey('A');
const B = labelledKey('B');
const record = readJson('examples/refund/approval.json');
const action = readJson('examples/refund/action.json');
const context = readJson('examples/refund/context.json');
const payload = Buffer.from(canonical(record), 'utf8');
const text = (v) => JSON.stringify(v, null, 2);
const keySet = (entries) => text({ service_keys: entries });
const trustA = keySet({ [A.keyid]: { key: A.publicJwk } });
// `at` is the verifier's time, at which the key's window is judged (never the record's
// decided_at, which the signer writes); by default the time the decision was made, as a ledger
// records its arrival.
const verify = (description, envelopeValue, expect, keys = trustA, at = record.decided_at) => ({
  description, op: 'verify', keys, approval: typeof envelopeValue === 'string' ? envelopeValue : text(envelopeValue), at, expect,
});
const failed = (error, path) => ({ error, path });
const good = envelope(payload, A);
const withSig = (sig) => ({ ...good, signatures: [{ keyid: A.keyid, sig }] });
const flip = (bytes, index, bit = 0) => { const b = Buffer.from(bytes); b[index] ^= 1 << bit; return b; };
const sigBytes = Buffer.from(good.signatures[0].sig, 'base64url');

// RFC 8032 section 7.1.
const rfc8032 = [
  ['9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60', 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a', '',
    'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b'],
  ['4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb', '3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c', '72',
    '92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00'],
  ['c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7', 'fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025', 'af82',
    '6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a'],
];
// S + L for TEST 2: the same scalar mod L, which lax verifiers accept.
const L = 0x1000000000000000000000000000000014def9dea2f79cd65812631a5cf5d3edn;
const le = (hex) => BigInt('0x' + Buffer.from(hex, 'hex').reverse().toString('hex'));
const toLe = (n) => Buffer.from(n.toString(16).padStart(64, '0'), 'hex').reverse().toString('hex');
const [, pub2, msg2, sig2] = rfc8032[1];
const sPlusL = sig2.slice(0, 64) + toLe(le(sig2.slice(64)) + L);
const identity = '01' + '00'.repeat(31);

const v = {};
rfc8032.forEach(([seed, pub, msg, sig], i) => {
  v[`y_rfc8032_test${i + 1}`] = { description: `RFC 8032 section 7.1 TEST ${i + 1}: signing with the seed gives the signature, which verifies`,
    op: 'ed25519', seed_hex: seed, public_key_hex: pub, message_hex: msg, signature_hex: sig, expect: { valid: true } };
});
v.n_invalid_signature_rfc8032_other_message = { description: 'TEST 2 signature over another message', op: 'ed25519',
  public_key_hex: pub2, message_hex: '73', signature_hex: sig2, expect: failed('invalid_signature', '') };
v.n_invalid_signature_non_canonical_s = { description: 'TEST 2 signature with S + L: same scalar mod L, refused (non-canonical S)', op: 'ed25519',
  public_key_hex: pub2, message_hex: msg2, signature_hex: sPlusL, expect: failed('invalid_signature', '') };
v.n_invalid_key_small_order_forgery = { description: 'The identity point as key with R = identity, S = 0: the cofactorless equation holds for any message; small-order keys are refused',
  op: 'ed25519', public_key_hex: identity, message_hex: '666f72676564', signature_hex: identity + '00'.repeat(32), expect: failed('invalid_key', '') };

v.y_pae_dsse_spec = { description: 'The DSSE specification example', op: 'pae', payload_type: 'http://example.com/HelloWorld',
  payload_hex: Buffer.from('hello world').toString('hex'),
  expect: { pae_hex: Buffer.from('DSSEv1 29 http://example.com/HelloWorld 11 hello world').toString('hex') } };
v.y_pae_approval_type = { description: 'PAE of the approval payload type over an empty body', op: 'pae', payload_type: PAYLOAD_TYPE, payload_hex: '',
  expect: { pae_hex: Buffer.from(`DSSEv1 ${PAYLOAD_TYPE.length} ${PAYLOAD_TYPE} 0 `).toString('hex') } };

const rfc8037 = { kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' };
const jwkOf = (k) => canonical({ crv: 'Ed25519', kid: 'kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k', kty: 'OKP', x: k.x });
v.y_key_rfc8037_thumbprint = { description: 'RFC 8037 appendix A.3: the thumbprint of the RFC 8032 TEST 1 key', op: 'key', key: text(rfc8037),
  expect: { keyid: 'kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k', jwk: jwkOf(rfc8037) } };
v.y_key_raw_base64url = { description: 'The same key as raw 32 bytes in base64url', op: 'key', key: text(rfc8037.x),
  expect: { keyid: 'kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k', jwk: jwkOf(rfc8037) } };
v.y_key_with_kid_alg_use = { description: 'Optional kid (the thumbprint), alg and use', op: 'key',
  key: text({ ...A.publicJwk, kid: A.keyid, alg: 'EdDSA', use: 'sig' }), expect: { keyid: A.keyid } };
v.n_invalid_key_private_jwk = { description: 'A private JWK where a public key is read', op: 'key', key: text(A.privateJwk), expect: failed('invalid_key', '/d') };
v.n_invalid_key_kid_not_thumbprint = { description: 'A kid that is not the thumbprint', op: 'key', key: text({ ...A.publicJwk, kid: 'service-1' }), expect: failed('invalid_key', '/kid') };
v.n_invalid_key_x25519 = { description: 'An X25519 key', op: 'key', key: text({ ...A.publicJwk, crv: 'X25519' }), expect: failed('invalid_key', '/crv') };
v.n_invalid_key_small_order = { description: 'A point of small order (the identity)', op: 'key', key: text(b64u(Buffer.from(identity, 'hex'))), expect: failed('invalid_key', '') };
v.n_invalid_key_short = { description: '31 bytes', op: 'key', key: text(b64u(Buffer.alloc(31, 7))), expect: failed('invalid_key', '') };
v.n_invalid_base64_padded_key = { description: 'x with padding', op: 'key', key: text({ ...A.publicJwk, x: A.x + '=' }), expect: failed('invalid_base64', '/x') };

v.y_sign_refund = { description: 'Core signs the canonical record: the envelope Node makes from the same key and record, byte for byte (Ed25519 is deterministic)',
  op: 'sign', key: text(A.privateJwk), approval: text(record), expect: { envelope: canonical(good) } };
v.y_sign_raw_seed = { description: 'A raw base64url seed signs the same', op: 'sign', key: text(b64u(A.seed)), approval: text(record), expect: { envelope: canonical(good) } };
const tampered = { ...record, action: { ...record.action, args: { ...record.action.args, amount_minor: 9500 } } };
v.n_invalid_approval_sign_tampered = { description: 'Signing refuses a record whose action_digest is not its action', op: 'sign', key: text(A.privateJwk),
  approval: text(tampered), expect: failed('invalid_approval', '/action_digest') };

const signerA = { kind: 'service', keyid: A.keyid };
v.y_verify_refund = verify('An envelope signed with node:crypto verifies', good, { approval: canonical(record), signer: signerA });
v.y_verify_window_and_approvers = verify('The key valid at the verifier\'s time, the approver listed', good, { signer: signerA },
  keySet({ [A.keyid]: { key: b64u(Buffer.from(A.x, 'base64url')), valid_from: record.decided_at, valid_until: record.decided_at + 1, approvers: ['user:carol', record.approver] } }));
v.n_payload_type_mismatch_swapped = verify('A validly signed envelope of another payload type', envelope(payload, A, { type: 'application/vnd.in-toto+json' }),
  failed('payload_type_mismatch', '/payloadType'));
v.n_invalid_signature_flipped_payload_bit = verify('One bit of the decoded payload flipped', { ...good, payload: b64u(flip(payload, 40, 2)) },
  failed('invalid_signature', '/signatures/0/sig'));
v.n_invalid_signature_flipped_signature_bit = verify('One bit of the signature flipped', withSig(b64u(flip(sigBytes, 10, 5))), failed('invalid_signature', '/signatures/0/sig'));
v.n_invalid_signature_flipped_s_bit = verify('One bit of S flipped', withSig(b64u(flip(sigBytes, 40, 0))), failed('invalid_signature', '/signatures/0/sig'));
v.n_invalid_signature_wrong_key = verify('Signed by key B, filed under key A', envelope(payload, B, { keyid: A.keyid }), failed('invalid_signature', '/signatures/0/sig'));
v.n_invalid_signature_truncated = verify('The signature without its last byte', withSig(b64u(sigBytes.subarray(0, 63))), failed('invalid_signature', '/signatures/0/sig'));
v.n_invalid_base64_truncated_signature_text = verify('The signature text without its last character', withSig(good.signatures[0].sig.slice(0, -1)),
  failed('invalid_base64', '/signatures/0/sig'));
const reordered = Buffer.from(JSON.stringify(Object.fromEntries(Object.entries(record).reverse())), 'utf8');
v.n_non_canonical_payload_reordered = verify('A validly signed payload with its members in another order', envelope(reordered, A), failed('non_canonical_payload', '/payload'));
v.n_non_canonical_payload_whitespace = verify('A validly signed payload with a trailing newline', envelope(Buffer.concat([payload, Buffer.from('\n')]), A),
  failed('non_canonical_payload', '/payload'));
v.n_duplicate_key_signed_payload = verify('A validly signed payload with a duplicate key', envelope(Buffer.from('{"approver":"a","approver":"b"}'), A),
  failed('duplicate_key', '/payload/approver'));
v.n_invalid_approval_signed_tampered_record = verify('A validly signed record whose action_digest is not its action', envelope(Buffer.from(canonical(tampered)), A),
  failed('invalid_approval', '/payload/action_digest'));
v.n_unknown_key_keyid = verify('Signed by key B, which the key set does not hold', envelope(payload, B), failed('unknown_key', '/signatures/0/keyid'));
v.n_invalid_envelope_duplicate_signature = verify('The same signature entry twice', { ...good, signatures: [good.signatures[0], good.signatures[0]] },
  failed('invalid_envelope', '/signatures'));
v.n_invalid_envelope_no_signature = verify('No signature entry', { ...good, signatures: [] }, failed('invalid_envelope', '/signatures'));
v.n_invalid_envelope_unknown_field = verify('An extra envelope member', { ...good, comment: 'trust me' }, failed('invalid_envelope', '/comment'));
v.n_invalid_envelope_signature_without_keyid = verify('A signature entry without keyid', { ...good, signatures: [{ sig: good.signatures[0].sig }] },
  failed('invalid_envelope', '/signatures/0/keyid'));
v.n_invalid_base64_padded_payload = verify('The payload in padded standard base64, as many DSSE tools write it', { ...good, payload: payload.toString('base64') },
  failed('invalid_base64', '/payload'));
v.n_key_outside_window = verify('Judged before the key became valid', good, failed('key_outside_window', ''),
  keySet({ [A.keyid]: { key: A.publicJwk, valid_from: record.decided_at + 1 } }));
v.n_key_outside_window_at_until = verify('Judged at valid_until (the end is exclusive)', good, failed('key_outside_window', ''),
  keySet({ [A.keyid]: { key: A.publicJwk, valid_until: record.decided_at } }));
// The red-team case: a key retired 1 ms after the record's decided_at. The signer wrote that
// time; the verifier judges the key at its own, after the retirement.
const retired = keySet({ [A.keyid]: { key: A.publicJwk, valid_until: record.decided_at + 1 } });
v.n_key_outside_window_backdated = verify('A retired key signed a record dated 1 ms before its retirement; judged at the verifier\'s time, after it',
  good, failed('key_outside_window', ''), retired, context.now);
v.y_verify_retired_key_at_arrival = verify('The same retired key, judged at the time a ledger recorded the decision\'s arrival, before the retirement',
  good, { signer: signerA }, retired, record.decided_at);
v.n_signer_not_allowed = verify('The key may sign only for someone else', good, failed('signer_not_allowed', ''),
  keySet({ [A.keyid]: { key: A.publicJwk, approvers: ['user:carol'] } }));
v.n_missing_proof_bare_record = verify('A bare record carries no proof', record, failed('missing_proof', ''));
v.n_invalid_key_set_keyid_not_thumbprint = verify('A key set filing key A under another name', good, failed('invalid_key_set', '/service_keys/service-1'),
  keySet({ 'service-1': { key: A.publicJwk } }));

// The permit check with a proof policy in the trusted context (the refund example).
const proofContext = (required, entries = { [A.keyid]: { key: A.publicJwk } }) =>
  text({ ...context, proof: { required, keys: { service_keys: entries } } });
const check = (description, approval, ctx, expect) => ({
  description, op: 'check', approval: approval === null ? null : text(approval), action: text(action), context: ctx, expect,
});
v.y_check_signed = check('A signed decision from a trusted key permits', good, proofContext(true), { outcome: 'permit', reasons: [] });
v.y_check_unsigned_not_required = check('A bare record where proof is not required permits, as before', record, proofContext(false), { outcome: 'permit', reasons: [] });
v.n_reject_check_unsigned_required = check('A forged approval: a bare record where proof is required', record, proofContext(true),
  { outcome: 'reject', reasons: ['proof_missing'] });
v.n_reject_check_unknown_key = check('A forged approval: signed by a key the server does not trust', envelope(payload, B), proofContext(true),
  { outcome: 'reject', reasons: ['key_untrusted'] });
v.n_reject_check_tampered_payload = check('A flipped payload bit', { ...good, payload: b64u(flip(payload, 40, 2)) }, proofContext(true),
  { outcome: 'reject', reasons: ['proof_invalid'] });
v.n_reject_check_signer_not_allowed = check('A key that may not sign for this approver', good,
  proofContext(true, { [A.keyid]: { key: A.publicJwk, approvers: ['user:carol'] } }), { outcome: 'reject', reasons: ['signer_not_allowed'] });
v.n_reject_check_signed_tampered = check('A validly signed record whose action was edited before signing', envelope(Buffer.from(canonical(tampered)), A),
  proofContext(true), { outcome: 'reject', reasons: ['invalid_approval'] });
const other = { ...tampered, action_digest: 'sha256:' + sha256(canonical(tampered.action)).toString('hex') };
v.n_reject_check_signed_drift = check('A validly signed, sealed approval of another amount: drift, as for a bare record', envelope(Buffer.from(canonical(other)), A),
  proofContext(true), { outcome: 'reject', reasons: ['action_drift'], drift: ['/args/amount_minor'] });
v.n_reject_check_retired_key_backdated = check('A key retired before the check\'s now signed a record dated before its retirement: judged at now, not at decided_at', good,
  proofContext(true, { [A.keyid]: { key: A.publicJwk, valid_until: record.decided_at + 1 } }), { outcome: 'reject', reasons: ['key_untrusted'] });
v.n_reject_check_no_key_set = check('A signed decision with no key set in the context', good, text(context),
  { outcome: 'reject', reasons: ['key_untrusted'] });

writeVectors('signed', v);
