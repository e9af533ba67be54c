// Drives the confirmation page in headless Chromium and checks it against the other runtimes:
// the fingerprint it shows is the one Python and the native Node addon compute for the same
// action, an action that breaks its contract gets an error and no Approve button, and the
// record an Approve produces is bound to the fingerprint shown and permitted by the Rust CLI.
// Proof of who decided: a service-signed decision is verified in the page (who signed it, and
// refusals of tampered ones), and a passkey registered and used in the page through a CDP
// virtual authenticator signs a decision whose assertion verifies in Python, Node and Rust,
// and fails everywhere once one byte of the action changes.
//
//   bash examples/confirm-page/test.sh   (prepares everything this needs, then runs it)
//
// A reviewer's amendment: an edited value is checked in the page by wasm `amend`, the proposed
// and amended fingerprints are Python's and Node's, an invalid edit shows its code and blocks
// Approve, and the approval binds the amended action with the proposal's `proposed_digest`.
//
// A batch (issue 28): every item of the 20-item sample is a row with the values that differ
// from the first highlighted, the totals are shown against the caps, the batch fingerprint the
// page computes in wasm is the claimed one and the one re-derived here (node:crypto's RFC 9162
// Merkle tree over the Node addon's item fingerprints); two items left out, the approval binds
// the remainder's fingerprint (re-derived, and Python's, Node's and the Rust CLI's) with the
// proposal's; a passkey-approved batch decision verifies in Node and Python; a batch over a
// cap, and a tampered claimed fingerprint, are refused with no Approve button.
//
// Screenshots go to examples/confirm-page/screenshots/ (the amendment's diff view to
// target/confirm-page/amend-diff.png).

import assert from 'node:assert/strict'
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { checks, launch, serve } from '../../testing/browser.mjs'

const here = dirname(fileURLToPath(import.meta.url))
const repo = join(here, '..', '..')
const shots = join(here, 'screenshots')
const scratch = mkdtempSync(join(tmpdir(), 'actionseal-confirm-'))
const SAMPLES = {
  valid: join(here, 'samples', 'refund.json'),
  invalid: join(here, 'samples', 'refund-invalid-amount.json'),
  signed: join(here, 'samples', 'refund-signed.json'),
  quorum: join(here, 'samples', 'refund-quorum.json'),
  batch: join(here, 'samples', 'refund-batch.json'),
}
const HOUR = 3600000
const targetShots = join(repo, 'target', 'confirm-page')

/** Python's fingerprint and short form of the sample's action, read with actionseal.loads. */
function pythonFingerprint(file) {
  const code = [
    'import actionseal, sys',
    'action = actionseal.loads(open(sys.argv[1], "rb").read())["action"]',
    'digest = actionseal.fingerprint(action)',
    'print(digest)',
    'print(actionseal.short_fingerprint(digest))',
  ].join('\n')
  const out = execFileSync(join(repo, '.venv', 'bin', 'python'), ['-c', code, file], { encoding: 'utf8' })
  const [full, short] = out.trim().split('\n')
  return { full, short }
}

const addon = createRequire(import.meta.url)(join(repo, 'bindings-node'))

/** Python's `amend` of the same inputs: {action_digest, proposed_digest, amended_pointers} and short forms. */
function pythonAmend(current, replacement, contract) {
  const code = [
    'import actionseal, json, sys',
    'i = json.load(sys.stdin)',
    'a = actionseal.amend(i["current"], i["replacement"], i["contract"])',
    'print(json.dumps({"action_digest": a["action_digest"], "proposed_digest": a["proposed_digest"],',
    '    "amended_pointers": a["amended_pointers"], "amended_short": actionseal.short_fingerprint(a["action_digest"]),',
    '    "proposed_short": actionseal.short_fingerprint(a["proposed_digest"])}))',
  ].join('\n')
  const input = JSON.stringify({ current, replacement, contract })
  return JSON.parse(execFileSync(join(repo, '.venv', 'bin', 'python'), ['-c', code], { input, encoding: 'utf8' }))
}

const sha256 = (...parts) => createHash('sha256').update(Buffer.concat(parts)).digest()

/** RFC 9162 §2.1.1: the Merkle tree hash over `items` (32-byte fingerprints, each a leaf). */
function merkleRoot(items) {
  if (items.length === 1) return sha256(Buffer.from([0]), items[0])
  let k = 1
  while (k * 2 < items.length) k *= 2
  return sha256(Buffer.from([1]), merkleRoot(items.slice(0, k)), merkleRoot(items.slice(k)))
}

/**
 * The header and fingerprint of a batch of `actions`, re-derived outside the page as
 * docs/CONTRACTS.md defines them: the Node addon's item fingerprints, node:crypto's tree.
 */
function batchOf(contract, semantics, actions) {
  const leaves = actions.map((a) => Buffer.from(addon.fingerprint(a).slice('sha256:'.length), 'hex'))
  const header = {
    contract: new addon.Contract(contract).digest,
    root: merkleRoot(leaves).toString('base64'),
    semantics,
    size: actions.length,
    tenant: actions[0].tenant,
  }
  return { header, digest: addon.fingerprint(header) }
}

/**
 * The fingerprint of the batch left after taking out the items at `indices`, as Python's
 * `batch_deselect`, the Node addon's `batchDeselect` and the Rust CLI's `batch deselect`
 * compute it: `{python, node, rust}`.
 */
function remainderEverywhere({ contract, semantics, actions }, indices) {
  const code = [
    'import actionseal, json, sys',
    'i = json.load(sys.stdin)',
    'print(actionseal.batch_deselect(i["contract"], i["semantics"], i["actions"], i["indices"])["batch_digest"])',
  ].join('\n')
  const input = JSON.stringify({ contract, semantics, actions, indices })
  const python = execFileSync(join(repo, '.venv', 'bin', 'python'), ['-c', code], { input, encoding: 'utf8' }).trim()
  const files = { contract: join(scratch, 'batch-contract.json'), actions: join(scratch, 'batch-actions.json') }
  writeFileSync(files.contract, JSON.stringify(contract))
  writeFileSync(files.actions, JSON.stringify(actions))
  const run = cli(['batch', 'deselect', '--contract', files.contract, '--semantics', semantics,
    ...indices.flatMap((i) => ['--index', String(i)]), files.actions])
  assert.equal(run.status, 0, run.stderr)
  return { python, node: addon.batchDeselect(contract, semantics, actions, indices).batch_digest, rust: JSON.parse(run.stdout).batch_digest }
}

/** Python's `batch_verify_decision` of a batch decision: `{signer}` or `{error}`. */
function pythonVerifyBatch(record, keys, at) {
  const code = [
    'import actionseal, json, sys',
    'i = json.load(sys.stdin)',
    'try:',
    '    print(json.dumps({"signer": actionseal.batch_verify_decision(i["record"], i["keys"], i["at"])["signer"]}))',
    'except actionseal.ActionsealError as e:',
    '    print(json.dumps({"error": e.code}))',
  ].join('\n')
  const input = JSON.stringify({ record, keys, at })
  return JSON.parse(execFileSync(join(repo, '.venv', 'bin', 'python'), ['-c', code], { input, encoding: 'utf8' }))
}

/** The Rust CLI's verdict on a record: `cargo run -p actionseal-cli -- check`. */
function cliCheck(record, action, contract, now) {
  const files = {
    approval: join(scratch, 'approval.json'),
    action: join(scratch, 'action.json'),
    context: join(scratch, 'context.json'),
  }
  writeFileSync(files.approval, JSON.stringify(record))
  writeFileSync(files.action, JSON.stringify(action))
  writeFileSync(files.context, JSON.stringify({
    now,
    tenant: action.tenant,
    policy_version: action.policy_version,
    contract,
    approver_authorized: { approver: record.approver, authorized: true },
    subject_authorized: { subject: action.subject, authorized: true },
    revoked: { approval_id: record.approval_id, revoked: false },
  }))
  const run = spawnSync('cargo', [
    'run', '-q', '-p', 'actionseal-cli', '--',
    'check', '--approval', files.approval, '--action', files.action, '--context', files.context,
  ], { cwd: repo, encoding: 'utf8' })
  if (run.error) throw run.error
  assert.ok(run.stdout.trim() !== '', `actionseal check printed nothing: ${run.stderr}`)
  return { status: run.status, verdict: JSON.parse(run.stdout) }
}

