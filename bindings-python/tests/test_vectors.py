"""Every conformance vector, under both profiles, through the Python API."""

import json
import math
import struct

import pytest

import actionseal
from conftest import CODES, CONFORMANCE, PROFILES, error_of, jcs_dir

def jsonl(path):
    """The objects of a JSON-lines file; lines end at "\\n" only (texts hold \\r and U+2028)."""
    text = path.read_text("utf-8")
    return [json.loads(line) for line in text.removesuffix("\n").split("\n")]


CANON = sorted((CONFORMANCE / "vectors" / "canon").glob("*.json"))


def check_text(text, want, *, compare_offset=True):
    """canonicalize_json and fingerprint_json of ``text`` match a conformance result under
    each profile in ``want``."""
    for profile in PROFILES:
        expected = want[profile]
        if "error" in expected:
            for fn in (actionseal.canonicalize_json, actionseal.fingerprint_json):
                err = error_of(fn, text, profile=profile)
                got = (err.code, err.path)
                assert got == (expected["error"], expected["path"]), (profile, str(err))
                if compare_offset:
                    assert err.offset == expected.get("offset"), (profile, str(err))
        else:
            assert actionseal.canonicalize_json(text, profile=profile) == expected["canonical"]
            assert actionseal.fingerprint_json(text, profile=profile) == expected["fingerprint"]


def test_vector_files_exist():
    assert len(CANON) >= 50
    assert any(p.name.startswith("y_") for p in CANON)
    assert any(p.name.startswith("n_") for p in CANON)


@pytest.mark.parametrize("path", CANON, ids=[p.stem for p in CANON])
def test_canon_vector(path):
    doc = json.loads(path.read_text("utf-8"))
    assert sum(form in doc for form in ("input", "input_hex", "input_repeat")) == 1
    if "input_repeat" in doc:
        # Input too large for the file: [text, count] pairs, each text repeated count times.
        doc["input"] = "".join(text * count for text, count in doc["input_repeat"])
    if "input" in doc:
        check_text(doc["input"], doc)
        check_text(doc["input"].encode("utf-8"), doc)
    else:
        check_text(bytes.fromhex(doc["input_hex"]), doc)
    # The file name states the strict outcome.
    strict = doc["strict"]
    if path.name.startswith("n_"):
        assert path.stem[2:].startswith(strict["error"])
    else:
        assert "canonical" in strict
        if "input" in doc:
            # The same data as Python values gives the same text and digest through the walk
            # (numbers as doubles, as JSON text denotes them).
            value = json.loads(doc["input"], parse_int=float)
            assert actionseal.canonicalize(value) == strict["canonical"]
            assert actionseal.fingerprint(value) == strict["fingerprint"]
    for profile in PROFILES:
        if "error" in doc[profile]:
            assert doc[profile]["error"] in CODES


def test_es6_numbers():
    """Doubles format as ECMAScript's String(x) does, and that text reads back as the double."""
    cases = jsonl(CONFORMANCE / "vectors" / "numbers" / "es6_random.jsonl")
    assert len(cases) >= 10_000
    for case in cases:
        bits, text = case["bits"], case["text"]
        (x,) = struct.unpack(">d", bytes.fromhex(bits))
        assert math.isfinite(x)
        assert actionseal.canonicalize([x]) == f"[{text}]", bits
        # The text is exact (strict accepts it unchanged) and names the same double.
        assert actionseal.canonicalize_json(f"[{text}]") == f"[{text}]", bits
        back = float(text)
        assert back == x and (x == 0 or struct.pack(">d", back).hex() == bits), bits
        assert actionseal.fingerprint([back]) == actionseal.fingerprint_json(f"[{text}]")


def test_generated_corpus():
    """Each text as str and as bytes; and, where lossless through json.loads, as a host value."""
    cases = jsonl(CONFORMANCE / "generated" / "corpus.jsonl")
    assert len(cases) >= 1000
    hosts = 0
    for case in cases:
        text = case["text"]
        check_text(text, case, compare_offset=True)
        check_text(text.encode("utf-8"), case, compare_offset=True)
        if case["host"]:
            hosts += 1
            value = json.loads(text)
            for profile in PROFILES:
                want = case[profile]
                assert actionseal.fingerprint(value, profile=profile) == want["fingerprint"], case["id"]
                assert actionseal.canonicalize(value, profile=profile) == want["canonical"], case["id"]
    assert hosts >= 100


