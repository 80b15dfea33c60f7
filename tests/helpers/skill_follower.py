"""A scripted model that follows the revenue-recovery skill literally, as a Messages API stand-in.

It reads everything from the request, as a model would: the analysis date from the system
prompt (``Analysis date: YYYY-MM-DD``), the skill's steps and their tool calls from the skill
text in the system prompt (``server.tool {arguments}`` with ``<placeholders>``), the user's
question, and the tool results sent back. Each turn it asks for the next step's calls,
filled in from the date and from earlier results; the last turn renders the skill's output
format from those results alone. Nothing about the persona is built in: a skill whose step
names a tool, table or argument the stack does not serve gets an error result back and the
follower answers with that error, so the scenario fails.

The follower is stateless: every request replays the conversation from its start (the
program is a generator fed the tool results in order), so concurrent scenarios share one
instance. Token usage is computed from the request (4 characters a token; the prefix is
written to the cache on the run's first request and read afterwards), so cost tests can
redo the arithmetic by hand.
"""

from __future__ import annotations

import json
import math
import re
from collections import defaultdict
from collections.abc import Generator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any

import httpx2

CALL = re.compile(r"`(?P<server>mimic-[a-z]+)\.(?P<tool>[a-z_]+) (?P<args>\{[^`]*\})`")
STEP = re.compile(r"^(?P<n>\d+)\. \*\*(?P<title>[^*]+)\*\*", re.M)
AS_OF = re.compile(r"Analysis date: (\d{4}-\d{2}-\d{2})")
LIST_LINE = re.compile(r"^\W*(?P<id>sub_\S+) \W+ customer (?P<customer>\S+) \[(?P<status>\w+)\]")
DECLINE_WORDS = {
    "expired_card": "expired card",
    "insufficient_funds": "insufficient funds",
    "lost_card": "lost card",
}
WRITE_VERBS = ("refund", "reactivate", "cancel ", "retry", "set their", "update", "delete")
Call = tuple[str, str, dict[str, Any]]


class SkillError(Exception):
    """The skill cannot be followed (a step or call is missing, or a tool failed)."""


# -- reading the skill ------------------------------------------------------------------------


@dataclass
class Template:
    server: str
    tool: str
    args: str

    def fill(self, **values: Any) -> Call:
        text = self.args
        for name, value in values.items():
            text = text.replace(f"<{name}>", str(value))
        if "<" in text:
            raise SkillError(f"unfilled placeholder in {self.server}.{self.tool} {text}")
        return self.server, self.tool, json.loads(text)


@dataclass
class Skill:
    steps: dict[int, list[Template]] = field(default_factory=dict)
    definitions: list[Template] = field(default_factory=list)

    @classmethod
    def parse(cls, system: str) -> Skill:
        skill = cls()
        steps = _section(system, "## Steps")
        marks = list(STEP.finditer(steps))
        for m, nxt in zip(marks, [*marks[1:], None], strict=True):
            body = steps[m.end() : nxt.start() if nxt else len(steps)]
            skill.steps[int(m["n"])] = [_template(c) for c in CALL.finditer(body)]
        definitions = _section(system, "## Definitions")
        skill.definitions = [_template(c) for c in CALL.finditer(definitions)]
        return skill

    def call(self, step: int | str, tool: str) -> Template:
        """The step's call of ``tool`` (``"definitions"`` for the Definitions section)."""
        pool = self.definitions if step == "definitions" else self.steps.get(int(step), [])
        for t in pool:
            if t.tool == tool:
                return t
        raise SkillError(f"the skill's step {step} has no {tool} call")

    def calls(self, step: int, tool: str) -> list[Template]:
        return [t for t in self.steps.get(step, []) if t.tool == tool]


def _template(m: re.Match[str]) -> Template:
    return Template(m["server"], m["tool"], m["args"])


def _section(text: str, heading: str) -> str:
    start = text.find(heading)
    if start < 0:
        return ""
    end = text.find("\n## ", start + len(heading))
    return text[start : end if end > 0 else len(text)]


# -- the program: the skill's steps, one turn each ----------------------------------------------


