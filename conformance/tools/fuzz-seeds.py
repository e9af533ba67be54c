#!/usr/bin/env python3
"""Writes every JSON text the conformance vectors hold, one file each, into DIR: the seed
corpus of the fuzz targets (scripts/fuzz). Texts are taken as they are, valid or not."""
import hashlib
import json
import pathlib
import sys

root = pathlib.Path(__file__).resolve().parents[1]
out = pathlib.Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)


def texts(node):
    """Every string in a vector that is JSON text (raw inputs are stored as strings)."""
    if isinstance(node, str):
        stripped = node.lstrip()
        if stripped[:1] in ("{", "[", '"') or stripped[:1].isdigit() or stripped[:1] == "-":
            yield node.encode("utf-8", "surrogatepass")
    elif isinstance(node, dict):
        if "input_hex" in node:
            yield bytes.fromhex(node["input_hex"])
        if "input_repeat" in node:
            yield "".join(text * count for text, count in node["input_repeat"]).encode()
        for key, value in node.items():
            if key in ("canonical",):
                continue
            yield from texts(value)
    elif isinstance(node, list):
        for item in node:
            yield from texts(item)


count = 0
files = sorted((root / "vectors").rglob("*.json")) + sorted((root / "scenarios").rglob("*.json"))
for path in files:
    doc = json.loads(path.read_text())
    # Documents that are themselves JSON (contracts, schemas) are seeds too.
    for text in [path.read_bytes(), *texts(doc)]:
        # Longer seeds would only be cut to the fuzzers' input limit.
        if len(text) > 65536:
            continue
        (out / hashlib.sha1(text).hexdigest()).write_bytes(text)
        count += 1
for line in (root / "generated" / "corpus.jsonl").read_text().split("\n"):
    if not line:
        continue
    text = json.loads(line)["text"].encode("utf-8", "surrogatepass")
    (out / hashlib.sha1(text).hexdigest()).write_bytes(text)
    count += 1
if count == 0:
    sys.exit("no seeds found: is the conformance directory there?")
print(f"{len(list(out.iterdir()))} seeds in {out}")
