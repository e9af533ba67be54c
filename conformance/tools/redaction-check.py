#!/usr/bin/env python3
"""Re-derives every redaction vector's expectation (`vectors/redaction/`) from the spec in
docs/CONTRACTS.md ("Sensitive values"), with Python's standard library and nothing of
actionseal's core: RFC 8785 text by the writer of check-expectations.py, SHA-256 by hashlib,
base64url by base64, and here:

1. `commit`: the envelope from the arguments and ids, each place a sensitive pointer matches
   (`*` for every element, pointers in the contract's key order, elements in order), its
   disclosure `b64url(RFC 8785 of [salt, pointer, value])` with the vector's salt, the value
   replaced by `{"_sd": "sha256:" + SHA-256 of the disclosure's ASCII}`, the fingerprint; or
   the refusal: salts not one per place (`invalid_request`), arguments off the schema's
   pattern (`pattern_mismatch`, checked in the clear);
2. `reveal`: reading each disclosure (`invalid_disclosure`, `disclosure_not_canonical`) and
   holding it against the commitment at its pointer (`disclosure_extra`, `_mismatch`,
   `_missing`, `not_committed`), with the path the spec gives each;
3. `check`: the presented clear action committed again with the context's salts (a place
   without one holds `{"_sd": "undisclosed"}`), its fingerprint as `action_digest`, the drift
   against the frozen action with a commitment's `/_sd` folded to its place, `action_drift`
   exactly when it drifts, `disclosure_invalid` with the code and path of the disclosures'
   fault exactly when they do not open the frozen action, and no secret in the verdict;
4. `review`: a frozen action as a reviewer's page judges it: a sensitive place holding a
   well-formed commitment (`{"_sd": "sha256:" + 64 hex}`) is not validated, every other
   value is (the vectors' schema subset), then the contract's requirement.

Exits non-zero on any disagreement. `--self-test` alters expectations in memory, one of each
kind, and fails unless every alteration is caught.

    python3 conformance/tools/redaction-check.py [--self-test]
"""
import base64
import copy
import hashlib
import importlib.util
import json
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("check_expectations", ROOT / "tools" / "check-expectations.py")
jcs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(jcs)

UNDISCLOSED = {"_sd": "undisclosed"}


class Mismatch(Exception):
    pass


class Fault(Exception):
    """A refusal: its code and path."""

    def __init__(self, code, path):
        super().__init__(code)
        self.code, self.path = code, path

    def json(self):
        return {"error": self.code, "path": self.path}


def want(ok, what):
    if not ok:
        raise Mismatch(what)


def canonical(value):
    found = set()
    out = []
    jcs.write(jcs.read(json.dumps(value).encode("utf-8"), found), "strict", out, found)
    assert not found, found
    return "".join(out)


def sha256(text):
    """The digest of a disclosure: SHA-256 over its base64url characters."""
    return "sha256:" + hashlib.sha256(text.encode("ascii")).hexdigest()


def fingerprint(value):
    return "sha256:" + hashlib.sha256(canonical(value).encode("utf-8")).hexdigest()


def b64url(raw):
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def unb64url(text):
    """The bytes of canonical unpadded base64url, else None."""
    if not isinstance(text, str) or not re.fullmatch(r"[A-Za-z0-9_-]*", text) or len(text) % 4 == 1:
        return None
    raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    return raw if b64url(raw) == text else None


def escape(token):
    return token.replace("~", "~0").replace("/", "~1")


def tokens(pointer):
    return [t.replace("~1", "/").replace("~0", "~") for t in pointer.split("/")[1:]]


def utf16(key):
    return key.encode("utf-16-be")


def places(sensitive, action):
    """[(pointer, value)] in the pointers' (canonical key) order, then the elements'."""
    out = []

    def walk(v, toks, at):
        if not toks:
            out.append((at, v))
            return
        t, rest = toks[0], toks[1:]
        if t == "*" and isinstance(v, list):
            for i, x in enumerate(v):
                walk(x, rest, f"{at}/{i}")
        elif isinstance(v, dict) and t in v:
            walk(v[t], rest, f"{at}/{escape(t)}")
        elif isinstance(v, list) and re.fullmatch(r"0|[1-9][0-9]*", t) and int(t) < len(v):
            walk(v[int(t)], rest, f"{at}/{t}")

    for p in sorted(sensitive, key=utf16):
        walk(action, p.split("/")[1:], "")
    return out