Program = Generator[list[Call], list[str], str]


def _rows(text: str) -> list[dict[str, Any]]:
    data = json.loads(text)
    return data if isinstance(data, list) else [data]


def _day(value: str) -> date:
    return datetime.fromisoformat(value.replace("Z", "+00:00")).date()


def _unix_day(seconds: int) -> date:
    return datetime.fromtimestamp(seconds, UTC).date()


def period_for(as_of: date) -> tuple[date, date]:
    """The latest complete Monday-Sunday week ending before ``as_of``."""
    end = as_of - timedelta(days=as_of.weekday() + 1)
    return end - timedelta(days=6), end


@dataclass
class Seen:
    """What the tool calls returned, step by step."""

    customers: int = 0
    changed: dict[int, dict[str, Any]] = field(default_factory=dict)
    failed: list[dict[str, Any]] = field(default_factory=list)
    doubles: list[dict[str, Any]] = field(default_factory=list)
    cancelled: list[dict[str, Any]] = field(default_factory=list)
    billing_cancelled: list[dict[str, str]] = field(default_factory=list)
    open_customers: set[int] = field(default_factory=set)
    flags_notes: dict[int, tuple[list[Any], list[Any]]] = field(default_factory=dict)
    charges: list[dict[str, Any]] = field(default_factory=list)
    db_subs: dict[int, dict[str, Any]] = field(default_factory=dict)
    product: dict[str, dict[str, Any]] = field(default_factory=dict)
    stripe_subs: dict[str, dict[str, Any]] = field(default_factory=dict)


def program(skill: Skill, as_of: date | None, question: str) -> Program:
    """The skill's steps in order; each ``yield`` is one turn's calls and gets their results."""
    inferred = as_of is None
    if as_of is None:  # Definitions: the newest support note's date
        (note,) = _rows((yield [skill.call("definitions", "get_support_notes").fill()])[0])
        as_of = _day(note["created_at"])
    start, end = period_for(as_of)
    week = {"start": start.isoformat(), "end": end.isoformat()}
    seen = Seen()

    summary, changed = yield [
        skill.call(1, "get_customers_summary").fill(),
        skill.call(1, "get_customers").fill(**week),
    ]
    seen.customers = _rows(summary)[0]["count"]
    seen.changed = {c["id"]: c for c in _rows(changed)}

    step2 = skill.calls(2, "get_payments")
    failed_t = next(t for t in step2 if '"failed"' in t.args)
    ok_t = next(t for t in step2 if '"succeeded"' in t.args)
    failed, succeeded, cancelled, billing = yield [
        failed_t.fill(**week),
        ok_t.fill(**week),
        skill.call(2, "get_subscriptions").fill(**week),
        skill.call(2, "list_subscriptions").fill(),
    ]
    seen.failed, seen.cancelled = _rows(failed), _rows(cancelled)
    seen.billing_cancelled = [
        m.groupdict() for m in map(LIST_LINE.match, billing.splitlines()) if m
    ]
    seen.doubles = _same_day_repeats(_rows(succeeded))

    active = [c for c in seen.changed.values() if c["status"] == "active"]
    _read_step3(seen, iter((yield _step3(skill, seen, active))), active)

    sub_ids = [s["stripe_subscription_id"] for s in seen.db_subs.values()]
    sub_ids += [
        b["id"] for b in seen.billing_cancelled if seen.product[b["customer"]]["status"] == "active"
    ]
    sub_ids = list(dict.fromkeys(sub_ids))
    fetch_sub = skill.call(4, "fetch_stripe_resources")
    fetched = yield [fetch_sub.fill(stripe_subscription_id=i) for i in sub_ids]
    seen.stripe_subs = {i: json.loads(t) for i, t in zip(sub_ids, fetched, strict=True)}

    facts = Facts(as_of=as_of, inferred=inferred, start=start, end=end, customers=seen.customers)
    classify(facts, seen)
    return render(facts, question)


