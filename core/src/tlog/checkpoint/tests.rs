use super::*;

// c2sp.org/tlog-checkpoint's example.
const EXAMPLE: &str =
    "example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n";

#[test]
fn reads_and_writes_the_c2sp_example() {
    let c = Checkpoint::parse(EXAMPLE).unwrap();
    assert_eq!(c.origin(), "example.com/behind-the-sofa");
    assert_eq!(c.size(), 20852163);
    assert_eq!(&c.root()[..4], [0x0a, 0xc5, 0x18, 0x6a]);
    assert!(c.extensions().is_empty());
    assert_eq!(c.to_string(), EXAMPLE);
    let made = Checkpoint::new(c.origin(), c.size(), *c.root()).unwrap();
    assert_eq!(made, c);
    let extended = [EXAMPLE, "ext one\nx\n"].concat();
    let c = Checkpoint::parse(&extended).unwrap();
    assert_eq!(c.extensions(), ["ext one", "x"]);
    assert_eq!(c.to_string(), extended);
}

#[test]
fn every_other_spelling_is_refused_at_its_offset() {
    let root = "CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=";
    let cases = [
        (format!("o\n20852163\n{root}"), 2 + 9 + root.len()), // no final newline
        ("o\n1\n".to_owned(), 4),                             // no root line
        (format!("o\n020852163\n{root}\n"), 2),               // leading zero
        (format!("o\n+1\n{root}\n"), 2),
        (format!("o\n18446744073709551616\n{root}\n"), 2), // 2^64
        (format!("o\n\n{root}\n"), 2),                     // empty line
        (format!("\n1\n{root}\n"), 0),
        (format!("o\n1\n{root}\n\n"), 5 + root.len()), // empty extension line
        (format!("o\r\n1\n{root}\n"), 1),              // CR
        (
            "o\n1\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I\n".to_owned(),
            4 + root.len() - 1,
        ),
        (
            "o\n1\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2J=\n".to_owned(),
            4 + root.len() - 2,
        ),
        (
            "o\n1\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxqw==\n".to_owned(),
            4,
        ), // 31 bytes
    ];
    for (text, offset) in cases {
        let e = Checkpoint::parse(&text).unwrap_err();
        assert_eq!(e.code(), Code::CheckpointInvalid, "{text:?}");
        assert_eq!(e.offset(), Some(offset), "{text:?}: {e}");
    }
    assert_eq!(parse_size("0").unwrap(), 0);
    assert_eq!(parse_size("18446744073709551615").unwrap(), u64::MAX);
    for origin in ["", "a\nb", "a\tb"] {
        let e = Checkpoint::new(origin, 0, [0; 32]).unwrap_err();
        assert_eq!(e.code(), Code::CheckpointInvalid);
    }
}
