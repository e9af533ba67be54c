//! From syntax tree to programs: leading lookaheads split off, the tree simplified,
//! repetitions of one character class turned into counters, everything else into
//! instructions.

use super::parse::{Assert, Ast, Set};
use super::program::{Counter, Inst, Program};
use super::{unsupported, MAX_PROGRAM};
use crate::error::{Error, Result};
use std::collections::HashMap;

/// `(positive, pattern)` of each leading lookahead.
pub(crate) type Lookaheads = Vec<(bool, Ast)>;

/// Splits `^(?=A)(?!B)...C` into its lookaheads and `C` (and whether `C` is anchored);
/// refuses lookaheads anywhere else.
pub(crate) fn split_leading_lookaheads(ast: Ast) -> Result<(Lookaheads, Ast, bool)> {
    let misplaced = || unsupported("a lookahead other than right after a leading ^");
    if let Ast::Concat(terms) = &ast {
        let leading = terms
            .iter()
            .skip(1)
            .take_while(|t| matches!(t, Ast::Look { .. }))
            .count();
        if leading > 0 && matches!(terms.first(), Some(Ast::Assert(Assert::Start))) {
            let Ast::Concat(terms) = ast else {
                unreachable!("matched above")
            };
            let mut it = terms.into_iter().skip(1);
            let mut looks = Vec::with_capacity(leading);
            for t in it.by_ref().take(leading) {
                if let Ast::Look { positive, node } = t {
                    if has_look(&node) {
                        return Err(misplaced());
                    }
                    looks.push((positive, *node));
                }
            }
            let rest = Ast::Concat(it.collect());
            if has_look(&rest) {
                return Err(misplaced());
            }
            return Ok((looks, rest, true));
        }
    }
    if has_look(&ast) {
        return Err(misplaced());
    }
    Ok((Vec::new(), ast, false))
}

fn has_look(ast: &Ast) -> bool {
    // The parser bounds nesting depth, so this recursion is bounded too.
    match ast {
        Ast::Look { .. } => true,
        Ast::Concat(v) | Ast::Alt(v) => v.iter().any(has_look),
        Ast::Repeat { node, .. } => has_look(node),
        Ast::Empty | Ast::Set(_) | Ast::Assert(_) => false,
    }
}

/// Whether every match of `ast` must start at the start of the string.
fn starts_anchored(ast: &Ast) -> bool {
    match ast {
        Ast::Assert(Assert::Start) => true,
        Ast::Concat(v) => v.first().is_some_and(starts_anchored),
        Ast::Alt(v) => v.iter().all(starts_anchored),
        _ => false,
    }
}

/// Simplifies a tree without changing the strings it matches: one-term concatenations and
/// alternations unwrapped, nested concatenations flattened, alternations of single
/// characters or classes merged into one class (so `a|b|c` is one step, not three).
pub(crate) fn simplify(ast: Ast) -> Ast {
    match ast {
        Ast::Concat(terms) => {
            let mut out = Vec::with_capacity(terms.len());
            for t in terms {
                match simplify(t) {
                    Ast::Concat(inner) => out.extend(inner),
                    Ast::Empty => {}
                    t => out.push(t),
                }
            }
            match out.len() {
                0 => Ast::Empty,
                1 => out.pop().unwrap_or(Ast::Empty),
                _ => Ast::Concat(out),
            }
        }
        Ast::Alt(alts) => {
            let alts: Vec<Ast> = alts.into_iter().map(simplify).collect();
            if alts.iter().all(|a| matches!(a, Ast::Set(_))) {
                let mut ranges = Vec::new();
                for a in alts {
                    if let Ast::Set(s) = a {
                        ranges.extend(s.0);
                    }
                }
                return Ast::Set(Set::of(&ranges));
            }
            Ast::Alt(alts)
        }
        Ast::Repeat { node, min, max } => Ast::Repeat {
            node: Box::new(simplify(*node)),
            min,
            max,
        },
        Ast::Look { positive, node } => Ast::Look {
            positive,
            node: Box::new(simplify(*node)),
        },
        other => other,
    }
}