def _same_day_repeats(payments: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Succeeded payments sharing customer, amount and day with another one."""
    same_day: dict[tuple[int, int, str], list[dict[str, Any]]] = defaultdict(list)
    for p in payments:
        same_day[(p["customer_id"], p["amount_cents"], p["created_at"][:10])].append(p)
    return [p for group in same_day.values() if len(group) > 1 for p in group]


def _step3(skill: Skill, seen: Seen, active: list[dict[str, Any]]) -> list[Call]:
    calls: list[Call] = [skill.call(3, "get_invoices").fill()]
    for s in seen.cancelled:
        calls.append(skill.call(3, "get_risk_flags").fill(customer_id=s["customer_id"]))
        calls.append(skill.call(3, "get_support_notes").fill(customer_id=s["customer_id"]))
    fetch = skill.call(3, "fetch_stripe_resources")
    calls += [fetch.fill(stripe_payment_id=p["stripe_payment_id"]) for p in seen.doubles]
    lookup = skill.call(3, "get_subscriptions")
    calls += [lookup.fill(customer_id=c["id"]) for c in active]
    product = skill.call(3, "get_customers")
    calls += [product.fill(customer=b["customer"]) for b in seen.billing_cancelled]
    return calls


def _read_step3(seen: Seen, out: Any, active: list[dict[str, Any]]) -> None:
    """Step 3's results, in the order :func:`_step3` asked for them."""
    seen.open_customers = {i["customer_id"] for i in _rows(next(out))}
    seen.flags_notes = {
        s["customer_id"]: (_rows(next(out)), _rows(next(out))) for s in seen.cancelled
    }
    seen.charges = [json.loads(next(out)) for _ in seen.doubles]
    seen.db_subs = {c["id"]: _rows(next(out))[0] for c in active}
    seen.product = {b["customer"]: _rows(next(out))[0] for b in seen.billing_cancelled}


def classify(f: Facts, seen: Seen) -> None:
    """Step 5: each customer under one cause (the skill's definitions)."""
    changed = seen.changed
    f.failed = [
        (changed.get(p["customer_id"]), p)
        for p in seen.failed
        if p["customer_id"] in seen.open_customers
    ]
    by_sub = {s["stripe_subscription_id"]: (cid, s) for cid, s in seen.db_subs.items()}
    for sid, sub in seen.stripe_subs.items():
        md = sub.get("metadata") or {}
        old, new = int(md.get("previous_amount") or 0), sub["plan"]["amount"]
        when = md.get("downgraded_at")
        if old > new and when and f.start <= _day(when) <= f.end and sid in by_sub:
            cid, db = by_sub[sid]
            f.downgrades.append((changed[cid], md, old // 100, new // 100, db["plan"]))
    for s in seen.cancelled:
        flags, notes = seen.flags_notes[s["customer_id"]]
        f.cancellations.append((changed.get(s["customer_id"]), s, _ignored(s, flags, notes)))
    by_invoice: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for ch in seen.charges:
        if ch["status"] == "succeeded":
            by_invoice[ch["invoice"]].append(ch)
    for invoice, group in by_invoice.items():
        if len(group) > 1:
            group.sort(key=lambda c: c["created"])
            first = group[0]["id"]
            cid = next(p["customer_id"] for p in seen.doubles if p["stripe_payment_id"] == first)
            f.doubles.append((changed.get(cid), invoice, group))
    for b in seen.billing_cancelled:
        customer = seen.product[b["customer"]]
        if customer["status"] == "active":
            f.mismatches.append((customer, seen.stripe_subs[b["id"]]))


def _ignored(
    sub: dict[str, Any], flags: list[dict[str, Any]], notes: list[dict[str, Any]]
) -> dict[str, Any] | None:
    """The open flag set before the cancellation with no CSM note after it, or None."""
    for flag in sorted(flags, key=lambda f: f["set_at"]):
        if flag["resolved_at"] is not None or flag["set_at"] >= sub["canceled_at"]:
            continue
        csm = [
            n
            for n in notes
            if n["created_at"] > flag["set_at"]
            and not n["author"].startswith(("support:", "system:"))
        ]
        if not csm:
            return flag
    return None


# -- the answer ---------------------------------------------------------------------------


@dataclass
class Facts:
    as_of: date
    inferred: bool
    start: date
    end: date
    customers: int
    failed: list[Any] = field(default_factory=list)
    downgrades: list[Any] = field(default_factory=list)
    cancellations: list[Any] = field(default_factory=list)
    doubles: list[Any] = field(default_factory=list)
    mismatches: list[Any] = field(default_factory=list)


def money(usd: int) -> str:
    return f"${usd:,}"


def who(customer: dict[str, Any] | None) -> str:
    if customer is None:
        return "unknown customer"
    return f"{customer['name']} ({customer['stripe_customer_id']})"


@dataclass
class Row:
    cause: str
    detail: str
    customers: list[str]
    usd: int
    evidence: str
    action: str


def rows_of(f: Facts) -> list[Row]:
    rows = []
    if f.failed:
        split: dict[str, list[int]] = defaultdict(list)
        for _, p in f.failed:
            word = DECLINE_WORDS.get(p["failure_reason"], "other decline")
            split[word].append(p["amount_cents"] // 100)
        order = [*DECLINE_WORDS.values(), "other decline"]
        detail = ", ".join(
            f"{len(split[w])} {w} ({money(sum(split[w]))})" for w in order if split[w]
        )
        names = [who(c) for c, _ in f.failed]
        rows.append(
            Row(
                "Failed charges",
                f"{detail}: {', '.join(names)}",
                names,
                sum(p["amount_cents"] // 100 for _, p in f.failed),
                "payments (status failed), invoices (open)",
                "Ask each customer for a card update and retry the open invoice",
            )
        )
    if f.downgrades:
        _, md0, old0, new0, plan0 = f.downgrades[0]
        times = sorted(
            datetime.fromisoformat(md["downgraded_at"].replace("Z", "+00:00"))
            for _, md, *_ in f.downgrades
        )
        days = {t.date() for t in times}
        minutes = math.ceil((times[-1] - times[0]).total_seconds() / 60)
        by = sorted({md.get("changed_by") or "unknown" for _, md, *_ in f.downgrades})
        when = (
            f"all on the same day, {times[0].date()}, within {minutes} minutes"
            if len(f.downgrades) > 1 and len(days) == 1
            else "on " + ", ".join(str(d) for d in sorted(days))
        )
        names = [who(c) for c, *_ in f.downgrades]
        old_plan = str(md0.get("previous_plan") or "?").title()
        rows.append(
            Row(
                "Downgrades",
                f"{len(f.downgrades)} {old_plan} ({money(old0)}) to {plan0.title()} "
                f"({money(new0)}), {when}, by {', '.join(by)}: {', '.join(names)}",
                names,
                sum(old - new for _, _, old, new, _ in f.downgrades),
                "Stripe subscriptions (metadata.previous_amount, downgraded_at, changed_by), "
                "invoices",
                f"Confirm each downgrade with the customer and review {', '.join(by)}",
            )
        )
    ignored = [(c, s, flag) for c, s, flag in f.cancellations if flag is not None]
    other = [(c, s) for c, s, flag in f.cancellations if flag is None]
    if ignored:
        parts = [
            f"{who(c)}: risk flag {_day(flag['set_at'])} ({flag['note'].split(':')[0].lower()}). "
            f"No follow-up. Cancelled {_day(s['canceled_at'])}."
            for c, s, flag in ignored
        ]
        rows.append(
            Row(
                "Cancellations after ignored risk flags",
                " ".join(parts),
                [who(c) for c, *_ in ignored],
                sum(s["amount_cents"] // 100 for _, s, _ in ignored),
                "subscriptions (canceled), risk_flags (open), support_notes",
                "Win-back call, and a follow-up rule for open risk flags",
            )
        )
    if other:
        rows.append(
            Row(
                "Cancellations (no prior flag)",
                " ".join(f"{who(c)}: cancelled {_day(s['canceled_at'])}." for c, s in other),
                [who(c) for c, _ in other],
                sum(s["amount_cents"] // 100 for _, s in other),
                "subscriptions (canceled)",
                "Win-back call",
            )
        )
    if f.doubles:
        parts = [
            f"{who(c)}: invoice {inv} charged twice on {_unix_day(g[0]['created'])} "
            f"({', '.join(ch['id'] for ch in g)})."
            for c, inv, g in f.doubles
        ]
        rows.append(
            Row(
                "Double charges",
                " ".join(parts),
                [who(c) for c, *_ in f.doubles],
                sum(g[-1]["amount"] // 100 for _, _, g in f.doubles),
                "payments (succeeded), Stripe charges (invoice)",
                "Refund the duplicate charge " + ", ".join(g[-1]["id"] for _, _, g in f.doubles),
            )
        )
    if f.mismatches:
        parts = []
        for c, sub in f.mismatches:
            day = _unix_day(sub["canceled_at"])
            parts.append(
                f"{who(c)}: active in the product database, cancelled in billing on {day} "
                f"({(f.as_of - day).days} days ago)."
            )
        rows.append(
            Row(
                "Billing/product mismatches",
                " ".join(parts),
                [who(c) for c, _ in f.mismatches],
                sum(c["mrr_cents"] // 100 for c, _ in f.mismatches),
                "Stripe subscriptions (canceled), customers (status, mrr_cents)",
                "Bill the customer again or close their product access",
            )
        )
    return rows


def answer_line(f: Facts, rows: list[Row], question: str, total: int, period: str) -> str:
    """The skill's rules applied to the question: read-only, wrong premises, else the total."""
    q = question.lower()
    if any(v in q for v in WRITE_VERBS) and not q.rstrip().endswith("?"):
        named = [r for r in rows if any(n.split(" (")[0].lower() in q for n in r.customers)]
        advice = "; ".join(f"{r.action.lower()} for {', '.join(r.customers)}" for r in named)
        return (
            "This skill is read-only. "
            f"A human with access should {advice or 'act on the table below'}."
        )
    stated = {int(m.replace(",", "")) for m in re.findall(r"\$([\d,]+)", question)}
    figures = {total, *(r.usd for r in rows)}
    wrong = sorted(stated - figures)
    if wrong:
        return (
            f"The data does not support the {', '.join(money(w) for w in wrong)} figure: "
            f"{money(total)} of MRR was lost in {period}."
        )
    if "churn" in q or "cancel" in q:
        plans = {p for p in ("enterprise", "pro", "starter") if p in q}
        for r in rows:
            old_plan = r.detail.lower().split(" to ")[0]
            if r.cause == "Downgrades" and any(p in old_plan for p in plans):
                return (
                    f"They did not churn. They downgraded ({r.detail.split(':')[0]}), "
                    f"{money(r.usd)} of MRR."
                )
    causes = ", ".join(r.cause.lower() for r in rows)
    return f"{money(total)} of MRR was lost in {period} to {causes}."


def render(f: Facts, question: str) -> str:
    rows = rows_of(f)
    total = sum(r.usd for r in rows)
    affected = sorted({n for r in rows for n in r.customers})
    period = f"{f.start} to {f.end}"
    lines = [f"**Answer:** {answer_line(f, rows, question, total, period)}"]
    if f.inferred:
        lines[0] += f" (No analysis date was given: {f.as_of}, the newest data, was used.)"
    lines += [
        "",
        f"**Headline:** {money(total)} of MRR lost in {period} across {len(affected)} of "
        f"{f.customers} customers.",
        "",
        "| Cause | Customers | MRR lost | Evidence |",
        "|---|---|---|---|",
    ]
    lines += [
        f"| {r.cause}: {r.detail} | {len(r.customers)} | {money(r.usd)} | {r.evidence} |"
        for r in rows
    ]
    lines.append(f"| **Total** | **{len(affected)}** | **{money(total)}** | |")
    split = defaultdict(int)
    for _, p in f.failed:
        split[DECLINE_WORDS.get(p["failure_reason"], "other decline")] += 1
    ignored = sum(1 for *_, flag in f.cancellations if flag is not None)
    lines += [
        "",
        f"**Counts:** {len(f.failed)} failed charges ("
        + ", ".join(f"{split[w]} {w}" for w in DECLINE_WORDS.values())
        + f") · {len(f.downgrades)} downgrades · {ignored} cancellations after an ignored risk "
        f"flag · {len(f.doubles)} double charge(s) · {len(f.mismatches)} billing/product "
        "mismatch(es)",
        "",
        "**Recovery actions** (recommendations for a human; nothing has been executed):",
    ]
    lines += [
        f"{i}. {r.action} - {', '.join(r.customers)} - {money(r.usd)}"
        for i, r in enumerate(rows, 1)
    ]
    lines += [
        "",
        "_Read-only: mimic-database (customers, subscriptions, invoices, payments, risk_flags, "
        "support_notes) and mimic-stripe (subscriptions, charges) were queried; only reads "
        "were made._",
    ]
    return "\n".join(lines)


# -- the Messages API stand-in ---------------------------------------------------------------


def tokens(text: str) -> int:
    return math.ceil(len(text) / 4)


class SkillFollower:
    """``httpx2.MockTransport`` handler for ``POST /v1/messages``; see the module docstring."""

    def __init__(self, model: str = "claude-sonnet-5-5"):
        self.model = model
        self.requests: list[dict[str, Any]] = []
        self.replies: list[dict[str, Any]] = []
        self._cached_prefix = False

    def client(self) -> httpx2.AsyncClient:
        return httpx2.AsyncClient(transport=httpx2.MockTransport(self.handler))

    def handler(self, request: httpx2.Request) -> httpx2.Response:
        assert request.url.path == "/v1/messages", request.url
        body = json.loads(request.content)
        self.requests.append(body)
        reply = self.reply(body)
        self.replies.append(reply)
        return httpx2.Response(200, json=reply)

    def reply(self, body: dict[str, Any]) -> dict[str, Any]:
        system = body["system"]
        if isinstance(system, list):
            system = "".join(b["text"] for b in system)
        messages = body["messages"]
        question = messages[0]["content"]
        m = AS_OF.search(system)
        prog = program(Skill.parse(system), date.fromisoformat(m[1]) if m else None, question)
        try:
            batch = next(prog)
            for turn in messages[2::2]:
                results = [b for b in turn["content"] if b.get("type") == "tool_result"]
                errors = [b["content"] for b in results if b.get("is_error")]
                if errors:
                    raise SkillError(f"a tool call of the skill failed: {errors[0]}")
                batch = prog.send([b["content"] for b in results])
        except StopIteration as done:
            content = [{"type": "text", "text": done.value}]
            stop = "end_turn"
        except (SkillError, KeyError, ValueError) as exc:
            content = [{"type": "text", "text": f"Cannot follow the skill: {exc}"}]
            stop = "end_turn"
        else:
            n = len(messages) // 2
            content = [
                {
                    "type": "tool_use",
                    "id": f"toolu_{n}_{i}",
                    "name": f"{server}__{tool}",
                    "input": args,
                }
                for i, (server, tool, args) in enumerate(batch)
            ]
            stop = "tool_use"
        return {
            "id": f"msg_{len(self.requests)}",
            "type": "message",
            "role": "assistant",
            "model": self.model,
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": self.usage(body, content),
        }

    def usage(self, body: dict[str, Any], content: list[dict[str, Any]]) -> dict[str, int]:
        """Tokens as the API would count them here: 4 characters a token; the system prompt
        and tools are the cached prefix (written on the run's first request, read after)."""
        prefix = tokens(json.dumps(body["system"]) + json.dumps(body.get("tools", [])))
        system = body["system"]
        cached = isinstance(system, list) and any("cache_control" in b for b in system)
        usage = {
            "input_tokens": tokens(json.dumps(body["messages"])),
            "output_tokens": tokens(json.dumps(content)),
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
        }
        if not cached:
            usage["input_tokens"] += prefix
        elif self._cached_prefix:
            usage["cache_read_input_tokens"] = prefix
        else:
            usage["cache_creation_input_tokens"] = prefix
            self._cached_prefix = True
        return usage
