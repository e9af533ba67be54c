//! Skipping text no match can start in, for an unanchored search that has nothing in
//! progress (the DFA's *restart* states): to a little before the next occurrence of a literal
//! every match contains, or to the next byte that can begin a match.

use super::literal::Required;
use super::program::{work, Closure, Counters, Ctx, Inst, Program};
use memchr::memmem::Finder;

/// What an unanchored program may skip by.
#[derive(Clone, Debug)]
pub(crate) struct Skips {
    literal: Option<(Finder<'static>, Option<u64>)>,
    first: Option<FirstBytes>,
}

/// The bytes a match can begin with (a UTF-8 lead byte stands for its characters).
#[derive(Clone, Debug)]
enum FirstBytes {
    One(u8),
    Two(u8, u8),
    Three(u8, u8, u8),
    Table(Box<[bool; 256]>),
}

impl FirstBytes {
    fn find(&self, hay: &[u8]) -> Option<usize> {
        match self {
            FirstBytes::One(a) => memchr::memchr(*a, hay),
            FirstBytes::Two(a, b) => memchr::memchr2(*a, *b, hay),
            FirstBytes::Three(a, b, c) => memchr::memchr3(*a, *b, *c, hay),
            FirstBytes::Table(t) => hay.iter().position(|&b| t[b as usize]),
        }
    }
}

/// Remembers where the last literal occurrence was, so that each is found once.
#[derive(Default)]
pub(crate) struct Found(Option<(usize, usize)>);

impl Skips {
    /// The skips of an unanchored program, if it has any.
    pub(crate) fn new(prog: &Program, required: Option<Required>) -> Option<Skips> {
        let literal =
            required.map(|r| (Finder::new(r.literal.as_bytes()).into_owned(), r.max_offset));
        let first = first_bytes(prog);
        (literal.is_some() || first.is_some()).then_some(Skips { literal, first })
    }

    /// At byte `i` of `text`, with nothing in progress: `None` when no match can start at or
    /// after `i`, else the first byte where one can.
    pub(crate) fn resume(&self, text: &str, i: usize, found: &mut Found) -> Option<usize> {
        if let Some((finder, max_offset)) = &self.literal {
            if let Some((o, start)) = found.0 {
                if o >= i {
                    return Some(start.max(i));
                }
            }
            let o = i + finder
                .find(&text.as_bytes()[i..])
                .inspect(|&j| work(j + 1))
                .or_else(|| {
                    work(text.len() - i);
                    None
                })?;
            let start = match max_offset {
                Some(w) => back(text, o, *w, i),
                None => i,
            };
            found.0 = Some((o, start));
            return Some(start);
        }
        let first = self.first.as_ref()?;
        // No byte that can begin a match: only the end of the string is left.
        let to = first
            .find(&text.as_bytes()[i..])
            .map_or(text.len(), |j| i + j);
        work(to - i + 1);
        Some(to)
    }
}

/// The byte offset `chars` characters before byte `from`, but not before byte `floor`.
pub(crate) fn back(text: &str, from: usize, chars: u64, floor: usize) -> usize {
    let mut at = from;
    for (n, (i, _)) in text[floor..from].char_indices().rev().enumerate() {
        if n as u64 >= chars {
            break;
        }
        work(1);
        at = floor + i;
    }
    at
}

/// Records the counters a closure enters.
#[derive(Default)]
struct Entered(Vec<u32>);

impl Counters for Entered {
    fn active(&self) -> &[u32] {
        &[]
    }

    fn enter(&mut self, _: &Program, k: u32) {
        self.0.push(k);
    }

    fn can_exit(&self, _: &Program, _: u32) -> bool {
        false
    }
}

/// The first bytes of a program without word assertions: what the sets it can consume first
/// (at a position after the start) hold. `None` when nearly any byte can begin a match, when
/// the empty string matches, or with `\b`/`\B` (whose closure depends on the next character).
fn first_bytes(prog: &Program) -> Option<FirstBytes> {
    if prog.uses_word {
        return None;
    }
    let mut w = Closure::default();
    let mut entered = Entered::default();
    let at = Ctx {
        at_start: false,
        at_end: false,
        prev_word: false,
        next_word: false,
    };
    if prog.closure(&[0], at, &mut entered, &mut w) {
        return None;
    }
    let mut sets: Vec<u32> = w
        .ready
        .iter()
        .filter_map(|&pc| match prog.insts[pc as usize] {
            Inst::Set(s) => Some(s),
            _ => None,
        })
        .collect();
    sets.extend(entered.0.iter().map(|&k| prog.counters[k as usize].set));
    let mut table = [false; 256];
    for s in sets {
        for &(lo, hi) in &prog.sets[s as usize].0 {
            for b in lead_bytes(lo, hi) {
                table[b as usize] = true;
            }
        }
    }
    let bytes: Vec<u8> = (0..=255u8).filter(|&b| table[b as usize]).collect();
    Some(match bytes.as_slice() {
        [a] => FirstBytes::One(*a),
        [a, b] => FirstBytes::Two(*a, *b),
        [a, b, c] => FirstBytes::Three(*a, *b, *c),
        _ if bytes.len() <= 128 => FirstBytes::Table(Box::new(table)),
        _ => return None,
    })
}

/// The UTF-8 lead bytes of the code points `lo..=hi`.
fn lead_bytes(lo: u32, hi: u32) -> impl Iterator<Item = u8> {
    // Lead bytes by range: ASCII as itself; two-byte from 0xC2, three from 0xE0, four from 0xF0.
    let lead = |c: u32| -> u8 {
        match c {
            0..=0x7F => c as u8,
            0x80..=0x7FF => 0xC0 | (c >> 6) as u8,
            0x800..=0xFFFF => 0xE0 | (c >> 12) as u8,
            _ => 0xF0 | (c >> 18) as u8,
        }
    };
    // Continuation bytes are never where a character begins.
    (lead(lo)..=lead(hi.min(0x10FFFF))).filter(|b| !(0x80..=0xBF).contains(b))
}
