// Writes the passkey vectors about WebAuthn's size bounds (conformance/vectors/passkey/
// n_passkey_too_large_*, n_cbor_limit_exceeded_*) from the recorded ES256 registration and
// the EdDSA authenticator of record-passkeys.mjs, which runs this at its end. Needs no
// browser: a rerun writes the same bytes.
//   node conformance/tools/make-passkey-limit-vectors.mjs
//
// A text too large to keep is given as `<field>_repeat` (conformance/README.md): the
// attestation object of 256 KiB takes a few hundred bytes of the file.
import { writeFileSync } from 'node:fs';
import { b64u, canonical, ed25519Key, readJson, root, sha256 } from './proof-lib.mjs';

const text = (v) => JSON.stringify(v, null, 2);
const fromB64u = (s) => Buffer.from(s, 'base64url');
const registered = readJson('conformance/vectors/passkey/y_register_es256.json');
const verified = readJson('conformance/vectors/passkey/y_verify_eddsa.json');
const registration = JSON.parse(registered.registration);
const webauthn = JSON.parse(registered.webauthn);
const record = readJson('examples/refund/approval.json');

const head = (major, n) => n < 24 ? Buffer.from([(major << 5) | n])
  : n < 256 ? Buffer.from([(major << 5) | 24, n])
    : n < 65536 ? Buffer.from([(major << 5) | 25, n >> 8, n & 255])
      : Buffer.concat([Buffer.from([(major << 5) | 26]), Buffer.from([n >>> 24, (n >> 16) & 255, (n >> 8) & 255, n & 255])]);
const cborText = (s) => Buffer.concat([head(3, Buffer.byteLength(s)), Buffer.from(s)]);
const cborBytes = (b) => Buffer.concat([head(2, b.length), b]);
/** A map of `n` distinct unsigned keys, each to 0. */
const manyKeys = (n) => Buffer.concat([head(5, n), ...Array.from({ length: n }, (_, k) => Buffer.concat([head(0, k), Buffer.from([0])]))]);

/** The recorded attestation object with its (empty) attStmt replaced by `statement`. */
const withStatement = (statement) => {
  const att = fromB64u(registration.attestation_object);
  const empty = Buffer.concat([cborText('attStmt'), Buffer.from([0xa0])]);
  const at = att.indexOf(empty);
  return b64u(Buffer.concat([att.subarray(0, at), cborText('attStmt'), statement, att.subarray(at + empty.length)]));
};

/**
 * `{[field]: text}`, or `{[field + '_repeat']: [[text, count], ...]}` when the text holds a
 * long run of one 4-character group (a base64url run of equal bytes).
 */
const compact = (field, s) => {
  const run = /(.{4})\1{255,}/s.exec(s);
  if (!run) return { [field]: s };
  const count = run[0].length / 4;
  return { [`${field}_repeat`]: [[s.slice(0, run.index), 1], [run[1], count], [s.slice(run.index + run[0].length), 1]] };
};

const failed = (error, path) => ({ error, path });
const register = (description, change, expect) => ({ description, op: 'register',
  ...compact('registration', text({ ...registration, ...change })), challenge: registered.challenge, webauthn: registered.webauthn, expect });

// The EdDSA authenticator of record-passkeys.mjs: same seed, credential id and relying party.
const ed = ed25519Key(sha256('actionseal vector passkey EdDSA'));
const edId = sha256('actionseal EdDSA credential').subarray(0, 16);
const edAssert = (extensions, { signature } = {}) => {
  const clientData = Buffer.from(JSON.stringify({ type: 'webauthn.get', challenge: b64u(sha256(canonical(record))), origin: webauthn.origins[0], crossOrigin: false }));
  const counter = Buffer.from([0, 0, 0, 7]);
  const data = Buffer.concat([sha256(webauthn.rp_id), Buffer.from([0x85]), counter, extensions]); // UP, UV, ED
  return { credential_id: b64u(edId), authenticator_data: b64u(data), client_data_json: b64u(clientData),
    signature: signature ?? b64u(ed.sign(Buffer.concat([data, sha256(clientData)]))) };
};
// `at`, the verifier's time at which the credential is judged: the record's decision time.
const verify = (description, assertion, expect) => ({ description, op: 'verify', keys: verified.keys,
  ...compact('approval', text({ ...record, passkey: assertion })), at: record.decided_at, expect });

// A "none" attestation whose authData is 256 KiB: the red team's size (issue 23).
const huge = Buffer.concat([Buffer.from([0xa3]), cborText('fmt'), cborText('none'), cborText('attStmt'), Buffer.from([0xa0]),
  cborText('authData'), cborBytes(Buffer.alloc(256 * 1024))]);
const v = {
  n_passkey_too_large_attestation_object: register('A 256 KiB attestation object (16 KiB is the most WebAuthn needs): refused before it is decoded',
    { attestation_object: b64u(huge) }, failed('passkey_too_large', '/attestation_object')),
  n_passkey_too_large_client_data_json: register('A clientDataJSON of 5,000 bytes (4 KiB is the bound)',
    { client_data_json: b64u(Buffer.concat([Buffer.from('{"type":"webauthn.create","padding":"'), Buffer.alloc(5000, 'a'), Buffer.from('"}')])) },
    failed('passkey_too_large', '/client_data_json')),
  n_passkey_too_large_credential_id: register('A credential id of 1,024 bytes (WebAuthn allows 1,023)',
    { credential_id: b64u(Buffer.alloc(1024, 7)) }, failed('passkey_too_large', '/credential_id')),
  n_cbor_limit_exceeded_attestation_statement: register('An attestation statement of 33 members (32 is the bound)',
    { attestation_object: withStatement(manyKeys(33)) }, failed('cbor_limit_exceeded', '/attestation_object')),
  n_cbor_limit_exceeded_attestation_depth: register('An attestation statement nested 9 levels deep (8 is the bound)',
    { attestation_object: withStatement(Buffer.concat([Buffer.from([0xa1]), cborText('x'), Buffer.alloc(7, 0x81), Buffer.from([0])])) },
    failed('cbor_limit_exceeded', '/attestation_object')),
  n_passkey_too_large_authenticator_data: verify('A signed assertion whose extensions make authenticator data 5 KiB (4 KiB is the bound)',
    edAssert(Buffer.concat([Buffer.from([0xa1]), cborText('x'), cborBytes(Buffer.alloc(5 * 1024))])), failed('passkey_too_large', '/passkey/authenticator_data')),
  n_passkey_too_large_signature: verify('A signature of 1,025 bytes (1 KiB is the bound)',
    edAssert(Buffer.from([0xa0]), { signature: b64u(Buffer.alloc(1025, 1)) }), failed('passkey_too_large', '/passkey/signature')),
  n_cbor_limit_exceeded_extensions: verify('A signed assertion whose extensions are a map of 33 members (32 is the bound)',
    edAssert(manyKeys(33)), failed('cbor_limit_exceeded', '/passkey/authenticator_data')),
};
for (const [name, doc] of Object.entries(v)) {
  writeFileSync(`${root}/conformance/vectors/passkey/${name}.json`, JSON.stringify(doc, null, 2) + '\n');
}
console.log(`wrote ${Object.keys(v).length} passkey limit vectors`);
