// Reads JSON texts, one JSON string per line on stdin, and writes for each the RFC 8785 text
// that Node's JSON.parse and the npm `canonicalize` package give it, as a JSON string per
// line. Used by check-expectations.py for the texts every parser reads alike.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'

const canonicalize = createRequire(import.meta.url)('canonicalize')
const input = readFileSync(0, 'utf8')
const out = []
for (const line of input.split('\n')) {
  if (line === '') continue
  out.push(JSON.stringify(canonicalize(JSON.parse(JSON.parse(line)))))
}
process.stdout.write(out.join('\n') + '\n')
