//! `format`: the string formats tool schemas use, each decided exactly as documented here.
//! All of them accept ASCII text only.

/// A supported `format`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Format {
    /// RFC 3339 `date-time`: `full-date "T" full-time`; `T`/`Z` may be lowercase; the
    /// offset is required; a leap second (`:60`) only where the time is 23:59 in UTC.
    DateTime,
    /// RFC 3339 `full-date`: `YYYY-MM-DD`, a real day of the proleptic Gregorian calendar.
    Date,
    /// RFC 3339 `full-time`: `HH:MM:SS[.frac]` and a required offset (`Z` or `±HH:MM`).
    Time,
    /// A pragmatic RFC 5321 mailbox: a dot-atom local part (at most 64 characters) `@` a
    /// `hostname`, at most 254 characters in all; no quoted local parts, no address literals.
    Email,
    /// RFC 9562 textual UUID: 8-4-4-4-12 hex digits, either case, any version or variant.
    Uuid,
    /// RFC 3986 `URI`: an absolute URI (scheme required), optional query and fragment,
    /// validated against the RFC's grammar; ASCII only (percent-encode anything else).
    Uri,
    /// RFC 2673 dotted quad: four decimal octets 0-255 without leading zeros.
    Ipv4,
    /// RFC 4291 text form: eight groups of 1-4 hex digits, one `::` allowed, an embedded
    /// IPv4 as the last 32 bits allowed; no zone index, no brackets.
    Ipv6,
    /// RFC 1123 host name: dot-separated labels of 1-63 letters, digits and hyphens, not
    /// starting or ending with a hyphen, at most 253 characters, no trailing dot.
    Hostname,
}

impl Format {
    /// The format with this name, if it is supported.
    pub(crate) fn from_name(name: &str) -> Option<Format> {
        Some(match name {
            "date-time" => Format::DateTime,
            "date" => Format::Date,
            "time" => Format::Time,
            "email" => Format::Email,
            "uuid" => Format::Uuid,
            "uri" => Format::Uri,
            "ipv4" => Format::Ipv4,
            "ipv6" => Format::Ipv6,
            "hostname" => Format::Hostname,
            _ => return None,
        })
    }

    /// The format's name.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Format::DateTime => "date-time",
            Format::Date => "date",
            Format::Time => "time",
            Format::Email => "email",
            Format::Uuid => "uuid",
            Format::Uri => "uri",
            Format::Ipv4 => "ipv4",
            Format::Ipv6 => "ipv6",
            Format::Hostname => "hostname",
        }
    }

    /// Whether `s` is in this format.
    pub(crate) fn matches(self, s: &str) -> bool {
        match self {
            Format::DateTime => date_time(s.as_bytes()),
            Format::Date => full_date(s.as_bytes()),
            Format::Time => full_time(s.as_bytes()),
            Format::Email => email(s),
            Format::Uuid => uuid(s.as_bytes()),
            Format::Uri => uri(s),
            Format::Ipv4 => ipv4(s),
            Format::Ipv6 => ipv6(s),
            Format::Hostname => hostname(s),
        }
    }
}

/// The value of `n` ASCII digits at `b[at..]`.
fn digits(b: &[u8], at: usize, n: usize) -> Option<u32> {
    let d = b.get(at..at + n)?;
    d.iter().try_fold(0u32, |v, &c| {
        c.is_ascii_digit().then(|| v * 10 + u32::from(c - b'0'))
    })
}

fn date_time(b: &[u8]) -> bool {
    b.len() > 11 && matches!(b[10], b'T' | b't') && full_date(&b[..10]) && full_time(&b[11..])
}

fn full_date(b: &[u8]) -> bool {
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let (Some(y), Some(m), Some(d)) = (digits(b, 0, 4), digits(b, 5, 2), digits(b, 8, 2)) else {
        return false;
    };
    let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&d)
}

fn full_time(b: &[u8]) -> bool {
    if b.len() < 9 || b[2] != b':' || b[5] != b':' {
        return false;
    }
    let (Some(h), Some(m), Some(s)) = (digits(b, 0, 2), digits(b, 3, 2), digits(b, 6, 2)) else {
        return false;
    };
    let mut i = 8;
    if b.get(i) == Some(&b'.') {
        i += 1;
        let start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == start {
            return false;
        }
    }
    // Offset in minutes east of UTC.
    let offset: i64 = match &b[i..] {
        [b'Z' | b'z'] => 0,
        [sign @ (b'+' | b'-'), _, _, b':', _, _] => {
            let (Some(oh), Some(om)) = (digits(b, i + 1, 2), digits(b, i + 4, 2)) else {
                return false;
            };
            if oh > 23 || om > 59 {
                return false;
            }
            let v = i64::from(oh * 60 + om);
            if *sign == b'-' {
                -v
            } else {
                v
            }
        }
        _ => return false,
    };
    if h > 23 || m > 59 || s > 60 {
        return false;
    }
    // A leap second is inserted at 23:59:60 UTC.
    s < 60 || (i64::from(h * 60 + m) - offset).rem_euclid(1440) == 23 * 60 + 59
}

fn uuid(b: &[u8]) -> bool {
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}

fn hostname(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 253
        && s.split('.').all(|label| {
            let b = label.as_bytes();
            (1..=63).contains(&b.len())
                && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'-')
                && b[0] != b'-'
                && b[b.len() - 1] != b'-'
        })
}

