//! The compiled form of a pattern, and what its two matchers share: an alphabet of character
//! classes, set membership by class, counters, and the closure over instructions that consume
//! nothing.

use super::parse::{Assert, Set, WORD};
use super::{unsupported, MAX_CHAR};
use crate::error::Result;
use std::collections::HashMap;

/// An instruction index.
pub(crate) type Pc = u32;

#[cfg(any(test, feature = "fuzzing"))]
thread_local! {
    /// Steps taken by the matchers on this thread (tests and fuzzing bound it).
    pub(crate) static WORK: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Counts `n` steps of matching work (only in tests and fuzzing builds).
#[inline(always)]
pub(crate) fn work(n: usize) {
    #[cfg(any(test, feature = "fuzzing"))]
    WORK.with(|w| w.set(w.get() + n as u64));
    #[cfg(not(any(test, feature = "fuzzing")))]
    let _ = n;
}

/// One instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Inst {
    /// Consume one character of set `n`, then continue at the next instruction.
    Set(u32),
    /// Counter `n`: a counted repetition of one character of a set (`[a-z0-9]{1,255}`). Its
    /// exits continue at the next instruction.
    Count(u32),
    /// Continue at both targets.
    Split(Pc, Pc),
    /// Continue at the target.
    Jmp(Pc),
    /// Continue where the assertion holds.
    Assert(Assert),
    /// A match.
    Match,
}

/// A counted repetition `C{min,max}` of a single character class `C`. Every character it
/// consumes is one more repetition, so all the ways of being inside it that entered at the
/// same position are the same, and its state is just the set of counts in progress (each
/// count the number of characters since one entry). Matchers keep that set instead of
/// `max` copies of `C`, so the cost of a match does not grow with the bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Counter {
    pub set: u32,
    pub min: u32,
    /// `None`: unbounded; counts at or above `min` are then all alike.
    pub max: Option<u32>,
    /// Where the counter's instruction is.
    pub pc: Pc,
}

/// Most classes times sets the membership table may hold (bits).
const MAX_MEMBERSHIP_BITS: usize = 1 << 24;

/// The code points split into classes: two code points are in the same class when every set
/// of the program (and `\w`, where `\b` is used) holds both or neither. Matchers work on
/// classes, so the lazy DFA has one transition per class, not per code point.
#[derive(Clone, Debug)]
pub(crate) struct Alphabet {
    ascii: [u32; 128],
    /// Starts of the elementary ranges (from 0), and the class of each.
    starts: Box<[u32]>,
    classes: Box<[u32]>,
    /// Whether the characters of each class are word characters (meaningful where the
    /// program uses `\b` or `\B`, whose classes keep word and non-word characters apart).
    pub word: Box<[bool]>,
    pub len: usize,
}

impl Alphabet {
    #[inline]
    pub(crate) fn class(&self, c: u32) -> u32 {
        if c < 128 {
            self.ascii[c as usize]
        } else {
            let i = self.starts.partition_point(|&s| s <= c) - 1;
            self.classes[i]
        }
    }

    #[inline]
    pub(crate) fn ascii(&self, b: u8) -> u32 {
        self.ascii[b as usize]
    }
}

/// A compiled program; its entry is instruction 0.
#[derive(Clone, Debug)]
pub(crate) struct Program {
    pub insts: Box<[Inst]>,
    pub sets: Box<[Set]>,
    pub counters: Box<[Counter]>,
    pub alphabet: Alphabet,
    /// Bit `k` of row `s`: class `k` is in set `s`.
    member: Box<[u64]>,
    row: usize,
    /// Whether a match may begin only at position 0 (leading lookaheads, and a main
    /// pattern that starts with `^`).
    pub anchored: bool,
    pub uses_start: bool,
    pub uses_word: bool,
}

