use super::*;
use crate::{parse, Options};

fn contract(effect: &str, extra: &str) -> Result<Contract> {
    let text = format!(
        r#"{{"tool":"t","version":"2.1","effect":"{effect}","approval":"never","cost_minor":3,
            "args":{{"type":"object"}}{extra}}}"#
    );
    Contract::from_value(&parse(text.as_bytes(), &Options::default()).unwrap())
}

#[test]
fn fields_are_read() {
    let c = contract("read", "").unwrap();
    assert_eq!((c.tool(), c.version(), c.cost_minor()), ("t", "2.1", 3));
    assert_eq!(c.effect(), Effect::Read);
    assert_eq!(c.max_approval_ms(), None);
    assert_eq!(contract("write", "").unwrap().effect(), Effect::Write);
    let capped = contract("write", r#","max_approval_ms":600000"#).unwrap();
    assert_eq!(capped.max_approval_ms(), Some(600_000));
}

#[test]
fn the_cap_is_a_positive_integer() {
    for bad in ["0", "-1", "1.5", "\"600000\"", "null", "true"] {
        let e = contract("write", &format!(r#","max_approval_ms":{bad}"#)).unwrap_err();
        assert_eq!(
            (e.code(), e.path()),
            (Code::InvalidContract, "/max_approval_ms"),
            "{bad}"
        );
    }
}
