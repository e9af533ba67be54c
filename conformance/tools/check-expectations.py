#!/usr/bin/env python3
"""Checks every expectation the regenerator wrote for JSON text, in `vectors/canon/` and
`generated/corpus.jsonl`, with implementations that share nothing with actionseal's core:

1. Python's standard library: `json` (every key and number token seen through hooks, so
   duplicates, non-finite constants and inexact numbers are found), `decimal` for exact
   values, `float` for rounding, and an RFC 8785 writer below. It decides for itself whether a
   text is lossless under each profile: if not, the expectation must be an error (with the
   code it can tell, where it can tell one); if so, the expectation must be its canonical text
   and that text's SHA-256.
2. Node's `JSON.parse` and the npm `canonicalize` package (`canonicalize-texts.mjs`), for the
   texts Python found lossless.
3. The naming rule: a `y_` vector is accepted under the strict profile, an `n_<code>` vector
   refused with that code.

Expectations are snapshots of what the core said when they were written; this is what makes
them evidence. Exits non-zero on any disagreement.

    python3 conformance/tools/check-expectations.py [--no-node]
"""
import decimal
import hashlib
import json
import math
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
MAX_DEPTH = 128
PROFILES = ("strict", "rfc8785")
SURROGATE = re.compile("[\ud800-\udfff]")
decimal.getcontext().prec = 50


class Refused(Exception):
    """The text is refused before anything else is read: `code` if one can be named."""

    def __init__(self, code, why):
        super().__init__(why)
        self.code = code


def read(data, found):
    """Parses bytes as strict JSON; returns the value with numbers as their token strings
    (wrapped in Num). Adds to `found` the code of every problem it meets that a strict
    reader must refuse (duplicate keys, non-finite constants, lone surrogates, nesting past
    the limit); raises Refused for text it cannot read at all."""
    if data.startswith(b"\xef\xbb\xbf") or data.startswith((b"\xfe\xff", b"\xff\xfe")):
        raise Refused("byte_order_mark", "byte-order mark")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        bad = data[e.start:e.start + 3]
        encoded_surrogate = len(bad) == 3 and bad[0] == 0xED and 0xA0 <= bad[1] <= 0xBF
        raise Refused("lone_surrogate" if encoded_surrogate else "invalid_utf8", str(e))

    def pairs(members):
        keys = [k for k, _ in members]
        if len(set(keys)) != len(keys):
            found.add("duplicate_key")
        return dict(members)

    def constant(name):
        found.add("non_finite_number")

    try:
        value = json.loads(text, object_pairs_hook=pairs, parse_float=Num, parse_int=Num,
                           parse_constant=constant)
    except (ValueError, RecursionError) as e:
        raise Refused(None, f"not JSON: {e}")
    check_structure(value, 1, found)
    return value


def check_structure(v, depth, found):
    if isinstance(v, (list, dict)) and depth > MAX_DEPTH:
        found.add("depth_limit_exceeded")
    if isinstance(v, str) and SURROGATE.search(v):
        found.add("lone_surrogate")
    if isinstance(v, list):
        for item in v:
            check_structure(item, depth + 1, found)
    elif isinstance(v, dict):
        for k, item in v.items():
            if SURROGATE.search(k):
                found.add("lone_surrogate")
            check_structure(item, depth + 1, found)


class Num:
    """A number token: its exact value and its nearest double."""

    def __init__(self, token):
        self.token = token
        self.double = float(token)  # correctly rounded, for tokens of any length
        try:
            self.exact = decimal.Decimal(token)
        except decimal.InvalidOperation:
            # An exponent beyond what decimal holds (10^18 and more): zero if the digits
            # are, else astronomically far from every double (None: equal to none of them).
            mantissa = re.split("[eE]", token)[0]
            self.exact = decimal.Decimal(0) if not mantissa.strip("-0.") else None


