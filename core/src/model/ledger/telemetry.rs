//! What the bindings' OpenTelemetry instrumentation emits, defined once for every runtime: the
//! span of each ledger operation and of an adapter's gate, which attribute comes from which
//! member of the operation's result, the refusal event and the counters. The bindings only
//! walk the pointers in the host's result and call their OpenTelemetry API; a test in each
//! runtime holds its spans to this table.
//!
//! Names follow the OpenTelemetry GenAI semantic conventions where they have one (the
//! `execute_tool` span, `gen_ai.operation.name`, `gen_ai.tool.name`, `gen_ai.tool.call.id`:
//! semantic-conventions-genai docs/gen-ai/execute-tool.md) and are `actionseal.*` otherwise.
//! No pointer reaches an argument value (a test below): only identities, digests, states,
//! reason codes and the pointers of what drifted.

use crate::json::options::Options;
use crate::json::value::OwnedValue;

/// The table, as the bindings read it (`telemetry_schema()`):
/// - `ops`: per operation (named as in Python; Node's method is its camelCase), its span name
///   and the pointer of its task, or of its batch, in the operation's result (the gate's result
///   is the record the adapter builds: `{task, tool, call_id, decision, reasons}`; a whole
///   batch's claim, whose result lists its items, and the shredding and retention operations
///   of issue 29 have neither), and `"claims": true` for the claims the `claims` and `drift`
///   counters count;
/// - `constants`: attributes with a fixed value, per operation;
/// - `task`: attributes every operation takes from its task, by pointer into the task; `batch`
///   likewise from its batch (issue 28);
/// - `result`: attributes per operation, by pointer into the operation's result (a missing or
///   `null` member is left out);
/// - `refused`: the span event of a refused call (an error's code, or a claim's reasons), and
///   the error status's description (the code only: an error's message may quote a value);
/// - `counters`: name, unit, description and the attributes each is counted by.
const TABLE: &str = r#"{
  "scope": "actionseal",
  "ops": {
    "propose": {"span": "actionseal.propose", "task": ""},
    "amend": {"span": "actionseal.amend", "task": "/task"},
    "decide": {"span": "actionseal.decide", "task": "/task"},
    "claim": {"span": "actionseal.claim", "task": "/task", "claims": true},
    "complete": {"span": "actionseal.complete", "task": ""},
    "reconcile": {"span": "actionseal.reconcile", "task": ""},
    "propose_batch": {"span": "actionseal.propose_batch", "batch": ""},
    "amend_batch": {"span": "actionseal.amend_batch", "batch": ""},
    "decide_batch": {"span": "actionseal.decide_batch", "batch": "/batch"},
    "claim_item": {"span": "actionseal.claim_item", "task": "/task", "claims": true},
    "claim_batch": {"span": "actionseal.claim_batch"},
    "complete_item": {"span": "actionseal.complete_item", "task": ""},
    "reconcile_item": {"span": "actionseal.reconcile_item", "task": ""},
    "redact": {"span": "actionseal.redact"},
    "set_retention": {"span": "actionseal.set_retention"},
    "retention_run": {"span": "actionseal.retention_run"},
    "gate": {"span": "execute_tool", "task": "/task"}
  },
  "constants": {
    "gate": {"gen_ai.operation.name": "execute_tool"}
  },
  "task": {
    "gen_ai.tool.name": "/action/tool",
    "gen_ai.tool.call.id": "/request_id",
    "actionseal.task.id": "/id",
    "actionseal.task.state": "/state",
    "actionseal.tenant": "/tenant",
    "actionseal.fingerprint": "/action_digest",
    "actionseal.approval.id": "/approval_id",
    "actionseal.fence": "/fence"
  },
  "batch": {
    "actionseal.batch.id": "/id",
    "actionseal.batch.digest": "/digest",
    "actionseal.batch.proposed_digest": "/proposed_digest",
    "actionseal.batch.state": "/state",
    "actionseal.batch.semantics": "/semantics",
    "actionseal.batch.successor": "/successor",
    "actionseal.tenant": "/tenant",
    "actionseal.approval.id": "/approval_id"
  },
  "result": {
    "propose": {"actionseal.proposer": "/proposer"},
    "amend": {"actionseal.duplicate": "/duplicate", "actionseal.reviewer": "/amendment/reviewer",
              "actionseal.amended.pointers": "/task/amended_pointers"},
    "decide": {"actionseal.outcome": "/decision/decision", "actionseal.duplicate": "/duplicate",
               "actionseal.approver": "/decision/approver", "actionseal.signer.kind": "/signer/kind",
               "actionseal.signer.keyid": "/signer/keyid",
               "actionseal.signer.credential_id": "/signer/credential_id"},
    "claim": {"actionseal.outcome": "/result", "actionseal.reasons": "/verdict/reasons",
              "actionseal.drift.pointers": "/verdict/drift", "actionseal.executor": "/task/executor"},
    "complete": {"actionseal.outcome": "/state", "actionseal.executor": "/executor"},
    "reconcile": {"actionseal.outcome": "/state"},
    "decide_batch": {"actionseal.outcome": "/batch/record/decision",
                     "actionseal.duplicate": "/duplicate",
                     "actionseal.approver": "/batch/record/approver",
                     "actionseal.signer.kind": "/signer/kind",
                     "actionseal.signer.keyid": "/signer/keyid",
                     "actionseal.signer.credential_id": "/signer/credential_id"},
    "claim_item": {"actionseal.outcome": "/result", "actionseal.reasons": "/verdict/reasons",
                   "actionseal.drift.pointers": "/verdict/drift",
                   "actionseal.executor": "/task/executor"},
    "claim_batch": {"actionseal.outcome": "/result"},
    "complete_item": {"actionseal.outcome": "/state", "actionseal.executor": "/executor"},
    "reconcile_item": {"actionseal.outcome": "/state"},
    "redact": {"actionseal.task.id": "/task_id"},
    "set_retention": {"actionseal.tenant": "/tenant", "actionseal.retention.class": "/class",
                      "actionseal.retention.at_finish": "/at_finish",
                      "actionseal.actor": "/changed_by"},
    "gate": {"gen_ai.tool.name": "/tool", "gen_ai.tool.call.id": "/call_id",
             "actionseal.outcome": "/decision", "actionseal.reasons": "/reasons"}
  },
  "refused": {"event": "actionseal.refused", "reasons": "actionseal.reasons",
              "operation": "actionseal.operation"},
  "counters": {
    "claims": {"name": "actionseal.claims", "unit": "{claim}",
               "description": "Ledger claims, by outcome and tool",
               "by": ["actionseal.outcome", "gen_ai.tool.name"]},
    "refusals": {"name": "actionseal.refusals", "unit": "{refusal}",
                 "description": "Reasons of refused ledger calls, one per reason",
                 "by": ["actionseal.reason", "actionseal.operation"]},
    "drift": {"name": "actionseal.drift", "unit": "{claim}",
              "description": "Claims refused because the presented call drifted from the approved one",
              "by": ["gen_ai.tool.name"]}
  }
}"#;

