"""Python values to JSON: the type mapping, its errors and their paths."""

import collections
import decimal
import enum
import hashlib
import json
import os
import subprocess
import sys

import pytest

import actionseal
from conftest import error_of


def canon(value, profile="strict"):
    return actionseal.canonicalize(value, profile=profile)


@pytest.mark.parametrize(
    "value,text",
    [
        (None, "null"),
        (True, "true"),
        (False, "false"),
        (0, "0"),
        (-17, "-17"),
        (2**53, "9007199254740992"),
        (-(2**53), "-9007199254740992"),
        (2**53 + 2, "9007199254740994"),
        (10**20, "100000000000000000000"),
        (10**21, "1e+21"),
        (-(10**300), "-1e+300"),
        (1.0, "1"),
        (-0.0, "0"),
        (19.99, "19.99"),
        (1e-7, "1e-7"),
        (1e21, "1e+21"),
        (5e-324, "5e-324"),
        (1.7976931348623157e308, "1.7976931348623157e+308"),
        ("", '""'),
        ("é€😀\u2028\x00\x1f\"\\/", '"é€😀\u2028\\u0000\\u001f\\"\\\\/"'),
        ([], "[]"),
        ((), "[]"),
        ((1, [2, (3,)]), "[1,[2,[3]]]"),
        ({}, "{}"),
        ({"b": 1, "a": [True, None]}, '{"a":[true,null],"b":1}'),
        # Keys sort by UTF-16 code units: U+1F600 (D83D DE00) before U+E000.
        ({"\ue000": 1, "😀": 2, "a": 3}, '{"a":3,"😀":2,"\ue000":1}'),
        ({"amount_minor": 2500, "currency": "USD"}, '{"amount_minor":2500,"currency":"USD"}'),
    ],
)
def test_values(value, text):
    assert canon(value) == text
    assert canon(value, "rfc8785") == text
    digest = "sha256:" + hashlib.sha256(text.encode()).hexdigest()
    assert actionseal.fingerprint(value) == actionseal.fingerprint_json(text) == digest


def test_shared_references_are_not_cycles():
    shared = {"x": [1, 2]}
    assert canon([shared, shared, {"s": shared}]) == '[{"x":[1,2]},{"x":[1,2]},{"s":{"x":[1,2]}}]'


def test_integers_under_each_profile():
    assert error_of(canon, 2**53 + 1).code == "inexact_number"
    # An integer gets the rule its decimal text gets: 2^60 is a double, but its canonical
    # form 1152921504606847000 names a different number.
    for big in (2**60, -(2**63), 2**64, 2**100):
        err = error_of(canon, [big])
        assert (err.code, err.path, err.offset) == ("inexact_number", "/0", None)
        assert error_of(actionseal.canonicalize_json, str(big)).code == "inexact_number"
        assert canon(big, "rfc8785") == actionseal.canonicalize_json(str(big), profile="rfc8785")
    assert canon(-(2**63), "rfc8785") == "-9223372036854776000"
    assert canon(2**53 + 1, "rfc8785") == "9007199254740992"
    assert error_of(canon, -(2**53) - 1).code == "inexact_number"
    assert error_of(canon, 2**64 + 1).code == "inexact_number"
    assert canon(2**64 + 1, "rfc8785") == "18446744073709552000"
    for big in (2**1024, -(2**1024), 10**400):
        for profile in ("strict", "rfc8785"):
            err = error_of(canon, {"n": [big]}, profile)
            assert (err.code, err.path, err.offset) == ("number_overflow", "/n/0", None)


def test_int_too_long_for_python_to_print():
    # More digits than sys.get_int_max_str_digits() (4300 by default) allows writing out.
    err = error_of(canon, [10**5000])
    assert (err.code, err.path) == ("number_overflow", "/0")


# Bad values, cycles and depth: conformance/vectors/host/ (test_host_vectors.py), shared with
# the JavaScript runtimes.


def test_unsupported_type_names_the_type():
    assert "Decimal" in str(error_of(canon, decimal.Decimal(1)))
    assert "bytes" in str(error_of(canon, b""))
    assert "int" in str(error_of(canon, {3: 1}))


def nested(depth):
    value = []
    for _ in range(depth - 1):
        value = [value]
    return value


def test_depth_limit_of_text_and_values_agree():
    err = error_of(canon, nested(129))
    text_err = error_of(actionseal.canonicalize_json, json.dumps(nested(129)))
    assert (text_err.code, text_err.path) == (err.code, err.path) == ("depth_limit_exceeded", "/0" * 128)


