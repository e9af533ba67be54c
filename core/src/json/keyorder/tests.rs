use super::*;
use proptest::prelude::*;

fn reference(a: &str, b: &str) -> Ordering {
    a.encode_utf16().cmp(b.encode_utf16())
}

#[test]
fn supplementary_sorts_before_private_use() {
    assert_eq!(cmp_utf16("\u{1F600}", "\u{E000}"), Ordering::Less);
    assert_eq!(cmp_utf16("\u{E000}", "\u{1F600}"), Ordering::Greater);
    assert_eq!(cmp_utf16("a\u{FFFF}", "a\u{10000}"), Ordering::Greater);
    assert_eq!(cmp_utf16("\u{D7FF}", "\u{10000}"), Ordering::Less);
    assert_eq!(cmp_utf16("ab", "a"), Ordering::Greater);
    assert_eq!(cmp_utf16("", ""), Ordering::Equal);
}

proptest! {
    #[test]
    fn matches_utf16_order(a in "\\PC{0,6}", b in "\\PC{0,6}") {
        prop_assert_eq!(cmp_utf16(&a, &b), reference(&a, &b));
    }

    #[test]
    fn prefix_order_agrees_with_full_order(a in "[a\u{0}\u{7F}\u{80}\u{E000}\u{FFFF}\u{10000}\u{1F600}]{0,10}", b in "[a\u{0}\u{7F}\u{80}\u{E000}\u{FFFF}\u{10000}\u{1F600}]{0,10}") {
        let by_prefix = sort_key(prefix(a.as_bytes())).cmp(&sort_key(prefix(b.as_bytes())));
        if by_prefix != Ordering::Equal {
            prop_assert_eq!(by_prefix, reference(&a, &b));
        } else {
            // Equal prefixes: the strings agree on their first eight bytes, where a string
            // that ends early can only be matched by U+0000.
            let (a8, b8) = (&a.as_bytes()[..a.len().min(8)], &b.as_bytes()[..b.len().min(8)]);
            let common = a8.len().min(b8.len());
            prop_assert_eq!(&a8[..common], &b8[..common]);
            prop_assert!(a8[common..].iter().chain(&b8[common..]).all(|&c| c == 0));
        }
    }

    #[test]
    fn prefix_at_is_the_prefix_of_the_slice(b in proptest::collection::vec(any::<u8>(), 0..20), start in 0usize..20, len in 0usize..20) {
        let start = start.min(b.len());
        let len = len.min(b.len() - start);
        prop_assert_eq!(prefix_at(&b, start, len), prefix(&b[start..start + len]));
    }

    #[test]
    fn matches_utf16_order_on_long_shared_prefix(p in "[a\u{E000}\u{1F600}]{0,12}", a in "[\u{0}-\u{10FFFF}]{0,3}", b in "[\u{0}-\u{10FFFF}]{0,3}") {
        let (a, b) = (format!("{p}{a}"), format!("{p}{b}"));
        prop_assert_eq!(cmp_utf16(&a, &b), reference(&a, &b));
    }

    #[test]
    fn matches_utf16_order_on_shared_prefix(p in "[a\u{E000}\u{1F600}]{0,3}", a in "[\u{0}-\u{10FFFF}]{0,3}", b in "[\u{0}-\u{10FFFF}]{0,3}") {
        let (a, b) = (format!("{p}{a}"), format!("{p}{b}"));
        prop_assert_eq!(cmp_utf16(&a, &b), reference(&a, &b));
    }
}