/// The table above as a value (see its comment for the members).
pub fn telemetry_schema() -> OwnedValue {
    // A literal of this file: the test below parses it, so this cannot fail.
    crate::json::parse::parse(TABLE.as_bytes(), &Options::default())
        .expect("the telemetry table is JSON")
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::value::Value;

    fn strings<'v>(v: &'v Value<'_>, out: &mut Vec<&'v str>) {
        match v {
            Value::Object(o) => o.iter().for_each(|(_, v)| strings(v, out)),
            Value::String(s) => out.push(s),
            _ => {}
        }
    }

    /// The pointers into a task: its rows, and the rows of the operations whose result is
    /// the task itself, or of its members under `/task`.
    fn task_pointers<'v>(t: &'v Value<'_>) -> Vec<&'v str> {
        let at = |p: &str| t.pointer(p).expect(p);
        let mut out = Vec::new();
        strings(at("/task"), &mut out);
        for op in [
            "propose",
            "complete",
            "reconcile",
            "complete_item",
            "reconcile_item",
        ] {
            strings(at(&format!("/result/{op}")), &mut out);
        }
        let mut rest = Vec::new();
        strings(at("/result"), &mut rest);
        out.extend(rest.iter().filter_map(|p| p.strip_prefix("/task")));
        out
    }

    #[test]
    fn no_pointer_reaches_a_value_of_the_call() {
        let t = telemetry_schema();
        let into_task = task_pointers(&t);
        assert!(into_task.len() > 10, "{into_task:?}");
        // A task's action arguments, its proposal and its business result hold values; so
        // do a claim's action and the approved action returned on drift.
        for p in into_task {
            for banned in ["/action/args", "/proposed_action", "/result"] {
                assert!(!p.starts_with(banned), "{p} reaches {banned}");
            }
        }
        // A batch's items and header list the items (digests, but no place for a value is
        // read from them either).
        let mut into_batch = Vec::new();
        strings(t.pointer("/batch").expect("batch"), &mut into_batch);
        for p in into_batch {
            for banned in ["/items", "/header", "/record", "/proposed_items"] {
                assert!(!p.starts_with(banned), "{p} reaches {banned}");
            }
        }
        let mut all = Vec::new();
        strings(t.pointer("/result").expect("result"), &mut all);
        for p in all {
            for banned in [
                "/claim",
                "/approved_action",
                "/amendment/action",
                "/decision/action",
            ] {
                assert!(!p.starts_with(banned), "{p} reaches {banned}");
            }
        }
    }
}
