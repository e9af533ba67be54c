//! A batch's circuit breaker: it stops a batch whose items fail, or are claimed faster than
//! anyone meant, until a person looks again.
//!
//! | state | event | to |
//! | --- | --- | --- |
//! | `closed` | a failed or unknown outcome, `max_failures` within `window_ms` | `open` (tripped) |
//! | `closed`, `half_open` | a claim, `max_claims_per_minute` already within 60 s | `open` (tripped; the claim is refused) |
//! | `open` | a claim | refused ([`Code::BreakerOpen`]) |
//! | `open` | a reviewer's new decision over the remainder | `half_open` |
//! | `half_open` | a failed or unknown outcome | `open` (tripped) |
//! | `half_open` | the `close_after`-th success | `closed` |
//!
//! Without a breaker policy it never trips. The state is stored with the batch as JSON
//! (`{"state", "failures", "claims", "successes", "trips"}`: times in ms, no argument value),
//! and a ledger changes it in the transaction of the event that moves it.

use super::policy::BreakerPolicy;
use crate::error::{Code, Error, Result};
use crate::json::value::{OwnedValue, Value};
use crate::model::fields::Fields;
use crate::model::ledger::values::{int, object, string};
use crate::model::ledger::Reported;

/// One minute, the span `max_claims_per_minute` counts claims over.
const MINUTE_MS: i64 = 60_000;

/// Where the breaker is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BreakerState {
    /// Items run.
    Closed,
    /// Nothing runs: the remaining items wait for a reviewer.
    Open,
    /// A reviewer decided on the remainder: items run, and the next failure trips it again.
    HalfOpen,
}

impl BreakerState {
    /// The stable name.
    pub const fn as_str(self) -> &'static str {
        match self {
            BreakerState::Closed => "closed",
            BreakerState::Open => "open",
            BreakerState::HalfOpen => "half_open",
        }
    }

    /// The state with this name; anything else is [`Code::InvalidBatch`].
    pub fn parse(s: &str) -> Result<BreakerState> {
        match s {
            "closed" => Ok(BreakerState::Closed),
            "open" => Ok(BreakerState::Open),
            "half_open" => Ok(BreakerState::HalfOpen),
            _ => Err(Error::new(
                Code::InvalidBatch,
                format!("{s:?} is not one of [\"closed\", \"open\", \"half_open\"]"),
            )),
        }
    }
}

/// Why the breaker tripped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Trip {
    /// `max_failures` failed or unknown outcomes within the window (or one while half-open).
    Failures,
    /// A claim over `max_claims_per_minute`.
    ClaimRate,
}

impl Trip {
    /// The stable name, as the audit records it.
    pub const fn as_str(self) -> &'static str {
        match self {
            Trip::Failures => "failures",
            Trip::ClaimRate => "claim_rate",
        }
    }
}

/// What an event did to the breaker; anything but `None` is audited.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Transition {
    /// Nothing changed state.
    None,
    /// It opened: every remaining item goes back to a reviewer.
    Tripped(Trip),
    /// A new decision over the remainder: items run again, on probation.
    HalfOpened,
    /// Enough successes after a half-open.
    Closed,
}

/// A batch's breaker, as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Breaker {
    /// Where it is.
    pub state: BreakerState,
    /// When the failed or unknown outcomes still in the window happened (at most
    /// `max_failures`, oldest first).
    pub failures: Vec<i64>,
    /// When the claims of the last minute happened (at most `max_claims_per_minute`).
    pub claims: Vec<i64>,
    /// Successes since it half-opened (the count stops at `u32::MAX`).
    pub successes: u32,
    /// How many times it tripped (the count stops at `u32::MAX`).
    pub trips: u32,
}

impl Default for Breaker {
    fn default() -> Breaker {
        Breaker {
            state: BreakerState::Closed,
            failures: Vec::new(),
            claims: Vec::new(),
            successes: 0,
            trips: 0,
        }
    }
}

/// Keeps the times after `since`, and at most the last `keep` of them.
fn window(times: &mut Vec<i64>, since: i64, keep: usize) {
    times.retain(|t| *t > since);
    let extra = times.len().saturating_sub(keep);
    times.drain(..extra);
}

impl Breaker {
    /// The claims per minute that trip a breaker under `policy`, if any: without a rate,
    /// [`Breaker::on_claim`] of a breaker that is not open changes nothing.
    pub fn claim_rate(policy: Option<&BreakerPolicy>) -> Option<u32> {
        policy.and_then(|p| p.max_claims_per_minute)
    }

