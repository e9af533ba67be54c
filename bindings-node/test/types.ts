// Type-checked against the packed package by test.sh (tsc --noEmit --strict): the
// declarations in index.d.ts must describe the API as documented in README.md.
import {
  canonicalize,
  canonicalizeJson,
  digestEqual,
  fingerprint,
  fingerprintJson,
  type ActionsealError,
  type ErrorCode,
  type Options,
} from 'actionseal'

const options: Options = { profile: 'rfc8785' }
const action = { tool: 'refund_create', args: { order_id: 'order-17', amount_minor: 2500 } }

const text: string = canonicalize(action)
const digest: string = fingerprint(action, options)
const fromText: string = fingerprintJson(text, null)
const fromBytes: string = canonicalizeJson(new TextEncoder().encode(text), { profile: 'strict' })
const same: boolean = digestEqual(digest, fromText)
const notString: boolean = digestEqual(undefined, 42)

try {
  fingerprint({ amount: 10n })
} catch (e) {
  const err = e as ActionsealError
  const code: ErrorCode = err.code
  const path: string = err.path
  const offset: number | undefined = err.offset
  console.log(code, path, offset, err.message)
}

// @ts-expect-error: only the two profile names are accepted
canonicalize(action, { profile: 'loose' })
// @ts-expect-error: JSON text is a string or bytes
fingerprintJson(42)

console.log(text, digest, fromText, fromBytes, same, notString)