def es_number(x):
    """ECMAScript Number.prototype.toString of a finite double."""
    if x == 0:
        return "0"
    sign = "-" if x < 0 else ""
    digits, exp = shortest(abs(x))
    k = len(digits)
    n = exp + k  # value = 0.digits × 10^n
    if k <= n <= 21:
        body = digits + "0" * (n - k)
    elif 0 < n <= 21:
        body = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        body = "0." + "0" * -n + digits
    else:
        e = n - 1
        body = digits[0] + ("." + digits[1:] if k > 1 else "") + "e" + ("+" if e >= 0 else "-") + str(abs(e))
    return sign + body


def shortest(a):
    """The shortest digits that read back as `a` (Python's repr, which picks the closest
    such decimal, the even one on a tie, as ECMAScript does) and their exponent."""
    r = repr(a)
    mantissa, _, e = r.partition("e")
    int_part, _, frac = mantissa.partition(".")
    digits = (int_part + frac).lstrip("0")
    exp = (int(e) if e else 0) - len(frac)
    stripped = digits.rstrip("0")
    exp += len(digits) - len(stripped)
    return stripped, exp


def write(v, profile, out, found):
    """RFC 8785 text of a value read by `read`; adds to `found` the code of every number the
    profile refuses."""
    if v is None:
        out.append("null")
    elif v is True:
        out.append("true")
    elif v is False:
        out.append("false")
    elif isinstance(v, Num):
        if math.isinf(v.double):
            found.add("number_overflow")
            return
        text = es_number(v.double)
        if profile == "strict" and (v.exact is None or decimal.Decimal(text) != v.exact):
            found.add("inexact_number")
        out.append(text)
    elif isinstance(v, str):
        out.append(string(v))
    elif isinstance(v, list):
        out.append("[")
        for i, item in enumerate(v):
            if i:
                out.append(",")
            write(item, profile, out, found)
        out.append("]")
    else:
        out.append("{")
        for i, k in enumerate(sorted(v, key=lambda k: k.encode("utf-16-be", "surrogatepass"))):
            if i:
                out.append(",")
            out.append(string(k))
            out.append(":")
            write(v[k], profile, out, found)
        out.append("}")


ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def string(s):
    return '"' + "".join(ESCAPES.get(c) or (f"\\u{ord(c):04x}" if c < " " else c) for c in s) + '"'


def independent(data, profile):
    """('ok', canonical text), or ('error', the set of codes the text can be refused with;
    empty when the text is not JSON and no code can be named)."""
    found = set()
    try:
        value = read(data, found)
    except Refused as e:
        return "error", {e.code} if e.code else set()
    out = []
    write(value, profile, out, found)
    return ("error", found) if found else ("ok", "".join(out))


def expand_repeat(parts):
    return "".join(text * count for text, count in parts)


def cases():
    """(name, bytes, {profile: expectation}) for every vector and corpus line."""
    files = sorted((ROOT / "vectors" / "canon").glob("*.json"))
    assert len(files) >= 100, f"only {len(files)} canonicalization vectors"
    for path in files:
        doc = json.loads(path.read_text("utf-8"))
        if "input" in doc:
            data = doc["input"].encode("utf-8", "surrogatepass")
        elif "input_hex" in doc:
            data = bytes.fromhex(doc["input_hex"])
        else:
            data = expand_repeat(doc["input_repeat"]).encode("utf-8")
        yield path.stem, data, {p: doc[p] for p in PROFILES}
    lines = (ROOT / "generated" / "corpus.jsonl").read_text("utf-8").removesuffix("\n").split("\n")
    assert len(lines) >= 1000, f"only {len(lines)} corpus lines"
    for line in lines:
        case = json.loads(line)
        yield f"corpus {case['id']}", case["text"].encode("utf-8", "surrogatepass"), {p: case[p] for p in PROFILES}


def naming_problem(name, strict):
    if name.startswith("corpus"):
        return None
    if name.startswith("y_"):
        return None if "canonical" in strict else f"{name}: a y_ vector is refused under strict"
    if name.startswith("n_"):
        code = strict.get("error")
        if code is None:
            return f"{name}: an n_ vector is accepted under strict"
        return None if name[2:].startswith(code) else f"{name}: refused with {code}, not the code its name starts with"
    return f"{name}: names start with y_ or n_"


