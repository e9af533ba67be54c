// Drives the evidence page in headless Chromium: the good refund bundle shows its verified
// timeline (the same JSON as the ledger's export gave, the Node wasm build and the Rust CLI
// `actionseal evidence verify` compute); each tampered bundle and the wrong trust show their
// code in red at the member that broke, that member marked and in view, and no timeline.
//
//   bash examples/evidence-page/test.sh   (builds what this needs, then runs it)
//
// Screenshots go to target/evidence-page/ (not committed).

import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { checks, launch, serve } from '../../testing/browser.mjs'

const here = dirname(fileURLToPath(import.meta.url))
const repo = join(here, '..', '..')
const shots = join(repo, 'target', 'evidence-page')
const sample = (name) => join(here, 'samples', name)
const read = (name) => JSON.parse(readFileSync(sample(name), 'utf8'))

const wasm = createRequire(import.meta.url)(join(repo, 'bindings-wasm', 'pkg', 'node', 'index.js'))

/** The Rust CLI's answer: `{timeline}` or `{code, pointer}` from `error: <code>: <message> (at <pointer>)`. */
function cli(bundle, trust) {
  const run = spawnSync('cargo', ['run', '-q', '-p', 'actionseal-cli', '--', 'evidence', 'verify', '--trust', sample(trust), sample(bundle)], { cwd: repo, encoding: 'utf8' })
  if (run.error) throw run.error
  if (run.status === 0) return { timeline: JSON.parse(run.stdout) }
  const m = /^error: ([a-z_]+): .* \(at (.*)\)$/m.exec(run.stderr)
  assert.ok(m, `actionseal evidence verify exited ${run.status}: ${run.stderr}`)
  return { code: m[1], pointer: m[2] }
}

/** The Node wasm build's answer, in the same shape. */
function node(bundle, trust) {
  try {
    return { timeline: wasm.verifyEvidence(read(bundle), read(trust)) }
  } catch (err) {
    return { code: err.code, pointer: err.path }
  }
}

/** Every check runs; a failure is reported and the others go on. */
const { step, finish } = checks()

mkdirSync(shots, { recursive: true })
const server = await serve({ '/': repo })
const browser = await launch()
const { page, errors, requests } = browser
const pageUrl = `${server.origin}/examples/evidence-page/index.html`
const saved = []
const screenshot = async (name, options = { fullPage: true }) => {
  const path = join(shots, `${name}.png`)
  await page.screenshot({ path, ...options })
  saved.push(path)
}

const text = (selector) => page.locator(selector).textContent()
const settled = async () => {
  await page.waitForSelector('body[data-state="verified"], body[data-state="failed"], body[data-state="error"]')
  return page.getAttribute('body', 'data-state')
}

/** Drops a sample on a zone as a person would (a drop event carrying the file). */
async function drop(zone, name, content = readFileSync(sample(name), 'utf8')) {
  await page.evaluate(({ zone, name, content }) => {
    const data = new DataTransfer()
    data.items.add(new File([content], name, { type: 'application/json' }))
    const target = document.getElementById(zone)
    target.dispatchEvent(new DragEvent('dragover', { dataTransfer: data, bubbles: true, cancelable: true }))
    target.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }))
  }, { zone, name, content })
  // The page reads a dropped file asynchronously ("reading" until then): wait for it, so that
  // nothing read next is about the documents as they were before this drop.
  await page.waitForSelector('body:not([data-state="reading"])')
}

/** Pastes a trust (JSON text) and uses it. */
async function pasteTrust(content) {
  const paste = page.locator('#trust-drop details.paste')
  if (!(await paste.evaluate((d) => d.open))) await paste.locator('summary').click()
  await page.fill('#trust-text', content)
  await page.click('#load-trust')
}

/** The page shows no timeline at all: hidden, and nothing left inside it. */
async function noTimeline() {
  assert.equal(await page.locator('#timeline').isHidden(), true, 'the timeline is hidden')
  for (const id of ['#steps', '#task', '#log', '#export', '#timeline-json']) {
    assert.equal(await page.locator(`${id} > *`).count(), 0, `${id} is empty`)
    assert.equal((await text(id)).trim(), '', `${id} has no text`)
  }
}

/**
 * The failure is shown with `code` at `pointer` in `doc` ("the bundle" or "your trust"): in the
 * details, with the member at `marked` (the pointer's, or its nearest parent when it names a
 * missing member) marked in the tree, its ancestors on the path, its name in view.
 */
