// Shared by the tools that make and cross-check the signed and passkey vectors. Everything here
// is computed with Node's own crypto and npm `canonicalize`, independently of actionseal's core.
import { createHash, createPrivateKey, createPublicKey, sign } from 'node:crypto';
import { readFileSync, writeFileSync, readdirSync, unlinkSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import canonicalize from 'canonicalize';

export const root = fileURLToPath(new URL('../..', import.meta.url));
export const PAYLOAD_TYPE = 'application/vnd.actionseal.approval+json';
export const b64u = (bytes) => Buffer.from(bytes).toString('base64url');
export const sha256 = (bytes) => createHash('sha256').update(bytes).digest();
export const canonical = (value) => canonicalize(value);
export const readJson = (path) => JSON.parse(readFileSync(`${root}/${path}`, 'utf8'));

// PKCS#8 prefix of an Ed25519 private key (RFC 8410): the 32-byte seed follows.
const PKCS8_ED25519 = Buffer.from('302e020100300506032b657004220420', 'hex');

/** An Ed25519 key from a 32-byte seed, with its JWKs and RFC 7638 thumbprint. */
export function ed25519Key(seed) {
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, seed]), format: 'der', type: 'pkcs8' });
  const { x } = createPublicKey(privateKey).export({ format: 'jwk' });
  const keyid = b64u(sha256(`{"crv":"Ed25519","kty":"OKP","x":"${x}"}`));
  return {
    privateKey,
    seed,
    x,
    keyid,
    publicJwk: { kty: 'OKP', crv: 'Ed25519', x },
    privateJwk: { kty: 'OKP', crv: 'Ed25519', x, d: b64u(seed) },
    sign: (message) => sign(null, message, privateKey),
  };
}

/** A key whose seed is SHA-256 of a label: the same key every time the tools run. */
export const labelledKey = (label) => ed25519Key(sha256(`actionseal vector key ${label}`));

/** DSSE's pre-authentication encoding. */
export function pae(type, body) {
  const t = Buffer.from(type, 'utf8');
  return Buffer.concat([Buffer.from(`DSSEv1 ${t.length} `), t, Buffer.from(` ${body.length} `), body]);
}

/** A DSSE envelope over `payload` (bytes) signed by `key`, filed under `keyid`. */
export function envelope(payload, key, { type = PAYLOAD_TYPE, keyid = key.keyid } = {}) {
  return {
    payloadType: type,
    payload: b64u(payload),
    signatures: [{ keyid, sig: b64u(key.sign(pae(type, payload))) }],
  };
}

/** Replaces every `*.json` in conformance/vectors/<kind>/ with `vectors` ({name: doc}). */
export function writeVectors(kind, vectors) {
  const dir = `${root}/conformance/vectors/${kind}`;
  mkdirSync(dir, { recursive: true });
  for (const f of readdirSync(dir)) if (f.endsWith('.json')) unlinkSync(`${dir}/${f}`);
  for (const [name, doc] of Object.entries(vectors)) {
    writeFileSync(`${dir}/${name}.json`, JSON.stringify(doc, null, 2) + '\n');
  }
  console.log(`wrote ${Object.keys(vectors).length} vectors to ${dir}`);
}
