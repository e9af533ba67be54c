#!/usr/bin/env python3
"""Re-derives every batch vector's expectation (`vectors/batch/`) from the spec in
docs/CONTRACTS.md ("Batches"), with Python's standard library and nothing of actionseal's
core: RFC 8785 text by the writer of check-expectations.py, SHA-256 by hashlib, and here:

1. the header's `root`, the RFC 9162 §2.1.1 Merkle tree hash over the items' fingerprints,
   each item's §2.1.3 audit path, the batch fingerprint, the items' fingerprints and task
   ids (`task_` + the first 32 hex digits of SHA-256 of ["actionseal/task/v1", tenant,
   job_id, request_id]);
2. the caps in force (the contract's narrowed by a server's) and the totals under them, and
   for a refused batch that it is refused where the spec says (too large, a cap passed at
   that item, an identity twice, another tenant);
3. an item's inclusion (§2.1.3.2 verification against the header's root) and, for checks,
   that the verdict agrees: `not_in_batch` exactly when the item is not in the decided
   batch, otherwise the drift pointers between the frozen and the presented action, the
   item's fingerprint as the approved one, and which items `check_batch` says may be claimed
   under the batch's semantics (an item presented again in one check is `item_repeated`);
4. under a contract with a quorum (approvers only), the count: distinct approvers of sealed,
   approved decisions of the batch, authorized and neither the subject nor the proposer;
   `quorum_short` exactly when fewer than `approvers`;
5. the breaker's sequences, stepped by the state table.

Signatures are not verified here (the standard library has no Ed25519; the signed vectors'
tools do that): a signed decision's payload is read as the record it carries. Exits
non-zero on any disagreement. `--self-test` alters expectations in memory, one of each kind,
and fails unless every alteration is caught.

    python3 conformance/tools/batch-check.py [--self-test]
"""
import base64
import copy
import hashlib
import importlib.util
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("check_expectations", ROOT / "tools" / "check-expectations.py")
jcs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(jcs)

MINUTE_MS = 60_000


class Mismatch(Exception):
    pass


def canonical(value):
    """RFC 8785 text of a JSON value (through the independent reader and writer)."""
    found = set()
    out = []
    jcs.write(jcs.read(json.dumps(value).encode("utf-8"), found), "strict", out, found)
    assert not found, found
    return "".join(out)


def fingerprint(value):
    return "sha256:" + hashlib.sha256(canonical(value).encode("utf-8")).hexdigest()


def load(text):
    return json.loads(text)


# --- RFC 9162 §2.1 -------------------------------------------------------------------


def leaf(digest):
    return hashlib.sha256(b"\x00" + bytes.fromhex(digest.removeprefix("sha256:"))).digest()


def node(left, right):
    return hashlib.sha256(b"\x01" + left + right).digest()


def split(n):
    """The largest power of two smaller than n (n > 1)."""
    k = 1
    while k * 2 < n:
        k *= 2
    return k


def mth(leaves):
    if len(leaves) == 1:
        return leaves[0]
    k = split(len(leaves))
    return node(mth(leaves[:k]), mth(leaves[k:]))


def path(m, leaves):
    """PATH(m, D[n]), leaf side first."""
    if len(leaves) == 1:
        return []
    k = split(len(leaves))
    if m < k:
        return path(m, leaves[:k]) + [mth(leaves[k:])]
    return path(m - k, leaves[k:]) + [mth(leaves[:k])]


def included(leaf_hash, index, size, audit, root):
    """§2.1.3.2: whether the audit path leads from the leaf at `index` of a tree of `size`
    leaves to `root`."""
    if index >= size:
        return False
    fn, sn, r = index, size - 1, leaf_hash
    for p in audit:
        if sn == 0:
            return False
        if fn % 2 == 1 or fn == sn:
            r = node(p, r)
            if fn % 2 == 0:
                while fn % 2 == 0 and fn != 0:
                    fn >>= 1
                    sn >>= 1
        else:
            r = node(r, p)
        fn >>= 1
        sn >>= 1
    return sn == 0 and r == root


def b64(h):
    return base64.b64encode(h).decode()


def unb64(s):
    try:
        raw = base64.b64decode(s, validate=True)
    except (ValueError, TypeError):
        return None
    return raw if len(raw) == 32 else None


# --- batches ---------------------------------------------------------------------------


