//! Structure-aware generators of JSON text from fuzzer bytes.
//!
//! A generated document draws its object keys from a few key sets fixed per document, so that
//! objects at different depths, and side by side, share keys and key orders (the direct path
//! remembers the last sorted key order and reuses it); keys are spelled raw or with escapes,
//! so that two spellings of one key make a duplicate; numbers are short, long, padded with
//! zeros on either side of the point, and near the ends of the double range; strings use every
//! escape. The generator knows which keys it repeated, so targets that compare with another
//! canonicalizer can leave out documents with duplicates.

use arbitrary::{Result, Unstructured};
use std::collections::HashSet;

/// A generated document.
pub struct Doc {
    /// The JSON text (valid unless `broken`).
    pub text: Vec<u8>,
    /// Whether some object has the same key twice (after unescaping).
    pub duplicates: bool,
    /// Whether some string holds a lone surrogate escape.
    pub lone_surrogate: bool,
    /// Deepest nesting of arrays and objects (`[]` is 1).
    pub depth: usize,
    /// Whether random byte edits were applied after generating.
    pub broken: bool,
}

/// Keys, as decoded text; spellings come from [`spell_key`].
const KEYS: &[&str] = &[
    "a",
    "b",
    "m",
    "y",
    "z",
    "id",
    "aa",
    "ab",
    "",
    "abcdefgh",
    "abcdefgh1",
    "abcdefgh2",
    "abcdefghij",
    "a\u{0}",
    "\u{7f}",
    "\u{e9}",
    "\u{E000}",
    "\u{FFFF}",
    "\u{1F600}",
    "\u{10000}",
    "k\"",
    "k\\",
    "k/",
    "\u{1}",
];

/// Generation state for one document.
struct Gen<'u, 'a> {
    u: &'u mut Unstructured<'a>,
    out: Vec<u8>,
    /// The document's key sets, by index into [`KEYS`].
    sets: Vec<Vec<usize>>,
    duplicates: bool,
    lone_surrogate: bool,
    depth: usize,
    /// Output size after which containers get no more members.
    budget: usize,
    /// Whether whitespace is drawn at every place it may go (otherwise there is none).
    spaced: bool,
    /// Objects hold objects or `0`, and take a key set's order as it is or reversed.
    tight: bool,
}

/// Generates a document; `max_depth` bounds nesting.
pub fn document(u: &mut Unstructured<'_>, max_depth: usize) -> Result<Doc> {
    // Key sets that share keys at the same positions: variants of one base order with a
    // position or two replaced, and some cut short. An object whose first keys follow one set
    // and whose later keys follow another, nested inside it, is what the direct path's
    // remembered key order must not be fooled by.
    // Half the documents are tight: every object has one of a few orders of the same few
    // one-letter keys, and holds objects or `0`.
    let tight = chance(u, 1, 2)?;
    let base_len = if tight {
        u.int_in_range(2..=4)?
    } else {
        u.int_in_range(2..=5)?
    };
    let mut base: Vec<usize> = Vec::with_capacity(base_len);
    while base.len() < base_len {
        let k = if tight {
            u.int_in_range(0..=4)?
        } else if chance(u, 3, 4)? {
            u.int_in_range(0..=6)?
        } else {
            u.choose_index(KEYS.len())?
        };
        if !base.contains(&k) {
            base.push(k);
        } else if u.is_empty() {
            break;
        }
    }
    let set_count = u.int_in_range(1..=4)?;
    let mut sets = Vec::with_capacity(set_count);
    for _ in 0..set_count {
        let mut set = base.clone();
        for _ in 0..u.int_in_range(0..=2)? {
            let at = u.choose_index(set.len())?;
            let k = u.int_in_range(0..=if tight { 4 } else { 8 })?;
            if !set.contains(&k) {
                set[at] = k;
            }
        }
        if !tight && chance(u, 1, 4)? {
            set.truncate(u.int_in_range(1..=set.len())?);
        }
        sets.push(set);
    }
    let mut g = Gen {
        u,
        out: Vec::new(),
        sets,
        duplicates: false,
        lone_surrogate: false,
        depth: 0,
        budget: 1 << 13,
        spaced: false,
        tight,
    };
    g.spaced = g.chance(1, 3)?;
    g.ws()?;
    g.value(0, max_depth)?;
    g.ws()?;
    let broken = g.chance(1, 8)?;
    if broken {
        let edits = g.u.int_in_range(1..=3)?;
        for _ in 0..edits {
            edit(g.u, &mut g.out)?;
        }
    }
    Ok(Doc {
        text: g.out,
        duplicates: g.duplicates,
        lone_surrogate: g.lone_surrogate,
        depth: g.depth,
        broken,
    })
}

