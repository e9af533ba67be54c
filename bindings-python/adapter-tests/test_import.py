"""``import actionseal`` and ``import actionseal.adapters`` stay dependency-free: no framework
is imported until its own adapter module is."""

import subprocess
import sys

FRAMEWORK_MODULES = ["langchain", "langchain_core", "langgraph", "agents", "openai", "pydantic_ai", "pydantic", "mcp", "mcp_types"]


def test_the_package_and_the_shared_adapter_code_import_no_framework():
    code = (
        "import sys, actionseal, actionseal.adapters\n"
        f"print(sorted(m for m in {FRAMEWORK_MODULES!r} if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