def pointer(doc, p):
    for token in p.split("/")[1:]:
        token = token.replace("~1", "/").replace("~0", "~")
        doc = doc[int(token)] if isinstance(doc, list) else doc[token]
    return doc


def task_id(a):
    digest = fingerprint(["actionseal/task/v1", a["tenant"], a["job_id"], a["request_id"]])
    return "task_" + digest[7:39]


def caps_in_force(policy, server):
    """The contract's policy narrowed by a server's (CONTRACTS.md: the smaller limit of each,
    the server's cap where the two cap different pointers)."""
    caps = copy.deepcopy(policy.get("caps", {}))
    max_items = policy["max_items"]
    if server:
        max_items = min(max_items, server["max_items"])
        for name, cap in server.get("caps", {}).items():
            mine = caps.get(name)
            if name == "count":
                caps[name] = cap if mine is None else min(mine, cap)
            elif mine is None or mine["pointer"] != cap["pointer"]:
                caps[name] = cap
            else:
                caps[name] = {"pointer": cap["pointer"], "max": min(mine["max"], cap["max"])}
    return max_items, caps


def refusal(actions, max_items, caps):
    """(code, item index) where the spec refuses the list, or None."""
    if not actions:
        return "invalid_batch", None
    if len(actions) > max_items:
        return "batch_too_large", None
    seen = set()
    for i, a in enumerate(actions):
        if a["tenant"] != actions[0]["tenant"]:
            return "invalid_batch", i
        identity = (a["tenant"], a["job_id"], a["request_id"])
        if identity in seen:
            return "invalid_batch", i
        seen.add(identity)
    total, targets = 0, set()
    for i, a in enumerate(actions):
        if "count" in caps and i + 1 > caps["count"]:
            return "batch_cap_exceeded", i
        if "sum" in caps:
            total += pointer(a, caps["sum"]["pointer"])
            if total > caps["sum"]["max"]:
                return "batch_cap_exceeded", i
        if "distinct" in caps:
            targets.add(canonical(pointer(a, caps["distinct"]["pointer"])))
            if len(targets) > caps["distinct"]["max"]:
                return "batch_cap_exceeded", i
    return None


def batch_of(contract, semantics, actions, caps):
    """What `batch_build` returns, derived from the spec."""
    digests = [fingerprint(a) for a in actions]
    leaves = [leaf(d) for d in digests]
    header = {"contract": fingerprint(contract), "root": b64(mth(leaves)), "semantics": semantics,
              "size": len(actions), "tenant": actions[0]["tenant"]}
    totals = {"count": len(actions)}
    if "sum" in caps:
        totals["sum"] = sum(pointer(a, caps["sum"]["pointer"]) for a in actions)
    if "distinct" in caps:
        totals["distinct"] = len({canonical(pointer(a, caps["distinct"]["pointer"])) for a in actions})
    items = [{"action_digest": d, "index": i, "proof": {"index": i, "path": [b64(h) for h in path(i, leaves)]},
              "task_id": task_id(a)} for i, (a, d) in enumerate(zip(actions, digests))]
    return {"batch_digest": fingerprint(header), "caps": caps, "header": header, "items": items, "totals": totals}


def check_build(v, expect):
    contract, semantics, actions, server = (load(v[k]) for k in ("contract", "semantics", "actions", "server"))
    policy = contract.get("batch")
    if policy is None:
        return want(expect.get("error") == "batch_not_allowed", "a contract without batch must refuse")
    if "sensitive" in contract:
        return want(expect.get("error") == "batch_not_allowed",
                    "a contract that marks values sensitive must refuse a batch (it would freeze them in the clear)")
    if semantics not in ("all_or_nothing", "per_item"):
        return want(expect.get("error") == "invalid_batch", "an unknown semantics must refuse")
    max_items, caps = caps_in_force(policy, server)
    refused = refusal(actions, max_items, caps)
    indices = load(v["indices"]) if v["op"] == "deselect" else []
    if refused is None and v["op"] == "deselect":
        bad = any(not isinstance(i, int) or not 0 <= i < len(actions) for i in indices)
        kept = [a for i, a in enumerate(actions) if i not in indices]
        if bad or len(set(indices)) != len(indices) or not kept:
            refused = ("invalid_batch", None)
    if refused:
        code, at = refused
        want(expect.get("error") == code, f"the spec refuses with {code}")
        if at is not None:
            want(expect["path"].startswith(f"/{at}"), f"refused at item {at}")
        return
    want("error" not in expect, "the spec accepts the batch")
    kept = [a for i, a in enumerate(actions) if i not in indices]
    derived = batch_of(contract, semantics, kept, caps)
    if v["op"] == "deselect":
        derived["proposed_digest"] = batch_of(contract, semantics, actions, caps)["batch_digest"]
    want(derived == expect, f"derived {json.dumps(derived)[:300]}")
    for name, cap in caps.items():
        total = derived["totals"]["count" if name == "count" else name]
        limit = cap if name == "count" else cap["max"]
        want(total <= limit, f"{name} total {total} over its cap {limit}")


