"""What the lab's message strategies send at every model call is what the packages send when a real LangChain agent
holds the conversation: the lab's `strategies --json --details` (`details.model_calls[i].sent`) against the
packages driven here directly, with the same settings and the same summarizer.

The native side, as ../shared/notes/conversations-and-long-runs.md describes a real agent:
- clear-tool-uses, langchain-summarization, deepagents: a real `create_agent` graph (the recording's system prompt
  as its `system_prompt`, an `InMemorySaver` checkpointer, one `invoke` per user turn on one thread) whose model is
  a fake chat model that returns the recorded replies in order and keeps what it was sent at every call; a
  `wrap_tool_call` middleware, innermost, answers each tool call with its recorded result (StructuredTools named
  after the trace's tools, so the ToolNode knows them). The middleware are the packages' own, built here.
- langmem: as its guide calls it, `summarize_messages` on the conversation so far before each model call, the
  running summary kept from call to call, the system prompt sent in front of the result (or, with
  `system_in_messages=1`, given to it as a leading SystemMessage).
The settings are each strategy's default grid resolved for the trace as the recommender resolves it
(`recommend.plan`); the summarizer on both sides is the lab's offline extractive one (as a LangChain chat model on
the native side), so identical prompts give identical summaries.

Data: tau-bench airline runs from ../shared (skipped, with the reason, where absent) and a conversation written
here as an OpenAI chat file (a system prompt, several user turns, replies with tool calls, parallel calls and one
long tool result), both imported with `scratchpad-lab import`.
"""
import contextlib
import io
import json
import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from conftest import shared_file

from scratchpad_lab.cli import main
from scratchpad_lab.engine.studies.recommender import Point, plan
from scratchpad_lab.engine.strategies.spec import MAX_STRATEGIES
from scratchpad_lab.engine.strategies.chat_summarizer import extractive_chat_model
from scratchpad_lab.model.trace import ConversationMessage, Trace

pytestmark = pytest.mark.usefixtures("no_network")

TAU_BENCH = ("datasets", "tau-bench-airline", "gpt-4o-airline.json")
TAU_RUNS = (1, 2, 4, 5)       # conversations of the dataset file (1-based, as `import --conversation` takes them)
SOURCES = tuple(f"tau-bench-{n}" for n in TAU_RUNS) + ("hand-built",)
GRAPH_STRATEGIES = ("clear-tool-uses", "langchain-summarization", "deepagents")
MESSAGE_STRATEGIES = GRAPH_STRATEGIES + ("langmem",)
SESSION = re.compile(r"session_[0-9a-f]+")  # deepagents' history file: a random id natively, a fixed one in the lab


# ── the hand-built conversation (OpenAI chat messages) ─────────────────────────────────────────────────────────

