// Proofs for crosscheck-model.mjs, written from docs/CONTRACTS.md, DSSE and WebAuthn Level 3,
// apart from the Rust core and from the tools that made the vectors: a key set, a DSSE envelope
// (Ed25519 over PAE), and a passkey assertion (ES256 or EdDSA over authenticatorData ||
// SHA-256(clientDataJSON)), judged at a time the caller gives. A failure throws the core's code
// and path; `reasonOf` maps it to the check's reason.

import { createHash, createPublicKey, verify } from 'node:crypto'
import { createRequire } from 'node:module'

const canonicalize = createRequire(import.meta.url)('canonicalize')

export class ProofError extends Error {
  constructor(code, path) {
    super(`${code} at ${path}`)
    this.code = code
    this.path = path
  }
}
const fail = (code, path = '') => {
  throw new ProofError(code, path)
}

const isObject = (v) => typeof v === 'object' && v !== null && !Array.isArray(v)
const sha256 = (bytes) => createHash('sha256').update(bytes).digest()
const b64u = (bytes) => Buffer.from(bytes).toString('base64url')
/** Unpadded base64url, and only its one canonical spelling (RFC 4648 §5). */
function unb64u(s, path) {
  if (typeof s !== 'string' || !/^[A-Za-z0-9_-]*$/.test(s) || s.length % 4 === 1) fail('invalid_base64', path)
  const bytes = Buffer.from(s, 'base64url')
  if (b64u(bytes) !== s) fail('invalid_base64', path)
  return bytes
}
const fingerprintBytes = (value) => sha256(Buffer.from(canonicalize(value), 'utf8'))
const edKey = (raw) => createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: b64u(raw) }, format: 'jwk' })

// ---------------------------------------------------------------------------- key set
/** RFC 7638 thumbprint of an Ed25519 key. */
const thumbprint = (x) => b64u(sha256(`{"crv":"Ed25519","kty":"OKP","x":"${x}"}`))

const windowOf = (entry) => ({
  from: Number.isSafeInteger(entry.valid_from) ? entry.valid_from : null,
  until: Number.isSafeInteger(entry.valid_until) ? entry.valid_until : null,
})
const inWindow = (w, at) => (w.from === null || w.from <= at) && (w.until === null || at < w.until)

/** The parts of a key set the model uses: service keys by keyid, passkeys by credential id. */
export function readKeySet(v) {
  if (!isObject(v)) fail('invalid_key_set', '')
  const service = new Map()
  for (const [kid, entry] of Object.entries(v.service_keys ?? {})) {
    const x = typeof entry.key === 'string' ? entry.key : entry.key?.x
    if (thumbprint(x) !== kid) fail('invalid_key_set', `/service_keys/${kid}`)
    service.set(kid, { key: edKey(unb64u(x, `/service_keys/${kid}/key`)), window: windowOf(entry), approvers: entry.approvers ?? null })
  }
  const passkeys = new Map()
  for (const [id, entry] of Object.entries(v.passkeys ?? {})) {
    passkeys.set(id, { ...coseKey(unb64u(entry.public_key, `/passkeys/${id}/public_key`)), window: windowOf(entry), approver: entry.approver })
  }
  return { service, passkeys, webauthn: v.webauthn ?? null }
}

// ---------------------------------------------------------------------------- DSSE
export const APPROVAL_TYPE = 'application/vnd.actionseal.approval+json'
export const DELEGATION_TYPE = 'application/vnd.actionseal.delegation+json'

/** DSSE v1 pre-authentication encoding. */
export function pae(type, body) {
  const t = Buffer.from(type, 'utf8')
  return Buffer.concat([Buffer.from(`DSSEv1 ${t.length} `), t, Buffer.from(` ${body.length} `), body])
}

export const isEnvelope = (v) => isObject(v) && Object.hasOwn(v, 'payloadType')

/** Runs `read(document)`, its failure reported under `prefix`. */
function reading(read, document, prefix) {
  try {
    read(document)
  } catch (e) {
    if (typeof e.code === 'string' && typeof e.path === 'string') fail(e.code, prefix + e.path)
    throw e
  }
}

/**
 * A DSSE envelope of `type`, verified with `keys` at `at` as DSSE says (the signature over
 * PAE before the payload is parsed); `read(document)` checks the payload's shape (failures at
 * `/payload`...), `signerFor(document)` names whom the key must be allowed to sign for.
 * Returns the document and the signer.
 */
export function verifyEnvelope(env, type, keys, at, signerFor, read = () => {}) {
  for (const k of Object.keys(env)) if (!['payloadType', 'payload', 'signatures'].includes(k)) fail('invalid_envelope', `/${k}`)
  for (const k of ['payloadType', 'payload', 'signatures']) if (!Object.hasOwn(env, k)) fail('invalid_envelope', `/${k}`)
  if (env.payloadType !== type) fail('payload_type_mismatch', '/payloadType')
  const payload = unb64u(env.payload, '/payload')
  if (!Array.isArray(env.signatures) || env.signatures.length !== 1) fail('invalid_envelope', '/signatures')
  const s = env.signatures[0]
  if (!isObject(s)) fail('invalid_envelope', '/signatures/0')
  for (const k of Object.keys(s)) if (!['keyid', 'sig'].includes(k)) fail('invalid_envelope', `/signatures/0/${k}`)
  for (const k of ['keyid', 'sig']) if (typeof s[k] !== 'string') fail('invalid_envelope', `/signatures/0/${k}`)
  const sig = unb64u(s.sig, '/signatures/0/sig')
  if (keys === null) fail('unknown_key', '/signatures/0/keyid')
  const entry = keys.service.get(s.keyid)
  if (!entry) fail('unknown_key', '/signatures/0/keyid')
  if (sig.length !== 64 || !verify(null, pae(type, payload), entry.key, sig)) fail('invalid_signature', '/signatures/0/sig')
  let document
  try {
    document = JSON.parse(payload.toString('utf8'))
  } catch {
    fail('non_canonical_payload', '/payload')
  }
  if (canonicalize(document) !== payload.toString('utf8')) fail('non_canonical_payload', '/payload')
  reading(read, document, '/payload')
  if (!inWindow(entry.window, at)) fail('key_outside_window', '')
  if (entry.approvers !== null && !entry.approvers.includes(signerFor(document))) fail('signer_not_allowed', '')
  return { document, signer: { keyid: s.keyid, kind: 'service' } }
}

