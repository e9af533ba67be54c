//! Webhook signatures (Standard Webhooks): `signWebhook` makes a delivery's three headers,
//! `verifyWebhook` checks one against the receiver's clock. Core reads every argument and
//! decides every code (`actionseal_core::webhook`).

use crate::host;
use crate::run;
use crate::text;
use crate::to_js;
use actionseal_core::{webhook, Options};
use napi::bindgen_prelude::{Env, Unknown};
use napi::{JsValue, Result};
use napi_derive::napi;

/// The Standard Webhooks headers of `body` (a str or UTF-8 bytes) sent as delivery `webhook_id` at `at_ms`.
///
/// Signs `body` (the exact bytes sent; a string as UTF-8) with `secret` (`whsec_` and the
/// base64 of 24 to 64 bytes) as delivery `webhookId` (no full stop) attempted at `atMs` (ms
/// since the epoch; the header carries whole seconds): `{ 'webhook-id', 'webhook-timestamp',
/// 'webhook-signature' }`, the signature `v1,` and the base64 of HMAC-SHA256 over
/// `id.timestamp.body`. A retry keeps the id and signs again with its own time. Throws
/// `invalid_key` for a malformed secret, `invalid_request` for an id or time.
#[napi(
    ts_args_type = "secret: string, webhookId: string, atMs: number, body: string | Uint8Array",
    ts_return_type = "{ 'webhook-id': string, 'webhook-timestamp': string, 'webhook-signature': string }"
)]
pub fn sign_webhook(
    env: Env,
    secret: Unknown<'_>,
    webhook_id: Unknown<'_>,
    at_ms: Unknown<'_>,
    body: Unknown<'_>,
) -> Result<Unknown<'static>> {
    run(&env, |js| {
        let options = Options::default();
        let body = text::with_bytes(js, body.raw(), &options, |b, _| Ok(b.to_vec()))?;
        let values = [secret.raw(), webhook_id.raw(), at_ms.raw()];
        let headers = host::with_values(js, values, &options, None, None, |v, _| {
            let [s, i, t] = v;
            webhook::sign_value(s, i, t, &body)
        })??;
        to_js::value(js, &headers)
    })
}

/// Verifies a delivery's headers and body with `secret` against the receiver's clock `now_ms`; the delivery's id, or raises `webhook_unverified`.
///
/// Verifies a delivery received with `headers` (an object of strings, names in any case:
/// Node's `req.headers` as it is) and `body` (the exact bytes received, a `Buffer` or a
/// string) with `secret`: the attempt's `webhook-timestamp` must be within `toleranceMs`
/// (default 300000, five minutes) of `nowMs`, the receiver's own clock (`Date.now()`), and
/// one `v1` signature must match. Returns `webhook-id` (keep it to process each delivery
/// once). Throws `webhook_unverified` (its path names the header) or `invalid_key`.
#[napi(
    ts_args_type = "secret: string, headers: Record<string, string>, body: string | Uint8Array, nowMs: number, toleranceMs?: number | null",
    ts_return_type = "string"
)]
pub fn verify_webhook(
    env: Env,
    secret: Unknown<'_>,
    headers: Unknown<'_>,
    body: Unknown<'_>,
    now_ms: Unknown<'_>,
    tolerance_ms: Option<Unknown<'_>>,
) -> Result<Unknown<'static>> {
    run(&env, |js| {
        let options = Options::default();
        let body = text::with_bytes(js, body.raw(), &options, |b, _| Ok(b.to_vec()))?;
        // Read apart: one walk takes at most three values.
        let tolerance = match tolerance_ms {
            Some(t) => host::with_values(js, [t.raw()], &options, None, None, |[t], _| {
                webhook::tolerance_value(Some(t))
            })??,
            None => webhook::tolerance_value(None)?,
        };
        let values = [secret.raw(), headers.raw(), now_ms.raw()];
        let id = host::with_values(js, values, &options, None, None, |v, _| {
            let [s, h, n] = v;
            webhook::verify_value(s, h, &body, n, tolerance)
        })??;
        to_js::value(js, &actionseal_core::OwnedValue::String(id.into()))
    })
}
