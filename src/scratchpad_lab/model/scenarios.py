"""The built-in offline scenarios: a task, deterministic tools over bundled data, a scripted plan.

Streamlit-free, like everything in src/ outside ui/, so the runner, the CLI and the tests use it
without a browser. All data is invented demo material (see DEMO_NOTICE) and ships in `data/`.

Each tool is a plain function of its keyword arguments that returns a string: the same input gives
the same string, with no clock, no network and no shared mutable state. Bundled data is read once,
lazily, under a lock and never modified, so the agent may run one step's tool calls concurrently in
its thread pool. Unknown input returns a "not found" string that says what is known; tools never raise.

The scenarios' texts, scripted plans, expected facts and probes are in `data/scenarios.json`; the
tools that serve each scenario's data are built here. The scenarios are made so that compression can
visibly cost a correct answer: every expected fact appears in exactly one tool result, of an
early-to-middle plan step, and never in the task, a plan thought or an action input. Whether a fact
is still in the scratchpad at the end depends only on what the agent's trim and the summarizer kept.
"""
from __future__ import annotations

import json
import random
import re
import textwrap
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List

from scratchpad_lab.model.errors import UnknownName

DEMO_NOTICE = "Invented demo material: every name, order, article and log line here is made up."

_DATA_DIR = Path(__file__).resolve().parents[1] / "data"


@dataclass(frozen=True)
class ExpectedFact:
    label: str  # what it is, to a user: "order number"
    value: str  # the exact string; appears verbatim in exactly one tool result of the plan


@dataclass(frozen=True)
class Probe:
    question: str  # "Which order was this about?"
    answer: str  # expected answer, verbatim in the tool results


@dataclass(frozen=True)
class PlanStep:
    thought: str
    actions: tuple  # of {"action": tool_name, "action_input": {...}} (the autourgos-agent JSON format)


@dataclass(frozen=True)
class Scenario:
    name: str  # "support-ticket" | "research-digest" | "log-triage"
    title: str
    description: str  # 1-3 plain sentences for the UI, ending with DEMO_NOTICE
    task: str  # the question given to the agent
    tools: tuple = field(repr=False)  # autourgos tool dicts: name, description, parameters, func
    plan: tuple = field(repr=False)  # of PlanStep: the scripted agent's fixed tool-call plan
    expected_facts: tuple  # of ExpectedFact
    probes: tuple  # of Probe (3-5 per scenario)
    answer_intro: str  # first sentence of the final answer


# ── bundled data, loaded lazily and once ──────────────────────────────────────────────────────────

_cache_lock = threading.RLock()  # re-entrant: building a log reads the JSON through the same cache
_cache: Dict[str, Any] = {}


def _cached(key: str, build: Callable[[], Any]) -> Any:
    with _cache_lock:
        if key not in _cache:
            _cache[key] = build()
        return _cache[key]


def _json(name: str) -> Any:
    return _cached(name, lambda: json.loads((_DATA_DIR / name).read_text(encoding="utf-8")))


def _not_found(kind: str, given: Any, known) -> str:
    return f"No {kind} {str(given).strip()!r} found. Known: {', '.join(sorted(known))}."


def _tool(func: Callable[..., str], description: str, **params: Any) -> Dict[str, Any]:
    """An autourgos tool dict. Each keyword is a required parameter: a description (a string
    parameter) or a full JSON-schema property."""
    properties = {
        name: spec if isinstance(spec, dict) else {"type": "string", "description": spec}
        for name, spec in params.items()
    }
    schema = {"type": "object", "properties": properties, "required": list(params), "additionalProperties": False}
    return {"name": func.__name__, "description": description, "parameters": schema, "func": func}


def _words(text: str) -> set:
    stop = {"a", "an", "and", "the", "of", "to", "for", "in", "on", "is", "what", "how", "with", "by"}
    return {w for w in re.findall(r"[a-z0-9]+", str(text).lower()) if w not in stop}


# ── support-ticket ────────────────────────────────────────────────────────────────────────────────