def inclusion(header, item):
    """Whether the item is in the batch the header describes (its contract, tenant and
    place), with its fingerprint."""
    a, proof = item.get("action"), item.get("proof")
    if not isinstance(a, dict) or not isinstance(proof, dict):
        return False, None
    digest = fingerprint(a)
    root = unb64(header["root"])
    audit = [unb64(h) for h in proof.get("path", [])] if isinstance(proof.get("path"), list) else [None]
    ok = (a.get("contract") == header["contract"] and a.get("tenant") == header["tenant"]
          and root is not None and None not in audit and isinstance(proof.get("index"), int)
          and included(leaf(digest), proof["index"], header["size"], audit, root))
    return ok, digest


def check_verify(v, expect):
    header, item = load(v["header"]), load(v["item"])
    proof = item.get("proof", {})
    if not isinstance(proof.get("path"), list) or any(unb64(h) is None for h in proof["path"]):
        return want(expect.get("error") == "invalid_batch", "a malformed proof is invalid_batch")
    ok, digest = inclusion(header, item)
    if not ok:
        return want(expect.get("error") == "not_in_batch", "the item is not in the batch")
    want(expect == {"action_digest": digest, "batch_digest": fingerprint(header), "index": proof["index"]},
         "the verified item")


def record_of(presented):
    """The decision record a presented approval carries (a DSSE envelope's payload)."""
    if "payloadType" in presented:
        return json.loads(base64.urlsafe_b64decode(presented["payload"] + "=" * (-len(presented["payload"]) % 4)))
    return presented


def drift(frozen, presented, at=""):
    """The JSON Pointers where the presented action differs from the frozen one."""
    if isinstance(frozen, dict) and isinstance(presented, dict):
        out = []
        for k in sorted(set(frozen) | set(presented)):
            p = f"{at}/{k.replace('~', '~0').replace('/', '~1')}"
            if k not in frozen or k not in presented:
                out.append(p)
            else:
                out.extend(drift(frozen[k], presented[k], p))
        return out
    return [] if canonical(frozen) == canonical(presented) else [at]


def quorum_count(records, context):
    """Distinct approvers counted towards the contract's quorum (CONTRACTS.md "Quorums and
    separation of duties": subject and proposer always excluded; each person once)."""
    authorized = context.get("approver_authorized", [])
    if isinstance(authorized, dict):
        authorized = [authorized]
    allowed = {a["approver"] for a in authorized if a.get("authorized")}
    excluded = {context.get("proposer"), context.get("subject_authorized", {}).get("subject")}
    return len({r["approver"] for r in records
                if r.get("decision") == "approved" and r["approver"] in allowed and r["approver"] not in excluded})


def item_verdict(records, item, action, verdict, context):
    """The verdict of one item agrees with its inclusion, drift, approved digest and, under
    a quorum, the count."""
    batches = [r for r in records if "batch" in r and r.get("batch_digest") == fingerprint(r["batch"])]
    if not batches:
        return want(verdict["outcome"] == "reject", "no sealed batch decision: rejected")
    quorum = (context.get("contract") or {}).get("approval", {})
    if isinstance(quorum, dict) and "quorum" in quorum:
        short = quorum_count(batches, context) < quorum["quorum"]["approvers"]
        want(("quorum_short" in verdict["reasons"]) == short, f"quorum_short exactly when short ({short})")
        want(not short or verdict["outcome"] != "permit", "a short quorum does not permit")
    ok, digest = inclusion(batches[0]["batch"], item)
    if not ok:
        return want("not_in_batch" in verdict["reasons"] and verdict["outcome"] == "reject", "not_in_batch")
    want("not_in_batch" not in verdict["reasons"], "the item is in the batch")
    d = drift(item["action"], action)
    want(verdict["drift"] == d, f"drift {d}")
    want(("action_drift" in verdict["reasons"]) == bool(d), "action_drift exactly when it drifts")
    if verdict["approved_digest"] is not None:
        want(verdict["approved_digest"] == digest, "the approved digest is the item's")
    want(verdict["action_digest"] == fingerprint(action), "the presented action's fingerprint")


