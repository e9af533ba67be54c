use super::*;
use actionseal_core::{canonicalize, Code};

/// A tape from records (the header is added).
fn tape(records: &[f64], text: &str) -> Vec<f64> {
    let mut t = vec![
        (records.len() + HEADER) as f64,
        text.encode_utf16().count() as f64,
    ];
    t.extend_from_slice(records);
    t
}

/// The canonical text of the tape's value, decoded into a value and written directly (which
/// must agree, in results and errors alike).
fn run(records: &[f64], text: &str) -> Result<String, Fail> {
    let t = tape(records, text);
    let g = Gathered {
        tape: &t,
        text: Text::Utf8(text),
    };
    let decoded = decode(&g, 1, &Options::default(), None).map(|d| canonicalize(&d.values[0]));
    let direct = canonical(&g, &Options::default());
    assert_eq!(format!("{decoded:?}"), format!("{direct:?}"));
    decoded
}

fn refused(f: Fail) -> (Code, String) {
    match f {
        Fail::Refused(e) => (e.code(), e.path().to_owned()),
        other => panic!("not refused: {other:?}"),
    }
}

const O: f64 = OBJECT as f64;
const A: f64 = ARRAY as f64;
const S: f64 = STRING as f64;
const N: f64 = NUMBER as f64;

#[test]
fn plain_data() {
    // {"b": [1, "é😀"], "a": null}
    let got = run(
        &[
            O,
            0.,
            0.,
            2.,
            1.,
            A,
            1.,
            0.,
            2.,
            N,
            1.,
            S,
            3.,
            1.,
            NULL as f64,
        ],
        "bé😀a",
    );
    assert_eq!(got.unwrap(), r#"{"a":null,"b":[1,"é😀"]}"#);
}

#[test]
fn refusals_have_paths() {
    // {"a": [undefined]}
    let e = run(&[O, 0., 0., 1., 1., A, 1., 0., 1., UNDEFINED as f64], "a").unwrap_err();
    assert_eq!(refused(e), (Code::UnsupportedType, "/a/0".to_owned()));
    // {"a": {"x": <the root again>}}
    let e = run(
        &[O, 0., 0., 1., 1., O, 0., 0., 1., 1., REPEAT as f64, 0.],
        "ax",
    )
    .unwrap_err();
    assert_eq!(refused(e), (Code::CyclicValue, "/a/x".to_owned()));
    // [1, <hole>]
    let e = run(&[A, 1., 0., 2., N, 1., HOLE as f64], "").unwrap_err();
    assert_eq!(refused(e), (Code::SparseArray, String::new()));
    // {"k": {toJSON}}
    let e = run(&[O, 0., 0., 1., 1., O, 0., TO_JSON as f64, 0.], "k").unwrap_err();
    assert_eq!(refused(e), (Code::UnsupportedType, "/k".to_owned()));
}

#[test]
fn prototypes_are_judged_by_core() {
    // A Date: named after its constructor.
    let date = [FOREIGN as f64, 0., 0., 4., 1., 6., 1., 1.];
    let e = run(&date, "DateObject").unwrap_err();
    assert_eq!(refused(e), (Code::UnsupportedType, String::new()));
    // Another realm's Object.prototype: gather again with it accepted.
    let other = [FOREIGN as f64, 0., 0., 6., 1., -1.];
    assert!(matches!(
        run(&other, "Object"),
        Err(Fail::Regather {
            reference: 0,
            array: false
        })
    ));
}

#[test]
fn strings_split_across_a_surrogate_pair_are_lone_surrogates() {
    // ["x\ud83d", "\ude00y"]: the text as a whole is well-formed.
    let e = run(&[A, 1., 0., 2., S, 2., S, 2.], "x😀y").unwrap_err();
    assert_eq!(refused(e), (Code::LoneSurrogate, "/0".to_owned()));
    // The same as UTF-16, string by string.
    let units: Vec<u16> = "x\u{1F600}y".encode_utf16().collect();
    let t = tape(&[A, 1., 0., 2., S, 2., S, 2.], "x😀y");
    let g = Gathered {
        tape: &t,
        text: Text::Utf16(&units),
    };
    let e = decode(&g, 1, &Options::default(), None).unwrap_err();
    assert_eq!(refused(e), (Code::LoneSurrogate, "/0".to_owned()));
}

#[test]
fn several_values_and_a_lifted_member() {
    // 1, then {"contract": <held 0 named Contract>, "now": 5}
    let t = tape(
        &[N, 1., O, 0., 0., 2., 8., HELD as f64, 0., 8., 3., N, 5.],
        "contractContractnow",
    );
    let g = Gathered {
        tape: &t,
        text: Text::Utf8("contractContractnow"),
    };
    let lift = Lift {
        value: 1,
        key: "contract",
    };
    let d = decode(&g, 2, &Options::default(), Some(lift)).unwrap();
    assert_eq!(d.lifted, Some(0));
    assert_eq!(canonicalize(&d.values[1]), r#"{"now":5}"#);
    // Anywhere else, a held object is not data.
    let e = decode(&g, 2, &Options::default(), None).unwrap_err();
    assert_eq!(refused(e), (Code::UnsupportedType, "/contract".to_owned()));
}

#[test]
fn malformed_tapes_are_bugs_not_refusals() {
    for records in [&[O, 0., 0., 1.][..], &[99.], &[S, 5.], &[N, 1., N, 2.]] {
        assert!(matches!(run(records, ""), Err(Fail::Bug(_))), "{records:?}");
    }
    assert!(matches!(header(&[1.0, 0.0]), Err(Fail::Bug(_))));
    assert!(matches!(header(&[3.0, 0.0]), Err(Fail::Bug(_))));
}

/// The lossy-text test against the plain substring search, with U+FFFD and its bytes' lookalikes
/// (other EF.. characters, BF/BD continuation bytes) at every position around the 16-byte
/// blocks.
#[test]
fn may_be_lossy_finds_every_replacement_character() {
    let pieces = [
        "a", "\u{FFFD}", "\u{FF21}", "\u{FFFC}", "é", "\u{3FFD}", "✓", "\u{EFBF}",
    ];
    for len in 0..40 {
        for at in 0..=len {
            for piece in pieces {
                let text = format!("{}{piece}{}", "x".repeat(at), "y".repeat(len - at));
                assert_eq!(may_be_lossy(&text), text.contains('\u{FFFD}'), "{text:?}");
                let twice = format!("{text}\u{FF21}{piece}");
                assert_eq!(
                    may_be_lossy(&twice),
                    twice.contains('\u{FFFD}'),
                    "{twice:?}"
                );
            }
        }
    }
}