def _support_tools() -> tuple:
    def data() -> Dict[str, Any]:
        return _json("support_ticket.json")

    def by_ticket(section: str, ticket_id: str) -> str:
        entry = data()[section].get(str(ticket_id).strip().upper())
        return "\n".join(entry) if entry else _not_found("ticket", ticket_id, data()[section])

    def get_ticket(ticket_id: str) -> str:
        ticket = data()["tickets"].get(str(ticket_id).strip().upper())
        return "\n".join(ticket["text"]) if ticket else _not_found("ticket", ticket_id, data()["tickets"])

    def lookup_customer(customer_id: str) -> str:
        customer = data()["customers"].get(str(customer_id).strip().upper())
        return "\n".join(customer["text"]) if customer else _not_found("customer", customer_id, data()["customers"])

    def get_order_history(customer_id: str) -> str:
        orders = data()["order_history"].get(str(customer_id).strip().upper())
        return "\n".join(orders) if orders else _not_found("customer", customer_id, data()["order_history"])

    def check_inventory(sku: str) -> str:
        stock = data()["inventory"].get(str(sku).strip().upper())
        return "\n".join(stock) if stock else _not_found("SKU", sku, data()["inventory"])

    def shipping_options(pincode: str, sku: str) -> str:
        shipping = data()["shipping"]
        if str(sku).strip().upper() not in data()["inventory"]:
            return _not_found("SKU", sku, data()["inventory"])
        if str(pincode).strip() not in shipping["serviceable_pincodes"]:
            return _not_found("serviceable pincode", pincode, shipping["serviceable_pincodes"])
        rows = [f"  {name:<9} {carrier:<22} {dispatch:<19} {deliver:<36} fee: {fee}"
                for name, carrier, dispatch, deliver, fee in shipping["options"]]
        head = f"Delivery options from {shipping['origin']} to pincode {str(pincode).strip()} for {str(sku).strip().upper()}:"
        return "\n".join([head, *rows, *shipping["footer"]])

    def create_replacement(ticket_id: str, sku: str, shipping_option: str) -> str:
        entry = data()["replacements"].get(str(ticket_id).strip().upper())
        if entry is None:
            return _not_found("ticket", ticket_id, data()["replacements"])
        if str(sku).strip().upper() not in data()["inventory"]:
            return _not_found("SKU", sku, data()["inventory"])
        options = {row[0]: row for row in data()["shipping"]["options"] if row[1] != "not available"}
        option = options.get(str(shipping_option).strip().lower())
        if option is None:
            return _not_found("shipping option", shipping_option, options)
        method = f"{option[0]} via {option[1]}, {option[2]}, promised: {option[3]}"
        return "\n".join(entry["text"]).format(ticket_id=str(ticket_id).strip().upper(),
                                                sku=str(sku).strip().upper(), method=method)

    def schedule_return_pickup(ticket_id: str) -> str:
        return by_ticket("return_pickups", ticket_id)

    def calculate_refund(ticket_id: str) -> str:
        return by_ticket("refunds", ticket_id)

    def get_sla(ticket_id: str) -> str:
        return by_ticket("sla", ticket_id)

    def refund_policy(topic: str) -> str:
        key = re.sub(r"[\s_]+", "-", str(topic).strip().lower())
        policy = data()["policies"].get(key)
        return "\n".join(policy) if policy else _not_found("policy topic", topic, data()["policies"])

    def search_kb(query: str) -> str:
        wanted = _words(query)
        scored = [(len(wanted & _words(a["title"] + " " + a["text"])), a) for a in data()["kb"]]
        hits = [a for score, a in sorted(scored, key=lambda s: (-s[0], s[1]["id"])) if score][:2]
        if not hits:
            return f"No knowledge-base article matched {str(query)!r}. Articles: " + "; ".join(
                f"{a['id']} {a['title']}" for a in data()["kb"])
        parts = [f"Knowledge base, best {len(hits)} for {str(query)!r}:"]
        parts += [f"{a['id']} · {a['title']}\n{textwrap.fill(a['text'], 100)}" for a in hits]
        return "\n\n".join(parts)

    ticket = "ticket id, e.g. T-5521"
    return (
        _tool(get_ticket, "Read a support ticket: requester, customer message, tags.", ticket_id=ticket),
        _tool(lookup_customer, "Customer profile: name, tier, addresses, payment methods.",
              customer_id="customer id, e.g. C-20417"),
        _tool(get_order_history, "A customer's recent orders with items, SKUs and delivery details.",
              customer_id="customer id, e.g. C-20417"),
        _tool(check_inventory, "Stock of one SKU per warehouse.", sku="product SKU"),
        _tool(shipping_options, "Delivery options and promised dates for a SKU to a pincode.",
              pincode="destination postal code", sku="product SKU"),
        _tool(create_replacement, "Create (idempotently) a free replacement order for a ticket.", ticket_id=ticket,
              sku="product SKU", shipping_option={"type": "string", "enum": ["standard", "express"],
                                                  "description": "delivery option"}),
        _tool(schedule_return_pickup, "Book the courier collection of a damaged item for a ticket.", ticket_id=ticket),
        _tool(calculate_refund, "Work out what the policy refunds for a ticket, and where it goes.", ticket_id=ticket),
        _tool(get_sla, "Service-level deadlines for a ticket.", ticket_id=ticket),
        _tool(refund_policy, "Full text of a refund policy.",
              topic="policy topic: shipping-fees, returns or payment-methods"),
        _tool(search_kb, "Search the support knowledge base; returns the two best articles.", query="keywords"),
    )


