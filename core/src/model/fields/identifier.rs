//! The identifier rule for tenants, subjects, approvers, ids, tool names and versions: two
//! identifiers that look alike to a person must not differ invisibly.
//!
//! An identifier is a non-empty string of code points that the PRECIS IdentifierClass
//! (RFC 8264 §4.2) marks PVALID, with three further limits that make the rule stricter, never
//! looser:
//!
//! - no CONTEXTJ or CONTEXTO code points (zero-width joiners, the middle dot, the Greek keraia,
//!   Hebrew punctuation, the katakana middle dot, Arabic-Indic digits): their context rules
//!   are not applied, so they are refused outright;
//! - the string is in Unicode Normalization Form C (one spelling for `é`, not two);
//! - it does not start with a combining mark.
//!
//! In practice: printable ASCII except the space, plus letters, digits and combining marks of
//! any script that NFKC leaves alone. Refused, each with its own message: controls, bidi
//! controls, other format characters (zero-width space, soft hyphen, word joiner, BOM, tag
//! characters), other default-ignorable code points (Hangul fillers, variation selectors),
//! line and paragraph separators, every space (ASCII space and no-break space included),
//! unassigned code points and noncharacters, private use, conjoining Hangul jamo,
//! compatibility characters (full-width forms, ligatures), and symbols and punctuation outside
//! ASCII. Character properties come from ICU4X's compiled Unicode data, the same in every
//! runtime because every runtime runs this code.

use icu_normalizer::ComposingNormalizerBorrowed;
use icu_properties::props::{
    BidiControl, DefaultIgnorableCodePoint, GeneralCategory as Gc, HangulSyllableType, JoinControl,
    NoncharacterCodePoint,
};
use icu_properties::{CodePointMapData, CodePointSetData};
use std::fmt;

/// Why a string is not an identifier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Flaw {
    /// The empty string.
    Empty,
    /// A code point the rule refuses, at this 1-based character position.
    Char(char, usize, Class),
    /// The first character is a combining mark.
    LeadingMark(char),
    /// The string is not in Normalization Form C.
    NotNfc,
}

/// The kind of a refused code point, in the order the checks classify them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Class {
    Control,
    BidiControl,
    JoinControl,
    Format,
    DefaultIgnorable,
    LineSeparator,
    Space,
    Noncharacter,
    Unassigned,
    PrivateUse,
    Contextual,
    PrecisDisallowed,
    HangulJamo,
    Compatibility,
    Other,
}

impl Class {
    fn describe(self) -> &'static str {
        match self {
            Class::Control => "a control character",
            Class::BidiControl => {
                "a bidirectional control, which can reorder how the text around it is displayed"
            }
            Class::JoinControl => "a zero-width joiner or non-joiner, which is invisible",
            Class::Format => "an invisible format character",
            Class::DefaultIgnorable => {
                "a default-ignorable code point, which is displayed as nothing"
            }
            Class::LineSeparator => "a line or paragraph separator",
            Class::Space => "a space",
            Class::Noncharacter => "a noncharacter",
            Class::Unassigned => "not assigned in the Unicode version actionseal uses",
            Class::PrivateUse => "a private-use character",
            Class::Contextual => {
                "allowed by PRECIS only in some contexts, which identifiers here do not allow"
            }
            Class::PrecisDisallowed => "a character PRECIS disallows in identifiers",
            Class::HangulJamo => "a conjoining Hangul jamo (use the precomposed syllable)",
            Class::Compatibility => {
                "a compatibility character that NFKC changes (such as a full-width or ligature form)"
            }
            Class::Other => "a symbol, punctuation mark or other character outside ASCII",
        }
    }
}

impl fmt::Display for Flaw {
    /// Completes "<field> ...".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const RULE: &str = "must be an identifier (RFC 8264 IdentifierClass, NFC)";
        match self {
            Flaw::Empty => f.write_str("must not be empty"),
            Flaw::Char(c, at, class) => write!(
                f,
                "{RULE}: U+{:04X} at character {at} is {}",
                u32::from(*c),
                class.describe()
            ),
            Flaw::LeadingMark(c) => write!(
                f,
                "{RULE}: it starts with U+{:04X}, a combining mark",
                u32::from(*c)
            ),
            Flaw::NotNfc => write!(
                f,
                "{RULE}: it is not in Normalization Form C, so the same text has another spelling"
            ),
        }
    }
}

