//! A lazy DFA over a program: each state is one configuration of the NFA (the instructions
//! to continue from, the counts in progress of each counter relative to the current
//! position, and what the assertions need to know about the previous character), built the
//! first time a search reaches it and kept in a bounded cache between searches. A character
//! then costs one table lookup.
//!
//! When a configuration holds too many count ranges, or the cache fills faster than the
//! search advances, the search hands its configuration to the NFA simulation
//! ([`super::pike`]), whose cost per character is bounded by the program's size. So the
//! worst case stays linear in the length of the string, whatever the pattern.

use super::program::{is_word, work, Closure, Counters, Ctx, Pc, Program};
use super::skip::{Found, Skips};
use std::collections::HashMap;
use std::sync::{Mutex, TryLockError};

/// Bytes of states a cache may hold before it is cleared.
const CACHE_BYTES: usize = 2 << 20;
/// Most count ranges, over all counters, one DFA state may hold.
const MAX_RANGES: usize = 64;
/// A search hands over to the NFA simulation when, at a cache clearing, it has built a
/// state for more than one in this many bytes it advanced.
const MIN_BYTES_PER_STATE: usize = 8;

/// Transition table entries with this bit are not plain state numbers: `UNKNOWN`, `MATCH`,
/// `DEAD`, or a restart state (`RESTART | id`, where a search may skip).
const TAG: u32 = 1 << 31;
const RESTART: u32 = TAG;
const UNKNOWN: u32 = u32::MAX;
const MATCH: u32 = u32::MAX - 1;
const DEAD: u32 = u32::MAX - 2;

const AT_START: u32 = 1;
const PREV_WORD: u32 = 2;

/// A program's cache, taken by one search at a time (another search at the same time
/// builds a cache of its own).
#[derive(Default)]
pub(crate) struct CacheSlot(Mutex<Option<Box<Cache>>>);

impl std::fmt::Debug for CacheSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CacheSlot")
    }
}

impl CacheSlot {
    /// Runs `f` with the program's cache; while another search holds it, with a fresh one.
    pub(crate) fn with<R>(&self, f: impl FnOnce(&mut Cache) -> R) -> R {
        match self.0.try_lock() {
            Ok(mut slot) => f(slot.get_or_insert_with(Box::default)),
            // A search that panicked left the cache in an unknown state: start afresh.
            Err(TryLockError::Poisoned(p)) => {
                let mut slot = p.into_inner();
                *slot = None;
                self.0.clear_poison();
                f(slot.get_or_insert_with(Box::default))
            }
            Err(TryLockError::WouldBlock) => f(&mut Cache::default()),
        }
    }
}

/// States, transitions and working memory of one program's lazy DFA.
#[derive(Debug)]
pub(crate) struct Cache {
    /// Bytes of states held before clearing ([`CACHE_BYTES`]; tests use less).
    limit: usize,
    /// Each state's configuration: `[flags, seed count, seeds.., (counter, range count,
    /// lo, hi, ..)..]`, counts relative to the current position.
    keys: Vec<Box<[u32]>>,
    ids: HashMap<Box<[u32]>, u32>,
    /// `states × classes` entries: a state, or `UNKNOWN`, `MATCH`, `DEAD`.
    trans: Vec<u32>,
    /// Per state: 0 not known yet, 1 no match at the end of the string, 2 a match.
    end: Vec<u8>,
    /// Per state: nothing in progress but a fresh start (unanchored searches only).
    restart: Vec<bool>,
    /// Whether the program has skips, so that restart states are marked (set by each search;
    /// a cache serves one program).
    skips: bool,
    /// The start state for each combination of flags, once known.
    starts: [u32; 4],
    bytes: usize,
    work: Work,
}

impl Default for Cache {
    fn default() -> Cache {
        Cache {
            limit: CACHE_BYTES,
            keys: Vec::new(),
            ids: HashMap::new(),
            trans: Vec::new(),
            end: Vec::new(),
            restart: Vec::new(),
            skips: false,
            starts: [UNKNOWN; 4],
            bytes: 0,
            work: Work::default(),
        }
    }
}