/** The context of an executor that requires proof and trusts `keys`. */
function proofContext(record, action, contract, keys, now) {
  return {
    now,
    tenant: action.tenant,
    policy_version: action.policy_version,
    contract,
    approver_authorized: { approver: record.approver, authorized: true },
    subject_authorized: { subject: action.subject, authorized: true },
    revoked: { approval_id: record.approval_id, revoked: false },
    proof: { required: true, keys },
  }
}

/** `{signer}` of a verified proof, or `{error}` with the code. */
const outcome = (f) => {
  try {
    return { signer: f().signer }
  } catch (err) {
    return { error: err.code }
  }
}

/**
 * A proof (`approval`: a signed envelope or passkey-approved record) verified against `keys`
 * and checked for `action` with proof required, in Python, the native Node addon and the Rust
 * CLI: `{python, node, rust}`, each `{verify: {signer} | {error}, check: {outcome, reasons}}`.
 */
function everywhere(approval, action, contract, keys, now) {
  const record = approval.payloadType === undefined ? approval : null
  const context = proofContext(record ?? { approver: 'user:bob', approval_id: 'apr-1' }, action, contract, keys, now)
  const input = { approval, action, context, keys }
  const verdictOf = (v) => ({ outcome: v.outcome, reasons: v.reasons })

  const code = [
    'import actionseal, json, sys',
    'i = json.load(sys.stdin)',
    'try:',
    '    verify = {"signer": actionseal.verify_proof(i["approval"], i["keys"], i["context"]["now"])["signer"]}',
    'except actionseal.ActionsealError as e:',
    '    verify = {"error": e.code}',
    'v = actionseal.check(i["approval"], i["action"], i["context"])',
    'print(json.dumps({"verify": verify, "check": {"outcome": v["outcome"], "reasons": v["reasons"]}}))',
  ].join('\n')
  const python = JSON.parse(execFileSync(join(repo, '.venv', 'bin', 'python'), ['-c', code], { input: JSON.stringify(input), encoding: 'utf8' }))

  const node = {
    verify: outcome(() => addon.verifyProof(approval, keys, now)),
    check: verdictOf(addon.check(approval, action, context)),
  }

  const files = Object.fromEntries(['approval', 'action', 'context', 'keys'].map((k) => [k, join(scratch, `proof-${k}.json`)]))
  for (const [k, path] of Object.entries(files)) writeFileSync(path, JSON.stringify(input[k]))
  const verified = cli(['key', 'verify', '--keys', files.keys, '--at', String(now), files.approval])
  const checked = cli(['check', '--approval', files.approval, '--action', files.action, '--context', files.context])
  const rust = {
    verify: verified.status === 0 ? { signer: JSON.parse(verified.stdout).signer } : { error: /error: (\w+)/.exec(verified.stderr)?.[1] ?? verified.stderr },
    check: verdictOf(JSON.parse(checked.stdout)),
  }
  return { python, node, rust }
}

/** `cargo run -p actionseal-cli -- ...args`. */
function cli(args) {
  const run = spawnSync('cargo', ['run', '-q', '-p', 'actionseal-cli', '--', ...args], { cwd: repo, encoding: 'utf8' })
  if (run.error) throw run.error
  return run
}

/** `text` with its first occurrence of `from` replaced by `to` (one byte, here). */
const oneByte = (value, from, to) => {
  const text = JSON.stringify(value)
  assert.ok(text.includes(from), `${from} in ${text.slice(0, 80)}`)
  return JSON.parse(text.replace(from, to))
}

/** Every check runs; a failure is reported and the others go on. */
const { step, finish } = checks()

mkdirSync(shots, { recursive: true })
const server = await serve({ '/': repo })
const browser = await launch()
const { page, errors, requests } = browser
// WebAuthn needs a domain as the relying party id: the loopback server as localhost.
const origin = server.origin.replace('127.0.0.1', 'localhost')
const pageUrl = `${origin}/examples/confirm-page/index.html`
// A platform authenticator with user verification, as a phone's or laptop's passkeys are.
const cdp = await page.context().newCDPSession(page)
await cdp.send('WebAuthn.enable')
await cdp.send('WebAuthn.addVirtualAuthenticator', {
  options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
})
const saved = []
const screenshot = async (name) => {
  const path = join(shots, `${name}.png`)
  await page.screenshot({ path, fullPage: true })
  saved.push(path)
}

/** Opens the page on a sample (by ?request=) and waits until it has decided what it shows. */
async function open(sample, expected) {
  const rel = `samples/${sample.split('/').pop()}`
  await page.goto(`${pageUrl}?request=${encodeURIComponent(rel)}`)
  await page.waitForSelector(`body[data-state="${expected}"], body[data-state="error"]`)
  const state = await page.getAttribute('body', 'data-state')
  assert.equal(state, expected, `page state for ${rel}: ${await page.textContent('#load-status')}`)
}

const text = (selector) => page.locator(selector).textContent()