/// RFC 5322 `atext`.
fn is_atext(c: u8) -> bool {
    c.is_ascii_alphanumeric() || b"!#$%&'*+-/=?^_`{|}~".contains(&c)
}

fn email(s: &str) -> bool {
    let Some((local, domain)) = s.split_once('@') else {
        return false;
    };
    s.len() <= 254
        && (1..=64).contains(&local.len())
        && local
            .split('.')
            .all(|atom| !atom.is_empty() && atom.bytes().all(is_atext))
        && hostname(domain)
}

fn ipv4(s: &str) -> bool {
    let mut n = 0;
    for part in s.split('.') {
        n += 1;
        let b = part.as_bytes();
        let ok = (1..=3).contains(&b.len())
            && b.iter().all(u8::is_ascii_digit)
            && (b.len() == 1 || b[0] != b'0')
            && part.parse::<u16>().is_ok_and(|v| v <= 255);
        if !ok {
            return false;
        }
    }
    n == 4
}

/// Counts the 16-bit groups of a colon-separated run; `last` allows a final IPv4 (2 groups).
fn ipv6_groups(part: &str, last: bool) -> Option<usize> {
    if part.is_empty() {
        return Some(0);
    }
    let pieces: Vec<&str> = part.split(':').collect();
    let mut count = 0;
    for (i, p) in pieces.iter().enumerate() {
        if last && i + 1 == pieces.len() && p.contains('.') {
            if !ipv4(p) {
                return None;
            }
            count += 2;
        } else if (1..=4).contains(&p.len()) && p.bytes().all(|c| c.is_ascii_hexdigit()) {
            count += 1;
        } else {
            return None;
        }
    }
    Some(count)
}

fn ipv6(s: &str) -> bool {
    if s.len() > 45 {
        return false;
    }
    match s.split_once("::") {
        Some((head, tail)) => {
            !tail.contains("::")
                && matches!(
                    (ipv6_groups(head, false), ipv6_groups(tail, true)),
                    (Some(h), Some(t)) if h + t <= 7
                )
        }
        None => ipv6_groups(s, true) == Some(8),
    }
}

fn is_unreserved(c: u8) -> bool {
    c.is_ascii_alphanumeric() || b"-._~".contains(&c)
}

fn is_sub_delim(c: u8) -> bool {
    b"!$&'()*+,;=".contains(&c)
}

/// Whether every byte is allowed by `extra` or is part of a valid `%HH`.
fn uri_chars(s: &str, allowed: impl Fn(u8) -> bool) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            if !(b.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
                && b.get(i + 2).is_some_and(u8::is_ascii_hexdigit))
            {
                return false;
            }
            i += 3;
        } else if allowed(b[i]) {
            i += 1;
        } else {
            return false;
        }
    }
    true
}

fn is_pchar(c: u8) -> bool {
    is_unreserved(c) || is_sub_delim(c) || c == b':' || c == b'@'
}

fn uri(s: &str) -> bool {
    let Some((scheme, rest)) = s.split_once(':') else {
        return false;
    };
    let sb = scheme.as_bytes();
    if sb.is_empty()
        || !sb[0].is_ascii_alphabetic()
        || !sb
            .iter()
            .all(|c| c.is_ascii_alphanumeric() || b"+-.".contains(c))
    {
        return false;
    }
    let (rest, fragment) = rest.split_once('#').unwrap_or((rest, ""));
    let (hier, query) = rest.split_once('?').unwrap_or((rest, ""));
    let query_ok = |q: &str| uri_chars(q, |c| is_pchar(c) || c == b'/' || c == b'?');
    if !query_ok(fragment) || !query_ok(query) {
        return false;
    }
    let path = match hier.strip_prefix("//") {
        Some(after) => {
            let end = after.find('/').unwrap_or(after.len());
            if !authority(&after[..end]) {
                return false;
            }
            &after[end..]
        }
        None => hier,
    };
    uri_chars(path, |c| is_pchar(c) || c == b'/')
}

fn authority(a: &str) -> bool {
    let (userinfo, hostport) = a.split_once('@').unwrap_or(("", a));
    if !uri_chars(userinfo, |c| {
        is_unreserved(c) || is_sub_delim(c) || c == b':'
    }) {
        return false;
    }
    let (host_ok, port) = if let Some(inner) = hostport.strip_prefix('[') {
        let Some((literal, after)) = inner.split_once(']') else {
            return false;
        };
        let port = match after {
            "" => "",
            p => match p.strip_prefix(':') {
                Some(p) => p,
                None => return false,
            },
        };
        (ipv6(literal) || ip_future(literal), port)
    } else {
        let (host, port) = hostport.rsplit_once(':').unwrap_or((hostport, ""));
        (
            uri_chars(host, |c| is_unreserved(c) || is_sub_delim(c)),
            port,
        )
    };
    host_ok && port.bytes().all(|c| c.is_ascii_digit())
}

/// RFC 3986 `IPvFuture`: `v` 1*HEXDIG `.` 1*(unreserved / sub-delims / `:`).
fn ip_future(s: &str) -> bool {
    let Some(rest) = s.strip_prefix(['v', 'V']) else {
        return false;
    };
    let Some((ver, addr)) = rest.split_once('.') else {
        return false;
    };
    !ver.is_empty()
        && ver.bytes().all(|c| c.is_ascii_hexdigit())
        && !addr.is_empty()
        && addr
            .bytes()
            .all(|c| is_unreserved(c) || is_sub_delim(c) || c == b':')
}

#[cfg(test)]
mod tests;
