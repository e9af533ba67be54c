//! Webhook signature vectors (Standard Webhooks, derived by `tools/webhook-vectors.py` with
//! Python's own hmac) give their recorded results in Rust.

use actionseal_conformance::vectors;
use actionseal_core::webhook::{sign, verify, DEFAULT_TOLERANCE_MS};
use serde_json::{json, Value as Json};

fn result(v: &serde_json::Map<String, Json>) -> Json {
    let s = |k: &str| v[k].as_str().unwrap();
    let out = match s("op") {
        "sign" => sign(s("secret"), s("id"), v["at_ms"].as_i64().unwrap(), s("body").as_bytes()).map(|h| {
            json!({"webhook-id": h.id, "webhook-timestamp": h.timestamp, "webhook-signature": h.signature})
        }),
        "verify" => {
            let headers: Vec<(&str, &str)> =
                v["headers"].as_object().unwrap().iter().map(|(n, h)| (n.as_str(), h.as_str().unwrap())).collect();
            let tolerance = v.get("tolerance_ms").map_or(DEFAULT_TOLERANCE_MS, |t| t.as_i64().unwrap());
            verify(s("secret"), &headers, s("body").as_bytes(), v["now_ms"].as_i64().unwrap(), tolerance)
                .map(|id| json!({ "id": id }))
        }
        op => panic!("op {op}"),
    };
    out.unwrap_or_else(|e| json!({"error": e.code().as_str(), "path": e.path()}))
}

#[test]
fn webhook_vectors() {
    let all = vectors("webhook");
    assert!(all.len() >= 15, "webhook: only {} vectors", all.len());
    for v in all {
        assert_eq!(result(&v.doc), v.doc["expect"], "webhook/{}", v.name);
    }
}
