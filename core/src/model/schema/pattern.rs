//! `pattern`: ECMA-262 regular expressions in Unicode (`u` flag) mode, as JSON Schema asks,
//! decided by this crate's own engine in time linear in the string's length.
//!
//! Supported: literals and every ECMA escape (`\t \n \v \f \r \0 \cX \xHH \uHHHH \u{H..}`,
//! surrogate pairs, identity escapes of syntax characters and `/`), `.`, classes with ranges
//! and negation, `\d \D \w \W \s \S`, `^ $ \b \B`, groups (capturing, named, non-capturing;
//! captures carry no meaning here), alternation, and every quantifier (greedy or lazy: the
//! same strings match). Lookaheads `(?=..)`/`(?!..)` are supported in one position only: right
//! after a `^` that starts the whole pattern, as in `^(?=.*\d)(?!.*\s).{8,}$` or pydantic's
//! decimal pattern `^(?!^[-+.]*$)[+-]?0*\d*\.?\d*$`; there they mean "the lookahead's pattern
//! does (not) match at the start of the string", which is exactly ECMA's meaning at position 0.
//!
//! ECMA features outside this (backreferences, lookbehind, lookaheads elsewhere, `\p{..}`,
//! pattern modifiers) are [`Code::UnsupportedSchema`]; text that is not a valid `u`-mode
//! ECMA pattern (`\-` outside a class, a lone `{`, `[z-a]`, `a**`) is [`Code::InvalidSchema`].
//!
//! # How a match is decided
//!
//! JSON Schema only asks whether the pattern matches somewhere, never where or with what
//! captures, so the pattern is a regular language and the engine decides membership:
//!
//! - [`parse`] reads the text into a tree; [`compile`] turns it into instructions
//!   ([`program`]). A repetition of one character class with counted bounds
//!   (`[a-z0-9]{1,255}`, `.{8,}`, `\d{4}`) becomes one *counter* whose state is the set of
//!   counts in progress, so its bounds do not multiply the program or the work. Repetitions
//!   of longer groups are expanded, up to [`MAX_PROGRAM`] instructions.
//! - [`literal`] finds a literal every match contains and how far into a match it can be
//!   (`@` in `[a-z0-9]{1,255}@`, at most 255 characters in), and for patterns ending in `$`
//!   the longest match: a search skips text no match can start in.
//! - [`dfa`] runs a lazy DFA over the program's configurations (one table lookup per
//!   character once built, states kept between matches in a bounded cache), and hands over to
//!   [`pike`], the NFA simulation, when a pattern's states would not fit: the worst case is
//!   linear in the string's length times the program's size, and usually one lookup per
//!   character.
//!
//! Leading lookaheads are separate programs, run anchored at the start.

mod compile;
mod dfa;
mod literal;
mod parse;
mod pike;
mod program;
mod skip;
#[cfg(test)]
mod tests;

use crate::error::{Code, Error, Result};
use dfa::CacheSlot;
use program::Program;
use skip::Skips;

/// Largest program, counted in instructions after repetitions of groups are expanded.
pub(crate) const MAX_PROGRAM: usize = 20_000;
const MAX_CHAR: u32 = 0x10FFFF;

/// A compiled `pattern`: an unanchored search, with optional leading lookaheads.
#[derive(Clone, Debug)]
pub(crate) struct Pattern {
    /// `(must_match, program)` for each leading lookahead, run anchored at the start.
    lookaheads: Vec<(bool, Matcher)>,
    main: Matcher,
    /// For a `main` that must end at the end of the string: its longest match.
    end_window: Option<u64>,
}

/// A program and what its searches keep beside it.
#[derive(Debug)]
struct Matcher {
    prog: Program,
    /// What an unanchored search may skip by.
    skips: Option<Skips>,
    /// The lazy DFA's states, kept between matches.
    cache: CacheSlot,
}

impl Matcher {
    fn new(prog: Program, skips: Option<Skips>) -> Matcher {
        Matcher {
            prog,
            skips,
            cache: CacheSlot::default(),
        }
    }
}

impl Clone for Matcher {
    /// The same program and skips, with a cache of its own.
    fn clone(&self) -> Matcher {
        Matcher::new(self.prog.clone(), self.skips.clone())
    }
}

