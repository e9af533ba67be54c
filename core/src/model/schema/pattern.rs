//! `pattern`: a parser for ECMA-262 regular expressions in Unicode (`u` flag) mode, as JSON
//! Schema asks, compiled to the instructions of [`super::regex_vm`].
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

use super::regex_vm::{Assert, Inst, Program};
use crate::error::{Code, Error, Result};

/// Deepest group nesting accepted.
const MAX_GROUP_DEPTH: usize = 64;
/// Largest program, counted in instructions after counted repetitions are expanded.
pub(crate) const MAX_PROGRAM: usize = 20_000;
const MAX_CHAR: u32 = 0x10FFFF;

/// A compiled `pattern`: an unanchored search, with optional leading lookaheads.
#[derive(Clone, Debug)]
pub(crate) struct Pattern {
    /// `(must_match, program)` for each leading lookahead, run anchored at the start.
    lookaheads: Vec<(bool, Program)>,
    main: Program,
    /// True when the pattern started with `^` followed by lookaheads: `main` is then
    /// run anchored at the start.
    anchored: bool,
}

impl Pattern {
    /// Compiles an ECMA-262 pattern; errors carry no path (the caller adds it).
    pub(crate) fn new(source: &str) -> Result<Pattern> {
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
        let (lookaheads, main, anchored) = split_leading_lookaheads(ast)?;
        let lookaheads = lookaheads
            .into_iter()
            .map(|(positive, node)| Ok((positive, compile(&node)?)))
            .collect::<Result<Vec<_>>>()?;
        Ok(Pattern {
            lookaheads,
            main: compile(&main)?,
            anchored,
        })
    }

    /// Whether the pattern matches somewhere in `text`, as ECMA's `RegExp.prototype.test` does.
    pub(crate) fn is_match(&self, text: &str) -> bool {
        thread_local! {
            static CHARS: std::cell::RefCell<Vec<char>> = std::cell::RefCell::default();
        }
        let run = |chars: &[char]| {
            self.lookaheads
                .iter()
                .all(|(positive, prog)| prog.is_match(chars, true) == *positive)
                && self.main.is_match(chars, self.anchored)
        };
        CHARS.with(|cell| match cell.try_borrow_mut() {
            Ok(mut chars) => {
                chars.clear();
                chars.extend(text.chars());
                let matched = run(&chars);
                // Keep small buffers for reuse, not the memory of one huge string.
                if chars.capacity() > 1 << 16 {
                    *chars = Vec::new();
                }
                matched
            }
            Err(_) => run(&text.chars().collect::<Vec<_>>()),
        })
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

/// A set of code points as sorted, non-overlapping, non-adjacent inclusive ranges.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Set(pub(crate) Vec<(u32, u32)>);

impl Set {
    fn of(ranges: &[(u32, u32)]) -> Set {
        let mut s = Set(ranges.to_vec());
        s.normalize();
        s
    }

    fn normalize(&mut self) {
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

    fn complement(&self) -> Set {
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
const SPACE: &[(u32, u32)] = &[
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
const DIGIT: &[(u32, u32)] = &[(0x30, 0x39)];
const WORD: &[(u32, u32)] = &[(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)];
/// What `.` excludes without the `s` flag: the line terminators.
const LINE_TERMINATORS: &[(u32, u32)] = &[(0x0A, 0x0A), (0x0D, 0x0D), (0x2028, 0x2029)];

#[derive(Clone, Debug)]
enum Ast {
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

/// `(positive, pattern)` of each leading lookahead.
type Lookaheads = Vec<(bool, Ast)>;

/// Splits `^(?=A)(?!B)...C` into its lookaheads and `C` (and whether `C` is anchored);
/// refuses lookaheads anywhere else.
fn split_leading_lookaheads(ast: Ast) -> Result<(Lookaheads, Ast, bool)> {
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

fn compile(ast: &Ast) -> Result<Program> {
    let mut prog = Vec::new();
    emit(ast, &mut prog)?;
    prog.push(Inst::Match);
    Ok(Program::new(prog))
}

fn too_large() -> Error {
    unsupported(&format!(
        "more than {MAX_PROGRAM} instructions once repetitions are expanded"
    ))
}

fn push(prog: &mut Vec<Inst>, inst: Inst) -> Result<usize> {
    if prog.len() >= MAX_PROGRAM {
        return Err(too_large());
    }
    prog.push(inst);
    Ok(prog.len() - 1)
}

fn emit(ast: &Ast, prog: &mut Vec<Inst>) -> Result<()> {
    match ast {
        Ast::Empty => {}
        Ast::Set(s) => {
            push(prog, Inst::Set(s.0.clone().into_boxed_slice()))?;
        }
        Ast::Assert(a) => {
            push(prog, Inst::Assert(*a))?;
        }
        Ast::Concat(v) => {
            for t in v {
                emit(t, prog)?;
            }
        }
        Ast::Alt(alts) => {
            let mut jumps = Vec::with_capacity(alts.len());
            for (i, alt) in alts.iter().enumerate() {
                if i + 1 < alts.len() {
                    let split = push(prog, Inst::Split(0, 0))?;
                    emit(alt, prog)?;
                    jumps.push(push(prog, Inst::Jmp(0))?);
                    prog[split] = Inst::Split(split + 1, prog.len());
                } else {
                    emit(alt, prog)?;
                }
            }
            let end = prog.len();
            for j in jumps {
                prog[j] = Inst::Jmp(end);
            }
        }
        Ast::Repeat { node, min, max } => {
            for _ in 0..*min {
                let before = prog.len();
                emit(node, prog)?;
                if prog.len() == before {
                    break; // repeating nothing is nothing, however often
                }
            }
            match max {
                None => {
                    let split = push(prog, Inst::Split(0, 0))?;
                    emit(node, prog)?;
                    push(prog, Inst::Jmp(split))?;
                    prog[split] = Inst::Split(split + 1, prog.len());
                }
                Some(max) => {
                    let mut splits = Vec::new();
                    for _ in *min..*max {
                        splits.push(push(prog, Inst::Split(0, 0))?);
                        emit(node, prog)?;
                    }
                    let end = prog.len();
                    for s in splits {
                        prog[s] = Inst::Split(s + 1, end);
                    }
                }
            }
        }
        Ast::Look { .. } => return Err(unsupported("a misplaced lookahead")),
    }
    Ok(())
}
