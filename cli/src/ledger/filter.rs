//! `--tenant --state --since --until --limit --after`: which tasks `ledger show` lists, and
//! which events `ledger audit export` writes, a page at a time.

use crate::io::json_text;
use crate::Failure;
use actionseal_core::ledger::State;
use actionseal_core::rfc3339::parse_ms;
use actionseal_core::{Object, OwnedValue};
use actionseal_ledger::{Page, Query};
use clap::Args;

#[derive(Args)]
pub(super) struct Filter {
    /// Only those of this tenant.
    #[arg(long, value_name = "TENANT")]
    tenant: Option<String>,
    /// Only tasks in this state (audit export: the events of the tasks now in it).
    #[arg(long, value_name = "STATE")]
    state: Option<String>,
    /// Only those at or after TIME (a task's proposal, an event's time): ms since the epoch
    /// or RFC 3339 (2026-12-04T10:00:00Z).
    #[arg(long, value_name = "TIME", allow_hyphen_values = true)]
    since: Option<String>,
    /// Only those before TIME (exclusive), as --since.
    #[arg(long, value_name = "TIME", allow_hyphen_values = true)]
    until: Option<String>,
    /// At most N, then the cursor of the next page: show prints {"next", "tasks"} (next
    /// null on the last page), audit export prints `next: CURSOR` on stderr when more follow.
    #[arg(long, value_name = "N")]
    limit: Option<u32>,
    /// Go on after the page whose `next` this is (the same filters, as given then).
    #[arg(long, value_name = "CURSOR")]
    after: Option<String>,
}

/// ms since the epoch, or an RFC 3339 date-time.
fn time(text: Option<String>) -> Result<Option<i64>, Failure> {
    let Some(text) = text else { return Ok(None) };
    let digits = text.strip_prefix('-').unwrap_or(&text);
    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
        return text
            .parse()
            .map(Some)
            .map_err(|_| Failure::Usage(format!("{text} is not a time in ms that fits 64 bits")));
    }
    parse_ms(&text).map(Some).map_err(Failure::Input)
}

impl Filter {
    /// Whether a page was asked for (its output then carries the next cursor).
    pub(super) fn paged(&self) -> bool {
        self.limit.is_some() || self.after.is_some()
    }

    pub(super) fn query(self) -> Result<Query, Failure> {
        Ok(Query {
            state: self
                .state
                .as_deref()
                .map(State::parse)
                .transpose()
                .map_err(Failure::Input)?,
            tenant: self.tenant,
            since: time(self.since)?,
            until: time(self.until)?,
            limit: self.limit,
            after: self.after,
        })
    }
}

/// A page of tasks as `show` prints it when paged: `{"next": CURSOR|null, "tasks": [...]}`.
pub(super) fn tasks_page(page: &Page<actionseal_ledger::Task>) -> Result<String, Failure> {
    let next = page
        .next
        .as_ref()
        .map_or(OwnedValue::Null, |n| OwnedValue::String(n.clone().into()));
    let tasks = page.items.iter().map(|t| t.to_value()).collect();
    let v = Object::from_entries(vec![
        ("next".into(), next),
        ("tasks".into(), OwnedValue::Array(tasks)),
    ])
    .map_err(Failure::Input)?;
    Ok(json_text(&OwnedValue::Object(v)))
}
