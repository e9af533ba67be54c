// The refund desk's headless run: Chromium (playwright-core, Debian's binary) plays the reviewer
// on the desk's page while this script starts agents and executors and checks every promise of
// issue 13 against the ledger, the executors' logs and the payment service's effect counts.
// `run --headless` starts the payment service and the approval server, then this script.
//
// Scenarios, each its own agent run (job): the fingerprint printed by the agent, shown by the
// page (computed in WebAssembly) and checked by the executor are one string; a double-clicked
// approve and replayed decision POSTs make one decision and one payment; the model regenerates
// 2600 after the approval of 2500; the reviewer corrects 2500 to 2000; an approval expires before
// any executor runs; an executor dies after its claim (before and after paying); a payment times
// out; decisions forged around the approval server. Issue 23: the reviewer signs in (a run's
// secret), and nothing else may decide: a cross-origin text/plain POST from another site in
// the same browser, and the agent's own credential, are refused and nothing is signed; values
// with invisible or confusable characters are flagged everywhere and approving them takes an
// acknowledgement; a cleared or zero amount is an error on the page; a rejection takes a
// confirmation and a reason; the page is driven with the keyboard only, keeps focus through
// its refreshes, announces results, and fits a 420 px window (screenshots at 1280 and 420 px).
// Issue 25: a refund over the threshold needs finance and risk (four eyes): the requester may
// not approve, the same reviewer twice counts once, the desk shows "1 of 2 approvals" in between
// and the refund runs only after both; a delegate approves for a finance reviewer who is away,
// shown as "for <root>, by <delegate>". Issue 26: the history's "Download evidence" gives every
// paid refund's evidence bundle, which verifies in the browser (WebAssembly), in Node (the
// addon), in Python and with the CLI to one timeline, byte for byte. Issue 28: the agent hands
// twenty refunds over as one batch; the reviewer leaves two out and approves the rest in the
// page; three declines trip the breaker and the remainder comes back to the page, approved
// again; each paid refund has one effect. Issue 29: a refund with the customer's e-mail, which
// the ledger freezes as a commitment: the page marks it sensitive, the executor pays with the
// value its claim revealed, the desk tenant's policy shreds it as the refund ends, and a scan of
// the ledger's storage (SQLite file and log, or a pg_dump) finds it before and not after; its
// evidence still verifies. Then `actionseal ledger audit verify`.

import assert from 'node:assert/strict'
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { launch } from '../../testing/browser.mjs'

const here = dirname(fileURLToPath(import.meta.url))
const repo = join(here, '..', '..')
const { Ledger, verifyEvidence, parseJson, canonicalize } = createRequire(import.meta.url)(join(repo, 'bindings-node', 'index.js'))
const { values: opt } = parseArgs({
  options: Object.fromEntries(['run', 'db', 'server', 'payment', 'python', 'executors', 'cli', 'receiver'].map((k) => [k, { type: 'string' }])),
})
const backend = opt.db.startsWith('sqlite:') ? 'sqlite' : 'postgres'
const shots = join(repo, 'target', 'refund-desk', 'screenshots')
mkdirSync(shots, { recursive: true })
const started = Date.now()
const HOUR = 3600000
const secret = (name) => readFileSync(join(opt.run, name), 'utf8').trim()

// --- processes ------------------------------------------------------------------------------

const children = new Set()
const execEvents = [] // every EXECUTOR line of every executor, parsed

/** Spawns a process whose `PREFIX {json}` stdout lines are collected; stderr goes to ours. */
function child(cmd, args, prefix, sink) {
  const proc = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'] })
  children.add(proc)
  proc.exited = new Promise((resolve) => proc.on('exit', (code, signal) => { children.delete(proc); resolve({ code, signal }) }))
  createInterface({ input: proc.stdout }).on('line', (line) => {
    if (line.startsWith(`${prefix} `)) sink.push(JSON.parse(line.slice(prefix.length + 1)))
    if (process.env.DESK_VERBOSE) console.log(line)
  })
  return proc
}

let executors = []
function startExecutors(n = Number(opt.executors), extra = [], names = null) {
  for (let i = 1; i <= n; i++) {
    const name = names?.[i - 1] ?? `executor-${i}`
    executors.push(child('node', [join(here, 'executor.mjs'), '--config', join(opt.run, 'executor.json'), '--name', name, ...extra], 'EXECUTOR', execEvents))
  }
}
async function stopExecutors() {
  const running = executors
  executors = []
  for (const p of running) p.kill('SIGTERM')
  await Promise.all(running.map((p) => p.exited))
}

/** Starts the agent for a job; resolves once it paused, with its task and fingerprint. */
async function agent(job, extra = []) {
  const events = []
  const proc = child(opt.python, [join(here, 'desk', 'agent.py'), '--db', opt.db, '--server', opt.server,
    '--token-file', join(opt.run, 'agent.token'), '--job', job, ...extra], 'AGENT', events)
  const paused = await until(() => events.find((e) => e.event === 'paused'), `agent ${job} paused`)
  return { proc, events, task: paused.task_id, fingerprint: paused.fingerprint, paused }
}