async function failsAt(code, pointer, doc, marked = pointer) {
  assert.equal(await settled(), 'failed', `state: ${await text('#banner')}`)
  assert.ok((await text('#banner')).includes(code), 'the banner names the code')
  const details = await text('#failure-details')
  for (const part of [code, pointer, doc]) assert.ok(details.includes(part), `failure details show ${part}: ${details}`)
  assert.equal(await page.locator('#failure-details').isVisible(), true)
  const broken = page.locator('#tree .member.broken')
  assert.equal(await broken.count(), 1, 'one member is marked as broken')
  assert.equal(await broken.getAttribute('data-pointer'), marked)
  assert.ok((await broken.locator('.breaks').first().textContent()).includes(code))
  const path = await page.locator('#tree .member.on-path').evaluateAll((rows) => rows.map((r) => r.dataset.pointer))
  const ancestors = marked.split('/').slice(1, -1).map((_, i, all) => `/${all.slice(0, i + 1).join('/')}`)
  assert.deepEqual(path, marked === '' ? [] : ['', ...ancestors], 'the members that hold it are marked')
  // Red: the broken member's background and its note are the page's --bad colours.
  const colours = await broken.evaluate((row) => ({
    background: getComputedStyle(row).backgroundColor,
    note: getComputedStyle(row.querySelector('.breaks')).color,
    bad: getComputedStyle(document.documentElement).getPropertyValue('--bad').trim(),
  }))
  assert.notEqual(colours.background, 'rgba(0, 0, 0, 0)', 'the broken member has a background')
  assert.equal(colours.note, hexToRgb(colours.bad), 'its note is in the page\'s red')
  // Scrolled into view: its name is inside the window and inside the tree's scroll box.
  const seen = await broken.locator('.head').first().evaluate((head) => {
    const r = head.getBoundingClientRect()
    const box = document.getElementById('tree').getBoundingClientRect()
    return r.top >= 0 && r.bottom <= innerHeight && r.top >= box.top && r.bottom <= box.bottom
  })
  assert.equal(seen, true, 'the broken member is scrolled into view')
  await noTimeline()
}

const hexToRgb = (hex) => {
  const n = Number.parseInt(hex.slice(1), 16)
  return `rgb(${n >> 16}, ${(n >> 8) & 255}, ${n & 255})`
}

const expected = read('refund.timeline.json')
const TAMPERED = [
  ['an edited event (the decision\'s actor)', 'refund-edited-event.bundle.json', 'inclusion_proof_invalid', '/events/1/proof', 'edited-event'],
  ['a removed event (the claim)', 'refund-removed-event.bundle.json', 'evidence_incomplete', '/events/2', 'removed-event'],
  ['an altered action amount', 'refund-altered-amount.bundle.json', 'evidence_mismatch', '/actions/0', 'altered-amount'],
]