/// One random byte edit: delete, insert or replace, with bytes that matter to JSON.
fn edit(u: &mut Unstructured<'_>, b: &mut Vec<u8>) -> Result<()> {
    const BYTES: &[u8] = b"{}[]\",:\\0123456789-+.eEtfnu \x00\x1f\x7f\x80\xc3\xed\xef\xf0\xff";
    let byte = *u.choose(BYTES)?;
    if b.is_empty() {
        b.push(byte);
        return Ok(());
    }
    let i = u.choose_index(b.len())?;
    match u.int_in_range(0..=2)? {
        0 => {
            b.remove(i);
        }
        1 => b.insert(i, byte),
        _ => b[i] = byte,
    }
    Ok(())
}

/// `num` times in `den`, drawn from the input; `false` once it is used up (`Unstructured`
/// would answer `true`, and every later choice its first option).
fn chance(u: &mut Unstructured<'_>, num: u8, den: u8) -> Result<bool> {
    Ok(!u.is_empty() && u.ratio(num, den)?)
}

impl Gen<'_, '_> {
    fn chance(&mut self, num: u8, den: u8) -> Result<bool> {
        chance(self.u, num, den)
    }

    fn ws(&mut self) -> Result<()> {
        if !self.spaced || self.u.is_empty() {
            return Ok(());
        }
        match self.u.int_in_range(0..=9)? {
            0..=5 => {}
            6 => self.out.push(b' '),
            7 => self.out.extend_from_slice(b"\n  "),
            8 => {
                let n = self.u.int_in_range(1..=20)?;
                self.out.push(b'\n');
                self.out.extend(std::iter::repeat_n(b' ', n));
            }
            _ => {
                let n = self.u.int_in_range(1..=4)?;
                for _ in 0..n {
                    let c = *self.u.choose(b" \t\n\r")?;
                    self.out.push(c);
                }
            }
        }
        Ok(())
    }

    fn value(&mut self, depth: usize, max_depth: usize) -> Result<()> {
        if self.u.is_empty() {
            self.out.push(b'0');
            return Ok(());
        }
        let container = depth < max_depth && self.out.len() < self.budget;
        if self.tight {
            return if container && self.chance(1, 2)? {
                self.object(depth, max_depth)
            } else {
                self.out.push(b'0');
                Ok(())
            };
        }
        let pick = self.u.int_in_range(0..=9)?;
        match pick {
            0..=3 if container => self.object(depth, max_depth),
            4 | 5 if container => self.array(depth, max_depth),
            0..=3 => self.number(),
            6 | 7 => {
                let s = self.string_body()?;
                self.out.push(b'"');
                self.out.extend_from_slice(&s);
                self.out.push(b'"');
                Ok(())
            }
            8 | 9 if self.chance(1, 2)? => self.number(),
            _ => {
                let lit = *self.u.choose(&["true", "false", "null"])?;
                self.out.extend_from_slice(lit.as_bytes());
                Ok(())
            }
        }
    }

    fn number(&mut self) -> Result<()> {
        let t = number_token(self.u)?;
        self.out.extend_from_slice(t.as_bytes());
        Ok(())
    }