def main():
    use_node = "--no-node" not in sys.argv
    problems = []
    counts = {"cases": 0, "canonical": 0, "errors": 0, "codes": 0}
    lossless = []  # (name, profile, text, expected canonical) for Node
    for name, data, want in cases():
        counts["cases"] += 1
        problem = naming_problem(name, want["strict"])
        if problem:
            problems.append(problem)
        for profile in PROFILES:
            expected = want[profile]
            kind, got = independent(data, profile)
            if kind == "ok":
                counts["canonical"] += 1
                fingerprint = "sha256:" + hashlib.sha256(got.encode("utf-8")).hexdigest()
                if expected.get("canonical") != got or expected.get("fingerprint") != fingerprint:
                    problems.append(f"{name} ({profile}): expected {short(expected)}, an independent reading gives {got[:120]!r}")
                else:
                    lossless.append((name, profile, data.decode("utf-8"), got))
            else:
                counts["errors"] += 1
                why = ", ".join(sorted(got)) or "not JSON"
                if "error" not in expected:
                    problems.append(f"{name} ({profile}): expected {short(expected)}, but the text is refused ({why})")
                elif got and expected["error"] not in got:
                    problems.append(f"{name} ({profile}): expected error {expected['error']}, an independent reading finds {why}")
                elif got:
                    # The code is one the text has (which of several a reader reports first
                    # depends on its reading order).
                    counts["codes"] += 1
    node = 0
    if use_node:
        node = check_with_node(lossless, problems)
    for p in problems:
        print("error:", p, file=sys.stderr)
    print(f"{counts['cases']} texts under 2 profiles: {counts['canonical']} canonical texts and "
          f"{counts['errors']} refusals ({counts['codes']} with the code confirmed) agree with Python's "
          f"json/decimal; {node} canonical texts agree with Node's JSON.parse + npm canonicalize")
    return 1 if problems else 0


def short(expected):
    text = json.dumps(expected)
    return text if len(text) < 160 else text[:160] + "..."


def check_with_node(lossless, problems):
    """Node reads each lossless text with JSON.parse and writes it with npm canonicalize."""
    script = pathlib.Path(__file__).with_name("canonicalize-texts.mjs")
    batch = "".join(json.dumps(text) + "\n" for _, _, text, _ in lossless)
    try:
        result = subprocess.run(["node", str(script)], input=batch.encode("utf-8"),
                                capture_output=True, check=True, cwd=ROOT.parent)
    except (OSError, subprocess.CalledProcessError) as e:
        stderr = getattr(e, "stderr", b"") or b""
        problems.append(f"node {script.name} failed: {e} {stderr.decode(errors='replace')[:400]}")
        return 0
    outputs = result.stdout.decode("utf-8").removesuffix("\n").split("\n")
    if len(outputs) != len(lossless):
        problems.append(f"node gave {len(outputs)} answers for {len(lossless)} texts")
        return 0
    agreed = 0
    for (name, profile, _, want), line in zip(lossless, outputs):
        got = json.loads(line)
        if got != want:
            problems.append(f"{name} ({profile}): Node's JSON.parse + canonicalize gives {str(got)[:120]!r}, the expectation {want[:120]!r}")
        else:
            agreed += 1
    return agreed


def self_test():
    """The number writer against Node's own texts for 10,000 random doubles."""
    import struct
    path = ROOT / "vectors" / "numbers" / "es6_random.jsonl"
    n = 0
    for line in path.read_text("utf-8").splitlines():
        case = json.loads(line)
        (x,) = struct.unpack(">d", bytes.fromhex(case["bits"]))
        assert es_number(x) == case["text"], (case, es_number(x))
        n += 1
    assert n >= 10_000, f"only {n} numbers"


if __name__ == "__main__":
    self_test()
    sys.exit(main())
