"""Salts of ``commit_action`` come from a block of the OS CSPRNG drawn ahead
(``bindings-python/src/salts.rs``): never one salt twice, in this process or across a fork.

A child forked while the parent's block still holds unused bytes must not take them: parent
and child would then salt their next values with the same bytes, and one task's disclosure
could open the other's commitment. Without the fork check, the child's first salts are the
parent's next ones and ``test_a_forked_child_never_repeats_its_parents_salts`` fails.
"""

import base64
import json
import os

import actionseal
from test_redaction import ARGS, CONTRACT, IDS


def salts(n):
    """The salts of ``n`` commits of the four sensitive values of ``test_redaction``'s vector."""
    out = []
    for _ in range(n):
        for d in actionseal.commit_action(CONTRACT, ARGS, **IDS)["disclosures"]:
            out.append(json.loads(base64.urlsafe_b64decode(d + "=" * (-len(d) % 4)))[0])
    return out


def test_salts_are_never_repeated_across_blocks():
    # 200 commits of 4 values: 800 salts, more than three blocks of 256.
    drawn = salts(200)
    assert len(set(drawn)) == len(drawn) == 800
    assert all(len(base64.urlsafe_b64decode(s + "==")) == 16 for s in drawn)


def test_a_forked_child_never_repeats_its_parents_salts():
    salts(1)  # the parent has a block, with 252 salts left in it
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(read)
            os.write(write, json.dumps(salts(5)).encode())
        finally:
            os._exit(0)
    os.close(write)
    parent = salts(5)
    with os.fdopen(read, "rb") as r:
        child = json.loads(r.read())
    os.waitpid(pid, 0)
    assert len(child) == 20
    assert not set(child) & set(parent), "the child took salts from its parent's block"