// ---------------------------------------------------------------------------- passkeys
/** The CBOR of a COSE key: a map of small integers to integers and byte strings (RFC 8949). */
function cbor(bytes) {
  let at = 0
  const head = () => {
    const b = bytes[at++]
    const major = b >> 5
    let n = b & 31
    if (n === 24) n = bytes[at++]
    else if (n === 25) { n = bytes.readUInt16BE(at); at += 2 } else if (n > 25) fail('invalid_key', '')
    return [major, n]
  }
  const item = () => {
    const [major, n] = head()
    if (major === 0) return n
    if (major === 1) return -1 - n
    if (major === 2) { const v = bytes.subarray(at, at + n); at += n; return v }
    if (major === 5) {
      const m = new Map()
      for (let i = 0; i < n; i++) { const k = item(); m.set(k, item()) }
      return m
    }
    return fail('invalid_key', '')
  }
  return item()
}

function coseKey(bytes) {
  const m = cbor(bytes)
  if (m.get(1) === 2 && m.get(3) === -7) {
    const jwk = { kty: 'EC', crv: 'P-256', x: b64u(m.get(-2)), y: b64u(m.get(-3)) }
    return { alg: 'ES256', key: createPublicKey({ key: jwk, format: 'jwk' }) }
  }
  if (m.get(1) === 1 && m.get(3) === -8) return { alg: 'EdDSA', key: edKey(m.get(-2)) }
  return fail('invalid_key', '')
}

/**
 * A document with a `passkey` member, the assertion's challenge being the fingerprint of the
 * document without it; `signerFor(document)` names who the credential must belong to.
 */
export function verifyPasskey(value, keys, at, signerFor, read = () => {}) {
  const { passkey, ...document } = value
  reading(read, document, '')
  if (!isObject(passkey)) fail('invalid_assertion', '/passkey')
  const members = ['credential_id', 'authenticator_data', 'client_data_json', 'signature']
  for (const k of Object.keys(passkey)) if (!members.includes(k)) fail('invalid_assertion', `/passkey/${k}`)
  for (const k of members) if (typeof passkey[k] !== 'string') fail('invalid_assertion', `/passkey/${k}`)
  const clientBytes = unb64u(passkey.client_data_json, '/passkey/client_data_json')
  const authData = unb64u(passkey.authenticator_data, '/passkey/authenticator_data')
  const sig = unb64u(passkey.signature, '/passkey/signature')
  if (keys === null) fail('unknown_key', '/passkey/credential_id')
  const entry = keys.passkeys.get(passkey.credential_id)
  if (!entry) fail('unknown_key', '/passkey/credential_id')
  // The signature first (WebAuthn L3 §7.2 checks it last; core verifies before reading).
  const message = Buffer.concat([authData, sha256(clientBytes)])
  let ok = false
  try {
    ok = entry.alg === 'ES256'
      ? verify('sha256', message, { key: entry.key, dsaEncoding: 'der' }, sig)
      : verify(null, message, entry.key, sig)
  } catch {
    ok = false
  }
  if (!ok) fail('invalid_signature', '/passkey/signature')
  let client
  try {
    client = JSON.parse(clientBytes.toString('utf8'))
  } catch {
    fail('invalid_assertion', '/passkey/client_data_json')
  }
  if (client.type !== 'webauthn.get' || client.crossOrigin === true) fail('invalid_assertion', '/passkey/client_data_json')
  if (client.challenge !== b64u(fingerprintBytes(document))) fail('challenge_mismatch', '/passkey/client_data_json')
  if (!keys.webauthn?.origins?.includes(client.origin)) fail('origin_not_allowed', '/passkey/client_data_json')
  if (authData.length < 37) fail('invalid_assertion', '/passkey/authenticator_data')
  if (!authData.subarray(0, 32).equals(sha256(keys.webauthn.rp_id))) fail('rp_id_mismatch', '/passkey/authenticator_data')
  if ((authData[32] & 0x05) !== 0x05) fail('user_not_verified', '/passkey/authenticator_data')
  if (!inWindow(entry.window, at)) fail('key_outside_window', '')
  if (entry.approver !== signerFor(document)) fail('signer_not_allowed', '')
  return { document, signer: { algorithm: entry.alg, credential_id: passkey.credential_id, kind: 'passkey' } }
}

/** The check's reason for a proof that fails. */
export function reasonOf(code) {
  if (code === 'missing_proof') return 'proof_missing'
  if (code === 'unknown_key' || code === 'key_outside_window') return 'key_untrusted'
  if (code === 'signer_not_allowed') return 'signer_not_allowed'
  return 'proof_invalid'
}
