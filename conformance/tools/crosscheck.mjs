// Cross-library check with Node's crypto (OpenSSL), run by the test command:
//  - the signed and passkey vectors verify (or fail) in node:crypto as they do in core;
//  - an envelope Node signs with a fresh key verifies in core, and a flipped bit does not;
//  - an envelope core signs (actionseal key generate | sign) verifies in node:crypto, under the
//    keyid Node computes as the RFC 7638 thumbprint, over the payload npm canonicalize writes.
//   node conformance/tools/crosscheck.mjs path/to/actionseal
import { createPublicKey, generateKeyPairSync, sign, verify } from 'node:crypto';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { b64u, canonical, envelope, pae, PAYLOAD_TYPE, readJson, root, sha256 } from './proof-lib.mjs';

const cli = process.argv[2];
if (!cli) throw new Error('usage: crosscheck.mjs path/to/actionseal');
let passed = 0;
let failed = 0;
const check = (ok, what) => {
  if (ok) passed++;
  else { failed++; console.error(`FAIL ${what}`); }
};
const vectors = (kind) => readdirSync(`${root}/conformance/vectors/${kind}`).filter((f) => f.endsWith('.json')).sort()
  .map((f) => ({ name: f.slice(0, -5), ...JSON.parse(readFileSync(`${root}/conformance/vectors/${kind}/${f}`, 'utf8')) }));
const edKey = (raw) => createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: b64u(raw) }, format: 'jwk' });
const fromB64u = (s) => Buffer.from(s, 'base64url');

// Ed25519 vectors: valid ones verify in OpenSSL, invalid signatures fail there too.
for (const v of vectors('signed').filter((v) => v.op === 'ed25519')) {
  const key = Buffer.from(v.public_key_hex, 'hex');
  if (v.expect.error === 'invalid_key') continue; // core refuses the key before any signature
  const ok = verify(null, Buffer.from(v.message_hex, 'hex'), edKey(key), Buffer.from(v.signature_hex, 'hex'));
  check(ok === (v.expect.valid === true), `signed/${v.name}: node:crypto says ${ok}`);
}

// Envelope vectors: Node verifies the signature over PAE with the key the key set files under
// keyid. Vectors refused before or after the signature (shape, base64, key set, payload
// content, window, approvers) say nothing about the signature itself and are skipped here.
const signatureVerdicts = new Set(['invalid_signature', 'payload_type_mismatch']);
for (const v of vectors('signed').filter((v) => v.op === 'verify')) {
  const want = v.expect.error === undefined ? true : signatureVerdicts.has(v.expect.error) ? false : null;
  if (want === null) continue;
  const env = JSON.parse(v.approval);
  const keys = JSON.parse(v.keys).service_keys;
  const [{ keyid, sig }] = env.signatures;
  const entry = keys[keyid];
  const x = typeof entry.key === 'string' ? entry.key : entry.key.x;
  const ok = verify(null, pae(PAYLOAD_TYPE, fromB64u(env.payload)), edKey(fromB64u(x)), fromB64u(sig));
  check(ok === want, `signed/${v.name}: node:crypto says ${ok}`);
}

// Passkey vectors: the signature over authenticatorData || SHA-256(clientDataJSON) with the
// COSE key of the credential, as OpenSSL sees it (ES256 with DER signatures, or Ed25519).
const coseToKey = (cose) => {
  // The COSE keys here are the fixed layouts WebAuthn uses: EC2 {1,3,-1,-2,-3} or OKP {1,3,-1,-2}.
  const b = fromB64u(cose);
  if (b[0] === 0xa5) return { alg: 'ES256', key: createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: b64u(b.subarray(10, 42)), y: b64u(b.subarray(45, 77)) }, format: 'jwk' }) };
  return { alg: 'EdDSA', key: edKey(b.subarray(10, 42)) };
};
for (const v of vectors('passkey').filter((v) => v.op === 'verify')) {
  const want = v.expect.error === undefined ? true : v.expect.error === 'invalid_signature' ? false : null;
  if (want === null) continue;
  const { passkey } = JSON.parse(v.approval);
  const entry = JSON.parse(v.keys).passkeys[passkey.credential_id];
  const { alg, key } = coseToKey(entry.public_key);
  const message = Buffer.concat([fromB64u(passkey.authenticator_data), sha256(fromB64u(passkey.client_data_json))]);
  const sig = fromB64u(passkey.signature);
  let ok;
  try {
    ok = alg === 'ES256' ? verify('sha256', message, { key, dsaEncoding: 'der' }, sig) : verify(null, message, key, sig);
  } catch { ok = false; }
  check(ok === want, `passkey/${v.name}: node:crypto (${alg}) says ${ok}`);
}

// Node signs, core verifies.
const dir = mkdtempSync(join(tmpdir(), 'actionseal-crosscheck-'));
try {
  const record = readJson('examples/refund/approval.json');
  const payload = Buffer.from(canonical(record));
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const { x } = publicKey.export({ format: 'jwk' });
  const keyid = b64u(sha256(`{"crv":"Ed25519","kty":"OKP","x":"${x}"}`));
  const nodeKey = { keyid, sign: (m) => sign(null, m, privateKey) };
  const keysFile = join(dir, 'keys.json');
  writeFileSync(keysFile, JSON.stringify({ service_keys: { [keyid]: { key: { kty: 'OKP', crv: 'Ed25519', x } } } }));
  const run = (args, input) => spawnSync(cli, args, { input, encoding: 'utf8' });
  const signed = envelope(payload, nodeKey);
  let r = run(['key', 'verify', '--keys', keysFile], JSON.stringify(signed));
  check(r.status === 0 && JSON.parse(r.stdout).signer.keyid === keyid, `core verifies a node:crypto envelope (${r.status} ${r.stderr})`);
  const bad = { ...signed, payload: b64u(Buffer.from(canonical({ ...record, expires_at: record.expires_at + 1 }))) };
  r = run(['key', 'verify', '--keys', keysFile], JSON.stringify(bad));
  check(r.status === 4 && r.stderr.startsWith('error: invalid_signature: '), `core refuses a changed payload (${r.status} ${r.stderr})`);

  // Core signs, Node verifies.
  const privateFile = join(dir, 'core.jwk');
  const jwk = JSON.parse(execFileSync(cli, ['key', 'generate', '--out', privateFile], { encoding: 'utf8' }));
  check(jwk.kid === b64u(sha256(`{"crv":"Ed25519","kty":"OKP","x":"${jwk.x}"}`)), 'core keyid is the RFC 7638 thumbprint');
  const coreEnv = JSON.parse(execFileSync(cli, ['key', 'sign', '--key', privateFile], { input: JSON.stringify(record), encoding: 'utf8' }));
  check(coreEnv.payloadType === PAYLOAD_TYPE && coreEnv.signatures[0].keyid === jwk.kid, 'core envelope names its type and key');
  check(fromB64u(coreEnv.payload).equals(payload), 'core payload is the canonical record');
  const coreKey = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: jwk.x }, format: 'jwk' });
  check(verify(null, pae(PAYLOAD_TYPE, payload), coreKey, fromB64u(coreEnv.signatures[0].sig)), 'node:crypto verifies a core signature');
  check(!verify(null, pae('application/json', payload), coreKey, fromB64u(coreEnv.signatures[0].sig)), 'node:crypto refuses it under another type');
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log(`crosscheck (node:crypto, ${process.versions.openssl}): ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
