"""A refusal of the approval server: its code and HTTP status, and what the page shows with it."""

from __future__ import annotations

from starlette.responses import JSONResponse

from actionseal import ActionsealError


class Refused(Exception):
    def __init__(self, code: str, status: int, **extra: object) -> None:
        super().__init__(code)
        self.code, self.status, self.extra = code, status, extra

    def response(self) -> JSONResponse:
        return JSONResponse({"error": self.code, **self.extra}, status_code=self.status)


def refused(e: ActionsealError, status: int) -> Refused:
    """An actionseal refusal with its code, path and message, for the page to show."""
    return Refused(e.code, status, path=e.path, message=str(e))
