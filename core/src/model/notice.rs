//! What a person reading a value could miss or misread: the characters of its strings and
//! object keys that do not show as themselves. A confirmation page marks them where the value
//! is shown, and an approval server can refuse to approve an action that has any until the
//! reviewer acknowledges them (`examples/refund-desk`): both ask this module, so that the page
//! and the server flag the same strings.
//!
//! One notice per string (or key) that has such characters: its JSON Pointer, how many of its
//! characters are noticed, and the first [`MAX_MARKS`] of them with their positions and kinds.
//! The output is bounded per string, so a long string of non-ASCII text costs one notice, not
//! one per character; a reader cannot check more marks than that character by character anyway.
//!
//! Every character of every string and key is one of:
//!
//! - printable ASCII (U+0021 to U+007E), or a U+0020 space with other characters on both
//!   sides: nothing to notice;
//! - `leading_space`, `trailing_space`: a U+0020 before the first or after the last other
//!   character, which a reader does not see;
//! - `invisible`: a character displayed as nothing, as a blank, or as something else:
//!   controls (Cc), format characters (Cf: the zero-width space, bidirectional controls, the
//!   BOM, tag characters), other default-ignorable code points (variation selectors, Hangul
//!   fillers), line and paragraph separators, every space and white-space character other
//!   than U+0020, private use, and code points unassigned in the Unicode version actionseal
//!   uses (noncharacters included);
//! - `non_ascii`: any other character outside ASCII. It is visible, but a reader cannot tell
//!   it from an ASCII character it looks like: the Cyrillic `о` (U+043E) in `"оrder-17"`, a
//!   full-width `１`. Unicode calls such characters confusable (UTS #39). Every non-ASCII
//!   character is noticed, not only text that mixes scripts: telling confusable characters
//!   apart needs the confusables data of UTS #39, which core does not carry.
//!
//! Character properties come from ICU4X's compiled Unicode data, as for the identifier rule,
//! the same in every runtime.

use crate::json::number::Number;
use crate::json::pointer::push_escaped;
use crate::json::value::{Object, OwnedValue, Value};
use crate::Profile;
use icu_properties::props::{DefaultIgnorableCodePoint, GeneralCategory as Gc, WhiteSpace};
use icu_properties::{CodePointMapData, CodePointSetData};
use std::borrow::Cow;

/// Why a character is noticed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoticeKind {
    /// Displayed as nothing, as a blank, or as something else (see the module documentation).
    Invisible,
    /// Visible, outside ASCII: it may be mistaken for an ASCII character (UTS #39 confusables).
    NonAscii,
    /// A U+0020 before the first other character.
    LeadingSpace,
    /// A U+0020 after the last other character.
    TrailingSpace,
}

impl NoticeKind {
    /// Every kind, in documentation order.
    pub const ALL: [NoticeKind; 4] = [
        NoticeKind::Invisible,
        NoticeKind::NonAscii,
        NoticeKind::LeadingSpace,
        NoticeKind::TrailingSpace,
    ];

    /// The stable snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            NoticeKind::Invisible => "invisible",
            NoticeKind::NonAscii => "non_ascii",
            NoticeKind::LeadingSpace => "leading_space",
            NoticeKind::TrailingSpace => "trailing_space",
        }
    }
}

/// Whether a noticed character is in a member's key or in a string value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Within {
    /// The string at the pointer.
    Value,
    /// The key of the member at the pointer (the pointer's last token).
    Key,
}

impl Within {
    /// `"value"` or `"key"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Within::Value => "value",
            Within::Key => "key",
        }
    }
}

/// How many noticed characters of one string a notice lists (it counts them all).
pub const MAX_MARKS: usize = 64;

/// One noticed character of a string.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mark {
    /// Its position in the string, counted in code points from 0.
    pub at: usize,
    /// The character.
    pub character: char,
    /// Why it is noticed.
    pub kind: NoticeKind,
}

/// A string (or a key) with characters a reader could miss or misread.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Notice {
    /// JSON Pointer (RFC 6901) of the string, or of the member whose key it is.
    pub pointer: String,
    /// The value at the pointer, or its key.
    pub within: Within,
    /// How many of its characters are noticed.
    pub count: usize,
    /// The first [`MAX_MARKS`] of them, in order.
    pub marks: Vec<Mark>,
}

/// A count or position as a JSON number (far below 2^53 in any parsed value).
fn int(n: usize) -> OwnedValue {
    i64::try_from(n)
        .ok()
        .and_then(|n| Number::from_i64(n, Profile::Strict).ok())
        .map_or(Value::Null, Value::Number)
}