    fn array(&mut self, depth: usize, max_depth: usize) -> Result<()> {
        self.depth = self.depth.max(depth + 1);
        self.out.push(b'[');
        self.ws()?;
        let n = self.u.int_in_range(0..=5)?;
        for i in 0..n {
            if self.u.is_empty() {
                break;
            }
            if i > 0 {
                self.out.push(b',');
                self.ws()?;
            }
            self.value(depth + 1, max_depth)?;
            self.ws()?;
        }
        self.out.push(b']');
        Ok(())
    }

    fn object(&mut self, depth: usize, max_depth: usize) -> Result<()> {
        self.depth = self.depth.max(depth + 1);
        // A key set of the document, rotated, maybe reversed, maybe with a key repeated or
        // added.
        let mut keys = self.sets[self.u.choose_index(self.sets.len())?].clone();
        // (The first option of each choice is what an exhausted input picks.)
        match self.u.int_in_range(0..=3)? {
            2 => keys.reverse(),
            3 if !keys.is_empty() && !self.tight => {
                let r = self.u.choose_index(keys.len())?;
                keys.rotate_left(r);
            }
            _ => {}
        }
        match self.u.int_in_range(0..=15)? {
            12 if !keys.is_empty() => {
                let k = keys[self.u.choose_index(keys.len())?];
                let at = self.u.int_in_range(0..=keys.len())?;
                keys.insert(at, k);
            }
            13 if !self.tight => keys.push(self.u.choose_index(KEYS.len())?),
            14 if !keys.is_empty() => {
                keys.pop();
            }
            15 if !self.tight => keys.clear(),
            _ => {}
        }
        let mut seen = HashSet::new();
        self.out.push(b'{');
        self.ws()?;
        for (i, &k) in keys.iter().enumerate() {
            if i > 0 {
                self.out.push(b',');
                self.ws()?;
            }
            if !seen.insert(k) {
                self.duplicates = true;
            }
            self.out.push(b'"');
            spell_key(self.u, KEYS[k], &mut self.out)?;
            self.out.push(b'"');
            self.ws()?;
            self.out.push(b':');
            self.ws()?;
            self.value(depth + 1, max_depth)?;
            self.ws()?;
        }
        self.out.push(b'}');
        Ok(())
    }

    /// A string's text between the quotes: plain text, every escape, and now and then an
    /// unpaired surrogate.
    fn string_body(&mut self) -> Result<Vec<u8>> {
        let mut s = Vec::new();
        let pieces = self.u.int_in_range(0..=5)?;
        for _ in 0..pieces {
            match self.u.int_in_range(0..=12)? {
                0..=3 => {
                    let n = self.u.int_in_range(1..=6)?;
                    for _ in 0..n {
                        let c = *self.u.choose(b"abc xyz019")?;
                        s.push(c);
                    }
                }
                4 => {
                    let c = *self.u.choose(&[
                        '\u{e9}',
                        '\u{7ff}',
                        '\u{800}',
                        '\u{2028}',
                        '\u{E000}',
                        '\u{FFFD}',
                        '\u{FFFF}',
                        '\u{10000}',
                        '\u{1F600}',
                        '\u{10FFFF}',
                        '\u{7f}',
                    ])?;
                    let mut b = [0; 4];
                    s.extend_from_slice(c.encode_utf8(&mut b).as_bytes());
                }
                5 => {
                    let e = *self
                        .u
                        .choose(&["\\\"", "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t"])?;
                    s.extend_from_slice(e.as_bytes());
                }
                6..=8 => {
                    // \uXXXX of any code unit but a surrogate, in either case.
                    let cu: u16 = self.u.arbitrary()?;
                    let cu = match cu {
                        0xD800..=0xDFFF => cu & 0x7F,
                        _ => cu,
                    };
                    let upper = self.chance(1, 3)?;
                    push_unit(&mut s, cu, upper);
                }
                9 => {
                    // A surrogate pair.
                    let c = self.u.int_in_range(0x10000u32..=0x10FFFF)?;
                    let c = c - 0x10000;
                    push_unit(&mut s, 0xD800 | (c >> 10) as u16, false);
                    let upper = self.chance(1, 2)?;
                    push_unit(&mut s, 0xDC00 | (c & 0x3FF) as u16, upper);
                }
                10 => {
                    let cu = *self
                        .u
                        .choose(&[0u16, 0x1f, 0x22, 0x5c, 0x2f, 0x7f, 0x08, 0x0c])?;
                    push_unit(&mut s, cu, false);
                }
                11 if self.chance(1, 8)? => {
                    let cu = self.u.int_in_range(0xD800u16..=0xDFFF)?;
                    push_unit(&mut s, cu, false);
                    self.lone_surrogate = true;
                }
                _ => s.push(b'q'),
            }
        }
        Ok(s)
    }
}