/** Polls `fn` until it returns a truthy value (a safety limit, not a timing assertion). */
async function until(fn, what, limitMs = 60000) {
  const end = Date.now() + limitMs
  for (;;) {
    const v = await fn()
    if (v) return v
    if (Date.now() > end) throw new Error(`gave up waiting for: ${what}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

// --- what the other parts say --------------------------------------------------------------------

const ledger = await Ledger.open(opt.db)
const kinds = async (tid) => (await ledger.history(tid)).events.map((e) => e.kind)
const count = (list, x) => list.filter((k) => k === x).length
const execFor = (tid, event) => execEvents.filter((e) => e.task_id === tid && (!event || e.event === event))
async function effects() {
  return (await (await fetch(`${opt.payment}/effects`)).json()).effects
}
async function effectsOf(tid) {
  const key = (await ledger.task(tid)).idempotency_key
  return (await effects()).filter((e) => e.idempotency_key === key)
}
/** The executor's `dispatched` line (logged just after the ledger records the completion). */
const dispatched = (tid) => until(() => execFor(tid, 'dispatched')[0], `dispatched line for ${tid}`)
const settled = (tid, state = 'succeeded') => until(async () => (await ledger.task(tid)).state === state, `task ${tid} ${state}`)

// --- the ledger's storage (issue 29) -----------------------------------------------------------

/**
 * How `text` may sit in the ledger's bytes: as itself, and inside a disclosure (base64url of
 * `[salt, pointer, value]`) at each of the three alignments, without the characters that mix in
 * its neighbours' bits.
 */
function forms(text) {
  const bytes = Buffer.from(text)
  const out = [text]
  for (const k of [0, 1, 2]) {
    const b64 = Buffer.concat([Buffer.alloc(k), bytes]).toString('base64url')
    out.push(b64.slice([0, 2, 3][k], (k + bytes.length) % 3 === 0 ? undefined : -1))
  }
  return out
}
/** How often `text` (any of its forms) occurs in the ledger's storage: the SQLite file and its write-ahead log, or a pg_dump of the PostgreSQL database. */
function scan(text) {
  const stores = backend === 'sqlite'
    ? ['', '-wal'].map((s) => `${opt.db.slice('sqlite:'.length)}${s}`).filter(existsSync).map((f) => [f.split('/').pop(), readFileSync(f)])
    : [['pg_dump', execFileSync('pg_dump', ['--no-owner', '--dbname', opt.db], { maxBuffer: 1 << 30 })]]
  const found = {}
  for (const [name, bytes] of stores) {
    for (const f of forms(text)) {
      for (let i = bytes.indexOf(f); i >= 0; i = bytes.indexOf(f, i + 1)) found[name] = (found[name] ?? 0) + 1
    }
  }
  return { total: Object.values(found).reduce((a, b) => a + b, 0), where: Object.keys(found).join(', ') || 'nowhere' }
}

// --- the page -------------------------------------------------------------------------------------

const browser = await launch()
const { page } = browser
const decisionPosts = []
page.on('request', (r) => {
  if (r.method() === 'POST' && r.url().endsWith('/decision')) decisionPosts.push({ url: r.url(), body: r.postData(), request: r })
})

/** Signs in as the reviewer with the keyboard: the secret typed, Enter. */
async function signIn() {
  await page.setViewportSize({ width: 1280, height: 900 })
  await page.goto(`${opt.server}/`)
  await page.waitForSelector('body[data-session="out"]')
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'secret', 'the secret field has the focus')
  await page.keyboard.type(secret('reviewer.secret'))
  await page.keyboard.press('Enter')
  await page.waitForSelector('body[data-session="in"]')
}

/** Signs out whoever is signed in and signs in as `who` (a reviewer of the desk, by its own secret). */
async function signInAs(who) {
  if (await page.getAttribute('body', 'data-session') === 'in') {
    await page.click('#sign-out')
    await page.waitForSelector('body[data-session="out"]')
  } else {
    await page.goto(`${opt.server}/`)
    await page.waitForSelector('body[data-session="out"]')
  }
  await page.fill('#secret', JSON.parse(secret('reviewers.json'))[who])
  await page.keyboard.press('Enter')
  await page.waitForSelector('body[data-session="in"]')
  assert.equal(await page.textContent('#reviewer'), who)
}

/** The server's event stream read from Node with the page's session, from `lastId` if given; `next(type, where)` resolves with the next event of that type ({id, data}) for which `where(data)` holds, dropping those before it. */
async function events(lastId) {
  const cookie = (await page.context().cookies(opt.server)).map((c) => `${c.name}=${c.value}`).join('; ')
  const ac = new AbortController()
  const r = await fetch(`${opt.server}/api/events`, { headers: { cookie, ...(lastId ? { 'last-event-id': lastId } : {}) }, signal: ac.signal })
  assert.equal(r.headers.get('content-type').split(';')[0], 'text/event-stream')
  const reader = r.body.pipeThrough(new TextDecoderStream()).getReader()
  let buffer = ''
  const parsed = []
  async function next(type, where = () => true) {
    const deadline = Date.now() + 15000
    for (;;) {
      const i = parsed.findIndex((e) => e.type === type && where(e.data))
      if (i >= 0) return parsed.splice(0, i + 1).pop()
      if (Date.now() > deadline) throw new Error(`no ${type} event`)
      const { value, done } = await reader.read()
      if (done) throw new Error('the stream ended')
      buffer += value
      let end
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        const field = (name) => block.split('\n').find((l) => l.startsWith(`${name}: `))?.slice(name.length + 2)
        if (field('event')) parsed.push({ type: field('event'), id: field('id'), data: JSON.parse(field('data')) })
      }
    }
  }
  return { next, close: () => ac.abort() }
}

async function open(tid) {
  await page.goto(`${opt.server}/?task=${tid}`)
  await page.waitForSelector(`#detail[data-task-id="${tid}"]`)
}
const attr = (sel, name) => page.getAttribute(sel, name)
async function shot(name) {
  const path = join(shots, `${backend}-${name}.png`)
  await page.screenshot({ path, fullPage: true })
  return path
}
/** Screenshots at 1280 and at 420 px; at 420 px the page must not scroll sideways. */
async function shots2(name) {
  const paths = [await shot(`${name}-1280`)]
  await page.setViewportSize({ width: 420, height: 900 })
  await page.waitForTimeout(100)
  const { scroll, client } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }))
  assert.ok(scroll <= client, `${name}: no horizontal scrolling at 420 px (scrollWidth ${scroll} > clientWidth ${client})`)
  paths.push(await shot(`${name}-420`))
  await page.setViewportSize({ width: 1280, height: 900 })
  return paths
}
async function approve(tid, { ttl = HOUR, click = 'click' } = {}) {
  await page.waitForSelector(`#detail[data-task-id="${tid}"] #approve:not([disabled])`)
  await page.selectOption('#ttl', String(ttl))
  await page.evaluate(() => delete document.getElementById('decide-status').dataset.result)
  await page[click]('#approve')
  await page.waitForSelector('#decide-status[data-result]', { state: 'attached' })
  assert.equal(await attr('#decide-status', 'data-result'), 'approved', 'the server recorded the approval')
}
/** The page's three fingerprints: the server's, the page's own (wasm), and whether they match. */
async function fingerprints() {
  return { server: await attr('#fp-server', 'data-digest'), page: await attr('#fp-page', 'data-digest'), match: await attr('#fp-match', 'data-match') }
}
/** Presses Tab until `selector` has the focus (the keyboard only: no clicks). */
async function tabTo(selector, limit = 80) {
  for (let i = 0; i < limit; i++) {
    if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return
    await page.keyboard.press('Tab')
  }
  throw new Error(`Tab never reached ${selector}`)
}
/** A POST to the approval server from Node, as the signed-in page would send it (its cookie, origin and CSRF token) unless `as` says otherwise. */
async function post(path, body, as = {}) {
  const cookies = (await page.context().cookies(opt.server)).map((c) => `${c.name}=${c.value}`).join('; ')
  const { csrf } = await page.evaluate(async () => (await fetch('/api/session')).json())
  const headers = { 'content-type': 'application/json', origin: opt.server, cookie: cookies, 'x-csrf-token': csrf, ...as }
  for (const [k, v] of Object.entries(headers)) if (v === null) delete headers[k]
  const r = await fetch(`${opt.server}${path}`, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) })
  return { status: r.status, body: await r.json() }
}
const decided = async (tid) => (await kinds(tid)).includes('decided')

const results = []
async function scenario(name, fn) {
  const t0 = Date.now()
  await fn()
  const ms = Date.now() - t0
  results.push([name, ms])
  console.log(`ok  ${name} (${(ms / 1000).toFixed(1)} s)`)
}