def replaced(action, by_place):
    """A copy of `action` with the value at each pointer of `by_place` replaced."""
    out = copy.deepcopy(action)
    for p, new in by_place.items():
        toks = tokens(p)
        parent = out
        for t in toks[:-1]:
            parent = parent[int(t)] if isinstance(parent, list) else parent[t]
        last = toks[-1]
        if isinstance(parent, list):
            parent[int(last)] = new
        else:
            parent[last] = new
    return out


def disclosure(salt, pointer, value):
    return b64url(canonical([salt, pointer, value]).encode("utf-8"))


def commitment(d):
    return {"_sd": sha256(d)}


def read_disclosure(text, at):
    """(salt, pointer, value) of a disclosure as it travels, else the spec's refusal."""
    raw = unb64url(text)
    if raw is None:
        raise Fault("invalid_disclosure", at)
    try:
        s = raw.decode("utf-8")
        v = json.loads(s)
    except (UnicodeDecodeError, ValueError):
        raise Fault("invalid_disclosure", at) from None
    if not isinstance(v, list) or len(v) != 3:
        raise Fault("invalid_disclosure", at)
    salt, pointer, value = v
    salt_raw = unb64url(salt)
    if salt_raw is None or len(salt_raw) != 16:
        raise Fault("invalid_disclosure", at)
    if not isinstance(pointer, str) or not pointer.startswith("/args/"):
        raise Fault("invalid_disclosure", at)
    if canonical(v) != s:
        raise Fault("disclosure_not_canonical", at)
    return salt, pointer, value


def read_disclosures(texts, at):
    if not isinstance(texts, list):
        raise Fault("invalid_disclosure", at)
    out = []
    for i, t in enumerate(texts):
        if not isinstance(t, str):
            raise Fault("invalid_disclosure", f"{at}/{i}")
        out.append((t,) + read_disclosure(t, f"{at}/{i}"))
    return out


def opened(sensitive, action, ds, every):
    """{pointer: value} the disclosures give, held against the commitments (spec's order of
    faults: a place in the clear, then each disclosure in turn, then a missing one)."""
    held = {}
    for p, v in places(sensitive, action):
        ok = isinstance(v, dict) and len(v) == 1 and isinstance(v.get("_sd"), str) and re.fullmatch(r"sha256:[0-9a-f]{64}", v["_sd"])
        if not ok:
            raise Fault("not_committed", p)
        held[p] = v["_sd"]
    got = {}
    for i, (text, _salt, pointer, value) in enumerate(ds):
        if pointer not in held or pointer in got:
            raise Fault("disclosure_extra", f"/{i}")
        if held[pointer] != sha256(text):
            raise Fault("disclosure_mismatch", f"/{i}")
        got[pointer] = value
    if every:
        missing = [p for p in held if p not in got]
        if missing:
            raise Fault("disclosure_missing", missing[0])
    return got


# --- commit ------------------------------------------------------------------------------


def check_commit(v, expect):
    contract, args, ids, salts = (json.loads(v[k]) for k in ("contract", "args", "ids", "salts"))
    try:
        for name, prop in contract["args"].get("properties", {}).items():
            if "pattern" in prop and name in args and not re.search(prop["pattern"], args[name]):
                raise Fault("pattern_mismatch", f"/args/{escape(name)}")
        envelope = dict(ids, args=args, contract=fingerprint(contract), tool=contract["tool"])
        found = places(contract.get("sensitive", {}), envelope)
        if not isinstance(salts, list) or len(salts) != len(found):
            raise Fault("invalid_request", "/salts")
        for i, s in enumerate(salts):
            if unb64url(s) is None or len(unb64url(s)) != 16:
                raise Fault("invalid_request", f"/salts/{i}")
        ds = [disclosure(s, p, value) for s, (p, value) in zip(salts, found)]
        action = replaced(envelope, {p: commitment(d) for d, (p, _) in zip(ds, found)})
        result = {"action": action, "action_digest": fingerprint(action), "disclosures": ds}
    except Fault as f:
        result = f.json()
    want(expect == result, f"commit: {json.dumps(result)[:200]}")
    if "sensitive" not in contract and "error" not in result:
        want(result["action"] == envelope, "without sensitive pointers the action is the one built")


# --- reveal ------------------------------------------------------------------------------


def check_reveal(v, expect):
    contract, action, texts, coverage = (json.loads(v[k]) for k in ("contract", "action", "disclosures", "coverage"))
    try:
        if coverage not in ("every", "given"):
            raise Fault("invalid_request", "")
        if action.get("contract") != fingerprint(contract):
            raise Fault("invalid_action", "/contract")
        ds = read_disclosures(texts, "")
        got = opened(contract.get("sensitive", {}), action, ds, coverage == "every")
        result = replaced(action, got)
    except Fault as f:
        result = f.json()
    want(expect == result, f"reveal: {json.dumps(result)[:200]}")