fn push_unit(s: &mut Vec<u8>, cu: u16, upper: bool) {
    let hex = if upper {
        format!("\\u{cu:04X}")
    } else {
        format!("\\u{cu:04x}")
    };
    s.extend_from_slice(hex.as_bytes());
}

/// Writes `key` (without the quotes) as it is, mostly, or with its first character or all
/// of them escaped (a key and its escaped spelling are the same key).
fn spell_key(u: &mut Unstructured<'_>, key: &str, out: &mut Vec<u8>) -> Result<()> {
    let style = if u.is_empty() {
        0
    } else {
        u.int_in_range(0u8..=15)?
    };
    for (i, c) in key.chars().enumerate() {
        let must = c < ' ' || c == '"' || c == '\\';
        let escape = must || style == 15 || (style == 14 && i == 0);
        if !escape {
            let mut b = [0; 4];
            out.extend_from_slice(c.encode_utf8(&mut b).as_bytes());
            continue;
        }
        match c {
            '"' => out.extend_from_slice(b"\\\""),
            '\\' => out.extend_from_slice(b"\\\\"),
            '/' => out.extend_from_slice(b"\\/"),
            _ => {
                let mut units = [0u16; 2];
                for &cu in c.encode_utf16(&mut units).iter() {
                    push_unit(out, cu, i % 2 == 1);
                }
            }
        }
    }
    Ok(())
}

/// Significands near the ends of the double range and near rounding boundaries.
const SIGNIFICANDS: &[&str] = &[
    "17976931348623157",
    "17976931348623158",
    "179769313486231580793728971405301",
    "17976931348623159",
    "22250738585072014",
    "22250738585072011",
    "49406564584124654",
    "24703282292062327",
    "24703282292062328",
    "9007199254740993",
    "9007199254740992",
    "18014398509481985",
    "10000000000000001",
    "1",
    "5",
    "25",
    "3",
    "1000000000000000000000000000000001",
    "999999999999999999999",
];

