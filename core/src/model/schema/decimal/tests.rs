use super::*;
use crate::json::options::Profile;

fn d(text: &str) -> Decimal {
    Decimal::of(Number::from_text(text, Profile::Rfc8785).unwrap())
}

#[test]
fn decimal_multiples() {
    for (v, m) in [
        ("19.99", "0.01"),
        ("0.3", "0.1"),
        ("0", "0.7"),
        ("-12", "4"),
        ("1e300", "1e-300"),
        ("1e21", "5"),
        ("4.5", "1.5"),
        ("100", "25"),
        ("0.0075", "0.0025"),
        ("7", "7"),
    ] {
        assert!(d(v).is_multiple_of(d(m)), "{v} / {m}");
    }
    for (v, m) in [
        ("19.999", "0.01"),
        ("1", "0.3"),
        ("5", "2"),
        ("1e-300", "1"),
        ("0.1", "0.2"),
        ("10", "4"),
        ("1e21", "7"),
        ("1.5e-7", "1e-6"),
    ] {
        assert!(!d(v).is_multiple_of(d(m)), "{v} / {m}");
    }
}
