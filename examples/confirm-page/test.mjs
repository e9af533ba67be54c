// Drives the confirmation page in headless Chromium and checks it against the other runtimes:
// the fingerprint it shows is the one Python and the native Node addon compute for the same
// action, an action that breaks its contract gets an error and no Approve button, and the
// record an Approve produces is bound to the fingerprint shown and permitted by the Rust CLI.
//
//   bash examples/confirm-page/test.sh   (prepares everything this needs, then runs it)
//
// Screenshots go to examples/confirm-page/screenshots/.

import assert from 'node:assert/strict'
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { launch, serve } from '../../conformance/js/browser/harness.mjs'

const here = dirname(fileURLToPath(import.meta.url))
const repo = join(here, '..', '..')
const shots = join(here, 'screenshots')
const scratch = mkdtempSync(join(tmpdir(), 'actionseal-confirm-'))
const SAMPLES = {
  valid: join(here, 'samples', 'refund.json'),
  invalid: join(here, 'samples', 'refund-invalid-amount.json'),
}
const HOUR = 3600000

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

const failures = []
/** Runs one named check, collecting its failure so that every check runs. */
async function step(name, fn) {
  try {
    await fn()
    console.log(`ok - ${name}`)
  } catch (err) {
    failures.push(name)
    console.log(`not ok - ${name}\n  ${String(err.stack ?? err).split('\n').join('\n  ')}`)
  }
}

mkdirSync(shots, { recursive: true })
const server = await serve({ '/': repo })
const browser = await launch()
const { page, errors } = browser
const requests = []
page.on('request', (r) => requests.push(r.url()))
const pageUrl = `${server.origin}/examples/confirm-page/index.html`
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
    await page.getByRole('button', { name: 'Approve' }).click()
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
    assert.equal(await page.getByRole('button', { name: 'Approve' }).isDisabled(), true, 'one decision per review')
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

  await step('the page loads nothing but its own files, and logs no errors', async () => {
    const foreign = requests.filter((u) => !/^http:\/\/127\.0\.0\.1:\d+\//.test(u) && !u.startsWith('blob:'))
    assert.deepEqual(foreign, [])
    assert.deepEqual(errors, [])
  })
} finally {
  await browser.close()
  await server.close()
  rmSync(scratch, { recursive: true, force: true })
}

for (const path of saved) console.log(`screenshot: ${path}`)
if (failures.length > 0) {
  console.error(`\n${failures.length} check(s) failed: ${failures.join('; ')}`)
  process.exit(1)
}
console.log('\nconfirmation page: all checks passed')