# ── research-digest ───────────────────────────────────────────────────────────────────────────────

def _parse_articles() -> Dict[str, Dict[str, str]]:
    """research_articles.txt: blocks start with '=== <id>', then 'key: value' lines, a blank line, the body."""
    text = (_DATA_DIR / "research_articles.txt").read_text(encoding="utf-8")
    articles = {}
    for block in re.split(r"^=== ", text, flags=re.M)[1:]:
        head, _, body = block.partition("\n\n")
        first, *fields = head.splitlines()
        article = {"id": first.strip(), "body": body.strip()}
        article.update((k.strip(), v.strip()) for k, _, v in (line.partition(":") for line in fields))
        articles[article["id"]] = article
    return articles


def _research_tools() -> tuple:
    def articles() -> Dict[str, Dict[str, str]]:
        return _cached("research_articles.txt", _parse_articles)

    def search_articles(query: str) -> str:
        wanted = _words(query)
        scored = []
        for a in articles().values():
            score = 3 * len(wanted & _words(a["title"])) + 2 * len(wanted & _words(a["snippet"]))
            scored.append((score + len(wanted & _words(a["body"])), a["id"], a))
        hits = [a for score, _, a in sorted(scored, key=lambda s: (-s[0], s[1])) if score][:5]
        if not hits:
            return f"No articles matched {str(query)!r}. Try broader words; the archive has {len(scored)} articles."
        lines = [f"Search results for {str(query)!r}: top {len(hits)} of {len(scored)} articles"]
        for n, a in enumerate(hits, 1):
            lines += [f"{n}. [{a['id']}] {a['title']} ({a['source']})", f"   {a['snippet']}"]
        return "\n".join(lines)

    def read_article(article_id: str) -> str:
        article = articles().get(str(article_id).strip().strip("[]").strip().lower())
        if article is None:
            return _not_found("article", article_id, articles())
        return (f"[{article['id']}] {article['title']}\nSource: {article['source']} · published "
                f"{article['published']}\n\n{article['body']}")

    return (
        _tool(search_articles, "Search the news archive; returns ids, titles and snippets of the best matches.",
              query="keywords"),
        _tool(read_article, "Full text of one article by id.", article_id="article id from search, e.g. qc-01"),
    )


# ── log-triage ────────────────────────────────────────────────────────────────────────────────────

def _seconds(clock: str) -> float:
    h, m, s = clock.split(":")
    return int(h) * 3600 + int(m) * 60 + float(s)


def _clock(t: float) -> str:
    ms = int(round(t * 1000))
    return f"{ms // 3_600_000:02d}:{ms // 60_000 % 60:02d}:{ms // 1000 % 60:02d}.{ms % 1000:03d}"


