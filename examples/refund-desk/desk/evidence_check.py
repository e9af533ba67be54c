"""Verifies downloaded evidence bundles in Python, as the headless run's third verifier (beside
the browser's WebAssembly and the Node addon): prints each bundle's verified timeline as
canonical JSON (RFC 8785), one line per bundle, in the order given; a bundle that does not
verify prints `{"error": <code>, "path": <JSON Pointer>}` instead, and the status is 1.

    python desk/evidence_check.py TRUST BUNDLE...
"""

from __future__ import annotations

import sys
from pathlib import Path

from actionseal import ActionsealError, canonicalize, loads, verify_evidence


def main() -> int:
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 64
    trust = loads(Path(sys.argv[1]).read_bytes())
    status = 0
    for path in sys.argv[2:]:
        try:
            out = verify_evidence(loads(Path(path).read_bytes()), trust)
        except ActionsealError as e:
            out, status = {"error": e.code, "path": e.path}, 1
        print(canonicalize(out), flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
