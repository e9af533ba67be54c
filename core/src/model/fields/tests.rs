use super::identifier::{check, Class, Flaw};
use super::*;

fn class_of(s: &str) -> Option<Class> {
    match check(s) {
        Err(Flaw::Char(_, _, class)) => Some(class),
        _ => None,
    }
}

#[test]
fn identifiers_that_are_accepted() {
    for s in [
        "tenant-a",
        "user:alice",
        "refund-policy-2026-08-01",
        "alice@example.com",
        "a",
        "!\"#$%&'()*+,-./~",
        "租户-甲",
        "müller",        // precomposed ü (NFC)
        "straße",        // ß: a PRECIS exception, PVALID
        "ελληνικά",      // final sigma ς: a PRECIS exception, PVALID
        "한국",          // precomposed Hangul syllables
        "कार्य",          // Devanagari with a virama (a combining mark, not first)
        "user:\u{3007}", // IDEOGRAPHIC NUMBER ZERO: a PRECIS exception, PVALID
    ] {
        assert_eq!(check(s), Ok(()), "{s:?}");
    }
}

#[test]
fn each_invisible_or_ambiguous_character_has_its_own_class() {
    let cases: &[(&str, Class)] = &[
        ("tenant\u{200B}a", Class::Format),           // zero-width space
        ("tenant\u{202E}a", Class::BidiControl),      // right-to-left override
        ("tenant\u{200E}a", Class::BidiControl),      // left-to-right mark
        ("tenant\u{00AD}a", Class::Format),           // soft hyphen
        ("tenant\u{2060}a", Class::Format),           // word joiner
        ("tenant\u{FEFF}a", Class::Format),           // BOM inside
        ("tenant\u{E0041}", Class::Format),           // tag character
        ("tenant\u{200D}a", Class::JoinControl),      // zero-width joiner
        ("tenant\u{2028}a", Class::LineSeparator),    // line separator
        ("tenant\u{2029}a", Class::LineSeparator),    // paragraph separator
        ("tenant\u{00A0}a", Class::Space),            // no-break space
        ("tenant a", Class::Space),                   // ASCII space
        ("tenant\u{3000}a", Class::Space),            // ideographic space
        ("tenant\u{3164}a", Class::DefaultIgnorable), // Hangul filler
        ("tenant\u{115F}a", Class::DefaultIgnorable), // Hangul choseong filler
        ("tenant\u{FE0F}a", Class::DefaultIgnorable), // variation selector
        ("tenant\u{034F}a", Class::DefaultIgnorable), // combining grapheme joiner
        ("tenant\u{0378}a", Class::Unassigned),
        ("tenant\u{FFFF}a", Class::Noncharacter),
        ("tenant\u{FDD0}a", Class::Noncharacter),
        ("tenant\u{E000}a", Class::PrivateUse),
        ("tenant\u{0007}a", Class::Control),
        ("tenant\u{0085}a", Class::Control),
        ("tenant\u{007F}a", Class::Control),
        ("tenant\u{FF41}", Class::Compatibility), // full-width a
        ("\u{FB01}le", Class::Compatibility),     // fi ligature
        ("\u{1100}\u{1161}", Class::HangulJamo),  // conjoining jamo
        ("a\u{00B7}b", Class::Contextual),        // middle dot
        ("\u{0661}", Class::Contextual),          // Arabic-Indic digit one
        ("a\u{0640}b", Class::PrecisDisallowed),  // Arabic tatweel
        ("price\u{20AC}", Class::Other),          // euro sign
        ("ok\u{1F600}", Class::Other),            // emoji
        ("a\u{16EE}", Class::Other),              // runic arlaug symbol (Nl)
        ("a\u{2019}b", Class::Other),             // right single quotation mark
    ];
    for (s, class) in cases {
        assert_eq!(class_of(s), Some(*class), "{s:?}");
    }
}

#[test]
fn position_and_message_name_the_character() {
    let flaw = check("ab\u{200B}c").unwrap_err();
    assert_eq!(flaw, Flaw::Char('\u{200B}', 3, Class::Format));
    assert_eq!(
        flaw.to_string(),
        "must be an identifier (RFC 8264 IdentifierClass, NFC): U+200B at character 3 is an \
         invisible format character"
    );
    let e = check_identity("x\u{202E}").unwrap_err();
    assert!(
        e.contains("U+202E at character 2 is a bidirectional control"),
        "{e}"
    );
}

#[test]
fn whole_string_rules() {
    assert_eq!(check(""), Err(Flaw::Empty));
    // e + combining acute: the same text as é, in another spelling.
    assert_eq!(check("cafe\u{0301}"), Err(Flaw::NotNfc));
    assert_eq!(check("caf\u{00E9}"), Ok(()));
    assert_eq!(check("\u{0301}a"), Err(Flaw::LeadingMark('\u{0301}')));
    // Leading or trailing whitespace is a space like any other.
    assert_eq!(class_of(" a"), Some(Class::Space));
    assert_eq!(class_of("a\t"), Some(Class::Control));
}

#[test]
fn every_ascii_byte_has_a_fixed_answer() {
    for b in 0u8..0x80 {
        let s = format!("a{}", b as char);
        let ok = (0x21..0x7F).contains(&b);
        assert_eq!(check(&s).is_ok(), ok, "{b:#04x}");
    }
}

#[test]
fn identity_fields_use_the_rule_with_the_document_code() {
    let v = crate::parse(br#"{"tenant":"a\u200bb"}"#, &crate::Options::default()).unwrap();
    let f = Fields::new(&v, Code::InvalidContext, "context", &["tenant"]).unwrap();
    let e = f.identity("tenant").unwrap_err();
    assert_eq!((e.code(), e.path()), (Code::InvalidContext, "/tenant"));
    assert!(
        e.message().starts_with("tenant must be an identifier"),
        "{e}"
    );
}

#[test]
fn messages_describe_the_value() {
    let v = crate::parse(
        br#"{"n":"300","long":"0123456789012345678901234567890123456789x"}"#,
        &crate::Options::default(),
    )
    .unwrap();
    let f = Fields::new(&v, Code::InvalidBudget, "budget", &["n", "long"]).unwrap();
    let e = f.integer("n", 0).unwrap_err();
    assert!(e.message().ends_with(r#"not the string "300""#), "{e}");
    // Long strings are named by their type only.
    let e = f.integer("long", 0).unwrap_err();
    assert!(e.message().ends_with("not string"), "{e}");
}