def _fill(rng: random.Random) -> Dict[str, Any]:
    return {
        "req": f"{rng.getrandbits(32):08x}", "user": f"u{rng.randint(100000, 999999)}",
        "order_ref": f"ck_{rng.getrandbits(24):06x}", "ip": f"10.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(2, 254)}",
        "sku": f"{rng.choice(['TSH', 'MUG', 'LMP', 'BAG', 'SOK', 'PEN'])}-{rng.randint(100, 999)}",
        "ms": rng.randint(40, 900), "ms_small": rng.randint(3, 120), "ms_slow": rng.randint(1200, 4800),
        "gc": rng.randint(4, 60), "pct": rng.randint(40, 97), "n": rng.randint(10, 9999),
        "qty": rng.randint(1, 8), "queued": rng.randint(40, 260), "status": rng.choice([200, 200, 202]),
    }


def _render_log(service: str, window: str) -> str:
    """A deterministic log for one service and window: seeded noise, incident noise after the
    incident starts, and the fixed event lines of log_triage.json at their timestamps."""
    spec = _json("log_triage.json")
    svc = spec["services"][service]
    rng = random.Random(f"{service}|{window}")  # str seeds are stable across processes and runs
    start, end = (_seconds(part + ":00") for part in window.split("-"))
    events = [(_seconds(t), level, host, msg) for t, level, host, msg in spec["events"].get(f"{service}|{window}", [])]
    taken = {int(t) for t, *_ in events}  # an event's second is its alone, so a timestamp names one line
    lines = list(events)

    def generate(count: int, since: float, templates: List[List[str]]) -> None:
        for _ in range(count):
            t = rng.uniform(since, end)
            while int(t) in taken:
                t = rng.uniform(since, end)
            level, template = rng.choice(templates)
            lines.append((t, level, rng.choice(svc["hosts"]), template.format_map(_fill(rng))))

    generate(round(svc["lines_per_hour"] * (end - start) / 3600), start, svc["noise"])
    since = max(start, _seconds(spec["incident_start"]))
    if since < end and svc["after_incident"]:
        generate(round(svc["after_incident_per_hour"] * (end - since) / 3600), since, svc["after_incident"])
    lines.sort(key=lambda line: line[0])
    header = f"# logs service={service} window={spec['date']} {window} UTC, {len(lines)} lines, oldest first"
    body = [f"{spec['date']} {_clock(t)} {level:<5} {service} [{host}] {msg}" for t, level, host, msg in lines]
    return "\n".join([header, *body])