def _shipment_log() -> str:
    """A long tool result, the kind a summary is for: 72 scan events, the facts that matter buried among them."""
    hubs = ("Oakland", "Sacramento", "Reno", "Salt Lake City")
    lines = []
    for k in range(72):
        day, hour, minute = 1 + k // 24, k % 24, (7 * k) % 60
        hub = hubs[min(k // 18, 3)]
        status = "in transit, scanned at sort belt 4"
        if k == 40:
            status = "EXCEPTION: parcel damaged (crushed corner), held for inspection, case DMG-7731"
        elif k == 41:
            status = "return to sender initiated, RTS-55120, carrier liability claim opened"
        lines.append(f"2024-05-0{day} {hour:02d}:{minute:02d} {hub} hub, tracking TRK-9F2X77: {status}")
    return "\n".join(lines)


def _call(call_id: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}


def _tool(name: str, description: str, **properties: str) -> dict[str, Any]:
    return {"type": "function", "function": {
        "name": name, "description": description,
        "parameters": {"type": "object", "properties": {k: {"type": t} for k, t in properties.items()},
                       "required": list(properties)}}}


HAND_BUILT = {
    "tools": [
        _tool("lookup_order", "Look up an order by its id.", order_id="string"),
        _tool("get_shipment", "The carrier's scan events for a tracking id.", tracking_id="string"),
        _tool("search_policy", "Search the store's policies.", query="string"),
        _tool("issue_refund", "Refund an order to its payment method.", order_id="string", amount="number",
              reason="string"),
        _tool("update_address", "Change the shipping address of an order not shipped yet.", order_id="string",
              address="string"),
    ],
    "messages": [
        {"role": "system", "content": (
            "You are the support agent of Northwind Outfitters.\n\n"
            + "\n".join(f"- Rule {k}: " + rule for k, rule in enumerate((
                "Confirm the order id before you look anything up, and never guess one.",
                "Refunds go to the original payment method only; state the amount and the card before refunding.",
                "Ask for explicit confirmation (yes) before any refund or replacement.",
                "A parcel damaged in transit is refunded in full, shipping included, without a return.",
                "Quote tracking ids, case ids and refund ids exactly as the tools give them.",
                "Do not promise delivery dates the carrier has not given.",
                "Be brief: one short paragraph per reply unless the customer asks for details.",
            ) * 3, start=1)))},
        {"role": "user", "content": "Hi, my order NW-48213 hasn't arrived. Can you check what happened?"},
        {"role": "assistant", "content": None,
         "tool_calls": [_call("call_a1", "lookup_order", {"order_id": "NW-48213"})]},
        {"role": "tool", "tool_call_id": "call_a1", "content": json.dumps({
            "order_id": "NW-48213", "status": "shipped", "tracking_id": "TRK-9F2X77", "total": 129.9,
            "items": [{"sku": "TENT-2P-GRN", "name": "Two-person tent, green", "price": 119.9}],
            "shipping": 10.0, "payment": {"method": "visa", "last4": "4417"}})},
        {"role": "assistant", "content": "Let me check the carrier's scans.",
         "tool_calls": [_call("call_a2", "get_shipment", {"tracking_id": "TRK-9F2X77"})]},
        {"role": "tool", "tool_call_id": "call_a2", "content": _shipment_log()},
        {"role": "assistant", "content": (
            "Your parcel TRK-9F2X77 was damaged at the Reno hub (case DMG-7731) and is being returned to us "
            "(RTS-55120). Would you like a refund or a replacement?")},
        {"role": "user", "content": "A refund, please. It was a gift, so what is your policy for damaged items?"},
        {"role": "assistant", "content": None, "tool_calls": [
            _call("call_b1", "search_policy", {"query": "damaged in transit refund"}),
            _call("call_b2", "lookup_order", {"order_id": "NW-48213"})]},
        {"role": "tool", "tool_call_id": "call_b1", "content": (
            "Policy 4.2: items damaged in transit are refunded in full, shipping included, to the original payment "
            "method within 5 business days; no return is needed.")},
        {"role": "tool", "tool_call_id": "call_b2", "content": json.dumps({
            "order_id": "NW-48213", "total": 129.9, "payment": {"method": "visa", "last4": "4417"}})},
        {"role": "assistant", "content": (
            "Under policy 4.2 I can refund the full $129.90, shipping included, to your Visa ending 4417. Shall I "
            "go ahead?")},
        {"role": "user", "content": "Yes, go ahead."},
        {"role": "assistant", "content": None, "tool_calls": [_call("call_c1", "issue_refund", {
            "order_id": "NW-48213", "amount": 129.9, "reason": "damaged in transit (DMG-7731)"})]},
        {"role": "tool", "tool_call_id": "call_c1", "content": json.dumps({
            "refund_id": "RF-20931", "status": "approved", "amount": 129.9, "eta_business_days": 5})},
        {"role": "assistant", "content": "Done: refund RF-20931 for $129.90 is approved and reaches your card in 5 "
                                         "business days."},
        {"role": "user", "content": "Also, my other order NW-50077: has it shipped?"},
        {"role": "assistant", "content": None,
         "tool_calls": [_call("call_d1", "lookup_order", {"order_id": "NW-50077"})]},
        {"role": "tool", "tool_call_id": "call_d1", "content": json.dumps({
            "order_id": "NW-50077", "status": "processing", "ship_by": "2024-05-20",
            "items": [{"sku": "BAG-0C-BLU", "name": "Sleeping bag, 0C, blue", "price": 89.5}],
            "address": "4 Elm Ct, Reno, NV 89501"})},
        {"role": "assistant", "content": "NW-50077 (the blue sleeping bag) is still processing and ships by May 20."},
        {"role": "user", "content": "Can you send it to 12 Pine St, Boise, ID 83702 instead?"},
        {"role": "assistant", "content": "To confirm: change NW-50077's address from 4 Elm Ct, Reno to 12 Pine St, "
                                         "Boise, ID 83702? (yes/no)"},
        {"role": "user", "content": "yes"},
        {"role": "assistant", "content": None, "tool_calls": [_call("call_e1", "update_address", {
            "order_id": "NW-50077", "address": "12 Pine St, Boise, ID 83702"})]},
        {"role": "tool", "tool_call_id": "call_e1", "content": json.dumps({
            "ok": True, "order_id": "NW-50077", "address": "12 Pine St, Boise, ID 83702"})},
        {"role": "assistant", "content": "Updated: NW-50077 now ships to 12 Pine St, Boise, ID 83702."},
        {"role": "user", "content": "Thanks! What was the tracking number again, and the damage case?"},
        {"role": "assistant", "content": "Tracking TRK-9F2X77; the damage case is DMG-7731."},
    ],
}


# ── the lab's side: import, the grid points, `strategies --json --details` ────────────────────────────────────

def _cli(args: list[str]) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(args)
    assert code == 0, f"scratchpad-lab {' '.join(args[:2])} exited {code}"
    return out.getvalue()


class Source:
    """One conversation: its trace (imported by the lab's `import`), the grid points and the lab's rows for them."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.trace = Trace.from_dict(json.loads(path.read_text(encoding="utf-8")), str(path))
        self.points: list[tuple[str, dict[str, Any]]] = []
        for name in MESSAGE_STRATEGIES:
            found, _ = plan(self.trace, [name])  # the default grid, resolved with the peak recommend passes
            self.points.extend((name, dict(p.settings)) for p in found)
        assert {n for n, _ in self.points} == set(MESSAGE_STRATEGIES), "a strategy's default grid gave no point"
        largest = max((s for n, s in self.points if n == "langmem"), key=lambda s: s["max_tokens"])
        self.points.append(("langmem", {**largest, "system_in_messages": 1}))
        args = [Point(name, settings).cli_arg() for name, settings in self.points]
        self.rows: list[dict[str, Any]] = []
        for start in range(0, len(args), MAX_STRATEGIES):
            chunk = [a for arg in args[start:start + MAX_STRATEGIES] for a in ("--strategy", arg)]
            self.rows.extend(json.loads(_cli(["strategies", str(path), "--summarizer", "extractive", "--json",
                                              "--details", *chunk])))
        assert len(self.rows) == len(self.points)
        for (name, settings), row in zip(self.points, self.rows):
            assert row["strategy"] == name and row["details"]["error"] is None, (name, row["details"]["error"])
            assert all(row["settings"][k] == v for k, v in settings.items()), (name, settings, row["settings"])

    def runs(self, name: str):
        """(settings, the lab's sent messages at each call) for every point of a strategy."""
        return [(s, [call["sent"] for call in row["details"]["model_calls"]])
                for (n, s), row in zip(self.points, self.rows) if n == name]


@pytest.fixture(scope="module")
def sources(tmp_path_factory):
    made: dict[str, Source] = {}
    root = tmp_path_factory.mktemp("native-drive")

    def get(key: str) -> Source:
        if key not in made:
            out = root / f"{key}.trace.json"
            if key == "hand-built":
                chat = root / "hand-built.chat.json"
                chat.write_text(json.dumps(HAND_BUILT), encoding="utf-8")
                _cli(["import", str(chat), "--out", str(out)])
            else:
                dataset = shared_file(*TAU_BENCH)
                _cli(["import", str(dataset), "--conversation", key.rsplit("-", 1)[1], "--out", str(out)])
            made[key] = Source(out)
        return made[key]
    return get


# ── the native side ───────────────────────────────────────────────────────────────────────────────────────────

class RecordingEnded(Exception):
    """The graph asked for a reply the recording does not have (it ended on tool results or unanswered words)."""


def graph_turns(trace: Trace) -> tuple[list[list[str]] | None, str]:
    """The conversation as a graph takes it: the user texts of each `invoke`, or (None, why) for a shape a graph
    cannot hold: a user turn right after tool results with no reply between, a reply with tool calls whose results
    do not follow it (in call order), two replies with no user turn between, a later system message."""
    msgs = trace.messages or []
    if not msgs or msgs[0].role != "user":
        return None, "the conversation does not start with a user turn"
    turns: list[list[str]] = []
    i = 0
    while i < len(msgs):
        users = []
        while i < len(msgs) and msgs[i].role == "user":
            users.append(msgs[i].text)
            i += 1
        if not users:
            return None, f"message {i} ({msgs[i].role}) follows a reply without tool calls, with no user turn between"
        turns.append(users)
        while i < len(msgs):  # the agent loop: replies with tool calls, each followed by its results
            if msgs[i].role != "assistant":
                return None, f"message {i} ({msgs[i].role}) comes where the agent's reply is due"
            reply = msgs[i]
            i += 1
            if not reply.calls:
                break  # the turn ends
            for call in reply.calls:
                if i >= len(msgs):
                    break  # the recording ends on tool results: the graph's next call has no recorded reply
                if msgs[i].role != "tool" or msgs[i].call_id != call["id"]:
                    return None, f"reply {i - 1} calls tools and message {i} ({msgs[i].role}) is not its next result"
                i += 1
    return turns, ""


def entry(message: Any) -> dict[str, Any]:
    """A message as `--details` lists what a call sent: its kind, its text, an AI message's calls."""
    content = message.content
    text = content if isinstance(content, str) else "\n".join(
        b if isinstance(b, str) else str(b.get("text", "")) for b in content
        if isinstance(b, str) or (isinstance(b, dict) and b.get("type") == "text"))
    out: dict[str, Any] = {"kind": message.type, "text": text}
    if getattr(message, "tool_calls", None):
        out["calls"] = [{"name": c["name"], "args": c["args"]} for c in message.tool_calls]
    return json.loads(json.dumps(out))


@cache
def _classes():
    from langchain.agents.middleware import AgentMiddleware
    from langchain_core.language_models.chat_models import BaseChatModel
    from langchain_core.outputs import ChatGeneration, ChatResult
    from pydantic import Field

    class RecordedAgentModel(BaseChatModel):
        """The agent's model: the recorded replies in order; keeps what each call was sent (system message first)."""

        replies: list
        sent: list = Field(default_factory=list)

        @property
        def _llm_type(self) -> str:
            return "recorded-agent"

        def _generate(self, messages, stop=None, run_manager=None, **kwargs):
            if len(self.sent) >= len(self.replies):
                raise RecordingEnded(f"the recording has {len(self.replies)} replies")
            self.sent.append(list(messages))
            reply = self.replies[len(self.sent) - 1].model_copy()
            return ChatResult(generations=[ChatGeneration(message=reply)])

        def bind_tools(self, tools, **kwargs):
            return self

    class RecordedResults(AgentMiddleware):
        """Innermost tool layer: each call answered with its recorded result (a ToolMessage of its own id)."""

        def __init__(self, results: dict[str, Any]) -> None:
            super().__init__()
            self.results = results

        def wrap_tool_call(self, request, handler):
            return self.results[request.tool_call["id"]].model_copy()

    return RecordedAgentModel, RecordedResults


def _recorded(trace: Trace):
    """(the replies as AIMessages, {call id: its result as a ToolMessage}, the trace's tools as StructuredTools)."""
    from langchain_core.messages import AIMessage, ToolMessage
    from langchain_core.tools import StructuredTool

    replies, results, names = [], {}, {}
    for index, m in enumerate(trace.messages):
        if m.role == "assistant":
            calls = [{"name": c["name"], "args": c.get("args") or {}, "id": c["id"], "type": "tool_call"}
                     for c in m.calls]
            names.update((c["id"], c["name"]) for c in calls)
            replies.append(AIMessage(m.text, id=f"native-reply-{index}", tool_calls=calls))
        elif m.role == "tool":
            assert m.call_id not in results, "the import keeps each tool call id once in a conversation"
            results[m.call_id] = ToolMessage(m.text, tool_call_id=m.call_id, name=m.name or names.get(m.call_id),
                                             id=f"native-result-{index}")

    def never_run(**_kwargs: Any) -> str:
        raise AssertionError("the recorded-results middleware answers every call")

    # the agent's own tools: not the `user` tool the lab adds for the autourgos scratchpad's mapping of later user
    # turns (a LangChain agent holding the conversation has none)
    from scratchpad_lab.engine.importers.chat import USER_TOOL_DESCRIPTION
    tools = [StructuredTool.from_function(never_run, name=t.name, description=t.description or t.name,
                                          args_schema=t.parameters or {"type": "object", "properties": {}})
             for t in trace.tools if t.description != USER_TOOL_DESCRIPTION]
    return replies, results, tools


def drive_graph(trace: Trace, middleware: list[Any]) -> list[list[dict[str, Any]]]:
    """A real LangChain agent holding the recorded conversation: what its model was sent at every call."""
    from langchain.agents import create_agent
    from langchain_core.messages import HumanMessage
    from langgraph.checkpoint.memory import InMemorySaver

    turns, why = graph_turns(trace)
    assert turns is not None, why
    model_class, results_class = _classes()
    replies, results, tools = _recorded(trace)
    model = model_class(replies=replies)
    graph = create_agent(model, tools, system_prompt=trace.system or None,
                         middleware=[*middleware, results_class(results)], checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}, "recursion_limit": 10_000}
    for k, turn in enumerate(turns):
        try:
            graph.invoke({"messages": [HumanMessage(text) for text in turn]}, config)
        except RecordingEnded:
            assert k == len(turns) - 1, "the graph ran out of recorded replies before the last turn"
    assert len(model.sent) == len(replies), f"{len(model.sent)} model calls for {len(replies)} recorded replies"
    return [[entry(m) for m in sent] for sent in model.sent]


def _only(settings: dict[str, Any], known: tuple[str, ...], name: str) -> None:
    unknown = set(settings) - set(known)
    assert not unknown, f"{name}: the grid now sets {sorted(unknown)}; build them natively too"


def clear_tool_uses(settings: dict[str, Any], _tmp: Path) -> list[Any]:
    from langchain.agents.middleware import ClearToolUsesEdit, ContextEditingMiddleware

    _only(settings, ("trigger", "keep"), "clear-tool-uses")
    return [ContextEditingMiddleware(edits=[ClearToolUsesEdit(trigger=settings["trigger"], keep=settings["keep"],
                                                              clear_at_least=0, placeholder="[cleared]")])]


def langchain_summarization(settings: dict[str, Any], _tmp: Path) -> list[Any]:
    from langchain.agents.middleware import SummarizationMiddleware

    _only(settings, ("trigger_tokens", "trim_tokens_to_summarize"), "langchain-summarization")
    return [SummarizationMiddleware(model=extractive_chat_model(), trigger=("tokens", settings["trigger_tokens"]),
                                    trim_tokens_to_summarize=settings["trim_tokens_to_summarize"])]


def deepagents(settings: dict[str, Any], tmp: Path) -> list[Any]:
    """Its filesystem middleware, then its summarization middleware as `create_summarization_middleware` makes it
    (its defaults for the model; trim None), with the trigger and keep of the settings."""
    from deepagents.backends.filesystem import FilesystemBackend
    from deepagents.middleware.filesystem import FilesystemMiddleware
    from deepagents.middleware.summarization import (
        SummarizationMiddleware,
        compute_summarization_defaults,
    )

    _only(settings, ("trigger_tokens", "keep_messages"), "deepagents")
    summarizer = extractive_chat_model()
    backend = FilesystemBackend(root_dir=tmp, virtual_mode=True)
    defaults = compute_summarization_defaults(summarizer)
    return [FilesystemMiddleware(backend=backend),
            SummarizationMiddleware(model=summarizer, backend=backend, trigger=("tokens", settings["trigger_tokens"]),
                                    keep=("messages", settings["keep_messages"]), trim_tokens_to_summarize=None,
                                    truncate_args_settings=defaults["truncate_args_settings"])]


BUILDERS = {"clear-tool-uses": clear_tool_uses, "langchain-summarization": langchain_summarization,
            "deepagents": deepagents}


def drive_langmem(trace: Trace, settings: dict[str, Any]) -> list[list[dict[str, Any]]]:
    """LangMem as its guide calls it: before each model call, `summarize_messages` on the conversation so far with
    the running summary of the call before; the model is sent the system prompt, then what it returned (with
    `system_in_messages`, the system prompt goes in as the leading message and what it returned is sent)."""
    from langchain_core.messages import (
        AIMessage,
        HumanMessage,
        SystemMessage,
        ToolMessage,
    )
    from langmem.short_term import summarize_messages

    _only(settings, ("max_tokens", "max_summary_tokens", "max_tokens_before_summary", "system_in_messages"), "langmem")
    inside = bool(settings.get("system_in_messages"))
    system = SystemMessage(trace.system, id="native-system") if trace.system else None
    kwargs = {"max_tokens": settings["max_tokens"], "max_summary_tokens": settings.get("max_summary_tokens", 256)}
    if settings.get("max_tokens_before_summary") is not None:
        kwargs["max_tokens_before_summary"] = settings["max_tokens_before_summary"]
    summarizer = extractive_chat_model()
    conversation: list[Any] = [system] if inside and system is not None else []
    running = None
    sent_all = []
    for index, m in enumerate(trace.messages):
        mid = f"native-{index}"
        if m.role == "assistant":
            result = summarize_messages(list(conversation), running_summary=running, model=summarizer, **kwargs)
            sent = list(result.messages) if inside or system is None else [system, *result.messages]
            sent_all.append([entry(x) for x in sent])
            if result.running_summary:
                running = result.running_summary
            conversation.append(AIMessage(m.text, id=mid, tool_calls=[
                {"name": c["name"], "args": c.get("args") or {}, "id": c["id"], "type": "tool_call"} for c in m.calls]))
        elif m.role == "tool":
            conversation.append(ToolMessage(m.text, tool_call_id=m.call_id, name=m.name, id=mid))
        elif m.role == "user":
            conversation.append(HumanMessage(m.text, id=mid))
        else:
            conversation.append(SystemMessage(m.text, id=mid))
    return sent_all


# ── comparing ─────────────────────────────────────────────────────────────────────────────────────────────────

def _short(entry_: dict[str, Any]) -> str:
    text = entry_["text"]
    return f"[{entry_['kind']}] {text[:120]!r}{'...' if len(text) > 120 else ''}" + (
        f" calls={entry_['calls']}" if entry_.get("calls") else "")


def assert_same_calls(lab: list[list[dict[str, Any]]], native: list[list[dict[str, Any]]], system: str, label: str,
                      system_extended: bool = False) -> None:
    """Every call sent the same messages (kinds, text, AI tool calls). `system_extended`: the package adds its own
    instructions to the system message, which then only has to start with the recording's system prompt."""
    assert len(lab) == len(native), f"{label}: the lab made {len(lab)} model calls, the graph {len(native)}"
    for number, (ours, theirs) in enumerate(zip(lab, native), start=1):
        ours = [dict(e, text=SESSION.sub("session_<id>", e["text"])) for e in ours]
        theirs = [dict(e, text=SESSION.sub("session_<id>", e["text"])) for e in theirs]
        if system_extended:
            for side in (ours, theirs):
                if side and side[0]["kind"] == "system":
                    assert side[0]["text"].startswith(system), f"{label}: call {number}'s system message"
                    side[0] = dict(side[0], text=system)
        if ours == theirs:
            continue
        at = next((k for k, (a, b) in enumerate(zip(ours, theirs)) if a != b), min(len(ours), len(theirs)))
        pytest.fail(f"{label}: call {number} of {len(lab)} differs at message {at + 1} "
                    f"(lab sent {len(ours)}, the package natively {len(theirs)}):\n"
                    f"  lab:    {_short(ours[at]) if at < len(ours) else '(nothing)'}\n"
                    f"  native: {_short(theirs[at]) if at < len(theirs) else '(nothing)'}")


# ── the tests ─────────────────────────────────────────────────────────────────────────────────────────────────

@pytest.mark.parametrize("key", SOURCES)
def test_every_conversation_picked_is_one_a_langchain_graph_holds_whole(sources, key):
    turns, why = graph_turns(sources(key).trace)
    assert turns is not None, f"{key} is left out of the graph drive: {why}"
    assert sources(key).trace.system, f"{key} has no system prompt"


def test_a_shape_a_graph_cannot_hold_is_left_out_of_the_graph_drive():
    def trace(*roles: str) -> Trace:
        messages, calls = [], 0
        for role in roles:
            if role == "call":  # a reply with one tool call
                calls += 1
                messages.append(ConversationMessage("assistant", "", [{"id": f"c{calls}", "name": "t", "args": {}}]))
            elif role == "tool":
                messages.append(ConversationMessage("tool", "result", call_id=f"c{calls}", name="t"))
            else:
                messages.append(ConversationMessage(role, role))
        return Trace("task", [], [], system="rules", messages=messages)

    assert graph_turns(trace("user", "call", "tool", "assistant", "user", "user", "assistant", "user"))[0] == [
        ["user"], ["user", "user"], ["user"]]
    assert graph_turns(trace("user", "call", "tool"))[0] == [["user"]]  # ends on a result: driven to the end
    for shape in (("user", "call", "tool", "user", "assistant"),     # a user turn right after tool results
                  ("user", "call", "user", "assistant"),             # a reply with tool calls ends a turn
                  ("user", "assistant", "assistant"),                # two replies with no user turn between
                  ("user", "assistant", "system", "user", "assistant"),
                  ("assistant", "user", "assistant")):
        turns, why = graph_turns(trace(*shape))
        assert turns is None and why, shape


@pytest.mark.parametrize("name", GRAPH_STRATEGIES)
@pytest.mark.parametrize("key", SOURCES)
def test_each_graph_strategy_sends_at_every_call_what_a_real_langchain_agent_with_its_middleware_sends(
        sources, key, name, tmp_path):
    source = sources(key)
    for number, (settings, lab) in enumerate(source.runs(name)):
        root = tmp_path / f"point-{number}"
        root.mkdir()
        native = drive_graph(source.trace, BUILDERS[name](settings, root))
        assert_same_calls(lab, native, source.trace.system, f"{key} {Point(name, settings).cli_arg()}",
                          system_extended=name == "deepagents")


@pytest.mark.parametrize("key", SOURCES)
def test_langmem_sends_at_every_call_what_summarize_messages_gives_as_its_guide_calls_it(sources, key):
    source = sources(key)
    runs = source.runs("langmem")
    assert any(s.get("system_in_messages") for s, _ in runs) and any(not s.get("system_in_messages") for s, _ in runs)
    for settings, lab in runs:
        native = drive_langmem(source.trace, settings)
        assert_same_calls(lab, native, source.trace.system, f"{key} {Point('langmem', settings).cli_arg()}")


@pytest.mark.parametrize("key", SOURCES[:len(TAU_RUNS)])
def test_every_message_strategy_sends_the_recordings_system_prompt_first_at_every_call(sources, key):
    source = sources(key)
    system = source.trace.system
    for (name, settings), row in zip(source.points, source.rows):
        calls = row["details"]["model_calls"]
        assert calls, f"{name} made no model call"
        for number, call in enumerate(calls, start=1):
            first = call["sent"][0] if call["sent"] else {"kind": "(nothing)", "text": ""}
            assert first["kind"] == "system" and (first["text"].startswith(system) if name == "deepagents"
                                                  else first["text"] == system), (
                f"{key} {Point(name, settings).cli_arg()}: call {number} sent {_short(first)} first")


@pytest.mark.parametrize("key", SOURCES[:len(TAU_RUNS)])
def test_clear_tool_uses_never_changes_a_human_message(sources, key):
    source = sources(key)
    before: list[list[str]] = []  # the user texts recorded before each reply
    users: list[str] = []
    for m in source.trace.messages:
        if m.role == "assistant":
            before.append(list(users))
        elif m.role == "user":
            users.append(m.text)
    for settings, lab in source.runs("clear-tool-uses"):
        assert len(lab) == len(before)
        for number, (sent, recorded) in enumerate(zip(lab, before), start=1):
            assert [e["text"] for e in sent if e["kind"] == "human"] == recorded, (
                f"{key} {Point('clear-tool-uses', settings).cli_arg()}: call {number} changed a user turn")


def test_every_strategy_compresses_on_the_long_conversations_so_the_comparison_is_not_vacuous(sources):
    for key in ("tau-bench-1", "tau-bench-4", "hand-built"):
        source = sources(key)
        for name in MESSAGE_STRATEGIES:
            done = [row["compressions"] for (n, _), row in zip(source.points, source.rows) if n == name]
            assert any(done), f"{key}: no point of {name}'s default grid compressed ({done})"


def _counting_drive(trace: Trace, tmp: Path) -> list[int]:
    """deepagents' own count (messages + system message + tool schemas) at each model call of a real graph that
    never summarizes: its default counter, wrapped only to read what it returns."""
    from deepagents.backends.filesystem import FilesystemBackend
    from deepagents.middleware.filesystem import FilesystemMiddleware
    from deepagents.middleware.summarization import SummarizationMiddleware
    from langchain_core.messages.utils import count_tokens_approximately

    counts: list[int] = []

    def counter(messages, *, tools=None):
        counts.append(count_tokens_approximately(messages, tools=tools))
        return counts[-1]

    backend = FilesystemBackend(root_dir=tmp, virtual_mode=True)
    drive_graph(trace, [FilesystemMiddleware(backend=backend),
                        SummarizationMiddleware(model=extractive_chat_model(), backend=backend,
                                                trigger=("tokens", 10_000_000), token_counter=counter)])
    assert len(counts) == sum(1 for m in trace.messages if m.role == "assistant")
    return counts


def test_deepagents_summarizes_first_where_a_real_agents_own_count_reaches_the_trigger(sources, tmp_path):
    """The trigger set one token above what deepagents counts (messages, system message, tool schemas) before a real
    agent's 3rd model call: it first summarizes at the 4th, and so must the lab. Counting the tools in another form
    than a real agent's tools (BaseTools) are counted in moves the summary to another call."""
    source = sources("hand-built")
    (tmp_path / "count").mkdir()
    counts = _counting_drive(source.trace, tmp_path / "count")
    settings = {"trigger_tokens": counts[2] + 1, "keep_messages": 2}
    arg = Point("deepagents", settings).cli_arg()
    row, = json.loads(_cli(["strategies", str(source.path), "--summarizer", "extractive", "--json", "--details",
                            "--strategy", arg]))
    lab = [call["sent"] for call in row["details"]["model_calls"]]
    (tmp_path / "drive").mkdir()
    native = drive_graph(source.trace, deepagents(settings, tmp_path / "drive"))
    before = [k for k, m in enumerate(source.trace.messages) if m.role == "assistant"]  # messages before each call
    assert [len(sent) for sent in native[:4]] != [1 + n for n in before[:4]], "natively it summarized at call 4"
    assert [len(sent) for sent in native[:3]] == [1 + n for n in before[:3]], "and not before"
    assert_same_calls(lab, native, source.trace.system, f"hand-built {arg}", system_extended=True)