def check_checks(v, expect):
    if "error" in expect:
        context = load(v["context"])
        return want(context.get("breaker") not in (None, "closed", "open", "half_open"), "only a bad context raises")
    if v["op"] == "check":
        record = record_of(load(v["approval"]))
        return want("batch" not in record or "invalid_approval" in expect["reasons"],
                    "a batch decision is not an approval of one action")
    records = [record_of(load(a)) for a in v["approvals"]]
    context = load(v["context"])
    if v["op"] == "check_item":
        return item_verdict(records, load(v["item"]), load(v["action"]), expect, context)
    items, actions = load(v["items"]), load(v["actions"])
    seen = set()
    for item, action, verdict in zip(items, actions, expect["verdicts"]):
        item_verdict(records, item, action, verdict, context)
        # An item runs once: a later presentation of the same frozen action is refused.
        again = fingerprint(item["action"]) in seen
        seen.add(fingerprint(item["action"]))
        want(("item_repeated" in verdict["reasons"]) == again, f"item_repeated exactly when presented again ({again})")
        want(not again or verdict["outcome"] == "reject", "a repeated item is rejected")
    permitted = [i for i, x in enumerate(expect["verdicts"]) if x["outcome"] == "permit"]
    semantics = next((r["batch"]["semantics"] for r in records if "batch" in r), None)
    want(expect["semantics"] == semantics, "the decided semantics")
    if semantics == "all_or_nothing":
        permitted = permitted if len(permitted) == len(items) else []
    want(expect["claimable"] == permitted, f"claimable {permitted}")


# --- the breaker (CONTRACTS.md's state table) ------------------------------------------


COUNT_MAX = 2**32 - 1  # a breaker's counts stop there (CONTRACTS.md)


def step(policy, breaker, event):
    """One event; the new state and its transition, or the refusal's code."""
    b = copy.deepcopy(breaker) or {"claims": [], "failures": [], "state": "closed", "successes": 0, "trips": 0}
    kind = event.get("kind")
    if kind not in ("claim", "outcome", "redecided") or (kind != "redecided" and not isinstance(event.get("at"), int)):
        return "invalid_request"
    trip = None

    def tripped(why):
        b["state"], b["successes"] = "open", 0
        b["trips"] = min(b["trips"] + 1, COUNT_MAX)
        return "tripped", why

    transition = "none"
    if kind == "claim":
        if b["state"] == "open":
            return "breaker_open"
        rate = (policy or {}).get("max_claims_per_minute")
        if rate is not None:
            b["claims"] = [t for t in b["claims"] if t > event["at"] - MINUTE_MS][-rate:]
            if len(b["claims"]) >= rate:
                transition, trip = tripped("claim_rate")
            else:
                b["claims"].append(event["at"])
    elif kind == "outcome":
        outcome = event.get("outcome")
        failed = outcome in ("failed", "unknown")
        if policy and b["state"] == "half_open":
            if failed:
                transition, trip = tripped("failures")
            else:
                b["successes"] = min(b["successes"] + 1, COUNT_MAX)
                if b["successes"] >= policy["close_after"]:
                    b["state"], b["successes"], b["failures"] = "closed", 0, []
                    transition = "closed"
        elif policy and b["state"] == "closed" and failed:
            b["failures"] = [t for t in b["failures"] if t > event["at"] - policy["window_ms"]][-policy["max_failures"]:]
            b["failures"].append(event["at"])
            if len(b["failures"]) >= policy["max_failures"]:
                transition, trip = tripped("failures")
    elif b["state"] == "open":
        b.update(state="half_open", successes=0, failures=[], claims=[])
        transition = "half_opened"
    return {"breaker": b, "transition": transition, "trip": trip}