#[derive(Default, Debug)]
struct Work {
    closure: Closure,
    counters: Relative,
    seeds: Vec<Pc>,
    key: Vec<u32>,
}

/// How a search ended: with an answer, or handing over its configuration at a byte offset.
pub(crate) enum Outcome {
    Answer(bool),
    Handoff { at: usize, config: Box<[u32]> },
}

/// Counts in progress relative to the current position, as sorted disjoint ranges per
/// counter. An unbounded counter's counts are capped at its `min` (all alike from there).
#[derive(Default, Debug)]
pub(crate) struct Relative {
    ranges: Vec<Vec<(u32, u32)>>,
    active: Vec<u32>,
}

impl Relative {
    fn reset(&mut self, counters: usize) {
        for &k in &self.active {
            self.ranges[k as usize].clear();
        }
        self.active.clear();
        if self.ranges.len() < counters {
            self.ranges.resize_with(counters, Vec::new);
        }
    }

    /// One character of class `k` consumed.
    fn step(&mut self, prog: &Program, k: u32) {
        work(self.active.len() + self.total_ranges());
        for &c in &self.active {
            let counter = prog.counters[c as usize];
            let r = &mut self.ranges[c as usize];
            if !prog.member(counter.set, k) {
                r.clear();
                continue;
            }
            for x in r.iter_mut() {
                x.0 += 1;
                x.1 += 1;
            }
            match counter.max {
                Some(max) => {
                    while r.last().is_some_and(|x| x.0 > max) {
                        r.pop();
                    }
                    if let Some(x) = r.last_mut() {
                        x.1 = x.1.min(max);
                    }
                }
                None => cap(r, counter.min),
            }
        }
        let ranges = &self.ranges;
        self.active.retain(|&c| !ranges[c as usize].is_empty());
    }

    fn total_ranges(&self) -> usize {
        self.active
            .iter()
            .map(|&c| self.ranges[c as usize].len())
            .sum()
    }
}

/// Caps counts at `min` (an unbounded counter's counts from `min` on are all alike).
fn cap(r: &mut Vec<(u32, u32)>, min: u32) {
    let mut saturated = false;
    while r.last().is_some_and(|x| x.0 >= min) {
        r.pop();
        saturated = true;
    }
    match r.last_mut() {
        Some(x) if x.1 >= min => x.1 = min,
        Some(x) if saturated && x.1 + 1 == min => x.1 = min,
        _ if saturated => r.push((min, min)),
        _ => {}
    }
}

impl Counters for Relative {
    fn active(&self) -> &[u32] {
        &self.active
    }

    fn enter(&mut self, prog: &Program, k: u32) {
        let r = &mut self.ranges[k as usize];
        if r.is_empty() {
            self.active.push(k);
        }
        match r.first_mut() {
            Some(x) if x.0 == 0 => {}
            Some(x) if x.0 == 1 => x.0 = 0,
            _ => r.insert(0, (0, 0)),
        }
        if prog.counters[k as usize].max.is_none() {
            cap(r, prog.counters[k as usize].min);
        }
    }

    fn can_exit(&self, prog: &Program, k: u32) -> bool {
        let min = prog.counters[k as usize].min;
        self.ranges[k as usize].last().is_some_and(|x| x.1 >= min)
    }
}

impl Cache {
    /// A cache that clears after `limit` bytes of states.
    #[cfg(any(test, feature = "fuzzing"))]
    pub(crate) fn with_limit(limit: usize) -> Cache {
        Cache {
            limit,
            ..Cache::default()
        }
    }

    fn clear(&mut self) {
        self.keys.clear();
        self.ids.clear();
        self.trans.clear();
        self.end.clear();
        self.restart.clear();
        self.starts = [UNKNOWN; 4];
        self.bytes = 0;
    }

