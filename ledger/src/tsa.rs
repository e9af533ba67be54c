//! The ledger's time-stamping authority (RFC 3161, issue 26): trusted time for its
//! checkpoints and proven decisions, from a TSA the server configures ([`Tsa`], in
//! [`crate::LedgerOptions::tsa`]).
//!
//! Each time-stamp is asked over HTTP as RFC 3161 §3.4 says (`POST` of a DER TimeStampReq as
//! `application/timestamp-query`, answered `application/timestamp-reply`), for the SHA-256
//! digest of the data, with a fresh 128-bit nonce from the operating system's CSPRNG
//! (§2.4.1) and the configured policy, if any. The answer is verified by core's
//! [`verify_token`] (integrity, a path to the configured roots, the imprint, the nonce and
//! the policy) before the ledger keeps anything: it keeps only the bare TimeStampToken
//! ([`token_of`]), never a token it could not verify.
//!
//! Plain `http://` only. A token authenticates itself (the TSA's signature, verified against
//! the server's own roots; the nonce binds it to this request), so TLS would add no
//! integrity; what it would hide is a digest of a checkpoint or a signature the ledger
//! publishes anyway. No TLS client is in the ledger's dependencies: reach an https-only TSA
//! through a local TLS proxy.
//!
//! A TSA that cannot be asked is [`Code::TimestampUnavailable`]; an answer that is no valid
//! token for the request keeps core's codes (`timestamp_invalid`, `timestamp_untrusted`,
//! `timestamp_mismatch`).

mod http;

use actionseal_core::timestamp::{
    request, token_of, verify_token, HashAlgorithm, Request, TimestampTrust,
};
use actionseal_core::{Code, Error, Result};
use std::sync::Arc;
use std::time::Duration;

/// How long a TSA may take to accept the connection, and then each read and write.
const TIMEOUT: Duration = Duration::from_secs(10);

/// A time-stamping authority, as the server configures it.
#[derive(Clone, Debug)]
pub struct Tsa {
    url: http::Url,
    trust: TimestampTrust,
    timeout: Duration,
    /// Answers in this process instead of `url` ([`Tsa::answered_by`]).
    answer: Option<Answer>,
}

/// What gives a token for the data in this process.
type AnswerFn = dyn Fn(&[u8]) -> Result<Vec<u8>> + Send + Sync;

#[derive(Clone)]
struct Answer(Arc<AnswerFn>);

impl std::fmt::Debug for Answer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Answer(in process)")
    }
}

impl Tsa {
    /// The TSA at `url` (`http://HOST[:PORT][/PATH]`), whose tokens must chain to one of
    /// `roots` (DER certificates) and, when `policy` (a dotted object identifier) is given,
    /// name that policy (it is also asked for, as the request's `reqPolicy`).
    ///
    /// Errors: [`Code::InvalidOption`] for another URL scheme or a malformed URL (path
    /// `/url`), no roots, a root that is not a DER certificate (`/roots/<i>`) or a policy
    /// that is not an object identifier (`/policy`).
    pub fn new(url: &str, roots: Vec<Vec<u8>>, policy: Option<String>) -> Result<Tsa> {
        let url = http::Url::parse(url).map_err(|e| e.in_key("url"))?;
        if roots.is_empty() {
            return Err(Error::invalid_option(
                "a time-stamping authority needs the root certificates its tokens chain to",
            )
            .in_key("roots"));
        }
        let trust = TimestampTrust {
            roots,
            policy,
            ..TimestampTrust::default()
        };
        trust.check()?;
        Ok(Tsa {
            url,
            trust,
            timeout: TIMEOUT,
            answer: None,
        })
    }

