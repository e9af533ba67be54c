"""``tasks`` filters and ``tasks_page`` / ``audit_export_page`` pages, on SQLite and on
PostgreSQL: tenant, state, since/until by the ledger's clock, a limit and the cursor of the
next page; pages joined are the whole read, a cursor of another read is refused."""

import actionseal
from conftest import error_of
from ledger_support import COMMON, contract_of, fresh  # noqa: F401 (a fixture)

REFUND = contract_of("refund")
START = 1_800_000_000_000


def propose(ledger, tenant, job):
    ids = {"tenant": tenant, "subject": COMMON["ids"]["subject"], "policy_version": COMMON["ids"]["policy_version"]}
    args = {"order_id": "order-17", "amount_minor": 2500, "currency": "USD"}
    return ledger.propose(actionseal.action(REFUND, args, job_id=job, request_id="req-1", **ids), REFUND,
                          proposer="agent")


def all_pages(read, **query):
    out, after, pages = [], None, 0
    while True:
        page = read(**query, after=after)
        pages += 1
        out.extend(page["tasks"] if "tasks" in page else page["lines"])
        after = page["next"]
        if after is None:
            return out, pages


def test_tasks_filters_and_pages(fresh):
    clock = actionseal.ManualClock(START)
    with actionseal.Ledger(fresh.url(), clock=clock) as ledger:
        ids = []
        for i in range(5):
            ids.append(propose(ledger, "tenant-a" if i % 2 == 0 else "tenant-b", f"job-{i}")["id"])
            clock.advance(1000)
        # tenant-a: jobs 0, 2, 4 at START, +2 s, +4 s.
        assert [t["id"] for t in ledger.tasks(tenant="tenant-a")] == ids[0::2]
        assert [t["id"] for t in ledger.tasks(since=START + 1000, until=START + 3000)] == ids[1:3]
        assert ledger.tasks(state="approved") == []
        got, pages = all_pages(ledger.tasks_page, tenant="tenant-a", limit=2)
        assert ([t["id"] for t in got], pages) == (ids[0::2], 2)
        got, pages = all_pages(ledger.tasks_page, limit=1)
        assert ([t["id"] for t in got], pages) == (ids, 5)
        # A row written between two pages neither repeats nor shifts the next one.
        first = ledger.tasks_page(limit=2)
        propose(ledger, "tenant-a", "job-late")
        second = ledger.tasks_page(limit=2, after=first["next"])
        assert [t["id"] for t in second["tasks"]] == ids[2:4]
        last = ledger.tasks_page(since=START + 4000, until=START + 5000, limit=5)
        assert ([t["id"] for t in last["tasks"]], last["next"]) == ([ids[4]], None)
        # The audit, a page at a time: its lines joined are the export.
        lines, pages = all_pages(ledger.audit_export_page, limit=2)
        assert "".join(line + "\n" for line in lines) == ledger.audit_export()
        assert pages >= 3
        a_lines, _ = all_pages(ledger.audit_export_page, tenant="tenant-a", until=START + 3000)
        assert len(a_lines) == 2 and ids[0] in a_lines[0] and ids[2] in a_lines[1]
        # Refusals, with their field.
        assert error_of(ledger.tasks_page, limit=0).path == "/limit"
        e = error_of(ledger.tasks_page, after=ledger.audit_export_page(limit=1)["next"])
        assert (e.code, e.path) == ("invalid_request", "/after")
        assert error_of(ledger.tasks, since=START, until=START).path == "/until"
        assert error_of(ledger.tasks, page=1).code == "invalid_request"
