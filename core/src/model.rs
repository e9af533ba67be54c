//! The approval model: tool contracts and their argument schemas, action envelopes, approval
//! records, the permit check and budgets, all over the JSON layer in [`crate::json`].

pub(crate) mod action;
pub(crate) mod approval;
pub mod batch;
pub(crate) mod budget;
pub(crate) mod contract;
pub(crate) mod decision;
pub(crate) mod delegation;
pub mod evidence;
pub(crate) mod fields;
pub mod ledger;
pub(crate) mod notice;
pub(crate) mod permit;
pub(crate) mod proof;
pub(crate) mod quorum;
pub(crate) mod reason;
pub(crate) mod rule;
pub mod schema;
pub mod sensitive;
pub(crate) mod spoken;
