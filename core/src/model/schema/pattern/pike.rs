//! The NFA simulation (a Pike VM without captures): all threads advance together, one
//! character at a time, so the cost per character is bounded by the program's size and no
//! pattern can backtrack. Counters keep their counts as ranges of the positions where they
//! were entered, oldest first: a character moves every count at once by moving the
//! position, and only the oldest entries ever leave, so each step is amortised O(1) per
//! counter however large its bounds.
//!
//! The lazy DFA hands its configuration over to this when a pattern's states would not fit
//! its cache; this then runs to the end of the string.

use super::dfa::decode;
use super::program::{is_word, work, Closure, Counters, Ctx, Program, SparseSet};
use std::collections::VecDeque;

/// Counts as ranges of entry positions.
#[derive(Default)]
struct Absolute {
    /// The position: characters consumed, plus a base that keeps entries non-negative.
    pos: u64,
    entries: Vec<VecDeque<(u64, u64)>>,
    /// An unbounded counter with a count at or above its `min`.
    saturated: Vec<bool>,
    active: Vec<u32>,
    is_active: Vec<bool>,
}

impl Absolute {
    fn new(counters: usize, pos: u64) -> Absolute {
        Absolute {
            pos,
            entries: vec![VecDeque::new(); counters],
            saturated: vec![false; counters],
            active: Vec::new(),
            is_active: vec![false; counters],
        }
    }

    fn activate(&mut self, k: u32) {
        if !self.is_active[k as usize] {
            self.is_active[k as usize] = true;
            self.active.push(k);
        }
    }

    /// One character of class `class` consumed.
    fn step(&mut self, prog: &Program, class: u32) {
        work(self.active.len());
        self.pos += 1;
        let pos = self.pos;
        for &k in &self.active {
            let counter = prog.counters[k as usize];
            let e = &mut self.entries[k as usize];
            if !prog.member(counter.set, class) {
                e.clear();
                self.saturated[k as usize] = false;
                continue;
            }
            match counter.max {
                // Entries more than `max` characters back are out.
                Some(max) => {
                    let max = u64::from(max);
                    while let Some(front) = e.front_mut() {
                        if front.1 + max < pos {
                            e.pop_front();
                        } else {
                            if front.0 + max < pos {
                                front.0 = pos - max;
                            }
                            break;
                        }
                    }
                }
                // Entries `min` or more characters back are all alike: saturated.
                None => {
                    let min = u64::from(counter.min);
                    while let Some(front) = e.front_mut() {
                        if front.1 + min <= pos {
                            e.pop_front();
                            self.saturated[k as usize] = true;
                        } else {
                            if front.0 + min <= pos {
                                front.0 = pos - min + 1;
                                self.saturated[k as usize] = true;
                            }
                            break;
                        }
                    }
                }
            }
        }
        let (entries, saturated, is_active) = (&self.entries, &self.saturated, &mut self.is_active);
        self.active.retain(|&k| {
            let keep = !entries[k as usize].is_empty() || saturated[k as usize];
            is_active[k as usize] = keep;
            keep
        });
    }
}

impl Counters for Absolute {
    fn active(&self) -> &[u32] {
        &self.active
    }

    fn enter(&mut self, prog: &Program, k: u32) {
        self.activate(k);
        let counter = prog.counters[k as usize];
        if counter.max.is_none() && counter.min == 0 {
            self.saturated[k as usize] = true;
            return;
        }
        let pos = self.pos;
        let e = &mut self.entries[k as usize];
        match e.back_mut() {
            Some(x) if x.1 == pos => {}
            Some(x) if x.1 + 1 == pos => x.1 = pos,
            _ => e.push_back((pos, pos)),
        }
    }

    fn can_exit(&self, prog: &Program, k: u32) -> bool {
        let min = u64::from(prog.counters[k as usize].min);
        self.saturated[k as usize]
            || self.entries[k as usize]
                .front()
                .is_some_and(|x| self.pos - x.0 >= min)
    }
}

/// Runs `prog` over `text` from byte `from`, starting in a DFA configuration (see
/// [`super::dfa`] for its layout); true on a match.
pub(crate) fn run(prog: &Program, text: &str, from: usize, config: &[u32]) -> bool {
    let n = config[1] as usize;
    let mut current = SparseSet::default();
    let mut next = SparseSet::default();
    current.reset(prog.insts.len());
    next.reset(prog.insts.len());
    for &pc in &config[2..2 + n] {
        current.insert(pc);
    }
    // Relative counts become entry positions below a base above every count.
    let mut base = 1u64;
    let mut i = 2 + n;
    while i < config.len() {
        let m = config[i + 1] as usize;
        for j in 0..m {
            base = base.max(u64::from(config[i + 3 + 2 * j]) + 1);
        }
        i += 2 + 2 * m;
    }
    let mut counters = Absolute::new(prog.counters.len(), base);
    let mut i = 2 + n;
    while i < config.len() {
        let (k, m) = (config[i], config[i + 1] as usize);
        let counter = prog.counters[k as usize];
        counters.activate(k);
        for j in (0..m).rev() {
            let (lo, mut hi) = (config[i + 2 + 2 * j], config[i + 3 + 2 * j]);
            if counter.max.is_none() && hi >= counter.min {
                counters.saturated[k as usize] = true;
                if lo >= counter.min {
                    continue;
                }
                hi = counter.min - 1;
            }
            counters.entries[k as usize].push_back((base - u64::from(hi), base - u64::from(lo)));
        }
        i += 2 + 2 * m;
    }

    let mut w = Closure::default();
    let mut at = from;
    let mut prev_word = text[..from].chars().next_back().is_some_and(is_word);
    loop {
        let here = (at < text.len()).then(|| decode(text, at));
        let ctx = Ctx {
            at_start: at == 0,
            at_end: here.is_none(),
            prev_word,
            next_word: here.is_some_and(|(c, _)| is_word(c)),
        };
        if prog.closure(&current.dense, ctx, &mut counters, &mut w) {
            return true;
        }
        let Some((c, len)) = here else {
            return false;
        };
        let class = prog.alphabet.class(c as u32);
        next.reset(prog.insts.len());
        prog.step(&w.ready, class, |pc| {
            next.insert(pc);
        });
        counters.step(prog, class);
        if !prog.anchored {
            next.insert(0);
        }
        if next.dense.is_empty() && counters.active.is_empty() {
            return false;
        }
        std::mem::swap(&mut current, &mut next);
        prev_word = is_word(c);
        at += len;
    }
}