    /// The state of `key`, added if new. States are named by where their row starts in
    /// the transition table (number × classes), so that a step costs no multiplication.
    fn state(&mut self, prog: &Program, key: &[u32]) -> u32 {
        if let Some(&id) = self.ids.get(key) {
            return id;
        }
        let id = self.trans.len() as u32;
        let boxed: Box<[u32]> = key.into();
        self.ids.insert(boxed.clone(), id);
        self.keys.push(boxed);
        self.trans
            .resize(self.trans.len() + prog.alphabet.len, UNKNOWN);
        self.end.push(0);
        // Skips assume a position after the start (where `^` cannot hold).
        self.restart.push(
            self.skips
                && !prog.anchored
                && key[0] & AT_START == 0
                && key.len() == 3
                && key[1] == 1
                && key[2] == 0,
        );
        self.bytes += key.len() * 8 + prog.alphabet.len * 4 + 96;
        id
    }

    /// The number of state `s`, for the tables kept per state.
    fn index(prog: &Program, s: u32) -> usize {
        s as usize / prog.alphabet.len
    }

    fn is_restart(&self, prog: &Program, s: u32) -> bool {
        self.restart[Cache::index(prog, s)]
    }

    /// The state where a search begins, or restarts after a skip, at byte `at`.
    fn start(&mut self, prog: &Program, text: &str, at: usize) -> u32 {
        let mut flags = 0;
        if at == 0 && prog.uses_start {
            flags |= AT_START;
        }
        if prog.uses_word && text[..at].chars().next_back().is_some_and(is_word) {
            flags |= PREV_WORD;
        }
        match self.starts[flags as usize] {
            UNKNOWN => {
                let s = self.state(prog, &[flags, 1, 0]);
                self.starts[flags as usize] = s;
                s
            }
            s => s,
        }
    }

    /// Loads a configuration into the working counters; returns its flags and seeds.
    fn load(&mut self, prog: &Program, s: u32) -> u32 {
        let key = &self.keys[Cache::index(prog, s)];
        let w = &mut self.work;
        w.counters.reset(prog.counters.len());
        let n = key[1] as usize;
        w.seeds.clear();
        w.seeds.extend_from_slice(&key[2..2 + n]);
        let mut i = 2 + n;
        while i < key.len() {
            let (c, m) = (key[i], key[i + 1] as usize);
            let r = &mut w.counters.ranges[c as usize];
            for j in 0..m {
                r.push((key[i + 2 + 2 * j], key[i + 3 + 2 * j]));
            }
            w.counters.active.push(c);
            i += 2 + 2 * m;
        }
        key[0]
    }

    /// The transition of state `s` on class `k`: a state, `MATCH` or `DEAD`; `None` when
    /// the next configuration is too large for a state.
    fn build(&mut self, prog: &Program, s: u32, k: u32) -> Option<u32> {
        let flags = self.load(prog, s);
        let at = Ctx {
            at_start: flags & AT_START != 0,
            at_end: false,
            prev_word: flags & PREV_WORD != 0,
            next_word: prog.alphabet.word[k as usize],
        };
        let w = &mut self.work;
        let t = if prog.closure(&w.seeds, at, &mut w.counters, &mut w.closure) {
            MATCH
        } else {
            w.seeds.clear();
            prog.step(&w.closure.ready, k, |pc| w.seeds.push(pc));
            w.counters.step(prog, k);
            if !prog.anchored {
                w.seeds.push(0);
            }
            w.seeds.sort_unstable();
            w.seeds.dedup();
            if w.seeds.is_empty() && w.counters.active.is_empty() {
                DEAD
            } else if w.counters.total_ranges() > MAX_RANGES {
                return None;
            } else {
                let mut flags = 0;
                if prog.uses_word && prog.alphabet.word[k as usize] {
                    flags |= PREV_WORD;
                }
                encode(flags, &w.seeds, &mut w.counters, &mut w.key);
                let key = std::mem::take(&mut w.key);
                let id = self.state(prog, &key);
                self.work.key = key;
                if self.is_restart(prog, id) {
                    id | RESTART
                } else {
                    id
                }
            }
        };
        self.trans[s as usize + k as usize] = t;
        Some(t)
    }

