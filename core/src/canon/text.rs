//! The canonical form of JSON text without building a [`crate::Value`].
//!
//! One pass reads the text into a flat tape of pieces to copy (spans of the input, or text
//! made when a string had escapes or a number needed conversion), sorting each object's
//! members when it closes; a second pass writes the pieces in canonical order to a [`Sink`].
//! Nothing is allocated per value, and strings and most numbers are copied from the input
//! as they are (see [`number::scan_short`]).
//!
//! This path accepts only input that [`crate::parse`] accepts and writes exactly what
//! [`crate::canonicalize`] writes for it. For anything else it gives up, and the caller runs
//! the full parser, which reports the error with its code, path and offset; so errors have
//! one source, and a bug here can make an input slower but not change an error.

use super::{write_string, Sink};
use crate::keyorder::{cmp_prefix, cmp_utf16, prefix};
use crate::number::{self, write_number};
use crate::options::Options;
use crate::parse::read_string;
use crate::scan::find_special;
use std::cmp::Ordering;

/// Writes the canonical form of `input` to `out` and returns `true`, or returns `false`
/// without writing anything if `input` is not accepted (it is invalid, or over 4 GiB).
pub(crate) fn canonicalize_text<S: Sink>(input: &[u8], options: &Options, out: &mut S) -> bool {
    if input.len() > options.max_bytes || u32::try_from(input.len()).is_err() {
        return false;
    }
    let Ok(s) = std::str::from_utf8(input) else {
        return false;
    };
    let mut tape = Tape {
        s,
        b: input,
        pos: 0,
        options,
        // About one node per 8 bytes of typical JSON; growth covers the rest.
        nodes: Vec::with_capacity(input.len() / 8 + 1),
        members: Vec::new(),
        open: Vec::new(),
        arena: String::new(),
    };
    if tape.document().is_none() {
        return false;
    }
    tape.emit(0, out);
    true
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tag {
    /// Copy `s[a..b]`: a string without escapes (quotes included), a literal, or a number
    /// whose canonical text is part of its token.
    Input,
    /// Write `arena[a..b]`, a string's decoded value, as a canonical string.
    Decoded,
    /// Copy `arena[a..b]`, a number's canonical text.
    Converted,
    /// An array whose items follow; `a` is the index just after its last descendant.
    Array,
    /// An object whose members (key node, then value) follow in input order; `a` is the index
    /// just after its last descendant, and `members[b]` is the number of members, followed by
    /// their key nodes in canonical order.
    Object,
}

#[derive(Clone, Copy, Debug)]
struct Node {
    tag: Tag,
    a: u32,
    b: u32,
}

/// A member of an object still being read: its key node and the key's first 8 bytes.
#[derive(Clone, Copy, Debug)]
struct Member {
    prefix: u64,
    key: u32,
}

struct Tape<'a, 'o> {
    s: &'a str,
    b: &'a [u8],
    pos: usize,
    options: &'o Options,
    nodes: Vec<Node>,
    /// For each object, its member count and then its key nodes in canonical order.
    members: Vec<u32>,
    /// Members of the objects being read, innermost last.
    open: Vec<Member>,
    /// Decoded strings and converted numbers.
    arena: String,
}

/// The text of a key node (without quotes), given the tape's parts so that a sort can borrow
/// them while the member list is borrowed mutably.
fn key_text<'t>(nodes: &[Node], s: &'t str, arena: &'t str, key: u32) -> &'t str {
    let n = nodes[key as usize];
    let (a, b) = (n.a as usize, n.b as usize);
    match n.tag {
        Tag::Input => &s[a + 1..b - 1],
        _ => &arena[a..b],
    }
}

impl Tape<'_, '_> {
    /// Input offsets fit in `u32` (checked on entry).
    #[inline]
    fn push_input(&mut self, start: usize, end: usize) {
        self.nodes.push(Node {
            tag: Tag::Input,
            a: start as u32,
            b: end as u32,
        });
    }

    fn push_arena(&mut self, tag: Tag, start: usize) -> Option<()> {
        self.nodes.push(Node {
            tag,
            a: u32::try_from(start).ok()?,
            b: u32::try_from(self.arena.len()).ok()?,
        });
        Some(())
    }

    #[inline]
    fn peek(&self) -> Option<u8> {
        self.b.get(self.pos).copied()
    }

    #[inline]
    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.b.get(self.pos) {
            self.pos += 1;
        }
    }

    fn document(&mut self) -> Option<()> {
        self.skip_ws();
        self.value(0)?;
        self.skip_ws();
        (self.pos == self.b.len()).then_some(())
    }

    fn value(&mut self, depth: usize) -> Option<()> {
        match self.peek()? {
            b'"' => self.string(),
            b'-' | b'0'..=b'9' => self.number(),
            b'{' => self.object(depth),
            b'[' => self.array(depth),
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            b'n' => self.literal(b"null"),
            _ => None,
        }
    }

    fn literal(&mut self, word: &[u8]) -> Option<()> {
        if !self.b[self.pos..].starts_with(word) {
            return None;
        }
        self.push_input(self.pos, self.pos + word.len());
        self.pos += word.len();
        Some(())
    }

    fn number(&mut self) -> Option<()> {
        let start = self.pos;
        if let Some((end, canon_start, canon_end)) = number::scan_short(self.b, start) {
            self.push_input(canon_start, canon_end);
            self.pos = end;
            return Some(());
        }
        let (end, simple) = number::scan(self.b, start).ok()?;
        let n = number::from_token(&self.s[start..end], simple, self.options.profile).ok()?;
        let at = self.arena.len();
        write_number(n.as_f64(), &mut self.arena);
        self.pos = end;
        self.push_arena(Tag::Converted, at)
    }

    /// A string at its opening quote.
    fn string(&mut self) -> Option<()> {
        let open = self.pos;
        let end = find_special(self.b, open + 1);
        match self.b.get(end) {
            Some(b'"') => {
                self.push_input(open, end + 1);
                self.pos = end + 1;
                Some(())
            }
            Some(b'\\') => {
                let (value, next) = read_string(self.s, open, self.options).ok()?;
                let at = self.arena.len();
                self.arena.push_str(&value);
                self.pos = next;
                self.push_arena(Tag::Decoded, at)
            }
            _ => None,
        }
    }

    fn array(&mut self, depth: usize) -> Option<()> {
        if depth >= self.options.max_depth {
            return None;
        }
        let at = self.nodes.len();
        self.nodes.push(Node {
            tag: Tag::Array,
            a: 0,
            b: 0,
        });
        self.pos += 1;
        self.skip_ws();
        if self.peek() == Some(b']') {
            self.pos += 1;
        } else {
            loop {
                self.value(depth + 1)?;
                self.skip_ws();
                match self.peek() {
                    Some(b',') => {
                        self.pos += 1;
                        self.skip_ws();
                    }
                    Some(b']') => {
                        self.pos += 1;
                        break;
                    }
                    _ => return None,
                }
            }
        }
        self.nodes[at].a = self.nodes.len() as u32;
        Some(())
    }

    fn object(&mut self, depth: usize) -> Option<()> {
        if depth >= self.options.max_depth {
            return None;
        }
        let at = self.nodes.len();
        self.nodes.push(Node {
            tag: Tag::Object,
            a: 0,
            b: 0,
        });
        self.pos += 1;
        self.skip_ws();
        let base = self.open.len();
        if self.peek() == Some(b'}') {
            self.pos += 1;
        } else {
            loop {
                if self.peek() != Some(b'"') {
                    return None;
                }
                let key = self.nodes.len() as u32;
                self.string()?;
                let prefix = prefix(key_text(&self.nodes, self.s, &self.arena, key).as_bytes());
                self.skip_ws();
                if self.peek() != Some(b':') {
                    return None;
                }
                self.pos += 1;
                self.skip_ws();
                self.value(depth + 1)?;
                self.open.push(Member { prefix, key });
                self.skip_ws();
                match self.peek() {
                    Some(b',') => {
                        self.pos += 1;
                        self.skip_ws();
                    }
                    Some(b'}') => {
                        self.pos += 1;
                        break;
                    }
                    _ => return None,
                }
            }
        }
        let (nodes, s, arena) = (&self.nodes, self.s, self.arena.as_str());
        let cmp = |x: &Member, y: &Member| match cmp_prefix(x.prefix, y.prefix) {
            Ordering::Equal => cmp_utf16(
                key_text(nodes, s, arena, x.key),
                key_text(nodes, s, arena, y.key),
            ),
            o => o,
        };
        let members = &mut self.open[base..];
        members.sort_unstable_by(cmp);
        if members.windows(2).any(|w| cmp(&w[0], &w[1]) == Ordering::Equal) {
            return None;
        }
        let list = self.members.len();
        self.members.push(members.len() as u32);
        self.members.extend(members.iter().map(|m| m.key));
        self.open.truncate(base);
        self.nodes[at] = Node {
            tag: Tag::Object,
            a: self.nodes.len() as u32,
            b: list as u32,
        };
        Some(())
    }

    /// Writes the value at node `i` and returns the index of the node after it.
    fn emit<S: Sink>(&self, i: usize, out: &mut S) -> usize {
        let n = self.nodes[i];
        let (a, b) = (n.a as usize, n.b as usize);
        match n.tag {
            Tag::Input => out.put(&self.s[a..b]),
            Tag::Decoded => write_string(&self.arena[a..b], out),
            Tag::Converted => out.put(&self.arena[a..b]),
            Tag::Array => {
                out.put_ascii(b'[');
                let mut j = i + 1;
                while j < a {
                    if j > i + 1 {
                        out.put_ascii(b',');
                    }
                    j = self.emit(j, out);
                }
                out.put_ascii(b']');
                return a;
            }
            Tag::Object => {
                out.put_ascii(b'{');
                let count = self.members[b] as usize;
                for (k, &key) in self.members[b + 1..b + 1 + count].iter().enumerate() {
                    if k > 0 {
                        out.put_ascii(b',');
                    }
                    self.emit(key as usize, out);
                    out.put_ascii(b':');
                    self.emit(key as usize + 1, out);
                }
                out.put_ascii(b'}');
                return a;
            }
        }
        i + 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::Profile;
    use crate::{canonicalize, parse, Digest};
    use proptest::prelude::*;

    /// The direct path accepts exactly what the parser accepts, and writes what
    /// canonicalizing the parsed value writes; through the hasher, it gives the same digest.
    fn agree(text: &[u8], options: &Options) -> std::result::Result<(), TestCaseError> {
        let mut direct = String::new();
        let accepted = canonicalize_text(text, options, &mut direct);
        match parse(text, options) {
            Ok(v) => {
                prop_assert!(accepted, "rejected valid input {:?}", String::from_utf8_lossy(text));
                let want = canonicalize(&v);
                prop_assert_eq!(&direct, &want);
                let mut hasher = crate::digest::Hasher::new();
                prop_assert!(canonicalize_text(text, options, &mut hasher));
                prop_assert_eq!(hasher.finish(), Digest::of(want.as_bytes()));
            }
            Err(e) => {
                prop_assert!(!accepted, "accepted invalid input ({}) {:?}", e, String::from_utf8_lossy(text));
                prop_assert!(direct.is_empty());
            }
        }
        Ok(())
    }

    fn agree_everywhere(text: &[u8]) -> std::result::Result<(), TestCaseError> {
        for profile in Profile::ALL {
            agree(text, &Options::with_profile(profile))?;
        }
        for max_depth in [0, 1, 2, 3] {
            agree(text, &Options { max_depth, ..Options::default() })?;
        }
        agree(text, &Options { max_bytes: text.len().saturating_sub(1), ..Options::default() })
    }

    fn ws() -> impl Strategy<Value = String> {
        prop_oneof![
            4 => Just(String::new()),
            2 => "[ \t\n\r]{1,3}",
            1 => Just("\u{A0}".to_owned()),
            1 => Just("\u{C}".to_owned()),
        ]
    }

    fn number() -> impl Strategy<Value = String> {
        prop_oneof![
            "-?(0|[1-9][0-9]{0,5})(\\.[0-9]{1,4})?",
            "-?(0|[1-9][0-9]{0,22})(\\.[0-9]{1,22})?([eE][+-]?[0-9]{1,3})?",
            "-?0\\.0{0,8}[1-9]{1,3}",
            Just("9007199254740993".to_owned()),
            Just("0.10000000000000001".to_owned()),
            Just("1e400".to_owned()),
            Just("-".to_owned()),
            Just("01".to_owned()),
            Just("1.".to_owned()),
            Just("NaN".to_owned()),
            Just("-Infinity".to_owned()),
        ]
    }

    fn string_body() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            6 => "[a-z ]{1,4}",
            2 => "[\u{80}-\u{7FF}\u{800}-\u{D7FF}\u{E000}-\u{FFFF}\u{10000}-\u{10FFFF}]",
            2 => Just("\u{E000}".to_owned()),
            2 => Just("\u{1F600}".to_owned()),
            2 => "\\\\[\"\\\\/bfnrt]",
            1 => "\\\\u00[0-9a-fA-F]{2}",
            1 => "\\\\u[0-9a-fA-F]{4}",
            1 => Just("\\ud83d\\ude00".to_owned()),
            1 => Just("\\ud83d".to_owned()),
            1 => Just("\\ude00x".to_owned()),
            1 => Just("\\u0061".to_owned()),
            1 => Just("\\x".to_owned()),
            1 => Just("\\u12".to_owned()),
            1 => Just("\u{1}".to_owned()),
            1 => Just("\u{7F}".to_owned()),
        ];
        prop::collection::vec(piece, 0..4).prop_map(|p| p.concat())
    }

    fn key() -> impl Strategy<Value = String> {
        prop_oneof![
            3 => prop::sample::select(vec!["a", "b", "aa", "ab", "", "a\\u0000", "\\u0061", "\u{E000}", "\u{1F600}", "\\ud83d\\ude00", "\u{FFFF}", "abcdefghi", "abcdefghj", "abcdefgh"]).prop_map(str::to_owned),
            1 => string_body(),
        ]
    }

    fn literal() -> impl Strategy<Value = String> {
        prop::sample::select(vec!["true", "false", "null", "tru", "nul", "falsey"]).prop_map(str::to_owned)
    }

    fn json() -> impl Strategy<Value = String> {
        let leaf = prop_oneof![
            3 => number(),
            3 => string_body().prop_map(|s| format!("\"{s}\"")),
            1 => literal(),
        ];
        leaf.prop_recursive(5, 64, 6, |inner| {
            prop_oneof![
                prop::collection::vec((ws(), inner.clone(), ws()), 0..6).prop_map(|items| {
                    let items: Vec<String> = items.into_iter().map(|(a, v, b)| format!("{a}{v}{b}")).collect();
                    format!("[{}]", items.join(","))
                }),
                prop::collection::vec((ws(), key(), ws(), inner, ws()), 0..7).prop_map(|members| {
                    let members: Vec<String> = members
                        .into_iter()
                        .map(|(a, k, b, v, c)| format!("{a}\"{k}\"{b}:{c}{v}"))
                        .collect();
                    format!("{{{}}}", members.join(","))
                }),
            ]
        })
    }

    /// Text with a few random byte edits.
    fn mutated() -> impl Strategy<Value = Vec<u8>> {
        (json(), prop::collection::vec((any::<prop::sample::Index>(), 0u8..3, any::<u8>()), 1..3)).prop_map(|(text, edits)| {
            let mut b = text.into_bytes();
            for (at, kind, byte) in edits {
                if b.is_empty() {
                    b.push(byte);
                    continue;
                }
                let i = at.index(b.len());
                match kind {
                    0 => {
                        b.remove(i);
                    }
                    1 => b.insert(i, byte),
                    _ => b[i] = byte,
                }
            }
            b
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(5000))]

        #[test]
        fn direct_path_agrees_with_parser(text in (ws(), json(), ws()).prop_map(|(a, j, b)| format!("{a}{j}{b}"))) {
            agree_everywhere(text.as_bytes())?;
        }

        #[test]
        fn direct_path_agrees_with_parser_on_mutated_text(text in mutated()) {
            agree_everywhere(&text)?;
        }

        #[test]
        fn direct_path_agrees_with_parser_on_bytes(text in prop::collection::vec(prop_oneof![
            4 => prop::sample::select(b"{}[]\",:0123456789-.eE tfnrulase\\u".to_vec()),
            1 => any::<u8>(),
        ], 0..48)) {
            agree_everywhere(&text)?;
        }
    }

    #[test]
    fn known_cases() {
        for text in [
            "{\"b\":1,\"a\":[1.50,-0,\"x\\u0041\"],\"\u{E000}\":2,\"\u{1F600}\":3}",
            "  [ ]  ",
            "{}",
            "\"\\ud83d\\ude00\"",
            "{\"a\":1,\"\\u0061\":2}",
            "{\"a\\u0000\":1,\"a\":2}",
            "[1e21,1e-7,0.000001,123456789012345678,5e-324,1.7976931348623157e308]",
            "\u{FEFF}{}",
            "[1,]",
            "{\"a\":1,}",
            "[1 2]",
        ] {
            agree_everywhere(text.as_bytes()).unwrap();
        }
    }
}
