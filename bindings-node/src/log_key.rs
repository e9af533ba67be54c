//! The `log_key` option of `Ledger.open`: the checkpoint signer, core's signer key string
//! (`tlog::note::SignerKey`, as the CLI's `--log-key` file holds it), taken out of the
//! options before core reads the rest.

use crate::js::JsResult;
use actionseal_core::tlog::note::SignerKey;
use actionseal_core::{Code, Error, Object, OwnedValue, Result, Value};

/// `options` without its `log_key` member, and the signer that member names (absent or
/// `null`: none).
pub(crate) fn log_key(options: OwnedValue) -> JsResult<(OwnedValue, Option<SignerKey>)> {
    let Value::Object(o) = options else {
        return Ok((options, None));
    };
    let (keys, rest): (Vec<_>, Vec<_>) = o
        .into_entries()
        .into_iter()
        .partition(|(k, _)| k == "log_key");
    let signer = match keys.into_iter().next().map(|(_, v)| v) {
        None | Some(Value::Null) => None,
        Some(v) => Some(
            string(&v, "log_key")
                .and_then(|s| SignerKey::parse(s).map_err(|e| e.in_key("log_key")))?,
        ),
    };
    Ok((Value::Object(Object::from_entries(rest)?), signer))
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