# Teaching point: the agent cuts each tool result to max_tool_output_chars (default 5,000). In the
# checkout-api 02:00-04:00 log (24.7k chars, plan step 3) the first error code and its time sit about
# 2,300 characters in, inside the cut; the failing host chk-eu-11 first appears about 7,900 characters
# in, so the agent never sees it at the default and does once max_tool_output_chars is 10,000 or more.
# tests/test_scenarios.py pins both positions.
def _log_tools() -> tuple:
    def data() -> Dict[str, Any]:
        return _json("log_triage.json")

    def service_or_none(service: str):
        name = str(service).strip().lower()
        return name if name in data()["services"] else None

    def list_services() -> str:
        rows = [f"  {name:<17} {s['tier']:<7} {s['owner']:<16} {len(s['hosts'])} hosts  {s['status']}\n"
                f"  {'':<17} {s['summary']}" for name, s in data()["services"].items()]
        return "\n".join([f"Services in region eu (as of {data()['date']} 04:00 UTC):", *rows,
                          f"Log windows available for {data()['date']} (UTC): {', '.join(data()['windows'])}"])

    def fetch_logs(service: str, window: str) -> str:
        name = service_or_none(service)
        if name is None:
            return _not_found("service", service, data()["services"])
        slot = re.sub(r"\s+", "", str(window)).replace("\u2013", "-")
        if slot not in data()["windows"]:
            return _not_found("log window", window, data()["windows"])
        return _cached(f"log:{name}|{slot}", lambda: _render_log(name, slot))

    def get_deploys(service: str) -> str:
        name = service_or_none(service)
        return "\n".join(data()["deploys"][name]) if name else _not_found("service", service, data()["services"])

    def get_config(service: str) -> str:
        name = service_or_none(service)
        return "\n".join(data()["configs"][name]) if name else _not_found("service", service, data()["services"])

    def get_metrics(service: str) -> str:
        name = service_or_none(service)
        if name is None:
            return _not_found("service", service, data()["services"])
        base = data()["metrics"][name]
        rng = random.Random(f"metrics|{name}")
        extra_name, extra_normal, extra_incident = base["extra"]
        rows = [f"  time   req/s  p50 ms  p99 ms  errors %  cpu %  {extra_name}"]
        for bucket in range(16):  # 15-minute buckets, 00:00 to 03:45
            during = "incident" in base and bucket >= 9  # the incident starts in the 02:15 bucket
            m = base["incident"] if during else base
            jitter = lambda v: v * rng.uniform(0.94, 1.06)  # noqa: E731
            p99 = m["p99"] if during else jitter(m["p99"])  # during the incident: pinned at the 5 s timeout
            rows.append(f"  {bucket // 4:02d}:{bucket % 4 * 15:02d} {jitter(m['rps']):7.0f} {jitter(m['p50']):7.0f} "
                        f"{p99:7.0f} {jitter(m['err']):9.1f} {jitter(m['cpu']):6.0f}  "
                        f"{extra_incident if during else extra_normal}")
        head = f"Metrics for {name}, {data()['date']} 00:00-04:00 UTC, 15-minute buckets:"
        return "\n".join([head, *rows, data()["alerts"][name]])

    service = "service name, e.g. checkout-api (see list_services)"
    return (
        _tool(list_services, "List the services with owner, tier, status and the log windows available."),
        _tool(fetch_logs, "Raw log lines of one service for one two-hour window (UTC), oldest first.",
              service=service, window={"type": "string", "enum": ["00:00-02:00", "02:00-04:00", "04:00-06:00"],
                                       "description": "two-hour window on the incident day, UTC"}),
        _tool(get_deploys, "Recent deploys of a service: version, change id, author, notes.", service=service),
        _tool(get_metrics, "Request rate, latency, errors and CPU in 15-minute buckets, and firing alerts.",
              service=service),
        _tool(get_config, "The effective configuration of a service, with recent changes marked.", service=service),
    )


# ── the catalogue ─────────────────────────────────────────────────────────────────────────────────

_TOOL_BUILDERS = {"support-ticket": _support_tools, "research-digest": _research_tools, "log-triage": _log_tools}


def _load_catalogue() -> Dict[str, Scenario]:
    """Scenarios from data/scenarios.json (texts, plans, facts, probes), in the order of _TOOL_BUILDERS."""
    catalogue = json.loads((_DATA_DIR / "scenarios.json").read_text(encoding="utf-8"))
    scenarios = {}
    for name, build_tools in _TOOL_BUILDERS.items():
        entry = catalogue[name]
        scenarios[name] = Scenario(
            name=name,
            title=entry["title"],
            description=f"{entry['description']} {DEMO_NOTICE}",
            task=entry["task"],
            tools=build_tools(),
            plan=tuple(PlanStep(step["thought"], tuple(step["actions"])) for step in entry["plan"]),
            expected_facts=tuple(ExpectedFact(label, value) for label, value in entry["expected_facts"]),
            probes=tuple(Probe(question, answer) for question, answer in entry["probes"]),
            answer_intro=entry["answer_intro"],
        )
    return scenarios


SCENARIOS: Dict[str, Scenario] = _load_catalogue()


def get_scenario(name: str) -> Scenario:
    try:
        return SCENARIOS[name]
    except KeyError:
        raise UnknownName(f"Unknown scenario {name!r}. Valid names: {', '.join(SCENARIOS)}.") from None


def list_scenarios() -> List[Scenario]:
    return list(SCENARIOS.values())
