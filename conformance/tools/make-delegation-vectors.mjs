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

// ---- check_set: a decision made through a chain, in the permit check. ----
const action = readJson('examples/refund/action.json');
const record = readJson('examples/refund/approval.json');
/** The document a link carries. */
const docOf = (link) => link.payloadType ? JSON.parse(Buffer.from(link.payload, 'base64url'))
  : (({ passkey, ...d }) => d)(link);
/** A record of `approver`'s decision on behalf of `root` through `links`, about `act`. */
const byDelegate = (approver, root, links, change = {}, act = action) => ({
  ...record, action: act, action_digest: digestOf(act), approver, on_behalf_of: root, delegation: links, decision_id: `dec-${approver.split(':')[1]}`, ...change,
});
/** The refund context with the root authorized, every link of `links` not revoked, and the key set (proof optional). */
const contextFor = (links, change = {}) => ({
  ...context,
  approver_authorized: [{ approver: 'user:carol', authorized: true }],
  delegations_revoked: links.map((l) => ({ delegation: digestOf(docOf(l)), revoked: false })),
  proof: { required: false, keys: trusted },
  ...change,
});
const checkSet = (description, approvals, ctx, expect, act = action) => ({
  description, op: 'check_set', approvals: approvals.map(text), action: text(act), context: text(ctx), expect,
});
const reasons = (outcome, ...list) => ({ outcome, reasons: list });
const link = (delegator, delegate, change = {}) => signed(doc(delegator, delegate, change));
/** A chain through `names` (carol first), each link narrowing the bound by 10000. */
const chainOf = (names) => names.slice(1).map((n, i) => link(`user:${names[i]}`, `user:${n}`,
  { when: [{ pointer: '/args/amount_minor', op: 'lte', value: 50000 - 10000 * i }] }));
/** One decision through `links`, by `approver`, checked in the context made for `links`. */
const through = (description, links, expect, { approver = docOf(links.at(-1)).delegate, root = 'user:carol', ctx = {}, rec = {}, act = action } = {}) =>
  checkSet(description, [byDelegate(approver, root, links, rec, act)], contextFor(links, ctx), expect, act);

const one = [link('user:carol', 'user:dave')];
v.y_permit_delegation_one_link = through('Dave decides for carol through one signed link within its scope', one, reasons('permit'));
const three = chainOf(['carol', 'dave', 'erin', 'frank']);
v.y_permit_delegation_three_links = through('Frank decides for carol through three links, each narrowing the amount', three, reasons('permit'));
const byPasskey = [withPasskey(root)];
v.y_permit_delegation_passkey_link = through('A link approved with the delegator\'s passkey', byPasskey, reasons('permit'));
v.y_permit_delegation_bare_link_proof_optional = through('A bare link where the context does not require proof (a ledger\'s trusted caller recorded it)', [root], reasons('permit'));

v.n_reject_delegation_widens_tools = through('The child adds a tool its parent does not have',
  [one[0], link('user:dave', 'user:erin', { tools: ['refund_create', 'refund_void'] })], reasons('reject', 'delegation_widens'));
v.n_reject_delegation_widens_window = through('The child ends after its parent',
  [one[0], link('user:dave', 'user:erin', { not_after: NOT_AFTER + 1 })], reasons('reject', 'delegation_widens'));
v.n_reject_delegation_widens_bound = through('The child allows a larger amount than its parent',
  [one[0], link('user:dave', 'user:erin', { when: [{ pointer: '/args/amount_minor', op: 'lte', value: 90000 }] })], reasons('reject', 'delegation_widens'));
v.n_reject_delegation_widens_no_conditions = through('The child drops its parent\'s bound',
  [one[0], link('user:dave', 'user:erin', { when: undefined })], reasons('reject', 'delegation_widens'));
v.n_reapprove_delegation_expired = through('The link ended before now', [link('user:carol', 'user:dave', { not_after: context.now })],
  reasons('reapprove', 'delegation_expired'));
v.n_reapprove_delegation_decided_before_link = through('The decision was made before the link began',
  [link('user:carol', 'user:dave', { not_before: record.decided_at + 1 })], reasons('reapprove', 'delegation_expired'));
v.n_reapprove_delegation_revoked = through('The link is revoked', one, reasons('reapprove', 'delegation_revoked'),
  { ctx: { delegations_revoked: [{ delegation: digestOf(docOf(one[0])), revoked: true }] } });
v.n_reapprove_delegation_revocation_fact_missing = through('No revocation fact about the link: fail closed', one, reasons('reapprove', 'delegation_revoked'),
  { ctx: { delegations_revoked: [] } });
v.n_reapprove_delegation_root_unauthorized = through('The root delegator may no longer approve', one, reasons('reapprove', 'approver_unauthorized'),
  { ctx: { approver_authorized: [{ approver: 'user:carol', authorized: false }] } });
