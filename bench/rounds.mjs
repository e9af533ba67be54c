// Timing shared by the Node benchmarks: interleaved rounds of calls counted per second of
// process CPU time (user + system), so that time spent waiting for a core on a shared machine
// is not counted (V8's helper threads, GC, count as cost), and ratios reported as the median
// of the rounds' ratios with their spread.

export const ROUNDS = 9

/**
 * Calls per CPU-second of each function, in each of `rounds` rounds: in each round every
 * function runs for `seconds / rounds` of CPU time, one after the other.
 */
export function rounds(fns, seconds, count = ROUNDS) {
  let sink = 0
  for (const fn of fns) for (let i = 0; i < 2000; i++) sink ^= fn() === undefined ? 0 : 1 // warm up
  const perRound = (seconds / count) * 1e6 // microseconds of CPU time per function
  const out = fns.map(() => [])
  for (let round = 0; round < count; round++) {
    fns.forEach((fn, k) => {
      let n = 0
      const start = process.cpuUsage()
      let used = 0
      while (used < perRound) {
        for (let i = 0; i < 20; i++) sink ^= fn() === undefined ? 0 : 1
        n += 20
        const d = process.cpuUsage(start)
        used = d.user + d.system
      }
      out[k].push(n / (used / 1e6))
    })
  }
  if (sink === 0.5) console.log('') // keeps the results alive
  return out
}

export const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1]

/** `{median, min, max}` of the per-round ratios a[i] / b[i]. */
export function ratio(a, b) {
  const r = a.map((x, i) => x / b[i])
  return { median: median(r), min: Math.min(...r), max: Math.max(...r) }
}

export const show = (r) => `**${r.median.toFixed(2)}x** (${r.min.toFixed(2)}–${r.max.toFixed(2)})`
export const ops = (xs) => Math.round(median(xs)).toLocaleString('en')
