// Writes conformance/vectors/delegation/: delegation documents, their digests and their three
// link forms (a DSSE envelope of the delegation payload type, a passkey-approved document, a
// bare document), made with Node's crypto (not actionseal's core) from fixed seeds, so a rerun
// writes the same bytes. Expected results are written here by hand, in part; then
//   cargo run -p actionseal-conformance --bin regen
// checks every one against the core and fills in the rest. Runs only when regenerating.
//   node conformance/tools/make-delegation-vectors.mjs
import { b64u, canonical, ed25519Key, envelope, labelledKey, PAYLOAD_TYPE, readJson, sha256, writeVectors } from './proof-lib.mjs';

const DELEGATION_TYPE = 'application/vnd.actionseal.delegation+json';
const context = readJson('examples/refund/context.json');
const text = (v) => JSON.stringify(v, null, 2);
const failed = (error, path) => ({ error, path });
const digestOf = (v) => 'sha256:' + sha256(canonical(v)).toString('hex');

// The window every link shares unless a vector says otherwise; the check's now is inside it.
const NOT_BEFORE = 1764500000000;
const NOT_AFTER = 1765000000000;
/** A delegation from `delegator` to `delegate`: refunds up to 500.00 in tenant-a. */
const doc = (delegator, delegate, change = {}) => ({
  delegation_id: `dlg-${delegator.split(':')[1]}-${delegate.split(':')[1]}`,
  delegator, delegate, tenant: 'tenant-a', tools: ['refund_create'],
  when: [{ pointer: '/args/amount_minor', op: 'lte', value: 50000 }],
  not_before: NOT_BEFORE, not_after: NOT_AFTER, ...change,
});

// One service key per delegator, each allowed to sign only for that delegator.
const keyOf = Object.fromEntries(['carol', 'dave', 'erin', 'frank', 'gina'].map((n) => [`user:${n}`, labelledKey(`delegator ${n}`)]));
const serviceKeys = (who = Object.keys(keyOf)) => Object.fromEntries(who.map((id) => [keyOf[id].keyid, { key: keyOf[id].publicJwk, approvers: [id] }]));
const signed = (d, key = keyOf[d.delegator], type = DELEGATION_TYPE) => envelope(Buffer.from(canonical(d), 'utf8'), key, { type });

// A passkey of carol's, made with Node's crypto (EdDSA), as conformance/tools/record-passkeys.mjs
// makes its EdDSA ones.
const RP_ID = 'localhost';
const ORIGIN = 'http://localhost:8080';
const webauthn = { rp_id: RP_ID, origins: [ORIGIN] };
const cborBytes = (b) => Buffer.concat([Buffer.from([0x40 | 24, b.length]), b]);
const carolPasskey = ed25519Key(sha256('actionseal vector delegation passkey carol'));
const carolCredential = b64u(sha256('actionseal delegation credential carol').subarray(0, 16));
// COSE_Key {1: 1 (OKP), 3: -8 (EdDSA), -1: 6 (Ed25519), -2: x}
const carolCose = b64u(Buffer.concat([Buffer.from([0xa4, 0x01, 0x01, 0x03, 0x27, 0x20, 0x06, 0x21]), cborBytes(Buffer.from(carolPasskey.x, 'base64url'))]));
const passkeys = { [carolCredential]: { public_key: carolCose, approver: 'user:carol' } };
/** `d` with a `passkey` member: an assertion over the fingerprint of `challengeFor` (default `d`). */
const withPasskey = (d, challengeFor = d) => {
  const clientData = Buffer.from(JSON.stringify({ type: 'webauthn.get', challenge: b64u(sha256(canonical(challengeFor))), origin: ORIGIN, crossOrigin: false }));
  const authData = Buffer.concat([sha256(RP_ID), Buffer.from([0x05, 0, 0, 0, 9])]);
  return { ...d, passkey: { credential_id: carolCredential, authenticator_data: b64u(authData), client_data_json: b64u(clientData),
    signature: b64u(carolPasskey.sign(Buffer.concat([authData, sha256(clientData)]))) } };
};

const trusted = { service_keys: serviceKeys(), passkeys, webauthn };
const verify = (description, link, expect, keys = trusted, at = context.now) => ({
  description, op: 'verify_delegation', link: text(link), keys: text(keys), at, expect,
});
const digest = (description, document, expect) => ({ description, op: 'delegation_digest', document: typeof document === 'string' ? document : text(document), expect });

const root = doc('user:carol', 'user:dave');
const carolSigner = { kind: 'service', keyid: keyOf['user:carol'].keyid };
const v = {};

v.y_delegation_digest_refund = digest('The digest of a delegation is the fingerprint of the document', root, { digest: digestOf(root) });
v.y_delegation_digest_number_spelling = digest('Another spelling of the same numbers: the same document, the same digest',
  text(root).replace('50000', '5e4').replace(`${NOT_BEFORE}`, `${NOT_BEFORE}.0`), { digest: digestOf(root) });
