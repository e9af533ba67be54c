// Evidence through the Node addon, on SQLite and on PostgreSQL: a ledger opened with its
// checkpoint key (`log_key`, the CLI's --log-key string) makes signed checkpoints and exports a
// task's bundle, which `verifyEvidence` verifies in the same runtime with only the verifier's
// trust; a bundle broken after the export throws an ActionsealError with its code and path.
//
//   scripts/pg run node --test bindings-node/test/evidence.test.mjs

import { after, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { COMMON, Fresh, api, engines, rejection } from '../../conformance/js/ledger.mjs'
import { LOG_KEY, LOG_VERIFIER, TRUST, broken, exported, refundStory } from '../../conformance/js/evidence.mjs'

const { Ledger, ManualClock, ActionsealError, Contract } = api

/** The coded error a promise rejects with, checked to be an ActionsealError. */
async function coded(promise) {
  return checked(await rejection(promise))
}

/** The coded error `fn()` throws, checked to be an ActionsealError. */
function thrown(fn) {
  try {
    fn()
  } catch (e) {
    return checked(e)
  }
  assert.fail('expected an error')
}

function checked(e) {
  assert.ok(e instanceof ActionsealError, `not an ActionsealError: ${e}`)
  assert.ok(e.message.startsWith(`${e.code}: `))
  return e
}

const fresh = new Map()
after(() => {
  for (const f of fresh.values()) f.close()
})

for (const engine of engines()) {
  describe(`evidence on ${engine}`, () => {
    if (!fresh.has(engine)) fresh.set(engine, new Fresh(engine))

    it('a checkpoint is a signed note', async () => {
      const ledger = await Ledger.open(fresh.get(engine).url(), { clock: new ManualClock(COMMON.start), log_key: LOG_KEY })
      await refundStory(ledger)
      const c = await ledger.checkpoint()
      assert.deepEqual(Object.keys(c).sort(), ['at', 'cosignatures', 'note', 'root', 'size'])
      const lines = c.note.split('\n')
      // C2SP tlog-checkpoint: origin, size, base64 root; then the ledger's signature line.
      assert.deepEqual(lines.slice(0, 3), ['PeterNeumann', String(c.size), c.root])
      assert.ok(lines[4].startsWith('\u2014 PeterNeumann '))
      assert.deepEqual([c.at, c.cosignatures], [COMMON.start, []])
      assert.equal(c.size, (await ledger.auditExport()).trim().split('\n').length)
      await ledger.close()
    })

    it('an exported bundle verifies in the same runtime', async () => {
      const [bundle] = await exported(fresh.get(engine).url())
      assert.equal(bundle.version, 1)
      assert.deepEqual(bundle.keys, { ledger: [LOG_VERIFIER] })
      const timeline = api.verifyEvidence(api.parseJson(api.canonicalize(bundle)), TRUST)
      assert.deepEqual(timeline, api.verifyEvidence(bundle, TRUST))
      assert.deepEqual([timeline.task, timeline.state], [bundle.task, 'succeeded'])
      assert.deepEqual(timeline.steps.map((s) => s.kind), ['proposed', 'decided', 'claimed', 'completed'])
      assert.deepEqual([timeline.exported_by, timeline.log.origin], ['auditor:carol', 'PeterNeumann'])
    })
  })
}

describe('evidence refused', () => {
  it('a broken bundle throws its code and path', async () => {
    for (const [code, label, bundle, trust] of broken(...await exported())) {
      const e = thrown(() => api.verifyEvidence(bundle, trust))
      assert.equal(e.code, code, `${label}: ${e.message}`)
      assert.ok(e.path.startsWith('/'), `${label}: ${e.path}`)
      if (code === 'inclusion_proof_invalid') assert.ok(e.path.startsWith('/events/0'), e.path)
    }
  })

  it('the contract may be given as a Contract or a document', async () => {
    const ledger = await Ledger.open('sqlite::memory:', { clock: new ManualClock(COMMON.start), log_key: LOG_KEY })
    const task = await refundStory(ledger)
    const contract = new Contract(COMMON.contracts.refund)
    for (const given of [contract, contract.document, null, undefined]) {
      const bundle = await ledger.evidence(task.id, 'auditor:carol', given)
      assert.equal(api.verifyEvidence(bundle, TRUST).task, task.id)
    }
    await ledger.close()
  })

  it('bad keys and arguments are coded errors', async () => {
    let e = await coded(Ledger.open('sqlite::memory:', { log_key: 'PRIVATE+KEY+nope' }))
    assert.deepEqual([e.code, e.path], ['checkpoint_invalid', '/log_key'])
    e = await coded(Ledger.open('sqlite::memory:', { log_key: 7 }))
    assert.deepEqual([e.code, e.path], ['invalid_request', '/log_key'])
    e = await coded(Ledger.open('sqlite::memory:', { clock: new ManualClock(0), nope: 1 }))
    assert.equal(e.code, 'invalid_request')
    // Without a key there is no checkpoint, and so no bundle (and nothing recorded).
    const keyless = await Ledger.open('sqlite::memory:')
    const task = await refundStory(keyless)
    assert.equal((await coded(keyless.checkpoint())).code, 'invalid_request')
    assert.equal((await coded(keyless.evidence(task.id, 'auditor:carol'))).code, 'invalid_request')
    assert.equal((await keyless.history(task.id)).events.at(-1).kind, 'completed')
    await keyless.close()
    const ledger = await Ledger.open('sqlite::memory:', { log_key: LOG_KEY })
    e = await coded(ledger.evidence(7, 'auditor:carol'))
    assert.deepEqual([e.code, e.path], ['invalid_request', '/task_id'])
    e = await coded(ledger.evidence('task_x', ' '))
    assert.deepEqual([e.code, e.path], ['invalid_request', '/actor'])
    e = await coded(ledger.evidence('task_x', 'auditor:carol', 'not a contract'))
    assert.equal(e.path.startsWith('/contract'), true, e.path)
    assert.equal((await coded(ledger.evidence('task_' + '0'.repeat(32), 'auditor:carol'))).code, 'task_not_found')
    await ledger.close()
  })
})
