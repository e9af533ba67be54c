//! Parsing ECMA-262 pattern text (`u` flag) into a syntax tree, with ECMA's errors:
//! invalid `u`-mode text is [`Code::InvalidSchema`], valid ECMA outside the engine's subset
//! is [`Code::UnsupportedSchema`].

use super::{syntax, unsupported, MAX_CHAR};
#[cfg(doc)]
use crate::error::Code;
use crate::error::Result;

/// Deepest group nesting accepted: the parser and the passes over the syntax tree recurse
/// once per group, about 1 KB of stack each (`core/tests/stack.rs` runs a schema nested to
/// its limit ending in such a pattern).
const MAX_GROUP_DEPTH: usize = 32;

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

/// A set of code points as sorted, non-overlapping, non-adjacent inclusive ranges.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Set(pub(crate) Vec<(u32, u32)>);

impl Set {
    pub(crate) fn of(ranges: &[(u32, u32)]) -> Set {
        let mut s = Set(ranges.to_vec());
        s.normalize();
        s
    }

    pub(crate) fn normalize(&mut self) {
        self.0.sort_unstable();
        let mut out: Vec<(u32, u32)> = Vec::with_capacity(self.0.len());
        for &(lo, hi) in &self.0 {
            match out.last_mut() {
                Some(last) if lo <= last.1.saturating_add(1) => last.1 = last.1.max(hi),
                _ => out.push((lo, hi)),
            }
        }
        self.0 = out;
    }

    pub(crate) fn complement(&self) -> Set {
        let mut out = Vec::with_capacity(self.0.len() + 1);
        let mut next = 0u32;
        for &(lo, hi) in &self.0 {
            if lo > next {
                out.push((next, lo - 1));
            }
            next = hi.saturating_add(1);
        }
        if next <= MAX_CHAR {
            out.push((next, MAX_CHAR));
        }
        Set(out)
    }
}

/// ECMA `WhiteSpace` and `LineTerminator`: what `\s` matches.
pub(crate) const SPACE: &[(u32, u32)] = &[
    (0x09, 0x0D),
    (0x20, 0x20),
    (0xA0, 0xA0),
    (0x1680, 0x1680),
    (0x2000, 0x200A),
    (0x2028, 0x2029),
    (0x202F, 0x202F),
    (0x205F, 0x205F),
    (0x3000, 0x3000),
    (0xFEFF, 0xFEFF),
];
pub(crate) const DIGIT: &[(u32, u32)] = &[(0x30, 0x39)];
pub(crate) const WORD: &[(u32, u32)] = &[(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)];
/// What `.` excludes without the `s` flag: the line terminators.
pub(crate) const LINE_TERMINATORS: &[(u32, u32)] = &[(0x0A, 0x0A), (0x0D, 0x0D), (0x2028, 0x2029)];

/// The syntax tree of a pattern.
#[derive(Clone, Debug)]
pub(crate) enum Ast {
    Empty,
    Set(Set),
    Assert(Assert),
    Concat(Vec<Ast>),
    Alt(Vec<Ast>),
    Repeat {
        node: Box<Ast>,
        min: u32,
        max: Option<u32>,
    },
    Look {
        positive: bool,
        node: Box<Ast>,
    },
}

/// Parses a whole pattern.
pub(crate) fn parse(source: &str) -> Result<Ast> {
    let mut p = Parser {
        s: source.chars().collect(),
        pos: 0,
        names: Vec::new(),
    };
    let ast = p.disjunction(0)?;
    if p.pos < p.s.len() {
        // Only an unmatched `)` stops a top-level disjunction early.
        return Err(syntax("unmatched ')'"));
    }
    Ok(ast)
}

/// One class atom: a single code point or a class escape such as `\d`.
enum ClassAtom {
    Char(u32),
    Set(Set),
}

struct Parser {
    s: Vec<char>,
    pos: usize,
    names: Vec<String>,
}

const SYNTAX_CHARS: &str = "^$\\.*+?()[]{}|";

impl Parser {
    fn peek(&self) -> Option<char> {
        self.s.get(self.pos).copied()
    }