    /// A time-stamping authority in this process: `answer` gives the DER TimeStampToken for
    /// the data. Its tokens answer no request of this ledger's, so they are not held to a
    /// nonce; each is still verified against `roots`, the data's imprint and `policy` before
    /// it is kept. For tests and conformance vectors that replay tokens made earlier, as a
    /// [`crate::ManualClock`] replays time; a server configures [`Tsa::new`], whose fresh
    /// nonce proves each token answers the request just made (RFC 3161 §2.4.1).
    pub fn answered_by(
        roots: Vec<Vec<u8>>,
        policy: Option<String>,
        answer: impl Fn(&[u8]) -> Result<Vec<u8>> + Send + Sync + 'static,
    ) -> Result<Tsa> {
        let tsa = Tsa::new("http://in-process.invalid/", roots, policy)?;
        Ok(Tsa {
            answer: Some(Answer(Arc::new(answer))),
            ..tsa
        })
    }

    /// The same TSA, waiting at most `timeout` to connect and for each read and write.
    pub fn with_timeout(self, timeout: Duration) -> Tsa {
        Tsa { timeout, ..self }
    }

    /// The TSA's URL.
    pub fn url(&self) -> &str {
        self.url.as_str()
    }

    /// A verified time-stamp of `data`, asked with a fresh nonce: the bare DER
    /// TimeStampToken (RFC 3161 §2.4.2).
    pub(crate) fn stamp(&self, data: &[u8]) -> Result<Vec<u8>> {
        if let Some(Answer(answer)) = &self.answer {
            let token = token_of(&answer(data)?)?;
            verify_token(&token, data, &self.trust)?;
            return Ok(token);
        }
        let mut nonce = [0u8; 16];
        getrandom::fill(&mut nonce).map_err(|e| {
            self.unavailable(&format!("the operating system gave no random nonce ({e})"))
        })?;
        // Never zero, which is no number to repeat; 127 random bits remain.
        nonce[0] |= 1;
        let query = request(
            data,
            &Request {
                hash: HashAlgorithm::Sha256,
                nonce: Some(&nonce),
                policy: self.trust.policy.as_deref(),
            },
        )?;
        let reply =
            http::post(&self.url, &query, self.timeout).map_err(|why| self.unavailable(&why))?;
        let refused = |e: Error| {
            Error::new(
                e.code(),
                format!(
                    "the time-stamping authority at {} answered no token the ledger can keep \
                     ({e}): check its URL and the roots and policy configured for it",
                    self.url()
                ),
            )
        };
        let token = token_of(&reply).map_err(refused)?;
        let trust = TimestampTrust {
            nonce: Some(nonce.to_vec()),
            ..self.trust.clone()
        };
        verify_token(&token, data, &trust).map_err(refused)?;
        Ok(token)
    }

    fn unavailable(&self, why: &str) -> Error {
        Error::new(
            Code::TimestampUnavailable,
            format!(
                "the time-stamping authority at {} could not be asked: {why}",
                self.url()
            ),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../core/tests/timestamp");

    fn fixture(name: &str) -> Vec<u8> {
        std::fs::read(format!("{FIXTURES}/{name}")).unwrap()
    }

    /// An in-process TSA's answer is kept only as a verified bare token: over the data, from
    /// a configured root; another request's nonce is no refusal, as it answers none.
    #[test]
    fn an_in_process_answer_is_verified_before_it_is_kept() {
        let tsa = |roots: Vec<Vec<u8>>| {
            Tsa::answered_by(roots, None, |_| Ok(fixture("rsa.tsr"))).unwrap()
        };
        let trusted = tsa(vec![fixture("root.der")]);
        let token = trusted.stamp(&fixture("data.txt")).unwrap();
        assert_eq!(token, token_of(&fixture("rsa.tsr")).unwrap());
        let other = trusted.stamp(&fixture("other.txt")).unwrap_err();
        assert_eq!(other.code(), Code::TimestampMismatch, "{other}");
        let untrusted = tsa(vec![fixture("other-root.der")]);
        let e = untrusted.stamp(&fixture("data.txt")).unwrap_err();
        assert_eq!(e.code(), Code::TimestampUntrusted, "{e}");
    }
}