impl Program {
    /// Builds a program from its instructions and interned sets.
    pub(crate) fn new(
        insts: Vec<Inst>,
        sets: Vec<Set>,
        counters: Vec<Counter>,
        anchored: bool,
    ) -> Result<Program> {
        let uses_start = insts.contains(&Inst::Assert(Assert::Start));
        let uses_word = insts
            .iter()
            .any(|i| matches!(i, Inst::Assert(Assert::Word | Assert::NotWord)));
        let (alphabet, member, row) = alphabet(&sets, uses_word)?;
        Ok(Program {
            insts: insts.into_boxed_slice(),
            sets: sets.into_boxed_slice(),
            counters: counters.into_boxed_slice(),
            alphabet,
            member,
            row,
            anchored,
            uses_start,
            uses_word,
        })
    }

    /// Whether class `k` is in set `s`.
    #[inline]
    pub(crate) fn member(&self, s: u32, k: u32) -> bool {
        let k = k as usize;
        self.member[s as usize * self.row + k / 64] >> (k % 64) & 1 == 1
    }

    /// Follows every instruction that consumes nothing, at one position whose surroundings
    /// `at` describes, from `seeds` and from the exits of the counters that may stop here.
    /// Counters reached are entered (a count of 0 added); the `Set` instructions reached are
    /// left in `w.ready`. Returns true on reaching `Match`. The result does not depend on
    /// the order of the seeds.
    pub(crate) fn closure(
        &self,
        seeds: &[Pc],
        at: Ctx,
        counters: &mut impl Counters,
        w: &mut Closure,
    ) -> bool {
        w.visited.reset(self.insts.len());
        w.ready.clear();
        w.stack.clear();
        w.stack.extend_from_slice(seeds);
        for &k in counters.active() {
            if counters.can_exit(self, k) {
                w.stack.push(self.counters[k as usize].pc + 1);
            }
        }
        while let Some(pc) = w.stack.pop() {
            work(1);
            if !w.visited.insert(pc) {
                continue;
            }
            match self.insts[pc as usize] {
                Inst::Match => return true,
                Inst::Set(_) => w.ready.push(pc),
                Inst::Jmp(t) => w.stack.push(t),
                Inst::Split(a, b) => {
                    w.stack.push(b);
                    w.stack.push(a);
                }
                Inst::Assert(a) => {
                    if at.holds(a) {
                        w.stack.push(pc + 1);
                    }
                }
                Inst::Count(k) => {
                    counters.enter(self, k);
                    if self.counters[k as usize].min == 0 {
                        w.stack.push(pc + 1);
                    }
                }
            }
        }
        false
    }

    /// The instructions after the ready `Set`s that hold class `k`.
    pub(crate) fn step(&self, ready: &[Pc], k: u32, mut next: impl FnMut(Pc)) {
        work(ready.len());
        for &pc in ready {
            if let Inst::Set(s) = self.insts[pc as usize] {
                if self.member(s, k) {
                    next(pc + 1);
                }
            }
        }
    }
}

/// What surrounds a position, for the assertions.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ctx {
    pub at_start: bool,
    pub at_end: bool,
    pub prev_word: bool,
    pub next_word: bool,
}

impl Ctx {
    fn holds(self, a: Assert) -> bool {
        match a {
            Assert::Start => self.at_start,
            Assert::End => self.at_end,
            Assert::Word => self.prev_word != self.next_word,
            Assert::NotWord => self.prev_word == self.next_word,
        }
    }
}

/// The counts in progress of every counter, as a matcher keeps them.
pub(crate) trait Counters {
    /// The counters holding at least one count.
    fn active(&self) -> &[u32];
    /// Adds a count of 0 to counter `k`.
    fn enter(&mut self, prog: &Program, k: u32);
    /// Whether a count of counter `k` lies within its bounds, so the repetition may end.
    fn can_exit(&self, prog: &Program, k: u32) -> bool;
}

/// A set of instruction indices with O(1) insert, membership and clear.
#[derive(Default, Debug)]
pub(crate) struct SparseSet {
    pub dense: Vec<Pc>,
    sparse: Vec<u32>,
}