def check_breaker(v, expect):
    policy = load(v["policy"])
    want(len(v["steps"]) == len(expect), "one result per step")
    # The first step starts from the vector's own state (null: a new breaker).
    state = load(v["steps"][0]["breaker"]) if v["steps"] else None
    for s, result in zip(v["steps"], expect):
        want(load(s["breaker"]) == state, "each step starts where the one before left")
        got = step(policy, state, load(s["event"]))
        if isinstance(got, str):
            want(result.get("error") == got, f"refused with {got}")
        else:
            want(result == got, f"stepped to {got}")
            state = got["breaker"]


# --- the run ---------------------------------------------------------------------------


def want(ok, what):
    if not ok:
        raise Mismatch(what)


CHECKS = {"build": check_build, "deselect": check_build, "verify_item": check_verify,
          "check_item": check_checks, "check_batch": check_checks, "check": check_checks,
          "breaker": check_breaker}


def problems_of(vectors):
    out = []
    for name, v in vectors:
        try:
            CHECKS[v["op"]](v, v["expect"])
        except Mismatch as e:
            out.append(f"{name}: {e}")
        except (KeyError, TypeError, ValueError, IndexError) as e:
            out.append(f"{name}: cannot re-derive ({type(e).__name__}: {e})")
    return out


def all_vectors():
    paths = sorted((ROOT / "vectors" / "batch").glob("*.json"))
    assert paths, "no batch vectors"
    return [(p.name, json.loads(p.read_text("utf-8"))) for p in paths]


def self_test(vectors):
    """Each alteration of an expectation must be caught."""
    def altered(name, change):
        vs = copy.deepcopy(vectors)
        v = next(v for n, v in vs if n == name)
        change(v["expect"])
        return problems_of([(name, v)])

    def swap_path(e):
        e["items"][0]["proof"]["path"].reverse()

    cases = {
        "root": ("y_build_three_refunds.json", lambda e: e["header"].update(root=b64(bytes(32)))),
        "batch digest": ("y_build_three_refunds.json", lambda e: e.update(batch_digest="sha256:" + "0" * 64)),
        "audit path": ("y_build_three_refunds.json", swap_path),
        "totals": ("y_build_three_refunds.json", lambda e: e["totals"].update(sum=7400)),
        "cap refusal at another item": ("n_batch_cap_exceeded_sum.json", lambda e: e.update(path="/1/args/amount_minor")),
        "a deselection's proposal": ("y_deselect_middle_item.json", lambda e: e.update(proposed_digest=e["batch_digest"])),
        "inclusion accepted": ("n_not_in_batch_wrong_path_hash.json", lambda e: e.update(error="invalid_batch")),
        "drift pointer": ("n_reject_several_items_drift_each_at_its_pointer.json",
                          lambda e: e["verdicts"][2].update(drift=["/args/amount_minor"])),
        "claimable under all_or_nothing": ("n_reject_all_or_nothing_one_drifts.json", lambda e: e.update(claimable=[0, 2])),
        "a repeated item claimable": ("n_reject_per_item_item_repeated.json",
                                      lambda e: (e["verdicts"][2].update(outcome="permit", reasons=[]),
                                                 e.update(claimable=[0, 1, 2]))),
        "a breaker's count wrapped": ("y_breaker_trip_count_stops_at_its_largest.json",
                                      lambda e: e[0]["breaker"].update(trips=0)),
        "a quorum met": ("n_reapprove_item_quorum_short.json", lambda e: e.update(outcome="permit", reasons=[])),
        "a quorum short": ("y_permit_item_quorum_two_of_two.json", lambda e: e["reasons"].append("quorum_short")),
        "breaker transition": ("y_breaker_trips_half_opens_and_closes.json", lambda e: e[2].update(transition="none")),
        "breaker state": ("y_breaker_failures_outside_window.json", lambda e: e[1]["breaker"].update(failures=[0, 70000])),
        "claim refused while open": ("n_breaker_open_claim_while_open_and_retrip_half_open.json",
                                     lambda e: e.__setitem__(2, e[1])),
    }
    missed = [what for what, (name, change) in cases.items() if not altered(name, change)]
    assert not missed, f"alterations not caught: {missed}"
    print(f"batch-check self-test: all {len(cases)} alterations caught")


def main():
    vectors = all_vectors()
    if "--self-test" in sys.argv:
        self_test(vectors)
        return 0
    problems = problems_of(vectors)
    for p in problems:
        print("error:", p, file=sys.stderr)
    if problems:
        return 1
    print(f"batch-check: {len(vectors)} batch vectors re-derived independently")
    return 0


if __name__ == "__main__":
    sys.exit(main())