try {
  await page.setViewportSize({ width: 1200, height: 900 })
  const request = JSON.parse(readFileSync(SAMPLES.valid, 'utf8'))
  let shown

  await step('valid request: the page shows the action, and the fingerprint Python and Node compute', async () => {
    await open(SAMPLES.valid, 'ready')
    shown = { full: await text('#fingerprint'), short: await text('#short-fingerprint') }
    const python = pythonFingerprint(SAMPLES.valid)
    assert.equal(shown.full, python.full, 'full fingerprint: page vs Python')
    assert.equal(shown.short, python.short, 'short form: page vs Python')
    assert.equal(shown.full, addon.fingerprint(request.action), 'full fingerprint: page vs Node addon')
    assert.match(shown.short, /^[0-9a-f]{4}( [0-9a-f]{4}){3}$/)
    assert.equal(shown.short.replaceAll(' ', ''), shown.full.slice(7, 23))
    // Quotes around strings are drawn by CSS, not part of the text.
    assert.equal(await text('#tool'), 'refund_create')
    const identity = await text('#identity')
    for (const id of ['tenant-a', 'user:alice', 'job-7f93', 'req-b285', 'refund-policy-2026-08-01']) {
      assert.ok(identity.includes(id), `identity shows ${id}`)
    }
    assert.ok(identity.includes('is this contract'), 'the action names this contract')
    const pointers = await page.locator('#args tr').evaluateAll((rows) => rows.map((r) => r.dataset.pointer))
    assert.deepEqual(pointers, ['/amount_minor', '/currency', '/order_id'])
    const contract = await text('#contract')
    assert.ok(contract.includes(request.contract.version) && contract.includes('write'), 'contract version and effect')
    assert.ok((await text('#banner')).includes('Approval is required: /amount_minor > 1000'))
    await screenshot('refund-review')
  })

  await step('Approve: the decision record is bound to the fingerprint shown, and the Rust CLI permits it', async () => {
    await page.fill('#approver', 'user:bob')
    await page.selectOption('#validity', String(HOUR))
    await page.getByRole('button', { name: 'Approve', exact: true }).click()
    await page.waitForSelector('body[data-state="decided"]')
    const record = JSON.parse(await text('#decision-json'))
    assert.equal(record.action_digest, shown.full)
    assert.deepEqual(record.action, request.action)
    assert.equal(record.decision, 'approved')
    assert.equal(record.approver, 'user:bob')
    assert.equal(record.expires_at - record.decided_at, HOUR)
    for (const id of [record.approval_id, record.decision_id]) assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    assert.equal(addon.fingerprint(record.action), shown.full, 'Node addon: the frozen action has the fingerprint shown')
    const { status, verdict } = cliCheck(record, request.action, request.contract, record.decided_at + 1000)
    assert.equal(verdict.outcome, 'permit', JSON.stringify(verdict))
    assert.equal(status, 0)
    assert.equal(verdict.approved_digest, shown.full)
    // Once the approval has expired, the same record sends the task back for approval.
    const late = cliCheck(record, request.action, request.contract, record.expires_at)
    assert.deepEqual([late.verdict.outcome, late.verdict.reasons], ['reapprove', ['expired']])
    // The downloaded file is the record shown.
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download')])
    const file = join(scratch, download.suggestedFilename())
    await download.saveAs(file)
    assert.equal(readFileSync(file, 'utf8'), await text('#decision-json'))
    assert.equal(download.suggestedFilename(), `approval-${record.approval_id}.json`)
    assert.equal(await page.getByRole('button', { name: 'Approve', exact: true }).isDisabled(), true, 'one decision per review')
    await screenshot('refund-approved')
  })

  await step('Reject: a blank approver is refused by core first; the rejection record makes the CLI reject', async () => {
    await open(SAMPLES.valid, 'ready')
    await page.fill('#approver', '   ')
    await page.getByRole('button', { name: 'Reject' }).click()
    const problem = await text('#decision-problem')
    assert.ok(problem.includes('invalid_approval'), problem)
    assert.equal(await page.getAttribute('body', 'data-state'), 'ready')
    assert.equal(await page.getAttribute('#approver', 'aria-invalid'), 'true')
    await page.fill('#approver', 'user:carol')
    await page.getByRole('button', { name: 'Reject' }).click()
    await page.waitForSelector('body[data-state="decided"]')
    const record = JSON.parse(await text('#decision-json'))
    assert.equal(record.decision, 'rejected')
    assert.equal(record.action_digest, shown.full)
    const { status, verdict } = cliCheck(record, request.action, request.contract, record.decided_at + 1000)
    assert.deepEqual([verdict.outcome, verdict.reasons, status], ['reject', ['decision_rejected'], 4])
  })

  await step('amend: an edited amount is checked in wasm; both fingerprints and the changed pointer are Python\'s and Node\'s', async () => {
    await open(SAMPLES.valid, 'ready')
    const amount = page.locator('#args tr[data-pointer="/amount_minor"] input.edit-value')
    assert.equal(await amount.isHidden(), true, 'no input until the reviewer asks to edit')
    assert.equal(await page.locator('#amendment').isHidden(), true)
    await page.click('#edit-args')
    assert.equal(await page.getAttribute('#edit-args', 'aria-pressed'), 'true')
    // Only scalar values are editable, each shown as the JSON text it is.
    assert.deepEqual(await page.locator('#args input.edit-value').evaluateAll((l) => l.map((i) => [i.dataset.pointer, i.value])),
      [['/amount_minor', '2500'], ['/currency', '"USD"'], ['/order_id', '"order-17"']])
    await amount.fill('2000')
    await page.waitForSelector('#amendment[data-state="amended"]')
    const edited = structuredClone(request.action)
    edited.args.amount_minor = 2000
    const node = addon.amend(request.action, edited, request.contract)
    const python = pythonAmend(request.action, edited, request.contract)
    const page_ = {
      proposed: await text('#proposed-fingerprint'),
      proposedShort: await text('#proposed-short'),
      amended: await text('#amended-fingerprint'),
      amendedShort: await text('#amended-short'),
      pointers: await page.locator('#amended-pointers li').evaluateAll((l) => l.map((i) => i.dataset.pointer)),
    }
    assert.deepEqual(page_, {
      proposed: node.proposed_digest,
      proposedShort: addon.shortFingerprint(node.proposed_digest),
      amended: node.action_digest,
      amendedShort: addon.shortFingerprint(node.action_digest),
      pointers: node.amended_pointers,
    }, 'page vs Node addon')
    assert.deepEqual(python, {
      action_digest: page_.amended,
      proposed_digest: page_.proposed,
      amended_pointers: page_.pointers,
      amended_short: page_.amendedShort,
      proposed_short: page_.proposedShort,
    }, 'page vs Python')
    assert.deepEqual(page_.pointers, ['/args/amount_minor'])
    assert.equal(page_.proposed, shown.full, 'the proposal is the action loaded')
    assert.notEqual(page_.amended, page_.proposed)
    assert.ok((await text('#amended-pointers')).includes('2500 → 2000'), await text('#amended-pointers'))
    assert.equal(await page.locator('#approve').isDisabled(), false)
    mkdirSync(targetShots, { recursive: true })
    const diff = join(targetShots, 'amend-diff.png')
    await page.locator('#amendment').scrollIntoViewIfNeeded()
    await page.screenshot({ path: diff, fullPage: true })
    saved.push(diff)
  })

  await step('amend: an invalid edit shows its code and path and disables Approve; a valid one enables it again', async () => {
    const amount = page.locator('#args tr[data-pointer="/amount_minor"] input.edit-value')
    // "2000" (a string where the contract wants an integer), 0 (below the minimum), and text
    // that is not JSON: each refused with its code; Approve (and Approve with passkey) off.
    const cases = [['"2000"', 'type_mismatch', '/args/amount_minor'], ['0', 'out_of_range', '/args/amount_minor'],
      ['20 00', null, '/args/amount_minor']]
    for (const [typed, code, path] of cases) {
      await amount.fill(typed)
      await page.waitForSelector('#amendment[data-state="invalid"]')
      const error = await text('#amendment-error')
      if (code !== null) assert.ok(error.includes(code), `${typed}: ${error}`)
      assert.ok(error.includes(path), `${typed}: ${error}`)
      assert.equal(await amount.getAttribute('aria-invalid'), 'true')
      assert.equal(await page.locator('#approve').isDisabled(), true, `${typed}: Approve is disabled`)
      assert.equal(await page.locator('#approve-passkey').isDisabled(), true)
      assert.equal(await text('#amended-short'), '—', 'no amended fingerprint for a refused edit')
      if (code === 'type_mismatch') await screenshot('refund-amend-invalid')
    }
    // The page's code is the one Node's and Python's amend raise for the same edit.
    const edited = structuredClone(request.action)
    edited.args.amount_minor = '2000'
    assert.throws(() => addon.amend(request.action, edited, request.contract), (e) => e.code === 'type_mismatch' && e.path === '/args/amount_minor')
    // Typed back to the proposal: nothing amended, nothing to show.
    await amount.fill('2500')
    await page.waitForSelector('#amendment[data-state="none"]', { state: 'attached' })
    assert.equal(await page.locator('#amendment').isHidden(), true)
    assert.equal(await page.locator('#approve').isDisabled(), false)
    await amount.fill('2000')
    await page.waitForSelector('#amendment[data-state="amended"]')
    assert.equal(await page.locator('#approve').isDisabled(), false)
  })

  await step('amend: the approval records the amended digest with proposed_digest; the CLI permits the amended action and refuses the proposal', async () => {
    const amended = await text('#amended-fingerprint')
    await page.fill('#approver', 'user:bob')
    await page.getByRole('button', { name: 'Approve', exact: true }).click()
    await page.waitForSelector('body[data-state="decided"]')
    const record = JSON.parse(await text('#decision-json'))
    assert.deepEqual([record.action_digest, record.proposed_digest], [amended, shown.full])
    assert.equal(record.action.args.amount_minor, 2000)
    assert.equal(addon.fingerprint(record.action), amended, 'Node addon: the frozen action is the amended one')
    assert.ok((await text('#result-summary')).includes(addon.shortFingerprint(shown.full)), 'the summary names the proposal')
    assert.equal(await page.locator('#args input.edit-value').first().isDisabled(), true, 'nothing is edited after the decision')
    const permitted = cliCheck(record, record.action, request.contract, record.decided_at + 1000)
    assert.deepEqual([permitted.verdict.outcome, permitted.verdict.approved_digest, permitted.status], ['permit', amended, 0])
    // The model re-sending its original proposal: drift, refused.
    const original = cliCheck(record, request.action, request.contract, record.decided_at + 1000)
    assert.deepEqual([original.verdict.outcome, original.verdict.reasons, original.verdict.drift], ['reject', ['action_drift'], ['/args/amount_minor']])
  })

  await step('invalid request: the error instead of an Approve button, invisible characters made visible', async () => {
    await open(SAMPLES.invalid, 'invalid')
    const invalid = JSON.parse(readFileSync(SAMPLES.invalid, 'utf8'))
    const python = pythonFingerprint(SAMPLES.invalid)
    assert.equal(await text('#fingerprint'), python.full, 'full fingerprint: page vs Python')
    assert.equal(await text('#short-fingerprint'), python.short, 'short form: page vs Python')
    assert.equal(await text('#fingerprint'), addon.fingerprint(invalid.action), 'full fingerprint: page vs Node addon')
    const error = await text('#decision-error')
    for (const part of ['type_mismatch', '/args/amount_minor', 'type_mismatch: ']) assert.ok(error.includes(part), `error shows ${part}: ${error}`)
    assert.equal(await page.locator('button', { hasText: 'Approve' }).count(), 0, 'no Approve button at all')
    assert.equal(await page.locator('#approve').count(), 0)
    assert.ok(await page.locator('#decision-error').isVisible())
    // The reason's zero-width space and trailing space are shown as marks.
    const reason = page.locator('#args tr[data-pointer="/reason"]')
    assert.deepEqual(await reason.locator('.esc').allTextContents(), ['\\u200B', '␣'])
    assert.ok((await reason.textContent()).includes('invisible U+200B'), 'the row says what was marked')
    assert.equal(await text('#args tr[data-pointer="/amount_minor"] .type'), 'string')
    await screenshot('refund-invalid')
  })

  await step('past the 64 characters core lists one by one, a bidirectional override is still shown escaped', async () => {
    // 64 Cyrillic letters fill the notice's marks; the U+202E after them would reverse the
    // rest of the cell ("refund 9000 to account") if it reached the page as itself.
    const bidi = JSON.parse(readFileSync(SAMPLES.valid, 'utf8'))
    bidi.action.args.reason = '\u0430'.repeat(64) + '\u202Etnuocca ot 0009 dnufer'
    const file = join(scratch, 'bidi.json')
    writeFileSync(file, JSON.stringify(bidi))
    await page.goto(pageUrl)
    await page.waitForSelector('body[data-state="empty"]')
    await page.setInputFiles('#request-file', file)
    await page.waitForSelector('body[data-state="ready"]')
    assert.equal(await text('#fingerprint'), addon.fingerprint(bidi.action), 'the page binds the value as it is')
    const reason = page.locator('#args tr[data-pointer="/reason"]')
    assert.ok(!(await reason.textContent()).includes('\u202E'), 'no raw override reaches the page')
    assert.ok((await reason.locator('.esc').allTextContents()).includes('\\u202E'), 'the override is shown escaped')
  })

  await step('loading by hand: a chosen file, and pasted text that is not strict JSON', async () => {
    await page.goto(pageUrl)
    await page.waitForSelector('body[data-state="empty"]')
    await page.setInputFiles('#request-file', SAMPLES.valid)
    await page.waitForSelector('body[data-state="ready"]')
    assert.equal(await text('#fingerprint'), shown.full)
    await page.click('.paste summary')
    await page.fill('#request-text', '{"action": {}, "contract": {}, "action": {}}')
    await page.click('#load-text')
    await page.waitForSelector('body[data-state="error"]')
    const status = await text('#load-status')
    assert.ok(status.includes('duplicate_key'), status)
    assert.equal(await page.locator('#review').isHidden(), true)
    await screenshot('paste-duplicate-key')
    // A contract that is not one: its error, and no Approve button either.
    const broken = { ...request, contract: { ...request.contract, effect: 'delete' } }
    await page.fill('#request-text', JSON.stringify(broken))
    await page.click('#load-text')
    await page.waitForSelector('body[data-state="invalid"]')
    const error = await text('#decision-error')
    assert.ok(error.includes('invalid_contract') && error.includes('/effect'), error)
    assert.equal(await page.locator('#approve').count(), 0)
    assert.equal(await text('#fingerprint'), shown.full, 'the action is the same, and so is its fingerprint')
  })

  await step('a frozen sensitive value: its commitment held back, and the same commitment elsewhere refused', async () => {
    // The ledger froze the reason as a commitment (issue 29); the page judges it with
    // reviewAction, as a proposal's validateAction would refuse it.
    const contract = { ...request.contract, sensitive: { '/args/reason': 'pii' } }
    const ids = { tenant: 'tenant-a', subject: 'user:alice', job_id: 'job-1', request_id: 'req-1', policy_version: 'p1' }
    const { action } = addon.commitAction(contract, { ...request.action.args, reason: 'card stolen' }, ids)
    assert.throws(() => new addon.Contract(contract).validateAction(action), (e) => e.code === 'type_mismatch')
    await page.goto(pageUrl)
    await page.waitForSelector('body[data-state="empty"]')
    await page.click('.paste summary')
    await page.fill('#request-text', JSON.stringify({ action, contract }))
    await page.click('#load-text')
    await page.waitForSelector('body[data-state="ready"]')
    assert.ok((await text('#banner')).includes('The action satisfies its contract'), await text('#banner'))
    assert.ok(!(await page.content()).includes('card stolen'), 'the value is nowhere on the page')
    assert.equal(await text('#fingerprint'), addon.fingerprint(action))
    const moved = { ...action, args: { ...action.args, order_id: action.args.reason } }
    await page.goto(pageUrl)
    await page.waitForSelector('body[data-state="empty"]')
    await page.click('.paste summary')
    await page.fill('#request-text', JSON.stringify({ action: moved, contract }))
    await page.click('#load-text')
    await page.waitForSelector('body[data-state="invalid"]')
    const error = await text('#decision-error')
    assert.ok(error.includes('type_mismatch') && error.includes('/args/order_id'), error)
    assert.equal(await page.locator('#approve').count(), 0)
  })

  await step('a sensitive value disclosed to the page: checked in WebAssembly, shown and marked; another task\'s disclosure is refused', async () => {
    const contract = { ...request.contract, sensitive: { '/args/reason': 'pii' } }
    const ids = { tenant: 'tenant-a', subject: 'user:alice', job_id: 'job-1', request_id: 'req-1', policy_version: 'p1' }
    const args = { ...request.action.args, reason: 'card stolen' }
    const { action, disclosures } = addon.commitAction(contract, args, ids)
    const load = async (req, state) => {
      await page.goto(pageUrl)
      await page.waitForSelector('body[data-state="empty"]')
      await page.click('.paste summary')
      await page.fill('#request-text', JSON.stringify(req))
      await page.click('#load-text')
      await page.waitForSelector(`body[data-state="${state}"]`)
    }
    // Without its disclosure the value is not on the page; the place says so.
    await load({ action, contract }, 'ready')
    assert.equal(await page.getAttribute('#sensitive', 'data-state'), 'committed')
    assert.ok((await text('#sensitive-list')).includes('not disclosed to this page'))
    // With it: the value, checked, in the arguments and beside its commitment; the fingerprint
    // is still the frozen action's, which is what an approval binds.
    await load({ action, contract, disclosures }, 'ready')
    assert.equal(await page.getAttribute('#sensitive', 'data-state'), 'disclosed')
    const row = page.locator('#args tr[data-pointer="/reason"]')
    assert.ok((await row.getAttribute('class')).includes('sensitive'))
    assert.ok((await row.textContent()).includes('card stolen') && (await row.textContent()).includes('sensitive · pii'))
    assert.ok((await text('#sensitive-list')).includes(action.args.reason._sd))
    assert.equal(await text('#fingerprint'), addon.fingerprint(action))
    assert.ok((await text('#banner')).includes('The action satisfies its contract'), await text('#banner'))
    await screenshot('sensitive-disclosed')
    // The same value committed for another task: its disclosure does not open this commitment.
    const other = addon.commitAction(contract, args, { ...ids, request_id: 'req-2' })
    await load({ action, contract, disclosures: other.disclosures }, 'invalid')
    const error = await text('#decision-error')
    assert.ok(error.includes('disclosure_mismatch'), error)
    assert.equal(await page.getAttribute('#sensitive', 'data-state'), 'error')
    assert.ok(!(await page.content()).includes('card stolen'), 'no value is shown when a disclosure fails')
    assert.equal(await page.locator('#approve').count(), 0)
    // A commitment made by hand to a value the contract refuses (201 characters, over the
    // reason's maxLength), with its disclosure: the disclosure opens it, and the value is
    // refused in the clear as a proposal's would be.
    const long = 'x'.repeat(201)
    const disclosure = Buffer.from(JSON.stringify([Buffer.alloc(16, 7).toString('base64url'), '/args/reason', long])).toString('base64url')
    const forged = { ...action, args: { ...action.args, reason: { _sd: `sha256:${createHash('sha256').update(disclosure).digest('hex')}` } } }
    await load({ action: forged, contract, disclosures: [disclosure] }, 'invalid')
    const refused = await text('#decision-error')
    assert.ok(refused.includes('/args/reason') && !refused.includes('disclosure_'), refused)
    assert.equal(await page.locator('#approve').count(), 0)
  })

  await step('served as the README says, by python3 -m http.server', async () => {
    const python = spawn('python3', ['-u', '-m', 'http.server', '--bind', '127.0.0.1', '0'], { cwd: repo, stdio: ['ignore', 'pipe', 'ignore'] })
    try {
      const port = await new Promise((resolve, reject) => {
        let out = ''
        python.stdout.on('data', (chunk) => {
          out += chunk
          const m = /port (\d+)/.exec(out)
          if (m) resolve(m[1])
        })
        python.on('exit', (code) => reject(new Error(`http.server exited with ${code}: ${out}`)))
      })
      const origin = `http://127.0.0.1:${port}`
      await page.goto(`${origin}/examples/confirm-page/?request=samples/refund.json`)
      await page.waitForSelector('body[data-state="ready"], body[data-state="error"]')
      assert.equal(await page.getAttribute('body', 'data-state'), 'ready', await text('#load-status'))
      assert.equal(await text('#fingerprint'), shown.full)
    } finally {
      python.kill()
    }
  })

  await step('signed decision: verified in the page, with who signed it, and the same in Python, Node and Rust', async () => {
    const sample = JSON.parse(readFileSync(SAMPLES.signed, 'utf8'))
    const keyid = Object.keys(sample.keys.service_keys)[0]
    await open(SAMPLES.signed, 'ready')
    assert.equal(await page.getAttribute('#signed', 'data-verified'), 'true', await text('#signed-status'))
    assert.equal(await page.getAttribute('#signed', 'data-keyid'), keyid)
    assert.equal(await page.getAttribute('#signed', 'data-approver'), 'user:bob')
    assert.equal(await page.getAttribute('#signed', 'data-matches'), 'true')
    const facts = await text('#signed-facts')
    for (const part of [keyid, 'user:bob', 'approved', 'from 2025-11-01 00:00:00 UTC until 2100-01-01 00:00:00 UTC',
      '2025-11-30 10:53:20 UTC', '2025-11-30 11:23:20 UTC', 'is the action shown']) {
      assert.ok(facts.includes(part), `the page shows ${part}: ${facts}`)
    }
    // The same envelope, everywhere: signed by that key, permitted where proof is required.
    const all = everywhere(sample.signed, sample.action, sample.contract, sample.keys, 1764500600000)
    for (const [runtime, got] of Object.entries(all)) {
      assert.deepEqual(got, { verify: { signer: { keyid, kind: 'service' } }, check: { outcome: 'permit', reasons: [] } }, runtime)
    }
    await screenshot('refund-signed')
  })

  await step('signed decision: a tampered payload, an unknown key and a key retired since the decision are refused in the page', async () => {
    const sample = JSON.parse(readFileSync(SAMPLES.signed, 'utf8'))
    const keyid = Object.keys(sample.keys.service_keys)[0]
    const record = JSON.parse(Buffer.from(sample.signed.payload, 'base64url'))
    // One byte of the signed payload changed (the amount), the signature kept.
    const tampered = { ...sample.signed, payload: Buffer.from(JSON.stringify(record).replace('2500', '2600')).toString('base64url') }
    const cases = [
      [{ ...sample, signed: tampered }, 'invalid_signature'],
      [{ ...sample, keys: { service_keys: {} } }, 'unknown_key'],
      // Retired 1 ms after the record's decided_at: the page judges the key at its own clock.
      [{ ...sample, keys: { service_keys: { [keyid]: { ...sample.keys.service_keys[keyid], valid_until: record.decided_at + 1 } } } }, 'key_outside_window'],
    ]
    await page.goto(pageUrl)
    await page.waitForSelector('body[data-state="empty"]')
    await page.click('.paste summary')
    for (const [request, code] of cases) {
      await page.fill('#request-text', JSON.stringify(request))
      await page.click('#load-text')
      await page.waitForSelector('#signed[data-verified]')
      assert.equal(await page.getAttribute('#signed', 'data-verified'), 'false', code)
      assert.ok((await text('#signed-status')).includes(code), `${code}: ${await text('#signed-status')}`)
      // The action itself may still be reviewed: the signed decision is shown apart.
      assert.equal(await page.getAttribute('body', 'data-state'), 'ready')
    }
    await screenshot('refund-signed-outside-window')
    const refused = everywhere({ ...sample.signed, payload: tampered.payload }, sample.action, sample.contract, sample.keys, 1764500600000)
    for (const [runtime, got] of Object.entries(refused)) {
      assert.deepEqual(got, { verify: { error: 'invalid_signature' }, check: { outcome: 'reject', reasons: ['proof_invalid'] } }, runtime)
    }
  })

  let passkeyRecord
  let passkeyKeys
  await step('passkey: registered in the page (virtual authenticator, user verification), then Approve with passkey', async () => {
    await open(SAMPLES.valid, 'ready')
    assert.equal(await page.locator('#approve-passkey').isDisabled(), true, 'nothing registered yet')
    await page.fill('#approver', 'user:bob')
    await page.click('#register-passkey')
    await page.waitForSelector('#passkey-status[data-registered]')
    const algorithm = await page.getAttribute('#passkey-status', 'data-algorithm')
    // The page asks for ES256 first, which the virtual authenticator (like every platform one)
    // has: a DER signature from a real browser. EdDSA is covered by the recorded vectors.
    assert.equal(algorithm, 'ES256')
    passkeyKeys = JSON.parse(await text('#passkey-keys'))
    const credential = await page.getAttribute('#passkey-status', 'data-registered')
    assert.deepEqual(Object.keys(passkeyKeys.passkeys), [credential])
    assert.equal(passkeyKeys.passkeys[credential].approver, 'user:bob')
    assert.deepEqual(passkeyKeys.webauthn, { rp_id: 'localhost', origins: [origin] })
    // Another approver typed: this passkey is not theirs.
    await page.fill('#approver', 'user:carol')
    assert.equal(await page.locator('#approve-passkey').isDisabled(), true)
    await page.fill('#approver', 'user:bob')
    await page.getByRole('button', { name: 'Approve with passkey' }).click()
    await page.waitForSelector('body[data-state="decided"]')
    passkeyRecord = JSON.parse(await text('#decision-json'))
    assert.equal(passkeyRecord.action_digest, shown.full)
    assert.equal(passkeyRecord.passkey.credential_id, credential)
    assert.equal(await page.getAttribute('#result-summary', 'data-passkey'), credential)
    // The challenge the browser signed is the fingerprint of the decision (the record
    // without its assertion), as Node computes it.
    const { passkey, ...decided } = passkeyRecord
    const clientData = JSON.parse(Buffer.from(passkey.client_data_json, 'base64url'))
    assert.equal(clientData.type, 'webauthn.get')
    assert.equal(clientData.origin, origin)
    assert.equal(clientData.challenge, addon.passkeyChallenge(decided))
    assert.equal(`sha256:${Buffer.from(clientData.challenge, 'base64url').toString('hex')}`, addon.fingerprint(decided))
    // UP and UV are set in the authenticator data.
    assert.equal(Buffer.from(passkey.authenticator_data, 'base64url')[32] & 0x05, 0x05)
    await screenshot('refund-passkey-approved')
  })

  await step('passkey: the assertion made in the browser verifies in Python, Node and Rust', async () => {
    const request = JSON.parse(readFileSync(SAMPLES.valid, 'utf8'))
    const credential = passkeyRecord.passkey.credential_id
    const algorithm = await page.getAttribute('#passkey-status', 'data-algorithm')
    const all = everywhere(passkeyRecord, request.action, request.contract, passkeyKeys, passkeyRecord.decided_at + 1000)
    for (const [runtime, got] of Object.entries(all)) {
      assert.deepEqual(got, {
        verify: { signer: { algorithm, credential_id: credential, kind: 'passkey' } },
        check: { outcome: 'permit', reasons: [] },
      }, runtime)
    }
  })

  await step('passkey: one byte of the action changed makes it fail in Python, Node and Rust', async () => {
    const request = JSON.parse(readFileSync(SAMPLES.valid, 'utf8'))
    const now = passkeyRecord.decided_at + 1000
    // The frozen action edited after the passkey signed: the record is no longer sealed.
    const edited = { ...passkeyRecord, action: oneByte(passkeyRecord.action, 'order-17', 'order-18') }
    // ... and with its digest recomputed to match: the passkey signed another decision.
    const resealed = { ...edited, action_digest: addon.fingerprint(edited.action) }
    // The record intact, the action presented at dispatch one byte off.
    const presented = oneByte(request.action, 'order-17', 'order-18')
    const cases = [
      [edited, request.action, { error: 'invalid_approval' }, { outcome: 'reject', reasons: ['proof_invalid'] }],
      [resealed, request.action, { error: 'challenge_mismatch' }, { outcome: 'reject', reasons: ['proof_invalid'] }],
    ]
    for (const [approval, action, verify, check] of cases) {
      const all = everywhere(approval, action, request.contract, passkeyKeys, now)
      for (const [runtime, got] of Object.entries(all)) assert.deepEqual(got, { verify, check }, `${runtime}: ${verify.error}`)
    }
    const drifted = everywhere(passkeyRecord, presented, request.contract, passkeyKeys, now)
    for (const [runtime, got] of Object.entries(drifted)) {
      assert.equal(got.verify.signer?.kind, 'passkey', runtime)
      assert.deepEqual(got.check, { outcome: 'reject', reasons: ['action_drift'] }, runtime)
    }
  })

  await step('amend with a passkey: the assertion signs the amended decision, which verifies and is permitted in Python, Node and Rust', async () => {
    const request = JSON.parse(readFileSync(SAMPLES.valid, 'utf8'))
    await open(SAMPLES.valid, 'ready')
    await page.fill('#approver', 'user:bob')
    await page.click('#register-passkey')
    await page.waitForSelector('#passkey-status[data-registered]')
    const keys = JSON.parse(await text('#passkey-keys'))
    await page.click('#edit-args')
    await page.locator('#args tr[data-pointer="/amount_minor"] input.edit-value').fill('"2000"')
    await page.waitForSelector('#amendment[data-state="invalid"]')
    assert.equal(await page.locator('#approve-passkey').isDisabled(), true, 'no passkey approval of a refused edit')
    await page.locator('#args tr[data-pointer="/amount_minor"] input.edit-value').fill('2000')
    await page.waitForSelector('#amendment[data-state="amended"]')
    const amended = await text('#amended-fingerprint')
    await page.getByRole('button', { name: 'Approve with passkey' }).click()
    await page.waitForSelector('body[data-state="decided"]')
    const record = JSON.parse(await text('#decision-json'))
    assert.deepEqual([record.action_digest, record.proposed_digest], [amended, shown.full])
    const { passkey, ...decided } = record
    const clientData = JSON.parse(Buffer.from(passkey.client_data_json, 'base64url'))
    assert.equal(clientData.challenge, addon.passkeyChallenge(decided), 'the passkey signed the decision with both digests')
    const now = record.decided_at + 1000
    for (const [runtime, got] of Object.entries(everywhere(record, record.action, request.contract, keys, now))) {
      assert.deepEqual([got.verify.signer?.kind, got.check], ['passkey', { outcome: 'permit', reasons: [] }], runtime)
    }
    for (const [runtime, got] of Object.entries(everywhere(record, request.action, request.contract, keys, now))) {
      assert.deepEqual(got.check, { outcome: 'reject', reasons: ['action_drift'] }, `${runtime}: the proposal drifts`)
    }
  })

  // Issue 25: the approvals so far under a quorum, drawn from the task's or verdict's `quorum`.
  const quorumRequest = JSON.parse(readFileSync(SAMPLES.quorum, 'utf8'))
  const carol = quorumRequest.quorum.counted[0]
  /** Loads `request` as pasted text and waits until the page has decided what it shows. */
  const paste = async (request) => {
    await page.goto(pageUrl)
    await page.waitForSelector('body[data-state="empty"]')
    await page.click('.paste summary')
    await page.fill('#request-text', JSON.stringify(request))
    await page.click('#load-text')
    await page.waitForSelector('body[data-state="ready"], body[data-state="invalid"], body[data-state="error"]')
  }
  const withQuorum = (quorum) => ({ ...quorumRequest, quorum })

  await step('quorum: "1 of 2 approvals", who approved in what role, and what is still missing', async () => {
    await open(SAMPLES.quorum, 'ready')
    assert.ok(await page.locator('#quorum').isVisible())
    assert.equal(await page.getAttribute('#quorum', 'data-tally'), '1 of 2 approvals')
    assert.equal(await text('#quorum-status'), '1 of 2 approvals: waiting for 1 more approval.')
    const counted = page.locator('#quorum .counted')
    assert.equal(await counted.count(), 1)
    assert.equal(await counted.getAttribute('data-approver'), 'user:carol')
    assert.match(await counted.textContent(), /^user:carol as finance decision dec-1$/)
    const missing = await page.locator('#quorum .missing-list li').allTextContents()
    assert.deepEqual(missing, ['1 more approval', 'in the role risk: 1 more'])
    const contract = await text('#contract')
    assert.ok(contract.includes('2 distinct approvers: finance (1), risk (1), in any order; one rejection vetoes'), contract)
    assert.ok(contract.includes('an approver may not be the subject, the proposer'), contract)
    assert.ok((await text('#banner')).includes('Approval is required: /amount_minor > 1000'))
    await screenshot('refund-quorum')
  })

  await step('quorum: an approval through a delegation reads "for <root>, by <delegate>", and a met quorum says so', async () => {
    const link = `sha256:${'ab'.repeat(32)}`
    await paste(withQuorum({ ...quorumRequest.quorum, counted: [{ ...carol, delegate: 'user:dave', delegations: [link] }] }))
    const item = page.locator('#quorum .counted')
    assert.equal(await item.getAttribute('data-delegate'), 'user:dave')
    assert.match(await item.textContent(), /^for user:carol, by user:dave as finance through delegation sha256:abababababab…/)
    assert.equal(await item.locator('.chain').getAttribute('title'), link)
    await screenshot('refund-quorum-delegated')
    const risk = { approver: 'user:erin', role: 'risk', decision_id: 'dec-2', delegate: null, delegations: [] }
    await paste(withQuorum({ required: 2, counted: [carol, risk], missing: 0, missing_roles: [] }))
    assert.equal(await text('#quorum-status'), '2 of 2 approvals: the quorum is met.')
    assert.deepEqual(await page.locator('#quorum .counted').evaluateAll((l) => l.map((i) => i.dataset.approver)), ['user:carol', 'user:erin'])
  })

  await step('quorum: what a reader could miss in an identity is marked, as in the arguments', async () => {
    await paste(withQuorum({ ...quorumRequest.quorum, counted: [{ ...carol, approver: 'user:c\u0430rol\u200B' }] }))
    const item = page.locator('#quorum .counted')
    assert.deepEqual(await item.locator('.esc').allTextContents(), ['\\u200B'])
    assert.deepEqual(await item.locator('mark.nonascii').allTextContents(), ['\u0430'])
    assert.ok((await item.textContent()).includes('invisible U+200B'), 'the item says what was marked')
  })

  await step('quorum: a state that does not add up, or is not this contract\'s, is a problem and never a tally', async () => {
    const q = quorumRequest.quorum
    const cases = [
      [{ ...q, missing: 0 }, 'missing (0)'],
      [{ ...q, missing: 2 }, 'missing (2)'],
      [{ ...q, required: 3, missing: 2 }, 'the contract needs 2 approvers, not 3'],
      [{ ...q, missing_roles: [{ role: 'legal', count: 1 }] }, 'the contract has no role "legal"'],
      [{ ...q, counted: [{ ...carol, delegate: 'user:dave' }] }, 'a delegate without a chain'],
      [{ ...q, counted: [carol, { ...carol, decision_id: 'dec-2' }], missing: 1 }, 'one approver is counted twice'],
      [{ ...q, counted: [{ ...carol, extra: 1 }] }, 'counted/0 is not'],
      [{ ...q, seen: true }, 'a member "seen"'],
    ]
    for (const [quorum, why] of cases) {
      await paste(withQuorum(quorum))
      const problem = await page.getAttribute('#quorum', 'data-problem')
      assert.ok(problem?.includes(why), `${JSON.stringify(quorum)}: ${problem}`)
      assert.equal(await page.getAttribute('#quorum', 'data-tally'), null)
      assert.match(await text('#quorum-status'), /^✕ The approvals so far cannot be shown: /)
      assert.equal(await page.locator('#quorum .counted').count(), 0)
    }
    // The refund's single-approver contract with a quorum state: not this contract's.
    await paste({ ...request, quorum: q })
    assert.ok((await page.getAttribute('#quorum', 'data-problem')).includes('needs one approver'))
    // And a request without one shows no such section at all.
    await paste(request)
    assert.equal(await page.locator('#quorum').isHidden(), true)
  })

  // Issue 28: a batch, every item shown and decided once.
  const batchRequest = JSON.parse(readFileSync(SAMPLES.batch, 'utf8'))
  const { contract: batchContract, semantics, actions: items } = batchRequest.batch
  const proposed = batchOf(batchContract, semantics, items)

  await step('batch: every one of the 20 items is a row, with what differs from item 1 highlighted', async () => {
    await open(SAMPLES.batch, 'ready')
    assert.equal(items.length, 20)
    assert.equal(await page.locator('#items tr').count(), 20)
    // Every argument is a column, and of the envelope only what varies (the rest is said once).
    const columns = await page.locator('#items-head th[data-pointer]').evaluateAll((l) => l.map((th) => th.dataset.pointer))
    assert.deepEqual(columns, ['/args/amount_minor', '/args/currency', '/args/order_id', '/args/reason', '/request_id'])
    const facts = await text('#batch-facts')
    for (const shared of ['tenant-a', 'user:alice', 'job-outage-1203', 'refund-policy-2026-08-01', 'per_item']) {
      assert.ok(facts.includes(shared), `said once: ${shared}`)
    }
    // What differs from the first item, worked out here from the sample, is exactly what is highlighted.
    const value = (a, p) => p.startsWith('/args/') ? a.args[p.slice(6)] : a[p.slice(1)]
    const expected = items.flatMap((a, i) => i === 0 ? [] : columns.filter((p) => value(a, p) !== value(items[0], p)).map((p) => `${i}${p}`))
    const highlighted = await page.locator('#items td[data-changed]').evaluateAll((l) => l.map((td) => `${td.closest('tr').dataset.index}${td.dataset.pointer}`))
    assert.deepEqual(highlighted.sort(), expected.sort())
    assert.ok(expected.includes('5/args/currency') && expected.includes('8/args/reason'), 'another currency, a missing reason')
    // Said in words for a screen reader, not by colour alone.
    const cell = page.locator('#items tr[data-index="5"] td[data-pointer="/args/currency"]')
    assert.match(await cell.textContent(), /EUR \(differs from item 1\)$/)
    assert.equal(await page.locator('#items tr[data-index="8"] td[data-pointer="/args/reason"]').textContent(), 'absent (differs from item 1)')
    // An invisible character in item 17's reason is escaped and named, as in a single action.
    const reason = page.locator('#items tr[data-index="16"] td[data-pointer="/args/reason"]')
    assert.deepEqual(await reason.locator('.esc').allTextContents(), ['\\u200B'])
    assert.ok((await reason.textContent()).includes('invisible U+200B'))
    // Each row's fingerprint is the item's, as the Node addon computes it.
    const digests = await page.locator('#items td.digest-cell').evaluateAll((l) => l.map((td) => td.dataset.digest))
    assert.deepEqual(digests, items.map((a) => addon.fingerprint(a)))
    // The table scrolls inside the page, and can be reached and scrolled from the keyboard.
    const wrap = page.getByRole('region', { name: 'Items table (scrolls)' })
    assert.equal(await wrap.getAttribute('tabindex'), '0')
    assert.ok(await wrap.evaluate((w) => w.scrollHeight > w.clientHeight), 'twenty rows scroll')
  })

  await step('batch: the fingerprint computed in wasm is the claimed one and the one re-derived outside the page; totals against the caps', async () => {
    assert.equal(await text('#batch-fingerprint'), proposed.digest, 'page vs node:crypto Merkle tree over Node addon fingerprints')
    assert.equal(batchRequest.batch_digest, proposed.digest, 'the sample claims it')
    assert.equal(await text('#claimed-fingerprint'), proposed.digest)
    assert.equal(await page.getAttribute('#batch-claimed', 'data-matches'), 'true')
    assert.equal(await text('#batch-short'), addon.shortFingerprint(proposed.digest))
    const sum = items.reduce((s, a) => s + a.args.amount_minor, 0)
    const totals = await page.locator('#totals tr').evaluateAll((l) => l.map((tr) => [tr.dataset.cap, ...[...tr.cells].slice(1).map((c) => c.textContent)]))
    assert.deepEqual(totals, [
      ['count', '50', '20 ✓ within'],
      ['sum', '100000', `${sum} ✓ within`],
      ['distinct', '50', '20 ✓ within'],
    ])
    assert.ok((await text('#banner')).includes('One decision covers all 20 items'))
    await screenshot('batch-review')
  })

  await step('batch: two items left out from the keyboard, Approve binds the remainder that Python, Node and Rust compute, with the proposal kept', async () => {
    const left = [5, 13]
    for (const i of left) {
      const box = page.getByRole('checkbox', { name: `Include item ${i + 1}`, exact: true })
      await box.focus()
      await page.keyboard.press('Space')
      assert.equal(await box.isChecked(), false)
    }
    await page.waitForSelector('#selection[data-state="deselected"]')
    const remainder = batchOf(batchContract, semantics, items.filter((_, i) => !left.includes(i)))
    assert.equal(await text('#selected-fingerprint'), remainder.digest)
    const everywhere = remainderEverywhere(batchRequest.batch, left)
    assert.deepEqual(everywhere, { python: remainder.digest, node: remainder.digest, rust: remainder.digest })
    assert.equal(await text('#proposed-batch-fingerprint'), proposed.digest)
    assert.deepEqual(await page.locator('#left-out li').evaluateAll((l) => l.map((li) => li.dataset.index)), ['5', '13'])
    assert.equal(await text('#items-count'), '18 of 20 items selected')
    assert.deepEqual(await page.locator('#items tr.left-out').evaluateAll((l) => l.map((tr) => tr.dataset.index)), ['5', '13'])
    const count = await page.locator('#totals tr[data-cap="count"] td').allTextContents()
    assert.deepEqual(count, ['50', '20 ✓ within', '18 ✓ within'])
    assert.ok((await text('#decision-scope')).includes(`18 of 20 items, the batch ${addon.shortFingerprint(remainder.digest)}`))
    await page.fill('#approver', 'user:bob')
    await page.getByRole('button', { name: 'Approve', exact: true }).click()
    await page.waitForSelector('body[data-state="decided"]')
    const record = JSON.parse(await text('#decision-json'))
    assert.equal(record.batch_digest, remainder.digest, 'the record binds the remainder')
    assert.deepEqual(record.batch, remainder.header)
    assert.equal(record.proposed_digest, proposed.digest)
    assert.deepEqual([record.decision, record.approver, record.expires_at - record.decided_at], ['approved', 'user:bob', HOUR])
    assert.equal(record.action, undefined)
    assert.equal(addon.fingerprint(record.batch), record.batch_digest)
    assert.equal(await page.locator('#items input.include:enabled').count(), 0, 'nothing is deselected after the decision')
    assert.ok((await text('#result-summary')).includes('(18 items)'))
  })

  await step('batch: Approve with passkey signs the decision over the selection, which verifies in Node and Python', async () => {
    await open(SAMPLES.batch, 'ready')
    assert.equal(await page.locator('#approve-passkey').isDisabled(), true, 'nothing registered yet')
    await page.fill('#approver', 'user:bob')
    await page.click('#register-passkey')
    await page.waitForSelector('#passkey-status[data-registered]')
    const keys = JSON.parse(await text('#passkey-keys'))
    await page.getByRole('checkbox', { name: 'Include item 20', exact: true }).uncheck()
    await page.waitForSelector('#selection[data-state="deselected"]')
    await page.getByRole('button', { name: 'Approve with passkey' }).click()
    await page.waitForSelector('body[data-state="decided"]')
    const record = JSON.parse(await text('#decision-json'))
    const remainder = batchOf(batchContract, semantics, items.slice(0, 19))
    assert.deepEqual([record.batch_digest, record.proposed_digest], [remainder.digest, proposed.digest])
    const { passkey, ...decided } = record
    const clientData = JSON.parse(Buffer.from(passkey.client_data_json, 'base64url'))
    assert.equal(clientData.challenge, addon.passkeyChallenge(decided), 'the passkey signed the batch decision (Node addon)')
    const now = record.decided_at + 1000
    const signer = { algorithm: 'ES256', credential_id: passkey.credential_id, kind: 'passkey' }
    assert.deepEqual(addon.batchVerifyDecision(record, keys, now).signer, signer, 'Node addon')
    assert.deepEqual(pythonVerifyBatch(record, keys, now), { signer }, 'Python')
    // Another proposal recorded after the passkey signed: not the decision it signed.
    const moved = { ...record, proposed_digest: `sha256:${'ab'.repeat(32)}` }
    assert.throws(() => addon.batchVerifyDecision(moved, keys, now), (e) => e.code === 'challenge_mismatch')
    assert.deepEqual(pythonVerifyBatch(moved, keys, now), { error: 'challenge_mismatch' })
    // A batch decision is not an approval of one action.
    assert.throws(() => addon.verifyPasskey(record, keys, now), (e) => e.code === 'invalid_approval')
  })

  await step('batch: Reject is about the batch as proposed, whatever is unchecked', async () => {
    await open(SAMPLES.batch, 'ready')
    await page.getByRole('checkbox', { name: 'Include item 2', exact: true }).uncheck()
    await page.waitForSelector('#selection[data-state="deselected"]')
    await page.fill('#approver', 'user:carol')
    await page.getByRole('button', { name: 'Reject' }).click()
    await page.waitForSelector('body[data-state="decided"]')
    const record = JSON.parse(await text('#decision-json'))
    assert.deepEqual([record.decision, record.batch_digest, record.proposed_digest], ['rejected', proposed.digest, undefined])
  })

  await step('batch: leaving every item out is core\'s invalid_batch, and Approve is disabled until one is back', async () => {
    await open(SAMPLES.batch, 'ready')
    for (const box of await page.locator('#items input.include').all()) await box.uncheck()
    await page.waitForSelector('#selection[data-state="invalid"]')
    assert.ok((await text('#selection-error')).includes('invalid_batch'))
    assert.equal(await page.getByRole('button', { name: 'Approve', exact: true }).isDisabled(), true)
    await page.click('#include-all')
    await page.waitForSelector('#selection[data-state="none"]', { state: 'attached' })
    assert.equal(await page.getByRole('button', { name: 'Approve', exact: true }).isDisabled(), false)
    assert.equal(await page.locator('#items input.include:checked').count(), 20)
  })

  await step('batch: over a cap (the sum, or a server\'s narrower cap) is refused, shown by how much, with no Approve button', async () => {
    // Item 20's refund raised: the sum passes the contract's cap of 100000 at item 20.
    const raised = structuredClone(batchRequest.batch)
    raised.actions[19].args.amount_minor = 60000
    const over = raised.actions.reduce((s, a) => s + a.args.amount_minor, 0)
    assert.ok(over > 100000 && over - 60000 <= 100000, 'the first 19 are within the cap, the 20th passes it')
    const cases = [
      [{ batch: raised }, 19, '100000', over],
      // The sample itself, under a server that allows at most 40000 in one batch.
      [{ batch: batchRequest.batch, server: { max_items: 50, caps: { sum: { pointer: '/args/amount_minor', max: 40000 } } } }, null, '40000', items.reduce((s, a) => s + a.args.amount_minor, 0)],
    ]
    for (const [request, index, limit, total] of cases) {
      await paste(request)
      assert.equal(await page.getAttribute('body', 'data-state'), 'invalid')
      const offending = await page.locator('#items tr.offending').evaluateAll((l) => l.map((tr) => Number(tr.dataset.index)))
      assert.equal(offending.length, 1)
      if (index !== null) assert.deepEqual(offending, [index])
      assert.ok((await text('#banner')).includes(`over a cap (item ${offending[0] + 1})`))
      assert.ok((await page.locator('#items tr.offending').textContent()).includes('batch_cap_exceeded'))
      assert.ok((await text('#decision-error')).includes('batch_cap_exceeded'))
      assert.equal(await page.locator('#decision-form').count(), 0, 'no Approve button exists')
      assert.equal(await page.locator('#items input.include:enabled').count(), 0)
      assert.deepEqual(await page.locator('#totals tr[data-cap="sum"] td').allTextContents(), [limit, `${total} ✕ over the cap`])
      assert.equal(await page.getAttribute('#totals tr[data-cap="sum"]', 'class'), 'over')
      assert.equal(await text('#batch-fingerprint'), 'not computed: core refused the batch')
    }
    await screenshot('batch-over-cap')
  })

  await step('batch: a claimed fingerprint that is not the page\'s is refused', async () => {
    const last = proposed.digest.at(-1) === '0' ? '1' : '0'
    for (const claimed of [proposed.digest.slice(0, -1) + last, 'sha256:not-hex', 42]) {
      await paste({ ...batchRequest, batch_digest: claimed })
      assert.equal(await page.getAttribute('body', 'data-state'), 'invalid', String(claimed))
      assert.equal(await page.getAttribute('#batch-claimed', 'data-matches'), 'false')
      assert.equal(await text('#batch-fingerprint'), proposed.digest, 'the page still shows what it computed')
      assert.ok((await text('#claimed-status')).includes('refused'))
      assert.ok((await text('#banner')).includes('not the one computed here'))
      assert.equal(await page.locator('#decision-form').count(), 0)
    }
    await screenshot('batch-claim-mismatch')
  })

  await step('batch: an item its contract refuses, or one task identity twice, is marked in its row and refused', async () => {
    const cases = [
      [(a) => { a[3].args.amount_minor = '2500' }, 3, 'type_mismatch', '/args/amount_minor'],
      [(a) => { a[7].request_id = a[2].request_id }, 7, 'invalid_batch', null],
    ]
    for (const [edit, index, code, pointer] of cases) {
      const batch = structuredClone(batchRequest.batch)
      edit(batch.actions)
      await paste({ batch })
      assert.equal(await page.getAttribute('body', 'data-state'), 'invalid')
      assert.deepEqual(await page.locator('#items tr.offending').evaluateAll((l) => l.map((tr) => Number(tr.dataset.index))), [index])
      const marked = page.locator(pointer === null ? '#items tr.offending th.num' : `#items tr.offending td[data-pointer="${pointer}"]`)
      assert.ok((await marked.textContent()).includes(code), `${code} in its cell`)
      assert.ok((await text('#banner')).includes(`cannot be built (item ${index + 1})`))
      assert.ok((await text('#decision-error')).includes(code))
      assert.equal(await page.locator('#decision-form').count(), 0)
    }
  })

  await step('the page loads nothing but its own files, and logs no errors', async () => {
    const foreign = requests.filter((u) => !/^http:\/\/(127\.0\.0\.1|localhost):\d+\//.test(u) && !u.startsWith('blob:'))
    assert.deepEqual(foreign, [])
    assert.deepEqual(errors, [])
  })
} finally {
  await browser.close()
  await server.close()
  rmSync(scratch, { recursive: true, force: true })
}

for (const path of saved) console.log(`screenshot: ${path}`)
finish('confirmation page')