# --- check -------------------------------------------------------------------------------


def drift(frozen, presented, at=""):
    if isinstance(frozen, dict) and isinstance(presented, dict):
        out = []
        for k in sorted(set(frozen) | set(presented), key=utf16):
            p = f"{at}/{escape(k)}"
            if k not in frozen or k not in presented:
                out.append(p)
            else:
                out.extend(drift(frozen[k], presented[k], p))
        return out
    if isinstance(frozen, list) and isinstance(presented, list) and len(frozen) == len(presented):
        return [p for i, (a, b) in enumerate(zip(frozen, presented)) for p in drift(a, b, f"{at}/{i}")]
    return [] if canonical(frozen) == canonical(presented) else [at]


def check_check(v, expect):
    record, action, context = (json.loads(v[k]) for k in ("approval", "action", "context"))
    sensitive = (context.get("contract") or {}).get("sensitive")
    try:
        ds = read_disclosures(context.get("disclosures", []), "/disclosures")
    except Fault as f:
        return want(expect == f.json(), f"check: {f.json()}")
    want("error" not in expect, "only disclosures that do not read raise")
    presented = action
    fault = None
    if sensitive:
        # An action presented committed, as it was frozen (a resume), is read in the clear
        # when every place holds a commitment the disclosures open; else it stays as given.
        found = places(sensitive, action)
        if found and all(isinstance(v, dict) and set(v) == {"_sd"} for _p, v in found):
            try:
                action = replaced(action, opened(sensitive, action, ds, True))
            except Fault:
                pass
        salts = {p: s for _t, s, p, _v in ds}
        presented = replaced(action, {
            p: commitment(disclosure(salts[p], p, value)) if p in salts else UNDISCLOSED
            for p, value in places(sensitive, action)})
        try:
            opened(sensitive, record["action"], ds, True)
        except Fault as f:
            fault = f.json()
    frozen = record["action"]
    want(record["action_digest"] == fingerprint(frozen), "the approval is sealed")
    places_of = {p for p, _ in places(sensitive or {}, frozen)}
    d = []
    for p in drift(frozen, presented):
        p = p[:-4] if p.endswith("/_sd") and p[:-4] in places_of else p
        d.append(p)
    reasons = (["action_drift"] if d else []) + (["disclosure_invalid"] if fault else [])
    want(expect["drift"] == d, f"drift {d}")
    want(expect["reasons"] == reasons, f"reasons {reasons}")
    want(expect["outcome"] == ("reject" if reasons else "permit"), "the outcome")
    want(expect["action_digest"] == fingerprint(presented), "the presented action as committed again")
    want(expect["approved_digest"] == record["action_digest"], "the approved digest")
    want(expect["action_error"] == (None if fault is None else {"code": fault["error"], "path": fault["path"]}),
         f"action_error {fault}")


# --- review ------------------------------------------------------------------------------

COMMITMENT = re.compile(r"sha256:[0-9a-f]{64}")
TYPES = {"integer": lambda x: isinstance(x, int) and not isinstance(x, bool), "string": lambda x: isinstance(x, str),
         "object": lambda x: isinstance(x, dict), "array": lambda x: isinstance(x, list)}


def validated(schema, value, at, held):
    """The first fault of `value` against the vectors' schema subset (type, pattern, required,
    properties, items), members in key order; a value at a pointer in `held` is not entered."""
    if at in held:
        return
    if "type" in schema and not TYPES[schema["type"]](value):
        raise Fault("type_mismatch", at)
    if "pattern" in schema and not re.search(schema["pattern"], value):
        raise Fault("pattern_mismatch", at)
    if isinstance(value, dict):
        for name in schema.get("required", []):
            if name not in value:
                raise Fault("missing_field", f"{at}/{escape(name)}")
        for k in sorted(value, key=utf16):
            if k in schema.get("properties", {}):
                validated(schema["properties"][k], value[k], f"{at}/{escape(k)}", held)
    if isinstance(value, list) and "items" in schema:
        for i, item in enumerate(value):
            validated(schema["items"], item, f"{at}/{i}", held)