def test_very_deep_nesting_does_not_crash():
    deep = nested(100_000)
    assert error_of(canon, deep).code == "depth_limit_exceeded"
    obj = {}
    for _ in range(100_000):
        obj = {"k": obj}
    assert error_of(actionseal.fingerprint, obj).code == "depth_limit_exceeded"
    assert error_of(actionseal.canonicalize_json, "[" * 100_000 + "]" * 100_000).code == "depth_limit_exceeded"


# Subclasses of dict, list, tuple, str, int and float are read as their built-in data, as
# json.dumps reads them; no overridden method is called.


class Price(float):
    def __repr__(self):
        return "not used"


class Loud(str):
    def __str__(self):
        return "LOUD"

    def encode(self, *args):  # never called
        raise AssertionError("encode called")


class Level(enum.IntEnum):
    HIGH = 3


class Currency(str, enum.Enum):
    USD = "USD"


class Sneaky(dict):
    def items(self):
        raise AssertionError("items called")

    def __iter__(self):
        raise AssertionError("__iter__ called")

    def __getitem__(self, key):
        raise AssertionError("__getitem__ called")


class Ints(list):
    def __iter__(self):
        raise AssertionError("__iter__ called")


Point = collections.namedtuple("Point", "x y")


def test_subclasses_read_as_builtin_data():
    value = {
        Loud("k"): Loud("v"),
        "price": Price(19.99),
        "level": Level.HIGH,
        "currency": Currency.USD,
        "ordered": collections.OrderedDict([("b", 1), ("a", 2)]),
        "counts": collections.Counter({"x": 2}),
        "default": collections.defaultdict(list, {"y": []}),
        "sneaky": Sneaky(z=1),
        "ints": Ints([1, 2]),
        "point": Point(1, 2),
    }
    want = {
        "k": "v",
        "price": 19.99,
        "level": 3,
        "currency": "USD",
        "ordered": {"a": 2, "b": 1},
        "counts": {"x": 2},
        "default": {"y": []},
        "sneaky": {"z": 1},
        "ints": [1, 2],
        "point": [1, 2],
    }
    assert canon(value) == canon(want)
    # The same as json.dumps gives for these types.
    assert canon(value) == actionseal.canonicalize_json(
        json.dumps({k: v for k, v in want.items()}, ensure_ascii=False)
    )


def test_the_first_problem_in_iteration_order_is_reported():
    # Canonical forms and fingerprints walk members in canonical key order; an error is still
    # the first one met in the dict's own order, as every other function reports it.
    for value, code, path in [
        ({"b": object(), "a": float("nan")}, "unsupported_type", "/b"),
        ({"b": float("nan"), "a": object()}, "non_finite_number", "/b"),
        ({"z": {"y": [1, set()], "x": float("inf")}, "a": 1}, "unsupported_type", "/z/y/1"),
        ({"records": [{"k": 1, "j": 2}, {"k": 1, "j": float("-inf")}, {"k": b"", "j": 2}]}, "non_finite_number", "/records/1/j"),
        # Found by Python code that can run more (an exception raised, a type named): the
        # walk in canonical order stops there and the value is walked again, in dict order.
        ({"z": {"b": "\ud800", "a": 1, 7: 2}}, "lone_surrogate", "/z/b"),
        ({"z": {"b": 1, 7: 2, "\udc00": 3}, "a": set()}, "non_string_key", "/z"),
        ({"z": {"b": 1, "\udc00": 3, 7: 2}, "a": set()}, "lone_surrogate", "/z"),
        ({"z": [10**5000, set()], "a": set()}, "number_overflow", "/z/0"),
    ]:
        for f in (actionseal.canonicalize, actionseal.fingerprint, actionseal.Approval):
            with pytest.raises(actionseal.ActionsealError) as e:
                f(value)
            assert (e.value.code, e.value.path) == (code, path) or f is actionseal.Approval


