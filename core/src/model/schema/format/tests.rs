use super::*;

fn check(f: Format, good: &[&str], bad: &[&str]) {
    for s in good {
        assert!(f.matches(s), "{} should accept {s:?}", f.name());
    }
    for s in bad {
        assert!(!f.matches(s), "{} should reject {s:?}", f.name());
    }
}

#[test]
fn date_time_and_parts() {
    check(
        Format::DateTime,
        &[
            "1985-04-12T23:20:50.52Z",
            "1996-12-19T16:39:57-08:00",
            "1990-12-31t15:59:60-08:00",
            "1998-12-31T23:59:60Z",
            "2024-02-29T00:00:00+14:00",
            "1937-01-01T12:00:27.87+00:20",
        ],
        &[
            "1985-04-12T23:20:50.52",
            "1985-04-12 23:20:50Z",
            "1998-12-31T23:58:60Z",
            "1998-12-31T23:59:61Z",
            "2023-02-29T00:00:00Z",
            "2024-13-01T00:00:00Z",
            "2024-01-01T24:00:00Z",
            "2024-01-01T00:00:00.Z",
            "2024-01-01T00:00:00+24:00",
            "2024-01-01T00:00:00+0100",
            "２０２４-01-01T00:00:00Z",
            "",
        ],
    );
    check(
        Format::Date,
        &["2000-02-29", "0000-01-01", "1900-02-28"],
        &[
            "1900-02-29",
            "2021-04-31",
            "2021-4-01",
            "2021-04-01T00:00:00Z",
        ],
    );
    check(
        Format::Time,
        &[
            "08:30:06Z",
            "23:59:60+00:00",
            "15:59:60-08:00",
            "00:00:00.000001z",
        ],
        &["08:30:06", "8:30:06Z", "22:59:60Z", "08:30Z"],
    );
}

#[test]
fn email_hostname() {
    check(
        Format::Email,
        &[
            "joe.bloggs@example.com",
            "a+tag@b.co",
            "x@localhost",
            "o'neil@x-y.org",
        ],
        &[
            "joe..bloggs@example.com",
            ".joe@example.com",
            "joe@",
            "@example.com",
            "a@b@c.com",
            "\"joe bloggs\"@example.com",
            "joe@[127.0.0.1]",
            "jöe@example.com",
            "joe@-example.com",
        ],
    );
    check(
        Format::Hostname,
        &[
            "www.example.com",
            "localhost",
            "1host",
            "xn--nw2a.xn--j6w193g",
        ],
        &[
            "",
            ".",
            "a..b",
            "-a.com",
            "a-.com",
            "a_b.com",
            "a.com.",
            &"a".repeat(64),
        ],
    );
}

#[test]
fn uuid_ip() {
    check(
        Format::Uuid,
        &[
            "2EB8AA08-AA98-11EA-B4AA-73B441D16380",
            "00000000-0000-0000-0000-000000000000",
        ],
        &[
            "2eb8aa08aa9811eab4aa73b441d16380",
            "{2eb8aa08-aa98-11ea-b4aa-73b441d16380}",
            "2eb8aa08-aa98-11ea-b4aa-73b441d1638g",
        ],
    );
    check(
        Format::Ipv4,
        &["192.168.0.1", "0.0.0.0", "255.255.255.255"],
        &[
            "256.0.0.1",
            "1.2.3",
            "1.2.3.4.5",
            "01.2.3.4",
            "1.2.3.4 ",
            "١.2.3.4",
        ],
    );
    check(
        Format::Ipv6,
        &[
            "::",
            "::1",
            "1::",
            "1:2:3:4:5:6:7:8",
            "1:2:3:4:5:6:7::",
            "::ffff:192.168.0.1",
            "fe80::a:b",
        ],
        &[
            "1:2:3:4:5:6:7:8:9",
            "1::2::3",
            ":::",
            "1:2:3:4:5:6:7",
            "12345::",
            "fe80::a%eth1",
            "[::1]",
            "::1.2.3.256",
            "1.2.3.4",
        ],
    );
}

#[test]
fn uris() {
    check(
        Format::Uri,
        &[
            "http://foo.bar/?baz=qux#quux",
            "https://user:pw@example.com:8080/a/b;c?d=e&f#g",
            "urn:isbn:0451450523",
            "mailto:a@example.com",
            "file:///etc/hosts",
            "http://[2001:db8::1]:80/",
            "http://[v1.fe:80]/",
            "http://example.com/%E2%82%AC",
            "tel:+1-816-555-1212",
        ],
        &[
            "//foo.bar/",
            "/abc",
            "abc",
            "http:// x.com",
            "http://example.com/€",
            "1http://x",
            "http://2001:db8::1/",
            "http://x.com/%zz",
            "http://[::1",
            "http://x.com:80a/",
            "http://a@b@c/",
            "",
        ],
    );
}