/// Checks `s` against the identifier rule.
pub(crate) fn check(s: &str) -> Result<(), Flaw> {
    if s.is_empty() {
        return Err(Flaw::Empty);
    }
    // Fast path: printable ASCII without the space is always an identifier.
    if s.bytes().all(|b| (0x21..0x7F).contains(&b)) {
        return Ok(());
    }
    let gc = CodePointMapData::<Gc>::new();
    for (i, c) in s.chars().enumerate() {
        if let Some(class) = refused(c, gc.get(c)) {
            return Err(Flaw::Char(c, i + 1, class));
        }
    }
    if let Some(first) = s.chars().next() {
        if matches!(gc.get(first), Gc::Mn | Gc::Mc | Gc::Me) {
            return Err(Flaw::LeadingMark(first));
        }
    }
    if !ComposingNormalizerBorrowed::new_nfc().is_normalized(s) {
        return Err(Flaw::NotNfc);
    }
    Ok(())
}

/// Why `c` (of general category `gc`) is refused, if it is: the most telling class first.
fn refused(c: char, gc: Gc) -> Option<Class> {
    if c.is_ascii() {
        return match c {
            '!'..='~' => None,
            ' ' => Some(Class::Space),
            _ => Some(Class::Control),
        };
    }
    let has = |set: icu_properties::CodePointSetDataBorrowed<'static>| set.contains(c);
    let class = match gc {
        Gc::Cc => Class::Control,
        _ if has(CodePointSetData::new::<BidiControl>()) => Class::BidiControl,
        _ if has(CodePointSetData::new::<JoinControl>()) => Class::JoinControl,
        Gc::Cf => Class::Format,
        _ if has(CodePointSetData::new::<DefaultIgnorableCodePoint>()) => Class::DefaultIgnorable,
        Gc::Zl | Gc::Zp => Class::LineSeparator,
        Gc::Zs => Class::Space,
        _ if has(CodePointSetData::new::<NoncharacterCodePoint>()) => Class::Noncharacter,
        Gc::Cn => Class::Unassigned,
        Gc::Co => Class::PrivateUse,
        // No `char` is a surrogate: Cs never reaches here.
        _ => match precis_exception(c) {
            Some(Exception::Pvalid) => return None,
            Some(Exception::Contextual) => Class::Contextual,
            Some(Exception::Disallowed) => Class::PrecisDisallowed,
            None => {
                let hst = CodePointMapData::<HangulSyllableType>::new().get(c);
                if matches!(
                    hst,
                    HangulSyllableType::LeadingJamo
                        | HangulSyllableType::VowelJamo
                        | HangulSyllableType::TrailingJamo
                ) {
                    Class::HangulJamo
                } else if !nfkc_stable(c) {
                    Class::Compatibility
                } else if matches!(
                    gc,
                    Gc::Ll | Gc::Lu | Gc::Lo | Gc::Nd | Gc::Lm | Gc::Mn | Gc::Mc
                ) {
                    // PRECIS LetterDigits: PVALID.
                    return None;
                } else {
                    Class::Other
                }
            }
        },
    };
    Some(class)
}

enum Exception {
    Pvalid,
    Contextual,
    Disallowed,
}

/// The PRECIS Exceptions (RFC 8264 §9.6, the table of RFC 5892 §2.6), which override the
/// general category.
fn precis_exception(c: char) -> Option<Exception> {
    match u32::from(c) {
        0x00DF | 0x03C2 | 0x06FD | 0x06FE | 0x0F0B | 0x3007 => Some(Exception::Pvalid),
        0x00B7 | 0x0375 | 0x05F3 | 0x05F4 | 0x30FB | 0x0660..=0x0669 | 0x06F0..=0x06F9 => {
            Some(Exception::Contextual)
        }
        0x0640 | 0x07FA | 0x302E | 0x302F | 0x3031..=0x3035 | 0x303B => Some(Exception::Disallowed),
        _ => None,
    }
}

/// Whether NFKC leaves `c` alone (PRECIS HasCompat is the opposite).
fn nfkc_stable(c: char) -> bool {
    let mut buf = [0u8; 4];
    ComposingNormalizerBorrowed::new_nfkc().is_normalized(c.encode_utf8(&mut buf))
}