    fn peek_at(&self, k: usize) -> Option<char> {
        self.s.get(self.pos + k).copied()
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn next(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += 1;
        Some(c)
    }

    fn disjunction(&mut self, depth: usize) -> Result<Ast> {
        if depth > MAX_GROUP_DEPTH {
            return Err(unsupported(&format!(
                "groups nested more than {MAX_GROUP_DEPTH} deep"
            )));
        }
        let mut alts = vec![self.alternative(depth)?];
        while self.eat('|') {
            alts.push(self.alternative(depth)?);
        }
        Ok(if alts.len() == 1 {
            alts.pop().unwrap_or(Ast::Empty)
        } else {
            Ast::Alt(alts)
        })
    }

    fn alternative(&mut self, depth: usize) -> Result<Ast> {
        let mut terms = Vec::new();
        while let Some(c) = self.peek() {
            if c == '|' || c == ')' {
                break;
            }
            terms.push(self.term(depth)?);
        }
        Ok(Ast::Concat(terms))
    }

    fn term(&mut self, depth: usize) -> Result<Ast> {
        let c = self.next().ok_or_else(|| syntax("unexpected end"))?;
        let atom = match c {
            '^' => return self.unquantifiable(Ast::Assert(Assert::Start)),
            '$' => return self.unquantifiable(Ast::Assert(Assert::End)),
            '\\' if self.eat('b') => return self.unquantifiable(Ast::Assert(Assert::Word)),
            '\\' if self.eat('B') => return self.unquantifiable(Ast::Assert(Assert::NotWord)),
            '\\' => match self.atom_escape()? {
                ClassAtom::Char(c) => Ast::Set(Set::of(&[(c, c)])),
                ClassAtom::Set(s) => Ast::Set(s),
            },
            '(' => match self.group(depth)? {
                look @ Ast::Look { .. } => return self.unquantifiable(look),
                g => g,
            },
            '[' => Ast::Set(self.class()?),
            '.' => Ast::Set(Set::of(LINE_TERMINATORS).complement()),
            '*' | '+' | '?' | '{' => return Err(syntax("nothing to repeat")),
            ')' => return Err(syntax("unmatched ')'")),
            ']' | '}' => return Err(syntax(&format!("lone '{c}'"))),
            c => Ast::Set(Set::of(&[(c as u32, c as u32)])),
        };
        self.quantifier(atom)
    }

    /// Assertions cannot be quantified in `u` mode.
    fn unquantifiable(&mut self, node: Ast) -> Result<Ast> {
        match self.peek() {
            Some('*' | '+' | '?' | '{') => Err(syntax("nothing to repeat")),
            _ => Ok(node),
        }
    }

    fn quantifier(&mut self, atom: Ast) -> Result<Ast> {
        let (min, max) = match self.peek() {
            Some('*') => (0, None),
            Some('+') => (1, None),
            Some('?') => (0, Some(1)),
            Some('{') => {
                self.pos += 1;
                let min = self
                    .number()
                    .ok_or_else(|| syntax("incomplete quantifier"))?;
                let max = if self.eat(',') {
                    if self.peek() == Some('}') {
                        None
                    } else {
                        Some(
                            self.number()
                                .ok_or_else(|| syntax("incomplete quantifier"))?,
                        )
                    }
                } else {
                    Some(min)
                };
                if self.peek() != Some('}') {
                    return Err(syntax("incomplete quantifier"));
                }
                if max.is_some_and(|m| m < min) {
                    return Err(syntax("numbers out of order in {} quantifier"));
                }
                (min, max)
            }
            _ => return Ok(atom),
        };
        self.pos += 1;
        self.eat('?'); // lazy: the same strings match
        if matches!(self.peek(), Some('*' | '+' | '?' | '{')) {
            return Err(syntax("nothing to repeat"));
        }
        Ok(Ast::Repeat {
            node: Box::new(atom),
            min,
            max,
        })
    }

    /// Decimal digits, saturating.
    fn number(&mut self) -> Option<u32> {
        let start = self.pos;
        let mut n: u32 = 0;
        while let Some(d) = self.peek().and_then(|c| c.to_digit(10)) {
            n = n.saturating_mul(10).saturating_add(d);
            self.pos += 1;
        }
        (self.pos > start).then_some(n)
    }

    fn group(&mut self, depth: usize) -> Result<Ast> {
        let mut look = None;
        if self.eat('?') {
            match self.next() {
                Some(':') => {}
                Some('=') => look = Some(true),
                Some('!') => look = Some(false),
                Some('<') if matches!(self.peek(), Some('=' | '!')) => {
                    return Err(unsupported("a lookbehind"))
                }
                Some('<') => self.group_name()?,
                _ => return Err(unsupported(
                    "a group form other than (...), (?:...), (?<name>...) and leading lookaheads",
                )),
            }
        }
        let inner = self.disjunction(depth + 1)?;
        if !self.eat(')') {
            return Err(syntax("unterminated group"));
        }
        Ok(match look {
            Some(positive) => Ast::Look {
                positive,
                node: Box::new(inner),
            },
            None => inner,
        })
    }

    fn group_name(&mut self) -> Result<()> {
        let mut name = String::new();
        loop {
            match self.next() {
                Some('>') if !name.is_empty() => break,
                Some(c) if c.is_ascii_alphabetic() || c == '_' || c == '$' => name.push(c),
                Some(c) if c.is_ascii_digit() && !name.is_empty() => name.push(c),
                Some(c) if !c.is_ascii() || c == '\\' => {
                    return Err(unsupported(
                        "a group name beyond ASCII letters, digits, _ and $",
                    ))
                }
                _ => return Err(syntax("invalid capture group name")),
            }
        }
        if self.names.contains(&name) {
            return Err(syntax("duplicate capture group name"));
        }
        self.names.push(name);
        Ok(())
    }

    /// After `\` outside a class.
    fn atom_escape(&mut self) -> Result<ClassAtom> {
        match self.peek() {
            Some('1'..='9') => Err(unsupported("a backreference")),
            Some('k') => Err(unsupported("a named backreference")),
            _ => self.char_or_class_escape(false),
        }
    }

    /// The escapes common to atoms and classes, after `\`.
    fn char_or_class_escape(&mut self, in_class: bool) -> Result<ClassAtom> {
        let c = self.next().ok_or_else(|| syntax("\\ at end of pattern"))?;
        let ch = |c: char| Ok(ClassAtom::Char(c as u32));
        match c {
            'd' => Ok(ClassAtom::Set(Set::of(DIGIT))),
            'D' => Ok(ClassAtom::Set(Set::of(DIGIT).complement())),
            'w' => Ok(ClassAtom::Set(Set::of(WORD))),
            'W' => Ok(ClassAtom::Set(Set::of(WORD).complement())),
            's' => Ok(ClassAtom::Set(Set::of(SPACE))),
            'S' => Ok(ClassAtom::Set(Set::of(SPACE).complement())),
            'p' | 'P' => Err(unsupported("a Unicode property escape (\\p{..})")),
            't' => ch('\t'),
            'n' => ch('\n'),
            'v' => ch('\u{B}'),
            'f' => ch('\u{C}'),
            'r' => ch('\r'),
            'b' if in_class => ch('\u{8}'),
            '-' if in_class => ch('-'),
            '0' if !self.peek().is_some_and(|d| d.is_ascii_digit()) => ch('\0'),
            'c' => match self.next() {
                Some(l) if l.is_ascii_alphabetic() => Ok(ClassAtom::Char(l as u32 % 32)),
                _ => Err(syntax("\\c must be followed by an ASCII letter")),
            },
            'x' => {
                let v = self
                    .hex_digits(2)
                    .ok_or_else(|| syntax("\\x needs two hex digits"))?;
                Ok(ClassAtom::Char(v))
            }
            'u' => self.unicode_escape().map(ClassAtom::Char),
            c if SYNTAX_CHARS.contains(c) || c == '/' => ch(c),
            _ => Err(syntax(&format!("invalid escape \\{c}"))),
        }
    }

    fn hex_digits(&mut self, n: usize) -> Option<u32> {
        let mut v = 0;
        for k in 0..n {
            v = v * 16 + self.peek_at(k)?.to_digit(16)?;
        }
        self.pos += n;
        Some(v)
    }

    /// After `\u`: `{H..}`, or four hex digits (a surrogate pair written as two escapes is
    /// one code point, as in `u` mode).
    fn unicode_escape(&mut self) -> Result<u32> {
        if self.eat('{') {
            let mut v: u32 = 0;
            let start = self.pos;
            while let Some(d) = self.peek().and_then(|c| c.to_digit(16)) {
                v = v.saturating_mul(16).saturating_add(d);
                self.pos += 1;
            }
            if self.pos == start || !self.eat('}') || v > MAX_CHAR {
                return Err(syntax("invalid \\u{...} escape"));
            }
            return Ok(v);
        }
        let v = self
            .hex_digits(4)
            .ok_or_else(|| syntax("\\u needs four hex digits"))?;
        if (0xD800..0xDC00).contains(&v)
            && self.peek() == Some('\\')
            && self.peek_at(1) == Some('u')
        {
            let save = self.pos;
            self.pos += 2;
            match self.hex_digits(4) {
                Some(lo) if (0xDC00..0xE000).contains(&lo) => {
                    return Ok(0x10000 + ((v - 0xD800) << 10) + (lo - 0xDC00));
                }
                _ => self.pos = save,
            }
        }
        // A lone surrogate stays a code point no string here can contain.
        Ok(v)
    }

    /// After `[`.
    fn class(&mut self) -> Result<Set> {
        let negate = self.eat('^');
        let mut set = Set(Vec::new());
        loop {
            let a = match self.next() {
                None => return Err(syntax("unterminated character class")),
                Some(']') => break,
                Some(c) => self.class_atom(c)?,
            };
            let is_range = self.peek() == Some('-') && !matches!(self.peek_at(1), None | Some(']'));
            if !is_range {
                push_atom(&mut set, a);
                continue;
            }
            self.pos += 1;
            let c = self
                .next()
                .ok_or_else(|| syntax("unterminated character class"))?;
            let b = self.class_atom(c)?;
            match (a, b) {
                (ClassAtom::Char(lo), ClassAtom::Char(hi)) if lo <= hi => set.0.push((lo, hi)),
                (ClassAtom::Char(_), ClassAtom::Char(_)) => {
                    return Err(syntax("range out of order in character class"))
                }
                _ => return Err(syntax("a class escape cannot bound a range")),
            }
        }
        set.normalize();
        Ok(if negate { set.complement() } else { set })
    }

    fn class_atom(&mut self, c: char) -> Result<ClassAtom> {
        if c != '\\' {
            return Ok(ClassAtom::Char(c as u32));
        }
        match self.peek() {
            Some('B') | Some('1'..='9') | Some('k') => Err(syntax("invalid escape in class")),
            _ => self.char_or_class_escape(true),
        }
    }
}

fn push_atom(set: &mut Set, a: ClassAtom) {
    match a {
        ClassAtom::Char(c) => set.0.push((c, c)),
        ClassAtom::Set(s) => set.0.extend(s.0),
    }
}
