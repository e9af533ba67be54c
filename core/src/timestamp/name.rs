//! A certificate name as an RFC 4514 string (`CN=tsa,O=example`), for the TSA's name.
//!
//! Written here rather than with x509-cert's `Display`, which names attributes from
//! const-oid's whole OID database and so adds hundreds of KiB to the WebAssembly build.

use std::fmt::Write as _;

use der::asn1::ObjectIdentifier as Oid;
use der::{Encode, Tag, Tagged as _};
use x509_cert::attr::AttributeTypeAndValue;
use x509_cert::name::Name;

/// RFC 4514 §3: the attribute types with a short name.
const SHORT_NAMES: [(Oid, &str); 9] = [
    (Oid::new_unwrap("2.5.4.3"), "CN"),
    (Oid::new_unwrap("2.5.4.7"), "L"),
    (Oid::new_unwrap("2.5.4.8"), "ST"),
    (Oid::new_unwrap("2.5.4.10"), "O"),
    (Oid::new_unwrap("2.5.4.11"), "OU"),
    (Oid::new_unwrap("2.5.4.6"), "C"),
    (Oid::new_unwrap("2.5.4.9"), "STREET"),
    (Oid::new_unwrap("0.9.2342.19200300.100.1.25"), "DC"),
    (Oid::new_unwrap("0.9.2342.19200300.100.1.1"), "UID"),
];

/// RFC 4514 §2.1: the RDNs last first, separated by commas; multi-valued RDNs joined by `+`.
pub(super) fn rfc4514(name: &Name) -> String {
    let rdns: Vec<_> = name.iter_rdn().collect();
    let mut out = String::new();
    for (i, rdn) in rdns.iter().rev().enumerate() {
        if i > 0 {
            out.push(',');
        }
        for (j, atv) in rdn.iter().enumerate() {
            if j > 0 {
                out.push('+');
            }
            attribute(atv, &mut out);
        }
    }
    out
}

/// RFC 4514 §2.3, §2.4: `TYPE=escaped string` for a known type with a string value, else
/// `dotted.oid=#hex of the value's DER`.
fn attribute(atv: &AttributeTypeAndValue, out: &mut String) {
    let short = SHORT_NAMES
        .iter()
        .find(|(oid, _)| *oid == atv.oid)
        .map(|(_, name)| *name);
    let text = match atv.value.tag() {
        Tag::Utf8String | Tag::PrintableString | Tag::Ia5String => {
            std::str::from_utf8(atv.value.value()).ok()
        }
        _ => None,
    };
    if let (Some(short), Some(text)) = (short, text) {
        out.push_str(short);
        out.push('=');
        let last = text.chars().count().saturating_sub(1);
        for (i, c) in text.chars().enumerate() {
            match c {
                '#' if i == 0 => out.push_str("\\#"),
                ' ' if i == 0 || i == last => out.push_str("\\ "),
                '"' | '+' | ',' | ';' | '<' | '>' | '\\' => {
                    out.push('\\');
                    out.push(c);
                }
                '\0'..='\x1f' | '\x7f' => {
                    let _ = write!(out, "\\{:02x}", c as u8);
                }
                _ => out.push(c),
            }
        }
    } else {
        let _ = write!(out, "{}=#", atv.oid);
        for byte in atv.value.to_der().unwrap_or_default() {
            let _ = write!(out, "{byte:02x}");
        }
    }
}

#[cfg(test)]
mod tests {
    use std::str::FromStr;

    use x509_cert::name::Name;

    use super::rfc4514;

    #[test]
    fn reversed_escaped_and_unknown_types_in_hex() {
        // FromStr takes RFC 4514 order too (last RDN first), so a round trip is the identity.
        for text in [
            "CN=tsa,O=actionseal test,C=DE",
            "CN=a\\,b\\+c,O=\\ lead and trail\\ ",
            "CN=\\#1+OU=unit,DC=example",
        ] {
            let name = Name::from_str(text).unwrap();
            assert_eq!(rfc4514(&name), text);
        }
        let name = Name::from_str("CN=x,emailAddress=a@b").unwrap();
        assert_eq!(rfc4514(&name), "CN=x,1.2.840.113549.1.9.1=#1603614062");
    }
}