fn object(entries: Vec<(&'static str, OwnedValue)>) -> OwnedValue {
    let entries = entries
        .into_iter()
        .map(|(k, v)| (Cow::Borrowed(k), v))
        .collect();
    // Distinct literal keys at every call site.
    Value::Object(Object::from_entries(entries).unwrap_or_default())
}

impl Mark {
    /// `{"at", "code_point", "kind"}`, the code point as `"U+200B"`.
    pub fn to_value(&self) -> OwnedValue {
        object(vec![
            ("at", int(self.at)),
            (
                "code_point",
                Value::String(Cow::Owned(format!("U+{:04X}", u32::from(self.character)))),
            ),
            ("kind", Value::String(Cow::Borrowed(self.kind.as_str()))),
        ])
    }
}

impl Notice {
    /// `{"pointer", "within", "count", "marks"}`.
    pub fn to_value(&self) -> OwnedValue {
        object(vec![
            ("pointer", Value::String(Cow::Owned(self.pointer.clone()))),
            ("within", Value::String(Cow::Borrowed(self.within.as_str()))),
            ("count", int(self.count)),
            (
                "marks",
                Value::Array(self.marks.iter().map(Mark::to_value).collect()),
            ),
        ])
    }
}

/// The strings and keys in `value` with noticed characters, depth first in canonical key
/// order, a member's key before its value.
pub fn notices(value: &Value<'_>) -> Vec<Notice> {
    let mut out = Vec::new();
    let mut pointer = String::new();
    walk(value, &mut pointer, &mut out);
    out
}

/// The notices of `notices(value)` as a JSON array.
pub fn notices_value(value: &Value<'_>) -> OwnedValue {
    Value::Array(notices(value).iter().map(Notice::to_value).collect())
}

fn walk(value: &Value<'_>, pointer: &mut String, out: &mut Vec<Notice>) {
    let len = pointer.len();
    match value {
        Value::String(s) => scan(s, pointer, Within::Value, out),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                pointer.push('/');
                pointer.push_str(itoa::Buffer::new().format(i));
                walk(item, pointer, out);
                pointer.truncate(len);
            }
        }
        Value::Object(o) => {
            for (key, item) in o.iter() {
                pointer.push('/');
                push_escaped(pointer, key);
                scan(key, pointer, Within::Key, out);
                walk(item, pointer, out);
                pointer.truncate(len);
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

fn scan(s: &str, pointer: &str, within: Within, out: &mut Vec<Notice>) {
    let bytes = s.as_bytes();
    // Fast path: printable ASCII without spaces at either end.
    if bytes.iter().all(|b| (0x20..0x7F).contains(b))
        && bytes.first() != Some(&b' ')
        && bytes.last() != Some(&b' ')
    {
        return;
    }
    // Spaces are one byte and one code point: count them at either end in bytes.
    let total = s.chars().count();
    let lead = bytes.iter().take_while(|&&b| b == b' ').count();
    let trail = total - bytes.iter().rev().take_while(|&&b| b == b' ').count();
    let mut notice = Notice {
        pointer: pointer.to_owned(),
        within,
        count: 0,
        marks: Vec::new(),
    };
    for (at, c) in s.chars().enumerate() {
        let kind = match c {
            ' ' if at < lead => NoticeKind::LeadingSpace,
            ' ' if at >= trail => NoticeKind::TrailingSpace,
            '\u{20}'..='\u{7E}' => continue,
            c if invisible(c) => NoticeKind::Invisible,
            _ => NoticeKind::NonAscii,
        };
        notice.count += 1;
        if notice.marks.len() < MAX_MARKS {
            notice.marks.push(Mark {
                at,
                character: c,
                kind,
            });
        }
    }
    if notice.count > 0 {
        out.push(notice);
    }
}

/// Whether `c` (not printable ASCII) is displayed as nothing, a blank, or something else.
fn invisible(c: char) -> bool {
    let gc = CodePointMapData::<Gc>::new().get(c);
    matches!(
        gc,
        Gc::Cc | Gc::Cf | Gc::Zl | Gc::Zp | Gc::Zs | Gc::Co | Gc::Cn
    ) || CodePointSetData::new::<DefaultIgnorableCodePoint>().contains(c)
        || CodePointSetData::new::<WhiteSpace>().contains(c)
}

#[cfg(test)]
mod tests;