def strict_exclusions():
    doc = json.loads((CONFORMANCE / "jcs-strict-exclusions.json").read_text("utf-8"))
    return {x["name"]: x for x in doc["excluded"]}


def expect_public(name, text, canonical):
    """A public case: matches under rfc8785; under strict, fails with the listed code if it is
    excluded, else matches too. ``canonical`` None means the case must be rejected."""
    excluded = strict_exclusions().get(name)
    for profile in PROFILES:
        if profile == "strict" and excluded is not None:
            assert error_of(actionseal.canonicalize_json, text, profile=profile).code == excluded["code"], name
        elif canonical is None:
            error_of(actionseal.canonicalize_json, text, profile=profile)
        else:
            assert actionseal.canonicalize_json(text, profile=profile) == canonical, (name, profile)


def test_public_vectors_jsonl():
    exclusions = strict_exclusions()
    cases = jsonl(jcs_dir() / "public_vectors.jsonl")
    assert len(cases) >= 100
    used = 0
    for number, case in enumerate(cases, start=1):
        name = f"public_vectors.jsonl:{number}"
        if name in exclusions:
            assert exclusions[name]["input"] == case["input"], f"{name}: exclusion names another input"
            used += 1
        canonical = case.get("canonical")
        assert (canonical is None) == ("reject" in case)
        for text in (case["input"], case["input"].encode("utf-8")):
            expect_public(name, text, canonical)
        if canonical is not None:
            want = "sha256:" + case["sha256"]
            assert actionseal.fingerprint_json(case["input"], profile="rfc8785") == want, name
            if name not in exclusions:
                assert actionseal.fingerprint_json(case["input"]) == want, name
    listed = [n for n in exclusions if n.startswith("public_vectors.jsonl:")]
    assert used == len(listed), "an exclusion names no line"


@pytest.mark.parametrize(
    "directory,count", [("cyberphone", 6), ("erdtman_canonicalize", 2)]
)
def test_public_file_pairs(directory, count):
    base = jcs_dir() / directory
    inputs = sorted((base / "input").iterdir())
    assert len(inputs) == count
    for path in inputs:
        want = (base / "output" / path.name).read_text("utf-8").rstrip("\n")
        expect_public(f"{directory}/input/{path.name}", path.read_bytes(), want)


def test_public_examples_and_hex_outputs():
    base = jcs_dir()
    for name, output in [
        ("serde_jcs/ex.1.input.json", "serde_jcs/ex.1.output.json"),
        ("serde_jcs/ex.2.input.json", "serde_jcs/ex.2.output.json"),
        ("serde_jcs/ex.3.input.json", "serde_jcs/ex.3.output.json"),
        ("rfc8785/rfc_example.input.json", "rfc8785/rfc_example.expected.json"),
        ("rfc8785/rfc_sorting.input.json", "rfc8785/rfc_sorting.expected.json"),
    ]:
        want = (base / output).read_text("utf-8").rstrip("\n")
        expect_public(name, (base / name).read_bytes(), want)
    outhex = sorted((base / "cyberphone" / "outhex").iterdir())
    assert len(outhex) == 6
    for path in outhex:
        want = bytes.fromhex("".join(path.read_text("ascii").split())).decode("utf-8")
        source = base / "cyberphone" / "input" / (path.stem + ".json")
        assert actionseal.canonicalize_json(source.read_bytes(), profile="rfc8785") == want


def test_public_appendix_b_numbers():
    rows = (jcs_dir() / "rfc8785" / "appendix_b_numbers.csv").read_text("utf-8").splitlines()[1:]
    assert len(rows) == 26
    for row in rows:
        hexbits, want = row.split(",")[:2]
        (x,) = struct.unpack(">d", bytes.fromhex(hexbits))
        if want == "ERROR":
            assert error_of(actionseal.canonicalize, x).code == "non_finite_number"
        else:
            assert actionseal.canonicalize(x) == want, hexbits


def test_public_es6_static_numbers():
    lines = (jcs_dir() / "es6numbers" / "es6_static_u64.txt").read_text("ascii").split()
    assert len(lines) >= 100
    for hexbits in lines:
        (x,) = struct.unpack(">d", bytes.fromhex(hexbits))
        text = actionseal.canonicalize(x)
        assert float(text) == x, hexbits
        assert actionseal.canonicalize_json(text) == text, hexbits