/// Compiles a simplified tree. `anchored`: matches may only start at position 0.
pub(crate) fn program(ast: &Ast, anchored: bool) -> Result<Program> {
    let mut e = Emitter::default();
    e.emit(ast)?;
    e.push(Inst::Match)?;
    Program::new(
        e.insts,
        e.sets,
        e.counters,
        anchored || starts_anchored(ast),
    )
}

fn too_large() -> Error {
    unsupported(&format!(
        "more than {MAX_PROGRAM} instructions once repetitions of groups are expanded"
    ))
}

#[derive(Default)]
struct Emitter {
    insts: Vec<Inst>,
    sets: Vec<Set>,
    ids: HashMap<Set, u32>,
    counters: Vec<Counter>,
}

impl Emitter {
    fn push(&mut self, inst: Inst) -> Result<usize> {
        if self.insts.len() >= MAX_PROGRAM {
            return Err(too_large());
        }
        self.insts.push(inst);
        Ok(self.insts.len() - 1)
    }

    fn set(&mut self, s: &Set) -> u32 {
        if let Some(&id) = self.ids.get(s) {
            return id;
        }
        let id = self.sets.len() as u32;
        self.sets.push(s.clone());
        self.ids.insert(s.clone(), id);
        id
    }

    fn here(&self) -> u32 {
        self.insts.len() as u32
    }

    fn emit(&mut self, ast: &Ast) -> Result<()> {
        match ast {
            Ast::Empty => {}
            Ast::Set(s) => {
                let id = self.set(s);
                self.push(Inst::Set(id))?;
            }
            Ast::Assert(a) => {
                self.push(Inst::Assert(*a))?;
            }
            Ast::Concat(v) => {
                for t in v {
                    self.emit(t)?;
                }
            }
            Ast::Alt(alts) => {
                let mut jumps = Vec::with_capacity(alts.len());
                for (i, alt) in alts.iter().enumerate() {
                    if i + 1 < alts.len() {
                        let split = self.push(Inst::Split(0, 0))?;
                        self.emit(alt)?;
                        jumps.push(self.push(Inst::Jmp(0))?);
                        self.insts[split] = Inst::Split(split as u32 + 1, self.here());
                    } else {
                        self.emit(alt)?;
                    }
                }
                let end = self.here();
                for j in jumps {
                    self.insts[j] = Inst::Jmp(end);
                }
            }
            Ast::Repeat { node, min, max } => self.repeat(node, *min, *max)?,
            Ast::Look { .. } => return Err(unsupported("a misplaced lookahead")),
        }
        Ok(())
    }

    fn repeat(&mut self, node: &Ast, min: u32, max: Option<u32>) -> Result<()> {
        if max == Some(0) {
            return Ok(());
        }
        if let Ast::Set(s) = node {
            if min > 1 || max.is_some_and(|m| m > 1) {
                let set = self.set(s);
                let k = self.counters.len() as u32;
                let pc = self.push(Inst::Count(k))? as u32;
                self.counters.push(Counter { set, min, max, pc });
                return Ok(());
            }
        }
        for _ in 0..min {
            let before = self.insts.len();
            self.emit(node)?;
            if self.insts.len() == before {
                break; // repeating nothing is nothing, however often
            }
        }
        match max {
            None => {
                let split = self.push(Inst::Split(0, 0))?;
                self.emit(node)?;
                self.push(Inst::Jmp(split as u32))?;
                self.insts[split] = Inst::Split(split as u32 + 1, self.here());
            }
            Some(max) => {
                let mut splits = Vec::new();
                for _ in min..max {
                    let before = self.insts.len();
                    splits.push(self.push(Inst::Split(0, 0))?);
                    self.emit(node)?;
                    if self.insts.len() == before + 1 {
                        break; // optional nothing, however often, is nothing
                    }
                }
                let end = self.here();
                for s in splits {
                    self.insts[s] = Inst::Split(s as u32 + 1, end);
                }
            }
        }
        Ok(())
    }
}
