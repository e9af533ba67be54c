//! RFC 3161 §3.4 over HTTP: one `POST` of a TimeStampReq, the TimeStampResp read back. Asked
//! as HTTP/1.0 (RFC 1945), so that the answer is never chunked and ends when the TSA closes
//! the connection; its `Content-Length`, when given, must be met.

use actionseal_core::{Error, Result};
use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

/// The most a TSA's answer may hold: a token with its certificates is a few KiB.
const MAX_ANSWER: usize = 256 * 1024;
/// Room for the answer's status line and headers.
const MAX_HEAD: usize = 16 * 1024;

/// An `http://HOST[:PORT][/PATH]` URL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Url {
    text: String,
    /// `HOST:PORT`, to connect to.
    address: String,
    /// `HOST[:PORT]` as written, for the `Host` header.
    authority: String,
    /// The request target, `/` at least.
    path: String,
}

impl Url {
    /// Reads `text`; [`actionseal_core::Code::InvalidOption`] when it is not a plain HTTP URL
    /// a request line can carry.
    pub(super) fn parse(text: &str) -> Result<Url> {
        let bad = |why: &str| {
            Error::invalid_option(format!(
                "a time-stamping authority is an http://HOST[:PORT][/PATH] URL, not {text:?}: \
                 {why}"
            ))
        };
        let rest = text.strip_prefix("http://").ok_or_else(|| {
            bad(
                "only plain HTTP (RFC 3161 §3.4); tokens authenticate themselves, so reach an \
                 https-only TSA through a local TLS proxy",
            )
        })?;
        if rest
            .bytes()
            .any(|b| b.is_ascii_control() || b == b' ' || b == b'#')
        {
            return Err(bad("it holds a space, a control character or a fragment"));
        }
        let (authority, path) = match rest.find('/') {
            Some(i) => rest.split_at(i),
            None => (rest, "/"),
        };
        if authority.contains('@') {
            return Err(bad("user information is not sent to a TSA"));
        }
        // An IPv6 address is bracketed, and its port follows the bracket.
        let port_at = match authority.rfind(']') {
            Some(end) => authority[end..].find(':').map(|i| end + i),
            None => authority.rfind(':'),
        };
        let (host, port) = match port_at {
            Some(i) => (&authority[..i], &authority[i + 1..]),
            None => (authority, "80"),
        };
        let port: u16 = port.parse().map_err(|_| bad("its port is not a number"))?;
        if host.is_empty() || host == "[]" {
            return Err(bad("it names no host"));
        }
        Ok(Url {
            text: text.to_owned(),
            address: format!("{host}:{port}"),
            authority: authority.to_owned(),
            path: path.to_owned(),
        })
    }

    pub(super) fn as_str(&self) -> &str {
        &self.text
    }
}

/// POSTs `query` to `url` and returns the body of its `200 application/timestamp-reply`
/// answer; otherwise why not, for the caller's error.
pub(super) fn post(
    url: &Url,
    query: &[u8],
    timeout: Duration,
) -> std::result::Result<Vec<u8>, String> {
    let mut stream = connect(&url.address, timeout)?;
    let io = |e: std::io::Error| e.to_string();
    stream.set_read_timeout(Some(timeout)).map_err(io)?;
    stream.set_write_timeout(Some(timeout)).map_err(io)?;
    let head = format!(
        "POST {} HTTP/1.0\r\nHost: {}\r\nContent-Type: application/timestamp-query\r\n\
         Accept: application/timestamp-reply\r\nContent-Length: {}\r\n\r\n",
        url.path,
        url.authority,
        query.len()
    );
    stream.write_all(head.as_bytes()).map_err(io)?;
    stream.write_all(query).map_err(io)?;
    let mut answer = Vec::new();
    let mut chunk = [0u8; 8192];
    // Until the TSA closes the connection, or the body its Content-Length gives is in (a
    // server that keeps the connection open is not waited for).
    while answer.len() <= MAX_ANSWER + MAX_HEAD && !whole(&answer) {
        match stream.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => answer.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(format!("no whole answer ({e})")),
        }
    }
    reply_of(&answer)
}

/// A connection to the first of `address`'s addresses that accepts one.
fn connect(address: &str, timeout: Duration) -> std::result::Result<TcpStream, String> {
    let mut last = format!("{address} has no address");
    let addrs = address.to_socket_addrs().map_err(|e| e.to_string())?;
    for addr in addrs {
        match TcpStream::connect_timeout(&addr, timeout) {
            Ok(s) => return Ok(s),
            Err(e) => last = format!("{addr}: {e}"),
        }
    }
    Err(last)
}

/// Whether `answer` holds its head and the whole body its Content-Length gives.
fn whole(answer: &[u8]) -> bool {
    let Some((head, body)) = split(answer) else {
        return false;
    };
    let head = String::from_utf8_lossy(head);
    header(&head, "content-length")
        .and_then(|n| n.parse::<usize>().ok())
        .is_some_and(|n| body.len() >= n)
}