    /// Whether state `s` matches at the end of the string.
    fn end_match(&mut self, prog: &Program, s: u32) -> bool {
        let i = Cache::index(prog, s);
        match self.end[i] {
            1 => return false,
            2 => return true,
            _ => {}
        }
        let flags = self.load(prog, s);
        let at = Ctx {
            at_start: flags & AT_START != 0,
            at_end: true,
            prev_word: flags & PREV_WORD != 0,
            next_word: false,
        };
        let w = &mut self.work;
        let matched = prog.closure(&w.seeds, at, &mut w.counters, &mut w.closure);
        self.end[i] = if matched { 2 } else { 1 };
        matched
    }
}

/// Writes a configuration's key: flags, seeds, then each counter's ranges by counter.
fn encode(flags: u32, seeds: &[Pc], counters: &mut Relative, key: &mut Vec<u32>) {
    key.clear();
    key.push(flags);
    key.push(seeds.len() as u32);
    key.extend_from_slice(seeds);
    counters.active.sort_unstable();
    for &c in &counters.active {
        let r = &counters.ranges[c as usize];
        key.push(c);
        key.push(r.len() as u32);
        for &(lo, hi) in r {
            key.push(lo);
            key.push(hi);
        }
    }
}

/// The character at byte `i` of `text` (`i` on a boundary), and its length in bytes.
#[inline]
pub(crate) fn decode(text: &str, i: usize) -> (char, usize) {
    let c = text[i..].chars().next().unwrap_or('\0');
    (c, c.len_utf8())
}

/// Searches `text` from byte `from` (on a character boundary), skipping by `skips` (an
/// unanchored program's, if it has any) where nothing is in progress.
pub(crate) fn search(
    prog: &Program,
    skips: Option<&Skips>,
    cache: &mut Cache,
    text: &str,
    from: usize,
) -> Outcome {
    cache.skips = skips.is_some();
    let bytes = text.as_bytes();
    let mut found = Found::default();
    let mut i = from;
    let mut s = cache.start(prog, text, i);
    let mut restart = cache.is_restart(prog, s);
    let mut built = 0usize;
    let mut since = from; // where the search stood at the last clearing
    let handoff = |cache: &Cache, s: u32, at: usize| Outcome::Handoff {
        at,
        config: cache.keys[Cache::index(prog, s)].clone(),
    };
    loop {
        if restart {
            let skips = skips.unwrap_or_else(|| unreachable!("restart states need skips"));
            match skips.resume(text, i, &mut found) {
                None => return Outcome::Answer(false),
                Some(j) if j > i => {
                    i = j;
                    s = cache.start(prog, text, i);
                    restart = cache.is_restart(prog, s);
                    continue;
                }
                Some(_) => {}
            }
        }
        // The hot loop: plain transitions.
        let (k, len, mut t) = loop {
            let Some(&b) = bytes.get(i) else {
                return Outcome::Answer(cache.end_match(prog, s));
            };
            let (k, len) = if b < 0x80 {
                (prog.alphabet.ascii(b), 1)
            } else {
                let (c, len) = decode(text, i);
                (prog.alphabet.class(c as u32), len)
            };
            let t = cache.trans[s as usize + k as usize];
            if t & TAG != 0 {
                break (k, len, t);
            }
            work(1);
            s = t;
            i += len;
        };
        if t == UNKNOWN {
            if cache.bytes > cache.limit {
                if built.saturating_mul(MIN_BYTES_PER_STATE) > i - since {
                    return handoff(cache, s, i);
                }
                let key = cache.keys[Cache::index(prog, s)].clone();
                cache.clear();
                s = cache.state(prog, &key);
                built = 0;
                since = i;
            }
            built += 1;
            match cache.build(prog, s, k) {
                Some(next) => t = next,
                None => return handoff(cache, s, i),
            }
        }
        match t {
            MATCH => return Outcome::Answer(true),
            DEAD => return Outcome::Answer(false),
            _ => {
                restart = t & RESTART != 0;
                s = t & !RESTART;
                i += len;
            }
        }
    }
}
