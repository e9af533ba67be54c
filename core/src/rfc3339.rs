//! Times as people write them: RFC 3339 `date-time` to and from integer ms since the epoch,
//! the ledger's time. For filters and tables at the edges (the command line), never for what
//! the ledger records.

use crate::timestamp::time::{days_from_civil, days_in_month};
use crate::{Code, Error, Result};

/// The ms since the epoch of an RFC 3339 `date-time` (§5.6: `YYYY-MM-DDTHH:MM:SS[.frac]` and
/// `Z` or `±HH:MM`; `T` and `Z` in either case). A fraction finer than 1 ms must be zeros
/// there, and a leap second (`:60`) is refused: neither is a time in ms. Anything else is
/// [`Code::InvalidRequest`].
pub fn parse_ms(text: &str) -> Result<i64> {
    parse(text).ok_or_else(|| {
        Error::new(
            Code::InvalidRequest,
            format!(
                "{text:?} is not an RFC 3339 date-time in whole ms \
                 (YYYY-MM-DDTHH:MM:SS[.sss]Z or ±HH:MM)"
            ),
        )
    })
}

fn parse(text: &str) -> Option<i64> {
    let b = text.as_bytes();
    let digits = |from: usize, to: usize| -> Option<i64> {
        let s = text.get(from..to)?;
        s.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| s.parse().ok())?
    };
    let at = |i: usize, c: u8| b.get(i).is_some_and(|x| x.eq_ignore_ascii_case(&c));
    if !(at(4, b'-') && at(7, b'-') && at(10, b'T') && at(13, b':') && at(16, b':')) {
        return None;
    }
    let (year, month, day) = (digits(0, 4)?, digits(5, 7)?, digits(8, 10)?);
    let (hour, minute, second) = (digits(11, 13)?, digits(14, 16)?, digits(17, 19)?);
    if !(1..=12).contains(&month)
        || !(1..=days_in_month(year, month)).contains(&day)
        || hour > 23
        || minute > 59
        || second > 59
    {
        return None;
    }
    let mut rest = &text[19..];
    let mut ms = 0;
    if let Some(fraction) = rest.strip_prefix('.') {
        let end = fraction
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(fraction.len());
        let (frac, after) = fraction.split_at(end);
        if frac.is_empty() || frac.bytes().skip(3).any(|c| c != b'0') {
            return None;
        }
        for (i, c) in frac.bytes().take(3).enumerate() {
            ms += i64::from(c - b'0') * [100, 10, 1][i];
        }
        rest = after;
    }
    let offset = match rest.as_bytes() {
        [z] if z.eq_ignore_ascii_case(&b'Z') => 0,
        [sign @ (b'+' | b'-'), h1, h2, b':', m1, m2] => {
            let field = |a: u8, b: u8| -> Option<i64> {
                (a.is_ascii_digit() && b.is_ascii_digit())
                    .then(|| i64::from(a - b'0') * 10 + i64::from(b - b'0'))
            };
            let (h, m) = (field(*h1, *h2)?, field(*m1, *m2)?);
            if h > 23 || m > 59 {
                return None;
            }
            let minutes = h * 60 + m;
            if *sign == b'-' {
                -minutes
            } else {
                minutes
            }
        }
        _ => return None,
    };
    let days = days_from_civil(year, month, day);
    Some(((days * 24 + hour) * 60 + minute - offset) * 60_000 + second * 1000 + ms)
}

/// `ms` since the epoch as an RFC 3339 `date-time` in UTC, to the millisecond
/// (`2026-12-04T16:13:02.489Z`; `.000` left out).
pub fn format_ms(ms: i64) -> String {
    let (days, rest) = (ms.div_euclid(86_400_000), ms.rem_euclid(86_400_000));
    let (year, month, day) = civil_from_days(days);
    let (h, m, s, milli) = (
        rest / 3_600_000,
        rest / 60_000 % 60,
        rest / 1000 % 60,
        rest % 1000,
    );
    let fraction = if milli == 0 {
        String::new()
    } else {
        format!(".{milli:03}")
    };
    format!("{year:04}-{month:02}-{day:02}T{h:02}:{m:02}:{s:02}{fraction}Z")
}

/// The proleptic Gregorian date of a day since 1970-01-01 (H. Hinnant's civil_from_days).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::{format_ms, parse_ms};

    #[test]
    fn known_times() {
        for (text, ms) in [
            ("1970-01-01T00:00:00Z", 0),
            ("2000-02-29T23:59:59.999Z", 951_868_799_999),
            ("2026-12-04T10:17:34.489Z", 1_796_379_454_489),
            ("2026-12-04t12:17:34.489+02:00", 1_796_379_454_489),
            ("2026-12-04T09:47:34.48900-00:30", 1_796_379_454_489),
            ("1969-12-31T23:59:59.9z", -100),
        ] {
            assert_eq!(parse_ms(text).unwrap(), ms, "{text}");
        }
        assert_eq!(format_ms(1_796_379_454_489), "2026-12-04T10:17:34.489Z");
        assert_eq!(format_ms(951_868_799_000), "2000-02-29T23:59:59Z");
        assert_eq!(format_ms(-100), "1969-12-31T23:59:59.900Z");
    }

    #[test]
    fn round_trips() {
        for ms in [
            0,
            1,
            999,
            86_399_999,
            951_868_800_000,
            4_102_444_800_123,
            -1,
        ] {
            assert_eq!(parse_ms(&format_ms(ms)).unwrap(), ms, "{ms}");
        }
    }

    #[test]
    fn refusals() {
        for text in [
            "2026-12-04",
            "2026-12-04T10:17:34",
            "2026-12-04 10:17:34Z",
            "2026-02-29T10:17:34Z",
            "2026-12-04T24:00:00Z",
            "2026-12-31T23:59:60Z",
            "2026-12-04T10:17:34.Z",
            "2026-12-04T10:17:34.4891Z",
            "2026-12-04T10:17:34+0200",
            "2026-12-04T10:17:34+24:00",
            "+2026-12-04T10:17:34Z",
            "1796379454489",
        ] {
            assert!(parse_ms(text).is_err(), "{text}");
        }
    }
}