impl SparseSet {
    /// Empties the set and makes room for indices below `n`.
    pub(crate) fn reset(&mut self, n: usize) {
        self.dense.clear();
        if self.sparse.len() < n {
            self.sparse.resize(n, 0);
        }
    }

    pub(crate) fn insert(&mut self, pc: Pc) -> bool {
        let i = self.sparse[pc as usize] as usize;
        if i < self.dense.len() && self.dense[i] == pc {
            return false;
        }
        self.sparse[pc as usize] = self.dense.len() as u32;
        self.dense.push(pc);
        true
    }
}

/// Working memory of [`Program::closure`].
#[derive(Default, Debug)]
pub(crate) struct Closure {
    visited: SparseSet,
    stack: Vec<Pc>,
    pub ready: Vec<Pc>,
}

/// Whether `c` is a word character for `\b` (ASCII, as ECMA without the `i` flag says).
#[inline]
pub(crate) fn is_word(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Splits the code points into classes and tabulates which classes each set holds.
fn alphabet(sets: &[Set], uses_word: bool) -> Result<(Alphabet, Box<[u64]>, usize)> {
    let word = Set::of(WORD);
    let mut cuts = vec![0u32, 128];
    for s in sets.iter().chain(uses_word.then_some(&word)) {
        for &(lo, hi) in &s.0 {
            cuts.push(lo);
            if hi < MAX_CHAR {
                cuts.push(hi + 1);
            }
        }
    }
    cuts.sort_unstable();
    cuts.dedup();
    let columns = sets.len() + 1;
    if cuts.len().saturating_mul(columns) > MAX_MEMBERSHIP_BITS {
        return Err(unsupported("too many distinct character sets"));
    }
    // The signature of each elementary range: which sets hold it, and whether it is `\w`.
    let words = columns.div_ceil(64);
    let mut signature = vec![0u64; cuts.len() * words];
    let mut mark = |s: &Set, column: usize| {
        for &(lo, hi) in &s.0 {
            let mut i = cuts.partition_point(|&c| c < lo);
            while i < cuts.len() && cuts[i] <= hi {
                signature[i * words + column / 64] |= 1 << (column % 64);
                i += 1;
            }
        }
    };
    for (column, s) in sets.iter().enumerate() {
        mark(s, column);
    }
    if uses_word {
        mark(&word, sets.len());
    }
    let mut ids: HashMap<&[u64], u32> = HashMap::new();
    let mut classes = Vec::with_capacity(cuts.len());
    let mut first = Vec::new(); // the first elementary range of each class
    for i in 0..cuts.len() {
        let sig = &signature[i * words..(i + 1) * words];
        let next = ids.len() as u32;
        let id = *ids.entry(sig).or_insert(next);
        if id == next {
            first.push(i);
        }
        classes.push(id);
    }
    let len = first.len();
    let row = len.div_ceil(64);
    let mut member = vec![0u64; sets.len() * row];
    let mut word_of = vec![false; len];
    for (k, &i) in first.iter().enumerate() {
        let sig = &signature[i * words..(i + 1) * words];
        for s in 0..sets.len() {
            if sig[s / 64] >> (s % 64) & 1 == 1 {
                member[s * row + k / 64] |= 1 << (k % 64);
            }
        }
        word_of[k] = char::from_u32(cuts[i]).is_some_and(is_word);
    }
    let mut ascii = [0u32; 128];
    for (c, slot) in ascii.iter_mut().enumerate() {
        let i = cuts.partition_point(|&s| s <= c as u32) - 1;
        *slot = classes[i];
    }
    let alphabet = Alphabet {
        ascii,
        starts: cuts.into_boxed_slice(),
        classes: classes.into_boxed_slice(),
        word: word_of.into_boxed_slice(),
        len,
    };
    Ok((alphabet, member.into_boxed_slice(), row))
}
