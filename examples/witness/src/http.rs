//! Just enough HTTP/1.1 for the witness: one request per connection, `Content-Length` bodies.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// Bodies above this are refused: a checkpoint with 63 proof lines and 100 signatures is
/// well below it.
const MAX_BODY: usize = 64 * 1024;
const MAX_HEAD_LINES: usize = 64;

/// A response to write.
pub struct Response {
    status: u16,
    content_type: &'static str,
    body: String,
}

impl Response {
    pub fn text(status: u16, content_type: &'static str, body: String) -> Response {
        Response {
            status,
            content_type,
            body,
        }
    }

    /// Writes the response and closes; a client that went away is not an error here.
    pub fn write(&self, mut stream: &TcpStream) {
        let reason = match self.status {
            200 => "OK",
            400 => "Bad Request",
            403 => "Forbidden",
            404 => "Not Found",
            405 => "Method Not Allowed",
            409 => "Conflict",
            413 => "Content Too Large",
            422 => "Unprocessable Content",
            _ => "Internal Server Error",
        };
        let head = format!(
            "HTTP/1.1 {} {reason}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            self.status,
            self.content_type,
            self.body.len()
        );
        let _ = stream.write_all(head.as_bytes());
        let _ = stream.write_all(self.body.as_bytes());
    }
}

/// Reads one request: its method, target and body.
pub fn read(stream: &TcpStream) -> Result<(String, String, Vec<u8>), Response> {
    let bad = |why: &str| Response::text(400, "text/plain", format!("{why}\n"));
    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
    let mut reader = BufReader::new(stream.take(MAX_BODY as u64 + 16 * 1024));
    let mut line = String::new();
    let mut next = |line: &mut String| {
        line.clear();
        reader
            .read_line(line)
            .map_err(|_| bad("unreadable request"))
    };
    next(&mut line)?;
    let mut parts = line.split_whitespace();
    let (Some(method), Some(target)) = (parts.next(), parts.next()) else {
        return Err(bad("not an HTTP request"));
    };
    let (method, target) = (method.to_owned(), target.to_owned());
    let mut length = 0;
    for _ in 0..MAX_HEAD_LINES {
        next(&mut line)?;
        let header = line.trim_end();
        if header.is_empty() {
            let mut body = vec![0; length];
            reader
                .read_exact(&mut body)
                .map_err(|_| bad("the body is shorter than its Content-Length"))?;
            return Ok((method, target, body));
        }
        if let Some((name, value)) = header.split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                length = value
                    .trim()
                    .parse()
                    .map_err(|_| bad("a bad Content-Length"))?;
                if length > MAX_BODY {
                    return Err(Response::text(413, "text/plain", "too large\n".into()));
                }
            }
        }
    }
    Err(bad("too many header lines"))
}
