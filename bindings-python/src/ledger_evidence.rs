//! What `Ledger(log_key=...)`, `Ledger.checkpoint` and `Ledger.evidence` take and give, read
//! and written here so that ledger.rs keeps to the calls: the checkpoint signer is core's
//! signer key string (`tlog::note::SignerKey`, as the CLI's `--log-key` file holds it), the
//! bundle is core's (`evidence::Bundle::to_value`).

use crate::convert::with_value;
use crate::error::to_py;
use actionseal_core::tlog::note::SignerKey;
use actionseal_core::{Code, Error, Options, Result, Value};
use pyo3::prelude::*;

/// The `log_key` option: a signer key string, `PRIVATE+KEY+<name>+<hash>+<key>`.
pub(crate) fn log_key(arg: &Bound<'_, PyAny>) -> PyResult<SignerKey> {
    let py = arg.py();
    with_value(arg, &Options::default(), |v| {
        string(v, "log_key").and_then(|s| SignerKey::parse(s).map_err(|e| e.in_key("log_key")))
    })?
    .map_err(|e| to_py(py, &e))
}

/// `value` as the string member `key` of a request, or `invalid_request` there.
pub(crate) fn string<'v>(value: &'v Value<'_>, key: &str) -> Result<&'v str> {
    value.as_str().ok_or_else(|| {
        Error::new(
            Code::InvalidRequest,
            format!("{key} must be a string, not {}", value.type_name()),
        )
        .in_key(key)
    })
}

/// An identity argument (`task_id`, `actor`): a string by core's identity rule.
pub(crate) fn identity(value: &Value<'_>, key: &str) -> Result<String> {
    let s = string(value, key)?;
    actionseal_core::ledger::check_identity(key, s).map_err(|e| e.in_key(key))?;
    Ok(s.to_owned())
}
