"""Every schema vector through ``Schema`` (the schema on its own, exactly as the vector has
it) and through ``Contract`` (compiled as a contract's ``args``, the values checked with
``validate_args``).

A contract's ``args`` must be an object schema (``"type": "object"`` at the top), so most
vectors, whose schemas are about strings, numbers or arrays, cannot be a contract's ``args``
as they are. For those the test checks that ``Contract`` refuses them so
(``invalid_contract`` at ``/args``), and then runs the vector with its schema as the one
required property ``v`` of an object schema: the expected code is the same, the path one
level deeper (``/v`` in the value, ``/args/properties/v`` in the contract), and ``$ref``
fragments (``#``, ``#/...``) are moved along with the schema.
"""

import json

import pytest

import actionseal
from conftest import CONFORMANCE, error_of

SCHEMA = sorted((CONFORMANCE / "vectors" / "schema").glob("*.json"))


def contract(args):
    return {"tool": "t", "version": "1", "effect": "write", "args": args, "approval": "always", "cost_minor": 0}


def is_object_schema(schema):
    return isinstance(schema, dict) and schema.get("type") == "object"


def moved(schema, base):
    """The schema with its document-local ``$ref``s pointing ``base`` deeper."""
    if isinstance(schema, dict):
        return {
            k: base + v[1:] if k == "$ref" and isinstance(v, str) and (v == "#" or v.startswith("#/")) else moved(v, base)
            for k, v in schema.items()
        }
    if isinstance(schema, list):
        return [moved(v, base) for v in schema]
    return schema


def run(doc, args, schema_path, value_path, wrap_value):
    """Compiles ``args`` in a contract and checks the vector's expectation, its paths under
    ``schema_path`` (in the contract) and ``value_path`` (in the arguments)."""
    want = doc["expect"]
    if "schema_error" in want:
        err = error_of(actionseal.Contract, contract(args))
        assert (err.code, err.path) == (want["schema_error"], schema_path + want["path"]), str(err)
        return
    checked = actionseal.Contract(contract(args))
    value = wrap_value(actionseal.loads(doc["value"]))
    if want == {"ok": True}:
        assert checked.validate_args(value) is None
    else:
        err = error_of(checked.validate_args, value)
        assert (err.code, err.path) == (want["error"], value_path + want["path"]), str(err)


def test_vector_files_exist():
    assert len(SCHEMA) >= 250
    # Both kinds are here, so that both branches below run.
    schemas = [actionseal.loads(json.loads(p.read_text("utf-8"))["schema"]) for p in SCHEMA]
    assert sum(map(is_object_schema, schemas)) >= 50
    assert sum(not is_object_schema(s) for s in schemas) >= 50


@pytest.mark.parametrize("path", SCHEMA, ids=[p.stem for p in SCHEMA])
def test_schema_vector_through_schema(path):
    doc = json.loads(path.read_text("utf-8"))
    want = doc["expect"]
    schema = actionseal.loads(doc["schema"])
    if "schema_error" in want:
        err = error_of(actionseal.Schema, schema)
        assert (err.code, err.path) == (want["schema_error"], want["path"]), str(err)
        return
    compiled = actionseal.Schema(schema)
    value = actionseal.loads(doc["value"])
    if want == {"ok": True}:
        assert compiled.validate(value) is None
    else:
        err = error_of(compiled.validate, value)
        assert (err.code, err.path) == (want["error"], want["path"]), str(err)


@pytest.mark.parametrize("path", SCHEMA, ids=[p.stem for p in SCHEMA])
def test_schema_vector_through_contract(path):
    doc = json.loads(path.read_text("utf-8"))
    want = doc["expect"]
    code = want.get("schema_error", want.get("error"))
    assert path.name.startswith("y_" if code is None else f"n_{code}"), path.name
    schema = actionseal.loads(doc["schema"])
    if is_object_schema(schema):
        run(doc, schema, "/args", "", lambda v: v)
        return
    err = error_of(actionseal.Contract, contract(schema))
    assert (err.code, err.path) == ("invalid_contract", "/args"), str(err)
    wrapper = {"type": "object", "properties": {"v": moved(schema, "#/properties/v")}, "required": ["v"]}
    run(doc, wrapper, "/args/properties/v", "/v", lambda v: {"v": v})