const five = ['carol', 'dave', 'erin', 'frank', 'gina', 'hal'].slice(1).map((n, i, a) => link(`user:${['carol', ...a][i]}`, `user:${n}`));
v.n_reject_delegation_too_deep = through('Five links, one more than the limit of four', five, reasons('reject', 'delegation_too_deep'));
v.n_reject_delegation_cycle = through('Dave delegates to erin, who delegates back to dave',
  [one[0], link('user:dave', 'user:erin'), link('user:erin', 'user:dave')], reasons('reject', 'delegation_cycle'));
v.n_reject_delegation_wrong_key = through('Carol\'s delegation signed by dave\'s key, which may sign only for dave',
  [signed(root, keyOf['user:dave'])], reasons('reject', 'delegation_invalid'));
v.n_reject_delegation_passkey_other_document = through('A passkey assertion over a wider document than the link',
  [withPasskey(root, doc('user:carol', 'user:dave', { when: [{ pointer: '/args/amount_minor', op: 'lte', value: 90000 }] }))], reasons('reject', 'delegation_invalid'));
v.n_reject_delegation_bare_link_proof_required = checkSet('A bare link where the context requires proof (the record itself is signed by dave)',
  [envelope(Buffer.from(canonical(byDelegate('user:dave', 'user:carol', [root])), 'utf8'), keyOf['user:dave'])],
  contextFor([root], { proof: { required: true, keys: trusted } }), reasons('reject', 'delegation_invalid'));
const bigger = { ...action, args: { ...action.args, amount_minor: 60000 } };
v.n_reject_delegation_out_of_scope_amount = through('An amount over the link\'s bound', one, reasons('reject', 'delegation_out_of_scope'), { act: bigger });
v.n_reject_delegation_out_of_scope_tool = through('A link for another tool', [link('user:carol', 'user:dave', { tools: ['refund_void'] })],
  reasons('reject', 'delegation_out_of_scope'));
v.n_reject_delegation_out_of_scope_tenant = through('A link for another tenant', [link('user:carol', 'user:dave', { tenant: 'tenant-b' })],
  reasons('reject', 'delegation_out_of_scope'));
v.n_reject_delegation_not_the_approver = through('The chain\'s last delegate is dave, the record\'s approver erin', one,
  reasons('reject', 'delegation_invalid'), { approver: 'user:erin' });
v.n_reject_delegation_not_the_root = through('on_behalf_of names bob, the chain starts at carol', one,
  reasons('reject', 'delegation_invalid'), { root: 'user:bob', ctx: { approver_authorized: [{ approver: 'user:bob', authorized: true }] } });

// A 2-of-2 quorum: a delegate's approval counts under the root.
const quorumContract = { ...context.contract, approval: { when: 'always', quorum: { approvers: 2 } } };
const quorumAction = { ...action, contract: digestOf(quorumContract) };
const direct = (approver) => ({ ...record, action: quorumAction, action_digest: digestOf(quorumAction), approver, decision_id: `dec-${approver.split(':')[1]}` });
const quorumContext = (authorized) => contextFor(one, { contract: quorumContract, proposer: 'user:zed',
  approver_authorized: authorized.map((a) => ({ approver: a, authorized: true })) });
v.y_permit_quorum_delegate_counted_under_root = checkSet('Bob approves, and dave for carol: two distinct counting identities',
  [direct('user:bob'), byDelegate('user:dave', 'user:carol', one, {}, quorumAction)], quorumContext(['user:bob', 'user:carol']),
  { outcome: 'permit', reasons: [], quorum: { required: 2, missing: 0 } }, quorumAction);
v.n_reapprove_quorum_delegate_alias_counted_twice = checkSet('Carol approves, and dave for carol: one counting identity twice',
  [direct('user:carol'), byDelegate('user:dave', 'user:carol', one, {}, quorumAction)], quorumContext(['user:carol']),
  { outcome: 'reapprove' }, quorumAction);
v.n_reapprove_quorum_delegate_is_subject = checkSet('Bob approves, and alice, the action\'s subject, for carol',
  [direct('user:bob'), byDelegate('user:alice', 'user:carol', [link('user:carol', 'user:alice')], {}, quorumAction)],
  { ...quorumContext(['user:bob', 'user:carol']), delegations_revoked: [{ delegation: digestOf(doc('user:carol', 'user:alice')), revoked: false }] },
  { outcome: 'reapprove' }, quorumAction);
// Alice, the action's subject, holds a key that may sign only for her.
const aliceKey = labelledKey('delegator alice');
const viaAlice = [link('user:carol', 'user:alice'), signed(doc('user:alice', 'user:erin'), aliceKey)];
v.n_reapprove_quorum_intermediate_is_subject = checkSet('Bob approves, and erin for carol through alice, the action\'s subject, who passed the delegation on',
  [direct('user:bob'), byDelegate('user:erin', 'user:carol', viaAlice, {}, quorumAction)],
  { ...quorumContext(['user:bob', 'user:carol']), delegations_revoked: viaAlice.map((l) => ({ delegation: digestOf(docOf(l)), revoked: false })),
    proof: { required: false, keys: { ...trusted, service_keys: { ...trusted.service_keys, [aliceKey.keyid]: { key: aliceKey.publicJwk, approvers: ['user:alice'] } } } } },
  { outcome: 'reapprove' }, quorumAction);

writeVectors('delegation', v);
