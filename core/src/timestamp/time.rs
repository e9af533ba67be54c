//! genTime: a DER GeneralizedTime with optional fractional seconds (RFC 3161 §2.4.2:
//! "YYYYMMDDhhmmss[.s...]Z", no trailing zeros in the fraction, no lone dot), in ms.

use der::asn1::AnyRef;
use der::{Tag, Tagged as _};

use super::invalid;
use crate::Result;

/// The time in ms since the epoch (fractions finer than 1 ms dropped) and the text.
pub(super) fn gen_time(any: &AnyRef<'_>) -> Result<(i64, String)> {
    let bad =
        || invalid("the TSTInfo's genTime is not a DER GeneralizedTime \"YYYYMMDDhhmmss[.s]Z\"");
    if any.tag() != Tag::GeneralizedTime {
        return Err(bad());
    }
    let text = std::str::from_utf8(any.value()).map_err(|_| bad())?;
    let ms = parse(text).ok_or_else(bad)?;
    Ok((ms, text.to_owned()))
}

fn parse(text: &str) -> Option<i64> {
    let body = text.strip_suffix('Z')?;
    let (whole, fraction) = match body.split_once('.') {
        Some((whole, fraction)) => (whole, Some(fraction)),
        None => (body, None),
    };
    if whole.len() != 14 || !whole.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let field = |from: usize, to: usize| whole.get(from..to)?.parse::<i64>().ok();
    let (year, month, day) = (field(0, 4)?, field(4, 6)?, field(6, 8)?);
    let (hour, minute, second) = (field(8, 10)?, field(10, 12)?, field(12, 14)?);
    if !(1..=12).contains(&month)
        || day < 1
        || day > days_in_month(year, month)
        || hour > 23
        || minute > 59
        || second > 59
    {
        return None;
    }
    let mut ms = 0;
    if let Some(fraction) = fraction {
        if fraction.is_empty()
            || fraction.ends_with('0')
            || !fraction.bytes().all(|b| b.is_ascii_digit())
        {
            return None;
        }
        // The first three digits are the milliseconds; later ones are finer than 1 ms.
        for (i, digit) in fraction.bytes().take(3).enumerate() {
            ms += i64::from(digit - b'0') * [100, 10, 1].get(i).copied().unwrap_or(0);
        }
    }
    let days = days_from_civil(year, month, day);
    Some(((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + ms)
}

pub(crate) fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
pub(crate) fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn known_times() {
        assert_eq!(parse("19700101000000Z"), Some(0));
        assert_eq!(parse("20000229235959.999Z"), Some(951_868_799_999));
        assert_eq!(parse("20261204101734.489Z"), Some(1_796_379_454_489));
        assert_eq!(parse("20261204101734.4891234Z"), Some(1_796_379_454_489));
        assert_eq!(parse("20261204101734.5Z"), Some(1_796_379_454_500));
    }

    #[test]
    fn refusals() {
        for text in [
            "20261204101734",
            "20261204101734.Z",
            "20261204101734.50Z",
            "20261204101760Z",
            "20230229000000Z",
            "2026120410173Z",
            "20261204101734+0100",
            "+0261204101734Z",
        ] {
            assert_eq!(parse(text), None, "{text}");
        }
    }
}
