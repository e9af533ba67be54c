"""Adapters for agent frameworks: the approved call is the only call that runs.

One module per framework, each importing its framework when imported itself (``import
actionseal`` never does): ``actionseal.adapters.langgraph`` (LangChain v1 / LangGraph),
``actionseal.adapters.openai_agents`` (OpenAI Agents SDK), ``actionseal.adapters.pydantic_ai``,
``actionseal.adapters.mcp`` (a gateway in front of an MCP server).
What they share is here: ``Seal`` (the ledger side: freeze, propose, claim, complete) and
``Trusted`` (the server's context for a call); a model turn's parallel calls are proposed
together (``Seal.turn``), as batches where their contracts allow it.
"""

from ._common import Pause, Refuse, Run, Seal, Trusted, TurnCall, contract, parse_message

__all__ = ["Pause", "Refuse", "Run", "Seal", "Trusted", "TurnCall", "contract", "parse_message"]
