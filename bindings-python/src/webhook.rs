//! Webhook signatures (Standard Webhooks): `sign_webhook` makes a delivery's three headers,
//! `verify_webhook` checks one against the receiver's clock. Core reads every argument and
//! decides every code (`actionseal_core::webhook`).

use crate::convert::with_each;
use crate::error::to_py;
use crate::text::JsonText;
use crate::to_py;
use actionseal_core::{webhook, Options};
use pyo3::prelude::*;

/// The Standard Webhooks headers of ``body`` (a str or UTF-8 bytes) sent as delivery ``webhook_id`` at ``at_ms``.
///
/// Signs ``body`` (the exact bytes sent; a ``str`` as UTF-8) with ``secret`` (``whsec_``
/// and the base64 of 24 to 64 bytes) as delivery ``webhook_id`` (no full stop) attempted at
/// ``at_ms`` (ms since the epoch; the header carries whole seconds): ``{"webhook-id",
/// "webhook-timestamp", "webhook-signature"}``, the signature ``v1,`` and the base64 of
/// HMAC-SHA256 over ``id.timestamp.body``. A retry keeps the id and signs again with its own
/// time. Raises ``invalid_key`` for a malformed secret, ``invalid_request`` for an id or time.
#[pyfunction]
pub(crate) fn sign_webhook<'py>(
    secret: &Bound<'py, PyAny>,
    webhook_id: &Bound<'py, PyAny>,
    at_ms: &Bound<'py, PyAny>,
    body: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = secret.py();
    let body = JsonText::new(body)?;
    let headers = with_each(
        [secret, webhook_id, at_ms],
        &Options::default(),
        |[s, i, t]| webhook::sign_value(s, i, t, body.as_bytes()),
    )?
    .map_err(|e| to_py(py, &e))?;
    to_py::value(py, &headers)
}

/// Verifies a delivery's headers and body with ``secret`` against the receiver's clock ``now_ms``; the delivery's id, or raises ``webhook_unverified``.
///
/// Verifies a delivery received with ``headers`` (a ``dict`` of ``str``, names in any case)
/// and ``body`` (the exact bytes received, ``bytes`` or ``str``) with ``secret``: the
/// attempt's ``webhook-timestamp`` must be within ``tolerance_ms`` (default 300000, five
/// minutes) of ``now_ms``, the receiver's own clock (ms since the epoch), and one ``v1``
/// signature must match. Returns ``webhook-id`` (keep it to process each delivery once).
/// Raises ``webhook_unverified`` (its path names the header) or ``invalid_key``.
#[pyfunction]
#[pyo3(signature = (secret, headers, body, now_ms, tolerance_ms = None))]
pub(crate) fn verify_webhook<'py>(
    secret: &Bound<'py, PyAny>,
    headers: &Bound<'py, PyAny>,
    body: &Bound<'py, PyAny>,
    now_ms: &Bound<'py, PyAny>,
    tolerance_ms: Option<&Bound<'py, PyAny>>,
) -> PyResult<String> {
    let py = secret.py();
    let body = JsonText::new(body)?;
    let none = py.None().into_bound(py);
    let tolerance = tolerance_ms.unwrap_or(&none);
    with_each(
        [secret, headers, now_ms, tolerance],
        &Options::default(),
        |[s, h, n, t]| {
            let tolerance = webhook::tolerance_value(Some(t))?;
            webhook::verify_value(s, h, body.as_bytes(), n, tolerance)
        },
    )?
    .map_err(|e| to_py(py, &e))
}