impl Pattern {
    /// Compiles an ECMA-262 pattern; errors carry no path (the caller adds it).
    pub(crate) fn new(source: &str) -> Result<Pattern> {
        let ast = parse::parse(source)?;
        let (lookaheads, main, anchored) = compile::split_leading_lookaheads(ast)?;
        let lookaheads = lookaheads
            .into_iter()
            .map(|(positive, node)| {
                let node = compile::simplify(node);
                Ok((positive, Matcher::new(compile::program(&node, true)?, None)))
            })
            .collect::<Result<Vec<_>>>()?;
        let main = compile::simplify(main);
        let program = compile::program(&main, anchored)?;
        let (mut skips, mut end_window) = (None, None);
        if !program.anchored {
            skips = Skips::new(&program, literal::required(&main));
            end_window = literal::end_window(&main);
        }
        Ok(Pattern {
            lookaheads,
            main: Matcher::new(program, skips),
            end_window,
        })
    }

    /// Whether the pattern matches somewhere in `text`, as ECMA's `RegExp.prototype.test` does.
    pub(crate) fn is_match(&self, text: &str) -> bool {
        self.lookaheads
            .iter()
            .all(|(positive, m)| run(m, text, 0) == *positive)
            && {
                let from = match self.end_window {
                    Some(w) => skip::back(text, text.len(), w, 0),
                    None => 0,
                };
                run(&self.main, text, from)
            }
    }
}

/// What fuzzing compares and bounds about one match (feature `fuzzing`; not a public API).
#[cfg(any(test, feature = "fuzzing"))]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Probe {
    /// The verdict as validation gives it (skips, cached DFA, hand-over).
    pub matched: bool,
    /// The DFA alone from the start, with a cache so small it clears and hands over.
    pub small_cache: bool,
    /// The NFA simulation alone.
    pub nfa: bool,
    /// Matching steps of `matched` (instructions visited, characters stepped, bytes
    /// skipped): at most a constant times (bytes + 1) times ([`Probe::size`] + 64).
    pub work: u64,
    /// Instructions and counters over all the pattern's programs.
    pub size: usize,
}

/// Compiles `source` and matches `text` every way the engine can, counting the work of the
/// normal way (feature `fuzzing`; not a public API).
#[cfg(any(test, feature = "fuzzing"))]
pub fn probe(source: &str, text: &str) -> Result<Probe> {
    Ok(probe_compiled(&Pattern::new(source)?, text))
}

#[cfg(any(test, feature = "fuzzing"))]
fn probe_compiled(p: &Pattern, text: &str) -> Probe {
    let ways = |run: &dyn Fn(&Matcher) -> bool| {
        p.lookaheads.iter().all(|(positive, m)| run(m) == *positive) && run(&p.main)
    };
    let before = program::WORK.with(|w| w.get());
    let matched = p.is_match(text);
    let work = program::WORK.with(|w| w.get()) - before;
    let small_cache = ways(&|m| {
        let mut cache = dfa::Cache::with_limit(2048);
        match dfa::search(&m.prog, m.skips.as_ref(), &mut cache, text, 0) {
            dfa::Outcome::Answer(a) => a,
            dfa::Outcome::Handoff { at, config } => pike::run(&m.prog, text, at, &config),
        }
    });
    let nfa = ways(&|m| pike::run(&m.prog, text, 0, &[0, 1, 0]));
    let size = std::iter::once(&p.main)
        .chain(p.lookaheads.iter().map(|(_, m)| m))
        .map(|m| m.prog.insts.len() + m.prog.counters.len())
        .sum();
    Probe {
        matched,
        small_cache,
        nfa,
        work,
        size,
    }
}

/// Runs one program over `text` from byte `from`: the lazy DFA, then if it hands over, the
/// NFA simulation.
fn run(m: &Matcher, text: &str, from: usize) -> bool {
    match m
        .cache
        .with(|cache| dfa::search(&m.prog, m.skips.as_ref(), cache, text, from))
    {
        dfa::Outcome::Answer(a) => a,
        dfa::Outcome::Handoff { at, config } => pike::run(&m.prog, text, at, &config),
    }
}

fn syntax(msg: &str) -> Error {
    Error::new(
        Code::InvalidSchema,
        format!("pattern is not a valid ECMA-262 (u flag) regular expression: {msg}"),
    )
}

fn unsupported(msg: &str) -> Error {
    Error::new(Code::UnsupportedSchema, format!("pattern uses {msg}"))
}