def check_review(v, expect):
    contract, action = (json.loads(v[k]) for k in ("contract", "action"))
    # A sensitive place holding a well-formed commitment is held back; nothing else is.
    held = {p for p, value in places(contract.get("sensitive", {}), action)
            if isinstance(value, dict) and set(value) == {"_sd"} and isinstance(value["_sd"], str)
            and COMMITMENT.fullmatch(value["_sd"])}
    try:
        if action.get("tool") != contract["tool"]:
            raise Fault("invalid_action", "/tool")
        if action.get("contract") != fingerprint(contract):
            raise Fault("invalid_action", "/contract")
        validated(contract["args"], action["args"], "/args", held)
        want(contract["approval"] in ("always", "never"), "the vectors' approvals are always or never")
        result = {"required": contract["approval"] == "always", "rule": "/approval"}
    except Fault as f:
        result = f.json()
    want(expect == result, f"review: {json.dumps(result)[:200]}")


def check_secrets(v, expect):
    shown = json.dumps(expect)
    if v["op"] == "check" or "error" in expect:
        leaked = [s for s in v["secrets"] if s in shown]
        want(not leaked, f"secrets in the result: {leaked}")


CHECKS = {"commit": check_commit, "reveal": check_reveal, "check": check_check, "review": check_review}


def problems_of(vectors):
    out = []
    for name, v in vectors:
        try:
            CHECKS[v["op"]](v, v["expect"])
            check_secrets(v, v["expect"])
            said = v["expect"].get("error") or (None if v["expect"].get("outcome") in (None, "permit") else v["expect"]["outcome"])
            want(name.startswith(f"n_{said}_") if said else name.startswith("y_"), f"the name must say {said}")
        except Mismatch as e:
            out.append(f"{name}: {e}")
        except (KeyError, TypeError, ValueError, IndexError) as e:
            out.append(f"{name}: cannot re-derive ({type(e).__name__}: {e})")
    return out


def all_vectors():
    paths = sorted((ROOT / "vectors" / "redaction").glob("*.json"))
    assert paths, "no redaction vectors"
    return [(p.name, json.loads(p.read_text("utf-8"))) for p in paths]


def self_test(vectors):
    """Each alteration of an expectation must be caught."""
    def altered(name, change):
        vs = copy.deepcopy(vectors)
        v = next(v for n, v in vs if n == name)
        change(v["expect"])
        return problems_of([(name, v)])

    def flip_disclosures(e):
        e["disclosures"].reverse()

    cases = {
        "commitment": ("y_commit_three_fields_two_in_an_array.json",
                       lambda e: e["action"]["args"]["card_number"].update(_sd="sha256:" + "0" * 64)),
        "disclosure order": ("y_commit_three_fields_two_in_an_array.json", flip_disclosures),
        "unchanged fingerprint": ("y_commit_no_sensitive_pointers_unchanged.json",
                                  lambda e: e.update(action_digest="sha256:" + "1" * 64)),
        "revealed value": ("y_reveal_every_value.json", lambda e: e["args"].update(card_number="4000000000000002")),
        "code": ("n_disclosure_mismatch_reused_from_another_task.json", lambda e: e.update(error="disclosure_extra")),
        "path": ("n_disclosure_missing_to_run_the_call.json", lambda e: e.update(path="/args/recipients/0/email")),
        "drift at the commitment": ("n_reject_drift_in_a_sensitive_value.json",
                                    lambda e: e.update(drift=["/args/card_number/_sd"])),
        "a value in the verdict": ("n_reject_drift_in_a_sensitive_array_element.json",
                                   lambda e: e.update(drift=["/args/recipients/1/email=bob@example.com"])),
        "fingerprint as committed": ("y_check_clear_action_with_its_disclosures.json",
                                     lambda e: e.update(action_digest="sha256:" + "2" * 64)),
        "disclosure fault": ("n_reject_disclosure_invalid_missing.json",
                             lambda e: e.update(action_error={"code": "disclosure_mismatch", "path": "/0"})),
        "a review that refuses its commitments": ("y_review_committed_action.json",
                                                  lambda e: (e.clear(), e.update(error="type_mismatch", path="/args/card_number"))),
        "a review that holds a plain place back": ("n_type_mismatch_review_commitment_at_a_plain_place.json",
                                                   lambda e: (e.clear(), e.update(required=True, rule="/approval"))),
    }
    missed = [what for what, (name, change) in cases.items() if not altered(name, change)]
    assert not missed, f"alterations not caught: {missed}"
    print(f"redaction-check self-test: all {len(cases)} alterations caught")


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
    print(f"redaction-check: {len(vectors)} redaction vectors re-derived independently")
    return 0


if __name__ == "__main__":
    sys.exit(main())