    /// A claim at `now`: refused while open ([`Code::BreakerOpen`]); `Tripped(ClaimRate)`
    /// when it would go over the claim rate, and the claim is then refused too.
    pub fn on_claim(&mut self, policy: Option<&BreakerPolicy>, now: i64) -> Result<Transition> {
        if self.state == BreakerState::Open {
            return Err(Error::new(
                Code::BreakerOpen,
                "the batch's circuit breaker is open: a reviewer decides on the remainder first",
            ));
        }
        let Some(rate) = Breaker::claim_rate(policy) else {
            return Ok(Transition::None);
        };
        window(&mut self.claims, now - MINUTE_MS, rate as usize);
        if self.claims.len() >= rate as usize {
            return Ok(self.trip(Trip::ClaimRate));
        }
        self.claims.push(now);
        Ok(Transition::None)
    }

    /// An item's outcome at `now` (a completion, a reconciliation, a lease that ran out).
    pub fn on_outcome(
        &mut self,
        policy: Option<&BreakerPolicy>,
        outcome: Reported,
        now: i64,
    ) -> Transition {
        let Some(p) = policy else {
            return Transition::None;
        };
        match (outcome, self.state) {
            (_, BreakerState::Open) => Transition::None,
            (Reported::Succeeded, BreakerState::HalfOpen) => {
                // Counts stop at their largest value: a wrapped count would undo the step.
                self.successes = self.successes.saturating_add(1);
                if self.successes < p.close_after {
                    return Transition::None;
                }
                self.state = BreakerState::Closed;
                self.successes = 0;
                self.failures.clear();
                Transition::Closed
            }
            (Reported::Succeeded, BreakerState::Closed) => Transition::None,
            (Reported::Failed | Reported::Unknown, BreakerState::HalfOpen) => {
                self.trip(Trip::Failures)
            }
            (Reported::Failed | Reported::Unknown, BreakerState::Closed) => {
                window(
                    &mut self.failures,
                    now - p.window_ms,
                    p.max_failures as usize,
                );
                self.failures.push(now);
                if self.failures.len() >= p.max_failures as usize {
                    self.trip(Trip::Failures)
                } else {
                    Transition::None
                }
            }
        }
    }

    /// A reviewer's new decision over the remainder of an open batch: it half-opens.
    pub fn on_redecided(&mut self) -> Transition {
        if self.state != BreakerState::Open {
            return Transition::None;
        }
        self.state = BreakerState::HalfOpen;
        self.successes = 0;
        self.failures.clear();
        self.claims.clear();
        Transition::HalfOpened
    }

    fn trip(&mut self, why: Trip) -> Transition {
        self.state = BreakerState::Open;
        self.successes = 0;
        self.trips = self.trips.saturating_add(1);
        Transition::Tripped(why)
    }

    /// The breaker as stored.
    pub fn to_value(&self) -> OwnedValue {
        let times = |t: &[i64]| Value::Array(t.iter().map(|n| int(*n)).collect());
        object(vec![
            ("claims", times(&self.claims)),
            ("failures", times(&self.failures)),
            ("state", string(self.state.as_str())),
            ("successes", int(i64::from(self.successes))),
            ("trips", int(i64::from(self.trips))),
        ])
    }

    /// Reads a stored breaker; problems are [`Code::InvalidBatch`].
    pub fn from_value(v: &Value<'_>) -> Result<Breaker> {
        let f = Fields::new(
            v,
            Code::InvalidBatch,
            "breaker",
            &["state", "failures", "claims", "successes", "trips"],
        )?;
        let times = |key: &str| -> Result<Vec<i64>> {
            let bad =
                || Error::new(Code::InvalidBatch, format!("{key} is a list of times")).in_key(key);
            let Value::Array(list) = f.required(key)? else {
                return Err(bad());
            };
            list.iter()
                .map(|t| match t {
                    Value::Number(n) => n.as_safe_integer().ok_or_else(bad),
                    _ => Err(bad()),
                })
                .collect()
        };
        let count = |key: &str| -> Result<u32> {
            u32::try_from(f.integer(key, 0)?).map_err(|_| {
                Error::new(Code::InvalidBatch, format!("{key} is too large")).in_key(key)
            })
        };
        Ok(Breaker {
            state: BreakerState::parse(f.string("state")?).map_err(|e| e.in_key("state"))?,
            failures: times("failures")?,
            claims: times("claims")?,
            successes: count("successes")?,
            trips: count("trips")?,
        })
    }
}