/// An answer's head (status line and headers) and what follows it.
fn split(answer: &[u8]) -> Option<(&[u8], &[u8])> {
    let at = answer
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .filter(|&at| at <= MAX_HEAD)?;
    Some((&answer[..at], &answer[at + 4..]))
}

/// The value of the header `name` (lowercase) in `head`, trimmed.
fn header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.split("\r\n").skip(1).find_map(|line| {
        let (n, value) = line.split_once(':')?;
        n.trim().eq_ignore_ascii_case(name).then(|| value.trim())
    })
}

/// The TimeStampResp in an HTTP answer read to its end.
fn reply_of(answer: &[u8]) -> std::result::Result<Vec<u8>, String> {
    let (head, body) = split(answer).ok_or("no HTTP answer")?;
    let head = std::str::from_utf8(head).map_err(|_| "an answer whose header is not text")?;
    let status = head.split("\r\n").next().unwrap_or_default();
    if !status.starts_with("HTTP/") || status.split(' ').nth(1) != Some("200") {
        let status: String = status.chars().take(80).collect();
        return Err(format!("it answered {status:?}, not 200"));
    }
    let kind = header(head, "content-type").and_then(|k| k.split(';').next().map(str::trim));
    if !kind.is_some_and(|k| k.eq_ignore_ascii_case("application/timestamp-reply")) {
        return Err(format!(
            "it answered {}, not application/timestamp-reply",
            kind.unwrap_or("no content type")
        ));
    }
    let body = match header(head, "content-length") {
        None => body,
        Some(n) => match n.parse::<usize>() {
            Ok(n) if n <= body.len() => &body[..n],
            Ok(_) => return Err("an answer shorter than its Content-Length".into()),
            Err(_) => return Err("a bad Content-Length".into()),
        },
    };
    if body.len() > MAX_ANSWER {
        return Err(format!("an answer over {MAX_ANSWER} bytes"));
    }
    Ok(body.to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls() {
        let u = Url::parse("http://127.0.0.1:8318/tsa").unwrap();
        assert_eq!(
            (u.address.as_str(), u.path.as_str()),
            ("127.0.0.1:8318", "/tsa")
        );
        let u = Url::parse("http://tsa.example").unwrap();
        assert_eq!(
            (u.address.as_str(), u.authority.as_str(), u.path.as_str()),
            ("tsa.example:80", "tsa.example", "/")
        );
        let u = Url::parse("http://[::1]:9/").unwrap();
        assert_eq!(u.address, "[::1]:9");
        for bad in [
            "https://tsa.example/",
            "tsa.example",
            "http://",
            "http://:80/",
            "http://a:b/",
            "http://u@tsa.example/",
            "http://tsa.example/a b",
            "http://tsa.example/\r\nX: y",
        ] {
            let e = Url::parse(bad).unwrap_err();
            assert_eq!(e.code(), actionseal_core::Code::InvalidOption, "{bad}");
        }
    }

    #[test]
    fn an_answer_ends_at_its_content_length_on_an_open_connection() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = Url::parse(&format!("http://{}/", listener.local_addr().unwrap())).unwrap();
        let server = std::thread::spawn(move || {
            let (mut s, _) = listener.accept().unwrap();
            let mut request = [0u8; 512];
            let _ = s.read(&mut request);
            s.write_all(b"HTTP/1.1 200 OK\r\nContent-Type: application/timestamp-reply\r\nContent-Length: 2\r\n\r\nok")
                .unwrap();
            // Kept open for longer than the client waits.
            std::thread::sleep(Duration::from_secs(3));
        });
        let started = std::time::Instant::now();
        assert_eq!(post(&url, b"q", Duration::from_secs(20)).unwrap(), b"ok");
        assert!(started.elapsed() < Duration::from_secs(2));
        server.join().unwrap();
    }

    #[test]
    fn answers() {
        let ok = b"HTTP/1.0 200 OK\r\nContent-Type: Application/Timestamp-Reply\r\nContent-Length: 3\r\n\r\nabcd";
        assert_eq!(reply_of(ok).unwrap(), b"abc");
        let open = b"HTTP/1.1 200 OK\r\ncontent-type: application/timestamp-reply; x=y\r\n\r\nab";
        assert_eq!(reply_of(open).unwrap(), b"ab");
        for bad in [
            &b"HTTP/1.0 500 Oops\r\nContent-Type: application/timestamp-reply\r\n\r\nab"[..],
            b"HTTP/1.0 200 OK\r\nContent-Type: text/html\r\n\r\nab",
            b"HTTP/1.0 200 OK\r\n\r\nab",
            b"HTTP/1.0 200 OK\r\nContent-Type: application/timestamp-reply\r\nContent-Length: 9\r\n\r\nab",
            b"garbage",
            b"",
        ] {
            assert!(reply_of(bad).is_err(), "{}", String::from_utf8_lossy(bad));
        }
    }
}