def test_records_of_one_shape_are_ordered_each_by_its_own_keys():
    # Dicts that share key objects take the previous one's order only when every key is the
    # same object; a record with another key, fewer keys or the same keys in another order is
    # ordered by itself.
    import json

    rows = json.loads('[{"b": 1, "a": 2}, {"b": 3, "a": 4}, {"a": 5, "b": 6}, {"b": 7}, {"b": 8, "c": 9}, {"b": 1, "a": 2, "0": 0}]')
    assert actionseal.canonicalize(rows) == '[{"a":2,"b":1},{"a":4,"b":3},{"a":5,"b":6},{"b":7},{"b":8,"c":9},{"0":0,"a":2,"b":1}]'
    nested = [{"z": {"y": 1, "x": 2}, "a": {"y": 3, "x": 4}}] * 3
    assert actionseal.canonicalize(nested) == "[" + ",".join(['{"a":{"x":4,"y":3},"z":{"x":2,"y":1}}'] * 3) + "]"


def test_bool_is_never_a_number():
    assert canon([True, False, 1, 0]) == "[true,false,1,0]"
    assert actionseal.fingerprint(True) != actionseal.fingerprint(1)
    assert canon({"a": True}) != canon({"a": 1})


def test_str_subclass_keys_that_collide_are_duplicates():
    class Key(str):
        def __hash__(self):
            return id(self)

        def __eq__(self, other):
            return self is other

    err = error_of(canon, {"o": {Key("a"): 1, Key("a"): 2}})
    assert (err.code, err.path) == ("duplicate_key", "/o/a")


EVIL = """
import actionseal, gc

# Each case runs through canonicalize (a walk in canonical key order, which stops at a
# failure and walks again holding the keys) and through Contract (an ordinary conversion,
# which holds the keys from the start).
CALLS = [("canonicalize", actionseal.canonicalize), ("Contract", actionseal.Contract)]

def report(name, call):
    try:
        print(name, "text", call(victim), victim)
    except actionseal.ActionsealError as e:
        print(name, e.code, e.path, str(e), victim)

class Meta(type):
    @property
    def __name__(cls):
        victim.clear()
        return "Evil"

class Evil(metaclass=Meta):
    pass

for name, call in CALLS:
    # Keys built at run time, so that only the dicts hold them.
    outer, inner = "".join(["out", "er"]), "".join(["in", "ner"])
    victim = {outer: {inner: [Evil()]}}
    del outer, inner
    report(name, call)

# Raising for a lone surrogate allocates an exception, which can start the garbage collector
# (before Python 3.12, at the allocation itself); here its callback empties the dicts being
# read. With the threshold at 1, the allocations of the exception start a collection during
# the call, every time.
armed = fired = False
def empty(phase, info):
    global fired
    if armed and phase == "start":
        fired = True
        victim.clear()
gc.callbacks[:] = [empty]
threshold = gc.get_threshold()
for name, call in CALLS:
    outer, inner = "".join(["out", "er"]), "".join(["in", "ner"])
    victim = {outer: {inner: [[], "\\ud800"]}}
    del outer, inner
    gc.collect()
    gc.set_threshold(1)
    fired, armed = False, True
    report(name, call)
    armed = False
    gc.set_threshold(*threshold)
    print(name, "fired", fired)
"""


def test_code_run_by_a_failure_cannot_free_the_path():
    """Naming an unsupported type can run Python code (a metaclass property), and so can
    raising (through the garbage collector); when that code empties the very dicts being
    read, nothing freed is read: an ordinary conversion still names the path the error was
    found at (it holds the keys), and a walk in canonical order (which does not) stops and
    walks the value again, as it is after that code ran. Runs with CPython's debug
    allocator, which overwrites freed memory, so that a key read after it was freed shows
    (or crashes) instead of passing by luck."""
    env = dict(os.environ, PYTHONMALLOC="debug")
    run = subprocess.run([sys.executable, "-c", EVIL], env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-2000:]
    evil = "unsupported_type /outer/inner/0 unsupported_type: Evil has no JSON representation (at /outer/inner/0) {}"
    # From 3.12 the collector runs only between bytecodes, so not during the call.
    collected = sys.version_info < (3, 12)
    surrogate = "lone_surrogate /outer/inner/1 lone_surrogate: string has an unpaired surrogate (at /outer/inner/1)"
    assert run.stdout.splitlines() == [
        "canonicalize " + evil,
        "Contract " + evil,
        # The second walk reads the dict the collector emptied.
        "canonicalize text {} {}" if collected else "canonicalize " + surrogate + " " + str({"outer": {"inner": [[], "\ud800"]}}),
        f"canonicalize fired {collected}",
        "Contract " + surrogate + " " + ("{}" if collected else str({"outer": {"inner": [[], "\ud800"]}})),
        f"Contract fired {collected}",
    ], run.stdout