try {
  await signIn()

  await scenario('one fingerprint from agent to page to executor; double click and replayed POSTs make one decision and one payment', async () => {
    const a = await agent('job-main')
    await open(a.task)
    const fp = await fingerprints()
    assert.equal(fp.page, a.fingerprint, 'the page computed in WebAssembly the fingerprint the agent printed')
    assert.equal(fp.server, a.fingerprint)
    assert.equal(fp.match, 'true')
    // What a reviewer must see (seed 002): why a person is asked, the resource, a summary from
    // the frozen arguments, the cost, the side effects; and the model's words, set apart.
    const review = (await page.textContent('#d-review')).replace(/\s+/g, ' ')
    for (const part of ['Why you are asked', '/amount_minor > 1000', 'here /amount_minor is 2500', 'Resource', 'order_id order-17',
      'Summary', 'Refund 2500 minor units of USD for order order-17', 'Estimated cost', '2500 minor units of USD paid out',
      '25 minor units per call', 'Side effects', 'write: changes something', 'cannot be undone']) {
      assert.ok(review.includes(part), `the review shows ${part}: ${review}`)
    }
    await page.waitForSelector('#d-rationale:not([hidden])')
    assert.ok((await page.textContent('#d-rationale blockquote')).includes('arrived broken'), 'the model\'s words are shown')
    assert.ok((await page.textContent('#d-rationale figcaption')).includes('not part of what you approve'))
    assert.equal(await page.$('#d-flags:not([hidden])'), null, 'nothing to flag in order-17')
    // The server refuses a decision about another digest.
    const wrong = await post(`/api/tasks/${a.task}/decision`, { decision_id: 'wrong-digest', action_digest: `sha256:${'0'.repeat(64)}`, decision: 'approved', ttl_ms: HOUR })
    assert.deepEqual([wrong.status, wrong.body.error], [409, 'digest_mismatch'])
    // Nobody but the signed-in reviewer decides. Another site open in the same browser posts
    // text/plain (no preflight) with the browser's credentials: refused (its Origin; and the
    // SameSite=Strict cookie is not sent). The agent's own credential: refused.
    const body = JSON.stringify({ decision_id: 'hostile', action_digest: a.fingerprint, decision: 'approved', ttl_ms: HOUR })
    const evil = await page.context().newPage()
    await evil.goto(`${opt.payment}/effects`) // another origin (127.0.0.1), another site
    await evil.evaluate(async ({ url, body }) => {
      await fetch(url, { method: 'POST', mode: 'no-cors', credentials: 'include', headers: { 'content-type': 'text/plain' }, body })
    }, { url: `${opt.server}/api/tasks/${a.task}/decision`, body })
    await evil.close()
    const asAgent = await post(`/api/tasks/${a.task}/decision`, body, { cookie: null, 'x-csrf-token': null, origin: null, authorization: `Bearer ${secret('agent.token')}` })
    assert.ok([401, 403].includes(asAgent.status), `the agent's credential cannot decide (${asAgent.status})`)
    const noCsrf = await post(`/api/tasks/${a.task}/decision`, body, { 'x-csrf-token': null })
    assert.equal(noCsrf.status, 403, 'no decision without the session\'s CSRF token')
    assert.equal((await ledger.task(a.task)).state, 'awaiting_approval')
    assert.equal(await decided(a.task), false, 'nothing was decided, so nothing was signed')
    console.log(`    screenshots at decision time: ${(await shots2('decision')).join(', ')}`)
    decisionPosts.length = 0
    await approve(a.task, { click: 'dblclick' })
    await until(() => decisionPosts.length === 2, 'both clicks posted')
    const answers = await Promise.all(decisionPosts.map(async (p) => (await p.request.response()).json()))
    assert.deepEqual(answers.map((a) => a.duplicate).sort(), [false, true], 'one decision recorded, the other click a duplicate')
    assert.equal(new Set(decisionPosts.map((p) => JSON.parse(p.body).decision_id)).size, 1, 'one decision_id for the double click')
    const replay = async () => {
      const r = await post(new URL(decisionPosts[0].url).pathname, decisionPosts[0].body)
      assert.equal(r.status, 200)
      assert.equal(r.body.duplicate, true)
    }
    await replay()
    // The executors start together once the agent handed the call over: they race for it.
    await until(() => a.events.find((e) => e.event === 'done'), 'agent done')
    startExecutors()
    await settled(a.task)
    await replay() // after the payment too
    const checked = execFor(a.task, 'checked')
    assert.ok(checked.length >= 1)
    for (const c of checked) assert.equal(c.fingerprint, a.fingerprint, 'the executor checked the same fingerprint')
    assert.equal((await dispatched(a.task)).fingerprint, a.fingerprint)
    const k = await kinds(a.task)
    assert.equal(count(k, 'decided'), 1)
    assert.ok(count(k, 'decision_duplicate') >= 2, `duplicates recorded: ${k}`)
    assert.equal(count(k, 'claimed'), 1)
    assert.equal(count(k, 'completed'), 1)
    const paid = await effectsOf(a.task)
    assert.equal(paid.length, 1)
    assert.equal(paid[0].requests, 1, 'one payment request: the losing executor never paid')
    assert.equal(paid[0].amount_minor, 2500)
    await open(a.task)
    await shot('paid')
    console.log(`    agent, page and executor: ${a.fingerprint}`)
  })

  await scenario('the reviewer enrols a passkey and approves with it: the executor verifies it against its own key set', async () => {
    const cdp = await page.context().newCDPSession(page)
    await cdp.send('WebAuthn.enable')
    await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
    })
    const a = await agent('job-passkey')
    await open(a.task)
    await page.click('#register-passkey')
    await page.waitForSelector('#passkey-status[data-registered]', { state: 'attached' })
    await page.waitForSelector('#approve-passkey:not([disabled])')
    await page.selectOption('#ttl', String(HOUR))
    await page.click('#approve-passkey')
    await page.waitForSelector('#decide-status[data-result="approved"]', { state: 'attached' })
    await settled(a.task)
    const checked = execFor(a.task, 'checked')
    assert.ok(checked.length >= 1)
    for (const c of checked) {
      assert.equal(c.signer.kind, 'passkey', 'verified as the reviewer\'s passkey')
      assert.equal(c.fingerprint, a.fingerprint)
    }
    assert.deepEqual((await effectsOf(a.task)).map((p) => [p.amount_minor, p.requests]), [[2500, 1]])
    await open(a.task)
    await shot('passkey')
  })

  await scenario('the model regenerates 2600 after the approval: drift refused, 2500 paid, the history shows both', async () => {
    const a = await agent('job-drift', ['--regenerate', '2600'])
    await open(a.task)
    await approve(a.task)
    await settled(a.task)
    const drift = execFor(a.task, 'drift_refused')
    assert.equal(drift.length >= 1, true, 'the executor refused the regenerated call')
    assert.equal(drift[0].args.amount_minor, 2600)
    assert.deepEqual(drift[0].drift, ['/args/amount_minor'])
    const done = await dispatched(a.task)
    assert.equal(done.args.amount_minor, 2500)
    assert.equal(done.fingerprint, a.fingerprint)
    const paid = await effectsOf(a.task)
    assert.deepEqual(paid.map((p) => [p.amount_minor, p.requests]), [[2500, 1]])
    assert.ok((await kinds(a.task)).includes('tool_args_drift'))
    await open(a.task)
    await page.waitForSelector('#history li[data-kind="handoff"][data-amount="2600"]')
    await page.waitForSelector('#history li[data-kind="tool_args_drift"]')
    await page.waitForSelector(`#history li[data-kind="claimed"][data-digest="${a.fingerprint}"]`)
    await page.waitForSelector('#history li[data-kind="completed"]')
    await shot('drift')
  })

  await scenario('the reviewer corrects 2500 to 2000 (an empty or zero amount is an error first): both fingerprints shown, 2000 paid once', async () => {
    const a = await agent('job-amend')
    await open(a.task)
    // Empty is not zero, and zero is not a refund: errors on the page, nothing sent, no Approve.
    for (const [typed, says] of [['', 'an empty field is not 0'], ['0', 'out_of_range at /args/amount_minor:'], ['20.5', 'at /args/amount_minor:'], ['abc', 'is not a number']]) {
      await page.fill('#amount', typed)
      await page.evaluate(() => delete document.getElementById('decide-status').dataset.result)
      await page.click('#save-correction')
      await page.waitForSelector('#decide-status[data-result="invalid_amount"]', { state: 'attached' })
      assert.ok((await page.textContent('#amount-error')).includes(says), `${JSON.stringify(typed)}: ${await page.textContent('#amount-error')}`)
      assert.equal(await attr('#amount', 'aria-invalid'), 'true')
      assert.equal(await page.isDisabled('#approve'), true, 'no Approve while the amount field holds an unsaved edit')
    }
    assert.equal((await ledger.task(a.task)).amendments, 0, 'nothing was amended')
    await shot('amount-error')
    await page.fill('#amount', '2000')
    await page.click('#save-correction')
    await page.waitForSelector('#decide-status[data-result="amended"]', { state: 'attached' })
    await page.waitForSelector('#amended:not([hidden])')
    const proposed = await attr('#fp-proposed', 'data-digest')
    const amended = await attr('#fp-amended', 'data-digest')
    const fp = await fingerprints()
    assert.equal(proposed, a.fingerprint, 'the agent\'s proposal, recomputed in the page')
    assert.notEqual(amended, proposed)
    assert.equal(fp.page, amended)
    assert.equal(fp.server, amended)
    await shot('amended')
    await approve(a.task)
    await settled(a.task)
    const done = await dispatched(a.task)
    assert.equal(done.args.amount_minor, 2000)
    assert.equal(done.fingerprint, amended)
    for (const c of execFor(a.task, 'checked')) assert.equal(c.fingerprint, amended)
    assert.deepEqual((await effectsOf(a.task)).map((p) => [p.amount_minor, p.requests]), [[2000, 1]])
    const t = await ledger.task(a.task)
    assert.equal(t.proposed_digest, a.fingerprint)
    assert.ok((await kinds(a.task)).includes('amended'))
    // The history says what replaced what.
    await open(a.task)
    const amendedItem = await page.textContent('#history li[data-kind="amended"]')
    assert.ok(amendedItem.includes('/args/amount_minor 2500 → 2000'), amendedItem)
    const handedOver = await page.textContent('#history li[data-kind="handoff"][data-amount="2500"]')
    assert.ok(handedOver.includes('runs the corrected action in its place'), handedOver)
    assert.ok(handedOver.includes('2000'), handedOver)
  })

  await scenario('confusable order ids: flagged in the list, the heading and the summary; approving takes an acknowledgement; with the keyboard only', async () => {
    const zw = await agent('job-zero-width', ['--order-id', 'order-17\u200b'])
    const cyr = await agent('job-cyrillic', ['--order-id', '\u043erder-17'])
    for (const a of [zw, cyr]) {
      await open(a.task)
      await page.waitForSelector(`#tasks button[data-task-id="${a.task}"][data-flagged="true"] .flag`)
      await page.waitForSelector('#d-heading .flag')
      await page.waitForSelector('#d-flags:not([hidden]) li')
      const mark = a === zw ? '.esc' : 'mark.nonascii'
      for (const where of ['#tasks button.selected', '#d-heading', '#d-review', '#d-args']) {
        assert.ok(await page.$(`${where} ${mark}`), `${where} marks the character`)
      }
      assert.ok((await page.textContent('#d-flags')).includes(a === zw ? 'invisible U+200B' : 'non-ASCII U+043E'))
      assert.equal(await page.isDisabled('#approve'), true, 'Approve waits for the acknowledgement')
      // The server refuses it too.
      const bare = await post(`/api/tasks/${a.task}/decision`, { decision_id: `bare-${a.task}`, action_digest: a.fingerprint, decision: 'approved', ttl_ms: HOUR })
      assert.deepEqual([bare.status, bare.body.error, bare.body.flagged], [409, 'acknowledgement_required', ['/args/order_id']])
    }
    console.log(`    screenshots of a flagged task: ${(await shots2('flagged')).join(', ')}`)

    // The zero-width one with the keyboard only: Tab to the task, Enter, Tab to the
    // acknowledgement, Space, Tab to Approve, Enter.
    await page.goto(`${opt.server}/`)
    await page.waitForSelector(`#tasks button[data-task-id="${zw.task}"]`)
    await tabTo(`#tasks button[data-task-id="${zw.task}"]`)
    // The list is updated in place when a task changes: the focus stays on the same element.
    // And nothing polls: while nothing changes the page asks the server nothing (its event
    // stream stays open); a poll every 500 ms would ask three times here.
    await page.evaluate(() => { document.activeElement.dataset.focusMark = 'kept' })
    const asked = []
    const onRequest = (r) => { if (new URL(r.url()).pathname.startsWith('/api/')) asked.push(new URL(r.url()).pathname) }
    page.on('request', onRequest)
    await page.waitForTimeout(1600)
    page.off('request', onRequest)
    assert.deepEqual(asked, [], 'no request while nothing changed')
    assert.equal(await page.evaluate(() => document.activeElement?.dataset.focusMark), 'kept', 'focus survives the updates')
    await page.keyboard.press('Enter')
    await page.waitForSelector(`#detail[data-task-id="${zw.task}"]`)
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'd-title', 'the opened task\'s heading has the focus')
    await tabTo('#ack')
    await page.keyboard.press('Space')
    await page.waitForSelector('#approve:not([disabled])')
    await tabTo('#approve')
    decisionPosts.length = 0
    // Everything the status line says: the executors, woken by the approval, may claim and pay
    // before this test reads it, and the line then announces that too.
    await page.evaluate(() => {
      const line = document.getElementById('decide-status')
      window.said = []
      new MutationObserver(() => window.said.push(line.textContent)).observe(line, { childList: true, characterData: true, subtree: true })
    })
    await page.keyboard.press('Enter')
    await page.waitForSelector('#decide-status[data-result="approved"]', { state: 'attached' })
    assert.equal(await attr('#decide-status', 'role'), 'status')
    assert.equal(await attr('#decide-status', 'aria-live'), 'polite')
    const said = await page.evaluate(() => window.said)
    assert.ok(said.some((text) => text.startsWith('Approved')), said.join(' | '))
    assert.deepEqual(JSON.parse(decisionPosts[0].body).acknowledged, ['/args/order_id'])
    await settled(zw.task)
    assert.deepEqual((await effectsOf(zw.task)).map((p) => [p.amount_minor, p.requests]), [[2500, 1]])
    await open(zw.task)
    await page.waitForSelector('#d-decided[data-decision="approved"]')
    assert.ok((await page.textContent('#d-decided')).includes('/args/order_id'), 'the acknowledgement is shown with the decision')
    const decidedItem = await page.textContent('#history li[data-kind="decided"]')
    assert.ok(decidedItem.includes('acknowledging the flagged values at /args/order_id'), decidedItem)

    // The Cyrillic one is rejected: a confirmation that takes a reason (keyboard again).
    await open(cyr.task)
    await tabTo('#reject')
    await page.keyboard.press('Enter')
    await page.waitForSelector('#reject-dialog[open]')
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'reject-reason')
    await tabTo('#reject-confirm')
    await page.keyboard.press('Enter') // no reason yet: refused on the page
    await page.waitForSelector('#reject-error:not([hidden])')
    assert.equal((await ledger.task(cyr.task)).state, 'awaiting_approval')
    await page.focus('#reject-reason')
    await page.keyboard.type('the order id is not ours: a Cyrillic o')
    await tabTo('#reject-confirm')
    await page.keyboard.press('Enter')
    await page.waitForSelector('#decide-status[data-result="rejected"]', { state: 'attached' })
    await page.waitForSelector('#d-decided[data-decision="rejected"]')
    const record = await page.textContent('#d-decided')
    assert.ok(record.includes('rejected by') && record.includes('a Cyrillic o'), record)
    assert.ok(!record.includes('until'), 'a rejection has no validity')
    assert.ok((await page.textContent('#history li[data-kind="decided"]')).includes('a Cyrillic o'))
    assert.equal((await ledger.task(cyr.task)).state, 'rejected')
    console.log(`    screenshots of a rejection: ${(await shots2('rejected')).join(', ')}`)
    assert.deepEqual(await effectsOf(cyr.task), [], 'nothing paid')
  })

  await scenario('the page is told, not polling: a new task appears by itself; a reconnection resumes after its last event', async () => {
    await page.goto(`${opt.server}/`)
    await page.waitForSelector('body[data-session="in"]')
    const stream = await events()
    const ready = await stream.next('ready')
    // Another process changes the ledger: the open page shows the task without asking first.
    const asked = []
    const onRequest = (r) => { if (new URL(r.url()).pathname.startsWith('/api/')) asked.push(new URL(r.url()).pathname) }
    page.on('request', onRequest)
    const a = await agent('job-pushed')
    await page.waitForSelector(`#tasks button[data-task-id="${a.task}"]`, { timeout: 10000 })
    page.off('request', onRequest)
    assert.ok(asked.length > 0 && asked.every((p) => p === '/api/tasks' || p.startsWith('/api/tasks/') || p === '/api/batches'), `asked after the change only: ${asked}`)
    // (The agent's read-only search is a task of its own, approved by its contract: skipped.)
    const proposed = await stream.next('change', (d) => d.task_id === a.task)
    assert.deepEqual([proposed.data.kind, proposed.data.state], ['proposed', 'awaiting_approval'])
    assert.deepEqual(Object.keys(proposed.data).sort(), ['at', 'kind', 'state', 'task_id'], 'ids and states, never an argument')
    stream.close()
    // Reconnecting with the id of the event before it (Last-Event-ID) delivers the change again.
    const resumed = await events(ready.id)
    assert.equal((await resumed.next('ready')).id, ready.id)
    assert.equal((await resumed.next('change', (d) => d.task_id === a.task)).data.kind, 'proposed')
    resumed.close()
    // The "approval needed" webhook reached the receiver, which verified its signature: the
    // task, its short fingerprint and the link to its page, no argument value.
    const hook = await until(async () => (await (await fetch(`${opt.receiver}/received`)).json()).received.find((b) => b.task_id === a.task), 'the webhook')
    assert.deepEqual([hook.type, hook.state, hook.fingerprint, hook.short, hook.review],
      ['approval.needed', 'awaiting_approval', a.fingerprint, a.fingerprint.slice(7, 23).match(/.{4}/g).join(' '), `${opt.server}/?task=${a.task}`])
    assert.ok(!JSON.stringify(hook).includes('order-17'), 'no argument value in the webhook')
    // Reject it, so that it is no task of the later scenarios.
    await open(a.task)
    await page.click('#reject')
    await page.fill('#reject-reason', 'not a real request')
    await page.click('#reject-confirm')
    await settled(a.task, 'rejected')
  })

  await scenario('an approval expires before any executor runs: nothing paid, back on the page, re-approved once', async () => {
    await stopExecutors()
    const a = await agent('job-expiry')
    await open(a.task)
    await approve(a.task, { ttl: 3000 })
    await until(() => a.events.find((e) => e.event === 'done'), 'agent handed over')
    const { expires_at } = (await ledger.task(a.task)).approval
    await until(() => ledger.now() > expires_at, 'the approval expired', 10000)
    startExecutors()
    await settled(a.task, 'awaiting_reapproval')
    assert.deepEqual(await effectsOf(a.task), [])
    assert.ok((await kinds(a.task)).includes('sent_to_reapproval'))
    await open(a.task)
    await page.waitForSelector(`#tasks button[data-task-id="${a.task}"][data-state="awaiting_reapproval"]`)
    await shot('expired')
    await approve(a.task)
    await settled(a.task)
    assert.deepEqual((await effectsOf(a.task)).map((p) => [p.amount_minor, p.requests]), [[2500, 1]])
  })

  await scenario('an executor killed after its claim: unknown, reconciled with the payment service, never a second effect', async () => {
    await stopExecutors()
    // Killed after the payment answered, before completing: reconcile finds the payment.
    startExecutors(1, ['--crash-after', 'pay'], ['executor-dies-after-paying'])
    const paid = await agent('job-crash-paid')
    await open(paid.task)
    await approve(paid.task)
    const [dead1] = executors
    assert.equal((await dead1.exited).signal, 'SIGKILL')
    executors = []
    // Killed right after the claim: nothing was paid; reconcile says not executed, and the same
    // task is dispatched again with the same idempotency key.
    startExecutors(1, ['--crash-after', 'claim'], ['executor-dies-after-claiming'])
    const claimed = await agent('job-crash-claimed')
    await open(claimed.task)
    await approve(claimed.task)
    const [dead2] = executors
    assert.equal((await dead2.exited).signal, 'SIGKILL')
    executors = []
    // The first claim's lease (4 s) may already have run out while the second agent started:
    // the second executor then found it in doubt and reconciled it before dying.
    assert.ok(['claimed', 'unknown', 'succeeded'].includes((await ledger.task(paid.task)).state))
    assert.equal((await ledger.task(claimed.task)).state, 'claimed')
    startExecutors()
    await settled(paid.task)
    await settled(claimed.task)
    for (const tid of [paid.task, claimed.task]) {
      const events = (await ledger.history(tid)).events
      assert.equal(events.find((e) => e.kind === 'lease_expired')?.state, 'unknown', 'the dead claim became unknown')
    }
    const reconciled = async (tid) => (await ledger.history(tid)).events.find((e) => e.kind === 'reconciled').outcome
    assert.equal(await reconciled(paid.task), 'succeeded', 'the payment service had paid')
    assert.equal(await reconciled(claimed.task), 'not_executed', 'the payment service had not paid')
    const k1 = await kinds(paid.task)
    assert.ok(k1.includes('lease_expired') && k1.includes('reconciled'), String(k1))
    assert.equal(count(k1, 'claimed'), 1)
    const p1 = await effectsOf(paid.task)
    assert.deepEqual(p1.map((p) => [p.amount_minor, p.requests]), [[2500, 1]])
    const k2 = await kinds(claimed.task)
    assert.ok(k2.includes('lease_expired') && k2.includes('reconciled'), String(k2))
    assert.equal(count(k2, 'claimed'), 2, 'dispatched again after reconcile said not executed')
    const keys = new Set(execFor(claimed.task, 'claimed').map((e) => e.idempotency_key))
    assert.equal(keys.size, 1, 'the same idempotency key both times')
    assert.deepEqual((await effectsOf(claimed.task)).map((p) => [p.amount_minor, p.requests]), [[2500, 1]])
  })

  await scenario('a payment that times out: unknown, reconciled as succeeded, one effect', async () => {
    const a = await agent('job-timeout')
    const key = (await ledger.task(a.task)).idempotency_key
    await fetch(`${opt.payment}/control`, { method: 'POST', body: JSON.stringify({ slow: { [key]: 2500 } }) })
    await open(a.task)
    await approve(a.task)
    await settled(a.task)
    assert.ok(execFor(a.task, 'outcome_unknown').length === 1)
    const events = (await ledger.history(a.task)).events
    // In doubt: reported unknown by the executor (or, on a slow machine, its lease ran out first).
    assert.ok(events.some((e) => (e.kind === 'completed' || e.kind === 'lease_expired') && e.state === 'unknown'), 'unknown')
    assert.ok(events.some((e) => e.kind === 'reconciled' && e.outcome === 'succeeded'))
    assert.deepEqual((await effectsOf(a.task)).map((p) => [p.amount_minor, p.requests]), [[2500, 1]])
  })

  await scenario('forged decisions: a bare one is refused by the ledger, one signed by an unknown key by the executor', async () => {
    // Straight into the ledger, around the approval server: the ledger requires proof of every
    // decision (the server's handle recorded that for every handle), so a bare one never lands.
    const bare = await agent('job-forged-bare')
    const out = JSON.parse(execFileSync(opt.python, [join(here, 'desk', 'forge.py'), '--db', opt.db, '--dir', opt.run, '--task', bare.task], { encoding: 'utf8' }))
    assert.equal(out.refused, 'missing_proof')
    assert.equal((await ledger.task(bare.task)).state, 'awaiting_approval')
    console.log(`    job-forged-bare: refused by the ledger (${out.refused})`)
    // A forger's own handle trusting its own key records one; the executor trusts only its config.
    const signed = await agent('job-forged-key')
    execFileSync(opt.python, [join(here, 'desk', 'forge.py'), '--db', opt.db, '--dir', opt.run, '--task', signed.task, '--unknown-key'])
    await settled(signed.task, 'awaiting_reapproval')
    const refused = execFor(signed.task, 'refused_decision')
    assert.ok(refused.length >= 1, 'refused')
    assert.match(refused[0].code, /unknown_key|key_untrusted/)
    const k = await kinds(signed.task)
    assert.ok(k.includes('revoked') && k.includes('sent_to_reapproval'), String(k))
    console.log(`    job-forged-key: refused by the executor (${refused[0].code})`)
    for (const t of [bare.task, signed.task]) {
      assert.deepEqual(await effectsOf(t), [], 'nothing paid')
      assert.equal(count(await kinds(t), 'claimed'), 0)
    }
  })

  const large = ['--tool', 'refund_large', '--proposer', 'user:frank']
  /** Approves on the open task and waits for the server's answer: its code, or 'approved'. */
  async function tryApprove(tid) {
    await page.waitForSelector(`#detail[data-task-id="${tid}"] #approve:not([disabled])`)
    await page.evaluate(() => delete document.getElementById('decide-status').dataset.result)
    await page.click('#approve')
    await page.waitForSelector('#decide-status[data-result]', { state: 'attached' })
    return attr('#decide-status', 'data-result')
  }
  const quorumOf = async (tid) => (await ledger.task(tid)).quorum
  /**
   * Runs `fn`, in which the page is refused on purpose (the requester's approval: 409) or signs
   * out while its refresh loop still asks (401): the browser logs those answers, and only those
   * are taken off the page's errors.
   */
  async function refusedOnPurpose(fn) {
    const before = browser.errors.length
    await fn()
    const added = browser.errors.splice(before)
    const expected = /^console: Failed to load resource: the server responded with a status of (409 \(Conflict\)|401 \(Unauthorized\))$/
    assert.deepEqual(added.filter((e) => !expected.test(e)), [], 'no other errors in the page')
  }

  await scenario('four eyes: finance and risk both approve a refund over the threshold; the requester cannot, twice counts once, 1 of 2 in between', () => refusedOnPurpose(async () => {
    const a = await agent('job-four-eyes', [...large, '--amount', '90000'])
    assert.equal(a.paused.quorum?.missing ?? 2, 2, 'nobody has approved yet')
    // The requester (the proposer the ledger recorded) holds finance, and still may not approve.
    await signInAs('user:frank')
    await open(a.task)
    assert.equal(await tryApprove(a.task), 'approver_not_separate')
    assert.equal((await ledger.task(a.task)).state, 'awaiting_approval')
    assert.deepEqual((await quorumOf(a.task)).counted, [])
    // Finance approves: 1 of 2, waiting for risk; nothing runs.
    await signInAs('user:bob')
    await open(a.task)
    assert.equal(await tryApprove(a.task), 'approved')
    await page.waitForSelector('#quorum[data-tally="1 of 2 approvals"]')
    assert.equal(await page.textContent('#quorum-status'), '1 of 2 approvals: waiting for 1 more approval.')
    assert.match(await page.textContent('#quorum .counted'), /^user:bob as finance /)
    assert.deepEqual(await page.locator('#quorum .missing-list li').allTextContents(), ['1 more approval', 'in the role risk: 1 more'])
    assert.equal((await ledger.task(a.task)).state, 'awaiting_approval')
    const waiting = await until(() => a.events.find((e) => e.event === 'waiting' && e.counted === 1), 'the agent saw 1 of 2')
    assert.deepEqual([waiting.missing, waiting.missing_roles], [1, [{ role: 'risk', count: 1 }]])
    console.log(`    screenshots of 1 of 2 approvals: ${(await shots2('four-eyes-1-of-2')).join(', ')}`)
    // The same reviewer again: the page's own double click is one decision; a new decision id
    // from the same person is refused by the ledger; either way bob counts once.
    assert.equal(await tryApprove(a.task), 'approved')
    assert.ok((await page.textContent('#decide-status')).includes('(already recorded)'))
    const again = await post(`/api/tasks/${a.task}/decision`, { decision_id: 'bob-again', action_digest: a.fingerprint, decision: 'approved', ttl_ms: HOUR, acknowledged: [] })
    assert.equal(again.status, 409)
    assert.equal(again.body.error, 'approver_already_decided')
    assert.deepEqual((await quorumOf(a.task)).counted.map((c) => c.approver), ['user:bob'])
    assert.deepEqual(await effectsOf(a.task), [], 'nothing paid at 1 of 2')
    // Risk approves: the task is approved once, and paid once.
    await signInAs('user:erin')
    await open(a.task)
    assert.equal(await tryApprove(a.task), 'approved')
    await settled(a.task)
    const q = await quorumOf(a.task)
    assert.deepEqual([q.missing, q.counted.map((c) => [c.approver, c.role])], [0, [['user:bob', 'finance'], ['user:erin', 'risk']]])
    assert.equal(count(await kinds(a.task), 'approved') + count(await kinds(a.task), 'quorum_met'), 1, 'one transition')
    assert.deepEqual((await effectsOf(a.task)).map((p) => [p.amount_minor, p.requests]), [[90000, 1]])
  }))

  await scenario('delegation: a delegate approves for a finance reviewer who is away, shown as "for user:carol, by user:dave", and the refund is paid once', () => refusedOnPurpose(async () => {
    await signInAs('user:carol')
    await page.fill('#delegate-to', 'user:dave')
    await page.click('#delegate')
    await page.waitForSelector('#delegation-status:has-text("Delegated to user:dave")')
    const a = await agent('job-delegated', [...large, '--amount', '60000'])
    await signInAs('user:dave')
    await open(a.task)
    await page.waitForSelector('#behalf-row:not([hidden])')
    await page.selectOption('#behalf', 'user:carol')
    assert.equal(await tryApprove(a.task), 'approved')
    await page.waitForSelector('#quorum[data-tally="1 of 2 approvals"]')
    const item = page.locator('#quorum .counted')
    assert.equal(await item.getAttribute('data-approver'), 'user:carol')
    assert.equal(await item.getAttribute('data-delegate'), 'user:dave')
    assert.match(await item.textContent(), /^for user:carol, by user:dave as finance through delegation sha256:/)
    assert.ok((await page.textContent('#history li[data-kind="decided"]')).includes('for user:carol, by user:dave as finance'))
    const member = (await quorumOf(a.task)).counted[0]
    assert.deepEqual([member.approver, member.delegate, member.role, member.delegations.length], ['user:carol', 'user:dave', 'finance', 1])
    console.log(`    screenshots of a delegated approval: ${(await shots2('delegated')).join(', ')}`)
    await signInAs('user:erin')
    await open(a.task)
    assert.equal(await tryApprove(a.task), 'approved')
    // The ledger verified the link as dave's decision arrived; the executor, whose handle holds
    // no keys, claims the round with it and pays.
    await settled(a.task)
    const q = await quorumOf(a.task)
    assert.deepEqual([q.missing, q.counted.map((c) => [c.approver, c.delegate, c.role])],
      [0, [['user:carol', 'user:dave', 'finance'], ['user:erin', null, 'risk']]])
    assert.ok((await kinds(a.task)).includes('quorum_met'))
    assert.deepEqual((await effectsOf(a.task)).map((p) => [p.amount_minor, p.requests]), [[60000, 1]])
    const links = execFor(a.task, 'claimed')[0]?.delegations
    assert.equal(links, 1, 'the executor verified the link it claimed with')
    await signInAs('user:bob')
  }))

  await scenario('evidence: every paid refund\'s bundle, downloaded from the history, verifies in the browser, Node and Python to one timeline', async () => {
    const dir = join(opt.run, 'evidence')
    mkdirSync(dir, { recursive: true })
    const paid = (await ledger.tasks({})).filter((t) => t.approval_required && t.state === 'succeeded')
    assert.equal(paid.length, 11, 'every paid refund (the payments of the last scenario)')
    const trustPath = join(dir, 'trust.json')
    const files = []
    const timelines = { browser: [], node: [] }
    for (const t of paid) {
      await open(t.id)
      const [download] = await Promise.all([page.waitForEvent('download'), page.click('#evidence')])
      assert.equal(download.suggestedFilename(), `evidence-${t.id}.json`)
      const file = join(dir, download.suggestedFilename())
      await download.saveAs(file)
      files.push(file)
      const text = readFileSync(file, 'utf8')
      // In the desk's page: its own WebAssembly module (already initialised by desk.mjs).
      const inPage = await page.evaluate(async (bundle) => {
        const wasm = await import('/wasm/actionseal_wasm.js')
        const trust = await (await fetch('/api/evidence-trust')).text()
        try {
          return { trust, timeline: wasm.canonicalize(wasm.verifyEvidence(wasm.parseJson(bundle), wasm.parseJson(trust))) }
        } catch (e) {
          return { trust, timeline: wasm.canonicalize({ error: e.code, path: e.path }) }
        }
      }, text)
      writeFileSync(trustPath, inPage.trust)
      const trust = parseJson(inPage.trust)
      // The log key the desk's page trusts is the run's own (setup.py wrote it).
      assert.deepEqual(trust.ledger_keys, [{ key: secret('log.pub') }])
      assert.equal(text, canonicalize(parseJson(text)), 'the download is canonical JSON')
      timelines.browser.push(inPage.timeline)
      let timeline
      try {
        timeline = verifyEvidence(parseJson(text), trust)
      } catch (e) {
        timeline = { error: e.code, path: e.path }
      }
      timelines.node.push(canonicalize(timeline))
    }
    // Python, with the same trust (one process for every bundle; status 1 when one fails).
    const python = spawnSync(opt.python, [join(here, 'desk', 'evidence_check.py'), trustPath, ...files], { encoding: 'utf8' }).stdout.trimEnd().split('\n')
    assert.deepEqual(timelines.node, timelines.browser, 'Node and the browser: the same timelines, byte for byte')
    assert.deepEqual(python, timelines.browser, 'Python and the browser: the same timelines, byte for byte')
    for (const [i, t] of paid.entries()) {
      const tl = JSON.parse(timelines.browser[i])
      assert.equal(tl.error, undefined, `${t.id}: the bundle verifies (${timelines.browser[i]})`)
      assert.equal(tl.task, t.id)
      assert.equal(tl.state, 'succeeded')
      assert.equal(tl.exported_by, 'user:bob')
      // And the CLI a verifier without any binding would use.
      const cli = execFileSync(opt.cli, ['evidence', 'verify', '--trust', trustPath, files[i]], { encoding: 'utf8' })
      assert.equal(canonicalize(parseJson(cli)), timelines.browser[i], `${t.id}: actionseal evidence verify gives the same timeline`)
      // The timeline is the ledger's own story of the task, in order.
      const events = (await ledger.history(t.id)).events.map((e) => `${e.kind} ${e.actor}`)
      const steps = tl.steps.map((s) => `${s.kind} ${s.actor}`)
      let at = 0
      for (const s of steps) {
        at = events.indexOf(s, at) + 1
        assert.ok(at > 0, `${t.id}: step ${s} is the ledger's, in order`)
      }
      const kinds = tl.steps.map((s) => s.kind)
      for (const k of ['proposed', 'decided', 'claimed']) assert.ok(kinds.includes(k), `${t.id}: the timeline has ${k}`)
      assert.ok(tl.steps.some((s) => s.kind === 'decided' && s.outcome === 'approved' && s.signer), `${t.id}: a proven approval`)
      assert.ok(tl.steps.filter((s) => s.kind === 'claimed').every((s) => /^executor-/.test(s.actor)), `${t.id}: claimed by an executor`)
      assert.equal(tl.steps.at(-1).state, 'succeeded', `${t.id}: ends succeeded`)
    }
    console.log(`    ${paid.length} bundles in ${dir}: one timeline each in WebAssembly, Node, Python and the CLI`)
  })

  await scenario('a batch: twenty refunds reviewed once, two left out; three declines trip the breaker; the remainder re-approved in the page', async () => {
    const events = []
    const bulk = child(opt.python, [join(here, 'desk', 'bulk.py'), '--server', opt.server, '--token-file', join(opt.run, 'agent.token'),
      '--job', `outage-${Date.now()}`, '--count', '20'], 'AGENT', events)
    await bulk.exited
    const handed = events.find((e) => e.event === 'handed_over')
    assert.ok(handed, 'the agent handed the batch over')
    const bid = handed.batch_id
    const items = (await ledger.batch(bid)).items.map((i) => i.task_id)
    const LEFT_OUT = [1, 12]
    // Three declines early in the order the executors sweep approved tasks (the ledger's): the
    // breaker trips while most refunds are still unpaid.
    const order = (await ledger.tasks({ state: 'awaiting_approval', tenant: 'tenant-a' })).map((t) => t.id)
      .filter((id) => items.includes(id) && !LEFT_OUT.includes(items.indexOf(id)))
    const declined = [order[1], order[3], order[5]]
    const keyOf = async (id) => (await ledger.task(id)).idempotency_key
    await fetch(`${opt.payment}/control`, { method: 'POST', body: JSON.stringify({ fail: await Promise.all(declined.map(keyOf)) }) })

    // The reviewer opens the batch from the list: every item, the page's fingerprint the server's.
    await page.goto(`${opt.server}/`)
    await page.click(`#batches button[data-batch-id="${bid}"]`)
    await page.waitForSelector(`#batch[data-batch-id="${bid}"] table.items`)
    assert.equal(await page.locator('#batch table.items tbody tr').count(), 20)
    assert.equal(await page.locator('#batch .fps .tag.ok').innerText(), 'match')
    for (const n of LEFT_OUT) await page.getByRole('checkbox', { name: `Include item ${n + 1}`, exact: true }).uncheck()
    assert.match(await page.locator('#batch dl.fps').innerText(), /What you decide \(18 of 20\)/)
    await page.getByRole('button', { name: 'Approve the batch' }).click()
    await page.waitForSelector(`#batch[data-batch-id="${bid}"][data-state="approved"]`)
    const approved = await ledger.batch(bid)
    assert.equal(approved.items.length, 18)
    assert.equal(approved.proof.signer.kind, 'service', 'the server signed the batch record')
    assert.equal(approved.record.approver, 'user:bob')
    for (const n of LEFT_OUT) assert.equal((await ledger.task(items[n])).state, 'rejected')
    // The review as decided, proof shown, every item in the scrollable table.
    await page.setViewportSize({ width: 1280, height: 1100 })
    if (backend === 'sqlite') await page.locator('#batch').screenshot({ path: join(here, 'batch-review.png') })
    await page.locator('#batch').screenshot({ path: join(shots, `${backend}-batch-review.png`) })
    await page.setViewportSize({ width: 1280, height: 900 })

    // The executors pay until the third decline trips the breaker: the rest come back.
    const tripped = await until(async () => { const b = await ledger.batch(bid); return b.successor && b }, 'the breaker trips', 90000)
    assert.equal(tripped.breaker.trips, 1)
    const remainder = await ledger.batch(tripped.successor)
    assert.ok(remainder.items.length > 0, 'refunds came back for re-approval')
    for (const i of remainder.items) assert.equal((await ledger.task(i.task_id)).state, 'awaiting_reapproval')
    // The remainder shows up in the page's list by itself (the event stream), and is approved again.
    await page.click(`#batches button[data-batch-id="${remainder.id}"]`)
    await page.waitForSelector(`#batch[data-batch-id="${remainder.id}"] table.items`)
    assert.equal(await page.locator('#batch table.items tbody tr').count(), remainder.items.length)
    assert.equal(await page.locator('#batch .fps .tag.ok').innerText(), 'match')
    await page.getByRole('button', { name: 'Approve the batch' }).click()
    await page.waitForSelector(`#batch[data-batch-id="${remainder.id}"][data-state="approved"]`)
    const paid = items.filter((id, n) => !LEFT_OUT.includes(n) && !declined.includes(id))
    for (const id of paid) await settled(id)
    for (const id of declined) assert.equal((await ledger.task(id)).state, 'failed')
    assert.equal((await ledger.batch(remainder.id)).breaker.state, 'closed')
    // One effect per paid refund (by idempotency key); none for the declined or left out.
    const all = await effects()
    for (const id of paid) assert.deepEqual((await effectsOf(id)).map((e) => e.requests), [1], `one effect for ${id}`)
    for (const id of [...declined, ...LEFT_OUT.map((n) => items[n])]) {
      const key = await keyOf(id)
      assert.equal(all.filter((e) => e.idempotency_key === key).length, 0, `no effect for ${id}`)
    }
    console.log(`    ${paid.length} paid once each, ${declined.length} declined, ${LEFT_OUT.length} left out; ${remainder.items.length} re-approved after the trip`)
  })

  await scenario('a sensitive e-mail: frozen as a commitment, marked on the page, its refund corrected, the regenerated call refused and resumed, paid with, shredded when the refund ends, gone from the ledger\'s storage', async () => {
    // The customer's e-mail (refund_receipt's contract: "sensitive": {"/args/customer_email": "pii"}).
    const email = `alice.receipt.${backend}@example.com`
    const before = scan(email)
    // The model regenerates the call after the decision: drift, and a resume with the action
    // as approved, committed, which the ledger opens with the task's disclosure.
    const a = await agent('job-receipt', ['--tool', 'refund_receipt', '--email', email, '--regenerate', '2700'])
    const frozen = await ledger.task(a.task)
    assert.match(frozen.action.args.customer_email._sd, /^sha256:[0-9a-f]{64}$/, 'the ledger froze a commitment')
    assert.ok(!JSON.stringify(frozen).includes(email), 'the task holds no e-mail')
    assert.ok(!JSON.stringify(a.paused).includes(email), 'the agent\'s pause shows the commitment')
    // The scan finds the e-mail where the ledger keeps the disclosure, apart from the task.
    const held = scan(email)
    assert.ok(held.total > before.total, `the scan finds the held e-mail (${JSON.stringify(held)})`)
    await open(a.task)
    // The reviewer sees the address: the server passes the ledger's disclosure, and the page
    // shows the value only once WebAssembly has checked it against the frozen commitment.
    await page.waitForSelector('#d-sensitive[data-state="disclosed"]')
    const shown = (await page.textContent('#d-sensitive')).replace(/\s+/g, ' ')
    for (const part of ['/args/customer_email', 'sensitive · pii', frozen.action.args.customer_email._sd, email,
      'checked in WebAssembly against its commitment']) {
      assert.ok(shown.includes(part), `the page shows ${part}: ${shown}`)
    }
    assert.ok(await page.$('table.args tr.sensitive .tag.sensitive'), 'the argument is marked sensitive')
    const fp = await fingerprints()
    assert.deepEqual([fp.server, fp.page, fp.match], [a.fingerprint, a.fingerprint, 'true'], 'the page fingerprints the committed action')
    await shot('sensitive')
    if (backend === 'sqlite') await page.locator('#d-sensitive').screenshot({ path: join(here, 'sensitive.png') })
    // The reviewer corrects the amount. The page sends the action in the clear; the ledger
    // commits it again, and the e-mail, left alone, keeps its commitment.
    const to = frozen.action.args.amount_minor - 100
    await page.fill('#amount', String(to))
    await page.click('#save-correction')
    await page.waitForSelector('#decide-status[data-result="amended"]', { state: 'attached' })
    const corrected = await ledger.task(a.task)
    assert.deepEqual(corrected.amended_pointers, ['/args/amount_minor'], 'only the amount changed')
    assert.equal(corrected.action.args.customer_email._sd, frozen.action.args.customer_email._sd, 'the e-mail keeps its commitment')
    assert.ok(!JSON.stringify(corrected).includes(email), 'the corrected task holds no e-mail')
    await page.waitForSelector(`#fp-server[data-digest="${corrected.action_digest}"]`, { state: 'attached' })
    await page.waitForSelector('#d-sensitive[data-state="disclosed"]')
    const fixed = await fingerprints()
    assert.deepEqual([fixed.page, fixed.match], [corrected.action_digest, 'true'], 'the page fingerprints the corrected action')
    await approve(a.task)
    await until(() => a.events.find((e) => e.event === 'done'), 'agent done')
    if (executors.length === 0) startExecutors()
    await settled(a.task)
    // Paid with the value the claim revealed: the payment service got the e-mail (and keeps it).
    const key = (await ledger.task(a.task)).idempotency_key
    const receipts = (await (await fetch(`${opt.payment}/receipts`)).json()).receipts
    assert.equal(receipts[key], email, 'the executor passed the revealed e-mail to the payment service')
    assert.deepEqual((await effectsOf(a.task)).map((e) => [e.amount_minor, e.requests]), [[to, 1]], 'the corrected amount, paid once')
    const drift = execFor(a.task, 'drift_refused')
    assert.ok(drift.length >= 1, 'the executor refused the regenerated call')
    assert.deepEqual(drift[0].drift, ['/args/amount_minor'])
    assert.equal(drift[0].args.customer_email, '(sensitive)', 'the log masks the e-mail')
    assert.equal((await dispatched(a.task)).fingerprint, (await ledger.task(a.task)).action_digest, 'resumed with the approved action')
    assert.ok(!execEvents.some((e) => JSON.stringify(e).includes(email)), 'no executor log line holds the e-mail')
    const k = await kinds(a.task)
    assert.equal(count(k, 'shredded'), 1, `shredded as the refund ended (the desk tenant's policy): ${k}`)
    assert.ok(k.indexOf('shredded') > k.indexOf('claimed'), `shredded after the claim that ran with the values: ${k}`)
    // What cron runs; then the ledger's storage holds the e-mail no more.
    const run = execFileSync(opt.cli, ['ledger', '--db', opt.db, 'retention', 'run', '--actor', 'desk:cron'], { encoding: 'utf8' }).trim()
    // The refund's shredding at its finish left old frames in SQLite's write-ahead log; the
    // retention run truncates the log even when nothing was due.
    const after = scan(email)
    assert.equal(after.total, 0, `no e-mail left in the ledger's storage (${JSON.stringify(after)}; retention run ${run})`)
    await open(a.task)
    await page.waitForSelector('#d-sensitive[data-state="shredded"]')
    // The e-mail is a commitment the page cannot open: held back by core's reviewAction, so
    // the action still satisfies its contract (a proposal's validation would refuse it).
    assert.equal(await page.locator('#d-contract-error').isHidden(), true, await page.textContent('#d-contract-error'))
    await shot('shredded')
    // Its evidence still verifies, and holds the commitment only.
    const cookie = (await page.context().cookies(opt.server)).map((c) => `${c.name}=${c.value}`).join('; ')
    const bundle = await (await fetch(`${opt.server}/api/tasks/${a.task}/evidence`, { headers: { cookie } })).text()
    const trust = parseJson(await (await fetch(`${opt.server}/api/evidence-trust`, { headers: { cookie } })).text())
    assert.equal(forms(email).filter((f) => bundle.includes(f)).length, 0, 'no e-mail in the bundle')
    const timeline = verifyEvidence(parseJson(bundle), trust)
    assert.equal(timeline.state, 'succeeded')
    assert.ok(timeline.steps.some((s) => s.kind === 'shredded'), 'the timeline shows the shredding')
    console.log(`    e-mail found ${held.total}x before (${held.where}); after the refund and cron's retention run ${after.total}x; the bundle verifies with the commitment`)
  })

  await scenario('every payment once; the audit chain verifies', async () => {
    const all = await effects()
    assert.equal(all.length, 11 + 15 + 1, 'main, passkey, drift, amend, zero-width (acknowledged), expiry, two crashes, timeout, four eyes, delegation; the batch\'s 15; the receipt')
    for (const e of all) assert.equal(e.requests, 1, `one request for ${e.idempotency_key}`)
    const out = execFileSync(opt.cli, ['ledger', '--db', opt.db, 'audit', 'verify'], { encoding: 'utf8' })
    const report = JSON.parse(out)
    assert.equal(report.valid, true)
    console.log(`    actionseal ledger audit verify: valid, ${report.events} events`)
    let lost = 0
    for (const t of await ledger.tasks({})) lost += count(await kinds(t.id), 'claim_refused')
    console.log(`    claims refused (an executor lost a race, or the approval was spent): ${lost}`)
    // One verified "approval needed" webhook per wait of a desk task (a re-approval is a wait
    // of its own), and nothing the receiver refused.
    const hooks = await (await fetch(`${opt.receiver}/received`)).json()
    assert.deepEqual(hooks.refused, [])
    for (const t of await ledger.tasks({ tenant: 'tenant-a' })) {
      if (!t.approval_required) continue
      const waits = (await kinds(t.id)).filter((k) => k === 'proposed' || k === 'sent_to_reapproval').length
      assert.equal(hooks.received.filter((b) => b.task_id === t.id).length, waits, `webhooks of ${t.id}`)
    }
    console.log(`    webhooks verified by the receiver: ${hooks.received.length}, with ${hooks.answers.length} answers`)
  })
  assert.deepEqual(browser.errors, [], 'no errors in the page')
} finally {
  await stopExecutors().catch(() => {})
  for (const p of children) p.kill('SIGKILL')
  await browser.close()
  await ledger.close()
}
console.log(`refund desk (${backend}): ${results.length} scenarios passed in ${((Date.now() - started) / 1000).toFixed(1)} s`)