v.y_delegation_digest_no_conditions = digest('A delegation without conditions (no when)', (({ when, ...d }) => d)(root), { digest: digestOf((({ when, ...d }) => d)(root)) });
v.n_invalid_delegation_digest_missing_tenant = digest('Every member but when is required', (({ tenant, ...d }) => d)(root), failed('invalid_delegation', '/tenant'));
v.n_invalid_delegation_digest_self = digest('A delegator cannot delegate to itself', doc('user:carol', 'user:carol'), failed('invalid_delegation', '/delegate'));
v.n_invalid_delegation_digest_empty_tools = digest('tools is non-empty', doc('user:carol', 'user:dave', { tools: [] }), failed('invalid_delegation', '/tools'));
v.n_invalid_delegation_digest_tool_twice = digest('tools are distinct', doc('user:carol', 'user:dave', { tools: ['refund_create', 'refund_create'] }), failed('invalid_delegation', '/tools/1'));
v.n_invalid_delegation_digest_empty_when = digest('An empty when: leave it out instead (one spelling of "no conditions")', doc('user:carol', 'user:dave', { when: [] }), failed('invalid_delegation', '/when'));
v.n_invalid_delegation_digest_unknown_op = digest('A condition outside the rule language', doc('user:carol', 'user:dave', { when: [{ pointer: '/args/amount_minor', op: 'below', value: 1 }] }),
  failed('invalid_delegation', '/when/0/op'));
v.n_invalid_delegation_digest_empty_window = digest('not_after must be after not_before', doc('user:carol', 'user:dave', { not_after: NOT_BEFORE }), failed('invalid_delegation', '/not_after'));
v.n_invalid_delegation_digest_unknown_member = digest('No other members', { ...root, scope: 'all' }, failed('invalid_delegation', '/scope'));
v.n_invalid_delegation_digest_blank_delegate = digest('Identities are identifiers: a trailing space', doc('user:carol', 'user:dave ', { delegation_id: 'dlg-1' }), failed('invalid_delegation', '/delegate'));

v.y_verify_delegation_signed = verify('A delegation signed by a service key that may sign for the delegator', signed(root),
  { delegation: root, digest: digestOf(root), signer: carolSigner });
v.y_verify_delegation_bare = verify('A bare document verifies as a document, with no signer (a check accepts it only where proof is not required)', root,
  { delegation: root, digest: digestOf(root), signer: null });
v.y_verify_delegation_passkey = verify('A delegation approved with the delegator\'s passkey (EdDSA, node:crypto): the challenge is the document\'s fingerprint', withPasskey(root),
  { delegation: root, digest: digestOf(root), signer: { kind: 'passkey', credential_id: carolCredential, algorithm: 'EdDSA' } });
v.n_signer_not_allowed_delegation_other_delegator = verify('Signed by dave\'s key, which may sign only for dave, for carol\'s delegation',
  signed(root, keyOf['user:dave']), failed('signer_not_allowed', ''));
v.n_signer_not_allowed_delegation_passkey_other_delegator = verify('Carol\'s passkey on a delegation whose delegator is dave',
  withPasskey(doc('user:dave', 'user:erin')), failed('signer_not_allowed', ''));
v.n_challenge_mismatch_delegation_passkey = verify('A passkey assertion over another document (a wider amount)',
  withPasskey(root, doc('user:carol', 'user:dave', { when: [{ pointer: '/args/amount_minor', op: 'lte', value: 90000 }] })), failed('challenge_mismatch', '/passkey/client_data_json'));
v.n_payload_type_mismatch_delegation_as_approval = verify('A validly signed envelope of the approval payload type is not a delegation',
  signed(root, keyOf['user:carol'], PAYLOAD_TYPE), failed('payload_type_mismatch', '/payloadType'));
const good = signed(root);
const payload = Buffer.from(good.payload, 'base64url');
const flipped = Buffer.from(payload);
flipped[30] ^= 0x04;
v.n_invalid_signature_delegation_tampered = verify('One bit of the signed document flipped', { ...good, payload: b64u(flipped) }, failed('invalid_signature', '/signatures/0/sig'));
v.n_unknown_key_delegation = verify('Signed by a key the key set does not hold', signed(root, labelledKey('delegator mallory')), failed('unknown_key', '/signatures/0/keyid'));
v.n_key_outside_window_delegation = verify('Judged at the verifier\'s time, after the key was retired', good, failed('key_outside_window', ''),
  { service_keys: { [keyOf['user:carol'].keyid]: { key: keyOf['user:carol'].publicJwk, valid_until: context.now } } });
v.n_invalid_delegation_signed_self = verify('A validly signed document that delegates to its own delegator', signed(doc('user:carol', 'user:carol')),
  failed('invalid_delegation', '/payload/delegate'));
v.n_non_canonical_payload_delegation = verify('A validly signed document that is not in canonical form',
  envelope(Buffer.from(JSON.stringify(root)), keyOf['user:carol'], { type: DELEGATION_TYPE }), failed('non_canonical_payload', '/payload'));
v.n_invalid_delegation_bare_unknown_member = verify('A bare document with an unknown member', { ...root, note: 'x' }, failed('invalid_delegation', '/note'));

writeVectors('delegation', v);
