//! What a pattern's tree says about where a match can be, so that a search can skip text:
//! a literal every match contains (with how far into the match it can start), and, for a
//! pattern that must end at the end of the string, how long a match can be.

use super::parse::{Assert, Ast};

/// A literal that every match contains, starting at most `max_offset` characters after the
/// start of the match (`None`: no bound).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Required {
    pub literal: String,
    pub max_offset: Option<u64>,
}

/// Fewest and most characters a match of `ast` consumes (`None`: no bound).
pub(crate) fn width(ast: &Ast) -> (u64, Option<u64>) {
    match ast {
        Ast::Empty | Ast::Assert(_) | Ast::Look { .. } => (0, Some(0)),
        Ast::Set(_) => (1, Some(1)),
        Ast::Concat(v) => v.iter().map(width).fold((0, Some(0)), |(a, b), (c, d)| {
            (
                a.saturating_add(c),
                b.zip(d).and_then(|(b, d)| b.checked_add(d)),
            )
        }),
        Ast::Alt(v) => {
            let mut min = u64::MAX;
            let mut max = Some(0);
            for (lo, hi) in v.iter().map(width) {
                min = min.min(lo);
                max = max.zip(hi).map(|(a, b)| a.max(b));
            }
            (if v.is_empty() { 0 } else { min }, max)
        }
        Ast::Repeat { node, min, max } => {
            let (lo, hi) = width(node);
            let most = match (hi, max) {
                (Some(0), _) => Some(0),
                (Some(h), Some(m)) => h.checked_mul(u64::from(*m)),
                _ => None,
            };
            (lo.saturating_mul(u64::from(*min)), most)
        }
    }
}

/// The literal to look for before searching: the one with a bounded offset if there is one,
/// then the longest.
pub(crate) fn required(ast: &Ast) -> Option<Required> {
    let mut found = Vec::new();
    candidates(ast, Some(0), &mut found);
    found.into_iter().max_by_key(|r| {
        (
            r.max_offset.is_some(),
            r.literal.chars().count(),
            std::cmp::Reverse(r.max_offset),
        )
    })
}

/// Collects literals every match of `ast` contains, their offsets counted from `offset`
/// (the most characters before the start of `ast`'s match, within the whole match).
fn candidates(ast: &Ast, offset: Option<u64>, out: &mut Vec<Required>) {
    match ast {
        Ast::Set(s) => {
            if let Some(c) = single(s) {
                out.push(Required {
                    literal: c.to_string(),
                    max_offset: offset,
                });
            }
        }
        Ast::Concat(terms) => {
            let mut before = offset;
            let mut run = String::new();
            let mut run_offset = before;
            for t in terms {
                if let Some(c) = match t {
                    Ast::Set(s) => single(s),
                    _ => None,
                } {
                    if run.is_empty() {
                        run_offset = before;
                    }
                    run.push(c);
                } else {
                    flush(&mut run, run_offset, out);
                    candidates(t, before, out);
                }
                before = before.zip(width(t).1).and_then(|(a, b)| a.checked_add(b));
            }
            flush(&mut run, run_offset, out);
        }
        Ast::Repeat { node, min, .. } if *min >= 1 => candidates(node, offset, out),
        // Alternations, optional parts, assertions: nothing every match must contain.
        _ => {}
    }
}

fn flush(run: &mut String, offset: Option<u64>, out: &mut Vec<Required>) {
    if !run.is_empty() {
        out.push(Required {
            literal: std::mem::take(run),
            max_offset: offset,
        });
    }
}

/// The one character a set holds, if it holds one.
fn single(s: &super::parse::Set) -> Option<char> {
    match s.0.as_slice() {
        [(lo, hi)] if lo == hi => char::from_u32(*lo),
        _ => None,
    }
}

/// For a pattern every match of which ends at the end of the string (`...$`), the most
/// characters a match can have.
pub(crate) fn end_window(ast: &Ast) -> Option<u64> {
    let ends = match ast {
        Ast::Assert(Assert::End) => true,
        Ast::Concat(v) => matches!(v.last(), Some(Ast::Assert(Assert::End))),
        _ => false,
    };
    if ends {
        width(ast).1
    } else {
        None
    }
}
