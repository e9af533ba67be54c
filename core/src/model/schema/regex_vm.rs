//! A Pike VM: runs a compiled pattern over a string's code points in time proportional to
//! the string's length times the program's size, with no backtracking (so no pattern can
//! take exponential time) and no recursion.

/// A zero-width assertion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Assert {
    /// `^`: the start of the string.
    Start,
    /// `$`: the end of the string.
    End,
    /// `\b`: between a word character (`[A-Za-z0-9_]`) and a non-word character or an end.
    Word,
    /// `\B`: not at a word boundary.
    NotWord,
}

/// One instruction.
#[derive(Clone, Debug)]
pub(crate) enum Inst {
    /// Consume one code point in these sorted inclusive ranges.
    Set(Box<[(u32, u32)]>),
    /// Continue at both targets.
    Split(usize, usize),
    /// Continue at the target.
    Jmp(usize),
    /// Continue only where the assertion holds.
    Assert(Assert),
    /// A match.
    Match,
}

/// A compiled program; its entry point is instruction 0.
#[derive(Clone, Debug)]
pub(crate) struct Program {
    insts: Box<[Inst]>,
}

/// A set of instruction indices with O(1) insert, membership and clear.
#[derive(Default)]
struct Threads {
    dense: Vec<usize>,
    sparse: Vec<usize>,
}

/// The matcher's working memory, kept per thread so that matching allocates nothing once
/// warm (tool arguments are validated on every permit check).
#[derive(Default)]
struct Scratch {
    current: Threads,
    next: Threads,
    stack: Vec<usize>,
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::default();
}

impl Threads {
    /// Empties the set and makes room for program counters below `n`.
    fn reset(&mut self, n: usize) {
        self.dense.clear();
        if self.sparse.len() < n {
            self.sparse.resize(n, 0);
        }
    }

    fn insert(&mut self, pc: usize) -> bool {
        let i = self.sparse[pc];
        if i < self.dense.len() && self.dense[i] == pc {
            return false;
        }
        self.sparse[pc] = self.dense.len();
        self.dense.push(pc);
        true
    }
}

fn is_word(c: Option<char>) -> bool {
    c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn in_set(ranges: &[(u32, u32)], c: u32) -> bool {
    match ranges.binary_search_by(|&(lo, _)| lo.cmp(&c)) {
        Ok(_) => true,
        Err(0) => false,
        Err(i) => c <= ranges[i - 1].1,
    }
}

impl Program {
    /// Wraps instructions whose jump targets are all within `insts` (the last one is `Match`).
    pub(crate) fn new(insts: Vec<Inst>) -> Program {
        Program {
            insts: insts.into_boxed_slice(),
        }
    }

    /// Whether the program matches `text` starting at position 0 (`anchored`) or anywhere.
    pub(crate) fn is_match(&self, text: &[char], anchored: bool) -> bool {
        SCRATCH.with(|cell| match cell.try_borrow_mut() {
            Ok(mut scratch) => self.run(text, anchored, &mut scratch),
            // Only reached if matching ever re-entered itself; stay correct regardless.
            Err(_) => self.run(text, anchored, &mut Scratch::default()),
        })
    }

    fn run(&self, text: &[char], anchored: bool, scratch: &mut Scratch) -> bool {
        let n = self.insts.len();
        let Scratch {
            current,
            next,
            stack,
        } = scratch;
        current.reset(n);
        next.reset(n);
        for pos in 0..=text.len() {
            if (pos == 0 || !anchored) && self.add(current, stack, 0, text, pos) {
                return true;
            }
            if current.dense.is_empty() {
                if anchored {
                    return false;
                }
                continue;
            }
            let Some(&c) = text.get(pos) else { break };
            for i in 0..current.dense.len() {
                let pc = current.dense[i];
                if let Inst::Set(ranges) = &self.insts[pc] {
                    if in_set(ranges, c as u32) && self.add(next, stack, pc + 1, text, pos + 1) {
                        return true;
                    }
                }
            }
            std::mem::swap(current, next);
            next.dense.clear();
        }
        false
    }

    /// Adds the threads reachable from `pc` without consuming input; true on reaching `Match`.
    fn add(
        &self,
        list: &mut Threads,
        stack: &mut Vec<usize>,
        pc: usize,
        text: &[char],
        pos: usize,
    ) -> bool {
        stack.clear();
        stack.push(pc);
        while let Some(pc) = stack.pop() {
            if !list.insert(pc) {
                continue;
            }
            match &self.insts[pc] {
                Inst::Match => return true,
                Inst::Set(_) => {}
                Inst::Jmp(t) => stack.push(*t),
                Inst::Split(a, b) => {
                    stack.push(*b);
                    stack.push(*a);
                }
                Inst::Assert(a) => {
                    let prev = pos.checked_sub(1).and_then(|p| text.get(p).copied());
                    let here = text.get(pos).copied();
                    let holds = match a {
                        Assert::Start => pos == 0,
                        Assert::End => pos == text.len(),
                        Assert::Word => is_word(prev) != is_word(here),
                        Assert::NotWord => is_word(prev) == is_word(here),
                    };
                    if holds {
                        stack.push(pc + 1);
                    }
                }
            }
        }
        false
    }
}