/// A number token: mostly well formed, of every shape the grammar allows and the lengths the
/// size limit allows, placed so that its value falls near interesting magnitudes.
pub fn number_token(u: &mut Unstructured<'_>) -> Result<String> {
    let neg = chance(u, 1, 3)?;
    let mut t = String::new();
    if neg {
        t.push('-');
    }
    match u.int_in_range(0..=9)? {
        // Short plain numbers, the common case.
        0..=3 => {
            let int: u64 = u.int_in_range(0..=999_999_999_999_999_999)?;
            t.push_str(&(int >> u.int_in_range(0..=60)?).to_string());
            if chance(u, 1, 2)? {
                t.push('.');
                let frac: u64 = u.arbitrary()?;
                let digits = u.int_in_range(1..=20)?;
                let f = format!("{frac:020}");
                t.push_str(&f[..digits]);
            }
            if chance(u, 1, 4)? {
                t.push(*u.choose(&['e', 'E'])?);
                t.push_str(u.choose(&["", "+", "-"])?);
                t.push_str(&u.int_in_range(0..=400)?.to_string());
            }
        }
        // A significand placed at a chosen decimal magnitude, with zeros padding it on either
        // side of the point and the exponent compensating.
        4..=7 => {
            let digits: String = if chance(u, 1, 2)? {
                u.choose(SIGNIFICANDS)?.to_string()
            } else {
                let n = u.int_in_range(1..=40)?;
                let mut d = String::from(char::from(b'1' + u.int_in_range(0..=8)?));
                for _ in 1..n {
                    d.push(char::from(b'0' + u.int_in_range(0..=9)?));
                }
                d
            };
            // Value = 0.digits × 10^point.
            let point: i64 = match u.int_in_range(0..=5)? {
                0 => u.int_in_range(300..=312)?,
                1 => u.int_in_range(-330..=-300)?,
                2 => u.int_in_range(-25..=25)?,
                3 => u.int_in_range(-400..=400)?,
                4 => u.int_in_range(-100_000..=100_000)?,
                _ => *u.choose(&[309, -323, -307, 17, 16, 22, 21, -6, -5])?,
            };
            // Long runs are rare: instrumented for coverage, each costs milliseconds.
            let zeros: usize = match u.int_in_range(0..=7)? {
                0..=3 => u.int_in_range(0..=30)?,
                4 | 5 => u.int_in_range(0..=400)?,
                6 if chance(u, 1, 4)? => u.int_in_range(0..=20_000)?,
                _ if chance(u, 1, 8)? => *u.choose(&[65_535, 65_536, 655_359, 655_360, 655_361])?,
                _ => u.int_in_range(0..=100)?,
            };
            let exp_zeros: usize = if chance(u, 1, 8)? {
                u.int_in_range(0..=3_000)?
            } else {
                0
            };
            let upper_e = chance(u, 1, 2)?;
            let plus = chance(u, 1, 4)?;
            let exponent = match u.int_in_range(0..=2)? {
                // 0.000…digits e(point + zeros)
                0 => {
                    t.push_str("0.");
                    t.extend(std::iter::repeat_n('0', zeros));
                    t.push_str(&digits);
                    point + zeros as i64
                }
                // digits000… e(point - len - zeros)
                1 => {
                    t.push_str(&digits);
                    t.extend(std::iter::repeat_n('0', zeros));
                    point - digits.len() as i64 - zeros as i64
                }
                // d.igits000… e(point - 1)
                _ => {
                    t.push_str(&digits[..1]);
                    t.push('.');
                    t.push_str(if digits.len() > 1 { &digits[1..] } else { "0" });
                    t.extend(std::iter::repeat_n('0', zeros));
                    point - 1
                }
            };
            if exponent != 0 || chance(u, 1, 2)? {
                t.push(if upper_e { 'E' } else { 'e' });
                if exponent < 0 {
                    t.push('-');
                } else if plus {
                    t.push('+');
                }
                t.extend(std::iter::repeat_n('0', exp_zeros));
                t.push_str(&exponent.unsigned_abs().to_string());
            }
        }
        // Zero in many spellings.
        8 => {
            t.push('0');
            if chance(u, 1, 2)? {
                t.push('.');
                t.extend(std::iter::repeat_n('0', u.int_in_range(1..=100)?));
            }
            if chance(u, 1, 2)? {
                t.push_str(u.choose(&["e", "E-", "e+"])?);
                let n = u.int_in_range(1..=200)?;
                t.extend(std::iter::repeat_n('9', n));
            }
        }
        // Long significant digits, and exponents of many digits.
        _ => {
            let n = if chance(u, 1, 8)? {
                u.int_in_range(1..=3_000)?
            } else {
                u.int_in_range(1..=60)?
            };
            t.push(char::from(b'1' + u.int_in_range(0..=8)?));
            for _ in 0..n {
                t.push(char::from(b'0' + u.int_in_range(0..=9)?));
            }
            if chance(u, 1, 2)? {
                t.push('e');
                t.push_str(u.choose(&["", "-", "+"])?);
                let e = u.int_in_range(1..=40)?;
                for _ in 0..e {
                    t.push(char::from(b'0' + u.int_in_range(0..=9)?));
                }
            }
        }
    }
    Ok(t)
}