try {
  await page.setViewportSize({ width: 1200, height: 900 })
  await page.goto(pageUrl)
  await page.waitForSelector('body[data-state="waiting"]')

  await step('the sample is what every runtime verifies to the ledger\'s timeline', async () => {
    assert.deepEqual(node('refund.bundle.json', 'refund.trust.json'), { timeline: expected })
    assert.deepEqual(cli('refund.bundle.json', 'refund.trust.json'), { timeline: expected })
  })

  await step('good bundle (chosen) with a pasted trust: the verified timeline', async () => {
    await page.setInputFiles('#bundle-file', sample('refund.bundle.json'))
    await page.waitForSelector('body[data-state="waiting"]')
    await pasteTrust(readFileSync(sample('refund.trust.json'), 'utf8'))
    assert.equal(await settled(), 'verified', await text('#banner'))
    assert.deepEqual(JSON.parse(await text('#timeline-json')), expected, 'the page shows the timeline core returned')
    assert.match(await text('#banner'), /^✓ The bundle verifies against your trust\. Its 4 events are in the log PeterNeumann as of the checkpoint of size 9, signed by a ledger key you trust and cosigned by 1 witness you trust/)
    assert.equal(await text('#tool'), 'refund_create')
    const task = await text('#task')
    for (const s of ['task_af564bb1b180f8c77606a9a1e528b3a9', 'tenant-a', 'user:alice', 'succeeded']) assert.ok(task.includes(s), `task shows ${s}`)
    assert.ok(task.replace(/\s/g, '').includes(expected.contract), 'task shows the contract digest')
    const steps = await page.locator('#steps > li').evaluateAll((items) => items.map((li) => ({
      kind: li.dataset.kind,
      facts: Object.fromEntries([...li.querySelectorAll('dt')].map((dt) => [dt.textContent, dt.nextElementSibling.textContent])),
      when: li.querySelector('.step-head time').textContent,
    })))
    assert.deepEqual(steps.map((s) => s.kind), ['proposed', 'decided', 'claimed', 'completed'])
    assert.equal(steps[0].facts['Proposed by'], 'agent:7')
    assert.equal(steps[0].when, '2025-11-30 10:03:00 UTC')
    assert.equal(steps[1].facts['Decided by'], 'user:bob')
    assert.equal(steps[1].facts.Decision, 'approved')
    assert.equal(steps[1].facts['Signed with'], 'service key UDDReOZl1ipXAfp9wYsm13sDBMK5og--QWdBjzuf6o4')
    assert.equal(steps[1].facts['Key judged at'], '2025-11-30 10:04:00 UTC when the ledger recorded the decision; the key was valid then')
    assert.equal(steps[2].facts['Claimed by executor'], 'worker-1')
    assert.equal(steps[2].facts.Fence, '1')
    assert.equal(steps[2].facts['Check at claim'], 'permit')
    assert.equal(steps[3].facts['Reported by executor'], 'worker-1')
    assert.equal(steps[3].facts.Outcome, 'succeeded')
    assert.equal(steps[3].facts['State after'], 'succeeded')
    const log = await text('#log')
    for (const s of ['PeterNeumann', '9 events', expected.log.root, '2025-11-30 10:53:20 UTC', 'witness you trust', 'witness.example']) {
      assert.ok(log.includes(s), `log shows ${s}: ${log}`)
    }
    const exported = await text('#export')
    assert.ok(exported.includes('2025-11-30 10:06:00 UTC') && exported.includes('auditor:carol'), exported)
    assert.equal(await page.locator('#failure').isHidden(), true)
    assert.equal(await page.locator('#tree > *').count(), 0)
    await screenshot('verified')
    await page.locator('.timeline-json summary').click()
    const [file] = await Promise.all([page.waitForEvent('download'), page.click('#download')])
    assert.equal(file.suggestedFilename(), `timeline-${expected.task}.json`)
    assert.deepEqual(JSON.parse(readFileSync(await file.path(), 'utf8')), expected, 'the downloaded timeline')
  })

  await step('steps the sample lacks: an amendment, a passkey for a delegator, a bare decision, no independent time', async () => {
    const steps = [
      { ...expected.steps[0] },
      { ...expected.steps[0], kind: 'amended', actor: 'user:bob', index: 5, drift: ['/args/amount_minor'], state: 'awaiting_approval' },
      { ...expected.steps[1], index: 6, actor: 'user:dave\u200b', on_behalf_of: 'user:carol', signer: { algorithm: 'ES256', credential_id: 'cred-1', kind: 'passkey' }, verified_by: 'rfc3161' },
      { ...expected.steps[1], index: 7, signer: null, verified_at: null, verified_by: null, outcome: 'rejected', state: 'rejected' },
    ]
    const timeline = { ...expected, state: 'rejected', steps, log: { ...expected.log, time: null, time_source: null, witnesses: [] } }
    const shown = await page.evaluate(async (t) => {
      const api = await import('/bindings-wasm/pkg/web/actionseal_wasm.js')
      const { showTimeline } = await import('/examples/evidence-page/timeline.mjs')
      const parts = Object.fromEntries(['tool', 'task', 'steps', 'log', 'export'].map((k) => [k, document.createElement(k === 'steps' ? 'ol' : 'dl')]))
      showTimeline(api, t, parts)
      const facts = [...parts.steps.children].map((li) => Object.fromEntries([...li.querySelectorAll('dt')].map((dt) => [dt.textContent, dt.nextElementSibling.textContent])))
      return { facts, log: parts.log.textContent, escapes: [...parts.steps.querySelectorAll('.esc')].map((e) => e.textContent) }
    }, timeline)
    assert.equal(shown.facts[1]['Amended by'], 'user:bob')
    assert.equal(shown.facts[1].Changed, '/args/amount_minor')
    assert.equal(shown.facts[2]['On behalf of'], 'user:carol')
    assert.equal(shown.facts[2]['Signed with'], 'passkey cred-1 (ES256)')
    assert.match(shown.facts[2]['Key judged at'], /from the decision's RFC 3161 time-stamp token/)
    assert.deepEqual(shown.escapes, ['\\u200B'], 'an invisible character in an actor is shown')
    assert.match(shown.facts[3].Proof, /^none: the ledger recorded this decision as given/)
    assert.equal(shown.facts[3].Decision, 'rejected')
    assert.ok(shown.log.includes('no independent time') && shown.log.includes('none you trust cosigned it'), shown.log)
  })

  for (const [what, bundle, code, pointer, shot] of TAMPERED) {
    await step(`${what} (dropped): ${code} at ${pointer}, in red, and no timeline`, async () => {
      assert.deepEqual(node(bundle, 'refund.trust.json'), { code, pointer }, 'Node wasm')
      assert.deepEqual(cli(bundle, 'refund.trust.json'), { code, pointer }, 'Rust CLI')
      await drop('bundle-drop', bundle)
      await failsAt(code, pointer, 'the bundle')
      await screenshot(shot, {})
    })
  }

  // The conformance vectors of evidence bundles (helper "vectors", issue 26), each through the
  // page: a y_ vector shows its timeline, an n_ vector its code at its pointer and no timeline.
  const vectors = process.env.ACTIONSEAL_EVIDENCE_VECTORS ?? join(repo, 'conformance', 'vectors', 'evidence')
  const names = existsSync(vectors) ? readdirSync(vectors).filter((f) => /^[yn]_.*\.json$/.test(f)).sort() : []
  if (names.length === 0) console.log(`NOTE: no evidence vectors in ${vectors}: the page is checked with its samples only`)
  for (const name of names) {
    await step(`vector ${name}`, async () => {
      const { bundle, trust, expected: given } = JSON.parse(readFileSync(join(vectors, name), 'utf8'))
      // A refusal is {"error": {"code", "path"}} (conformance/vectors/evidence/README.md).
      const expected = Object.hasOwn(given, 'error') ? given.error : given
      await drop('trust-drop', 'trust.json', JSON.stringify(trust))
      await drop('bundle-drop', 'bundle.json', JSON.stringify(bundle))
      const timeline = Object.hasOwn(expected, 'timeline') ? expected.timeline : expected
      if (name.startsWith('y_')) {
        assert.equal(await settled(), 'verified', await text('#banner'))
        assert.deepEqual(JSON.parse(await text('#timeline-json')), timeline)
        assert.equal(await page.locator('#steps > li').count(), timeline.steps.length)
        return
      }
      const inTrust = (await text('#failure-details')).includes('your trust (')
      const marked = await page.evaluate(async ({ doc, pointer }) => {
        const { resolve } = await import('/examples/evidence-page/tree.mjs')
        return resolve(doc, pointer).found
      }, { doc: inTrust ? trust : bundle, pointer: expected.path })
      await failsAt(expected.code, expected.path, inTrust ? 'your trust' : 'the bundle', marked)
    })
  }

  await step('a verified bundle, then a failing one: nothing of the first is left', async () => {
    await drop('bundle-drop', 'refund.bundle.json')
    assert.equal(await settled(), 'verified')
    await drop('bundle-drop', 'refund-removed-event.bundle.json')
    await failsAt('evidence_incomplete', '/events/2', 'the bundle')
  })

  await step('the wrong trust (another key for the ledger\'s name): checkpoint_untrusted', async () => {
    const trust = 'other-ledger.trust.json'
    assert.deepEqual(node('refund.bundle.json', trust), { code: 'checkpoint_untrusted', pointer: '/checkpoint/note' })
    assert.deepEqual(cli('refund.bundle.json', trust), { code: 'checkpoint_untrusted', pointer: '/checkpoint/note' })
    await drop('bundle-drop', 'refund.bundle.json')
    assert.equal(await settled(), 'verified')
    await drop('trust-drop', trust)
    await failsAt('checkpoint_untrusted', '/checkpoint/note', 'the bundle')
    await screenshot('other-ledger', {})
  })

  await step('a malformed trust is shown in the trust, not the bundle', async () => {
    await pasteTrust('{"ledger_keys": []}')
    await failsAt('invalid_evidence_trust', '/ledger_keys', 'your trust')
  })

  await step('a bundle that is not strict JSON (a duplicate key) is refused before verifying', async () => {
    await pasteTrust(readFileSync(sample('refund.trust.json'), 'utf8'))
    await page.setInputFiles('#bundle-file', { name: 'dup.json', mimeType: 'application/json', buffer: Buffer.from('{"task": "a", "task": "b"}') })
    assert.equal(await settled(), 'error')
    assert.match(await text('#bundle-status'), /^dup\.json is not strict JSON: /)
    assert.equal(await page.locator('#result').isHidden(), true)
    await noTimeline()
  })

  await step('samples named in the address', async () => {
    await page.goto(`${pageUrl}?bundle=samples/refund.bundle.json&trust=samples/refund.trust.json`)
    assert.equal(await settled(), 'verified')
    await page.goto(`${pageUrl}?bundle=samples/refund-altered-amount.bundle.json&trust=samples/refund.trust.json`)
    await failsAt('evidence_mismatch', '/actions/0', 'the bundle')
  })

  await step('the page loads nothing but its own files, and logs no errors', async () => {
    const foreign = requests.filter((u) => !u.startsWith(`${server.origin}/`) && !u.startsWith('blob:'))
    assert.deepEqual(foreign, [])
    assert.deepEqual(errors, [])
  })
} finally {
  await browser.close()
  await server.close()
}

for (const path of saved) console.log(`screenshot: ${path}`)
finish('evidence page')
