"""Bringing your own runs (issue 22): each importer on realistic files, the one loader, refusals.

The OpenAI transcript below is written for these tests in the shape public agent benchmarks publish
(tau-bench: a list of tasks, each with its messages under "traj"): a system policy, several user turns,
tool calls (two in one message, and a tool_call_id used again in a later message), and a simulated
user's closing "###STOP###". The history files are written by the real autourgos_agent (its own
`history=` writer) in the test. LangChain files are made by the installed langchain_core.
"""
from __future__ import annotations

import json

import pytest

from scratchpad_lab.analysis.metrics import compressions
from scratchpad_lab.engine import importers
from scratchpad_lab.engine.importers import TraceImportError
from scratchpad_lab.engine.files.loader import load_bytes, load_file
from scratchpad_lab.engine.run.reply import read_reply
from scratchpad_lab.engine.run.runner import Run, Source
from scratchpad_lab.model.config import RunConfig

POLICY = ("# Airline agent policy\nThe current time is 2024-05-15 15:00 EST. Before any booking, list the details "
          "and get an explicit yes. Make one tool call at a time unless the calls are independent. ") * 3
FLIGHTS = json.dumps([{"flight_number": f"HAT{n:03d}", "origin": "JFK", "destination": "SEA",
                       "departure": f"{6 + n % 12:02d}:00", "prices": {"economy": 100 + n}} for n in range(40)])


def _call(call_id: str, name: str, **arguments) -> dict:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}


TRANSCRIPT = [
    {"role": "system", "content": POLICY},
    {"role": "user", "content": "Hi! I'd like to book a one-way flight from New York to Seattle on May 20."},
    {"role": "assistant", "content": "Happy to help. What is your user id?"},
    {"role": "user", "content": "It's mia_li_3668."},
    {"role": "assistant", "content": None, "tool_calls": [_call("call_A", "get_user_details", user_id="mia_li_3668")]},
    {"role": "tool", "tool_call_id": "call_A", "name": "get_user_details",
     "content": json.dumps({"name": "Mia Li", "membership": "gold", "certificates": ["certificate_7504069"],
                            "cards": {"credit_card_4421486": "7447"}})},
    {"role": "assistant", "content": "I'll search both airports at once.",
     "tool_calls": [_call("call_B", "search_direct_flight", origin="JFK", destination="SEA", date="2024-05-20"),
                    _call("call_C", "search_direct_flight", origin="EWR", destination="SEA", date="2024-05-20")]},
    {"role": "tool", "tool_call_id": "call_C", "name": "search_direct_flight", "content": "[]"},
    {"role": "tool", "tool_call_id": "call_B", "name": "search_direct_flight", "content": FLIGHTS},
    {"role": "assistant", "content": "HAT005 leaves at 11:00 for $105. Shall I book it in economy?"},
    {"role": "user", "content": "Yes, with my certificate."},
    {"role": "user", "content": "And no insurance, please."},
    {"role": "assistant", "content": None, "tool_calls": [_call("call_A", "book_reservation", flight="HAT005",
                                                                 payment="certificate_7504069", insurance="no")]},
    {"role": "tool", "tool_call_id": "call_A", "name": "book_reservation", "content": "Reservation 4WQ150 confirmed."},
    {"role": "assistant", "content": "Booked: reservation 4WQ150, HAT005 on May 20, paid by certificate."},
    {"role": "user", "content": "###STOP###"},
]
TASKS = [{"task_id": 0, "reward": 1.0, "traj": TRANSCRIPT}, {"task_id": 1, "reward": 0.0, "traj": TRANSCRIPT[:4]}]
ASSISTANT = [m for m in TRANSCRIPT if m["role"] == "assistant"]
FINAL = ASSISTANT[-1]["content"]


def _replay(trace, **settings):
    return Run(RunConfig.build(scenario=None, **settings), Source.for_trace(trace)).run()


# ── OpenAI chat messages ───────────────────────────────────────────────────

def test_a_benchmark_file_of_openai_messages_imports_one_step_per_assistant_message():
    loaded = load_bytes(json.dumps(TASKS), "tasks.json")
    trace, report = loaded.item, loaded.report
    assert len(trace.steps) == len(ASSISTANT) == 6
    assert report.text().startswith("OpenAI chat messages: 16 messages → 6 steps; the system prompt (570 characters) "
                                    "is kept as the agent's system prompt: sent with every model call, never a message")
    assert "the conversation is kept as recorded: 5 user turns, 4 tool results" in report.text()
    assert "3 user turns became `user` tool results" in report.text()
    assert "the file holds 2 conversations" in report.text() and report.text().endswith("nothing cut")
    assert loaded.warnings == []
    observations = [o for s in trace.steps for o in s.observations]
    for message in TRANSCRIPT:
        if message["role"] == "tool":
            assert message["content"] in observations, "every tool message's text is in the trace"
    # the parallel calls are answered by tool_call_id, not by the order the results came in
    assert trace.steps[2].observations == [FLIGHTS, "[]"]
    # a tool_call_id used again in a later message answers that later message's call
    assert trace.steps[4].observations == ["Reservation 4WQ150 confirmed."]
    # the two user turns in a row answer the same reply, both kept
    assert trace.steps[3].observations == ["Yes, with my certificate.\n\nAnd no insurance, please."]
    # the system prompt is the agent's, not part of the task; the conversation keeps its own shape
    assert trace.system.startswith("# Airline agent policy") and "System message" not in trace.task
    assert trace.task == "Hi! I'd like to book a one-way flight from New York to Seattle on May 20."
    recorded = [m for m in TRANSCRIPT if m["role"] != "system"]
    assert [m.role for m in trace.messages] == [m["role"] for m in recorded]
    assert [m.text for m in trace.messages if m.role == "user"] == [m["content"] for m in recorded if m["role"] == "user"]
    ids = [c["id"] for m in trace.messages for c in m.calls]
    assert len(ids) == len(set(ids)), "a tool_call_id the recording used twice is two calls here"
    answered = {m.call_id: m.text for m in trace.messages if m.role == "tool"}
    assert [answered[c["id"]] for m in trace.messages for c in m.calls] == observations[:len(ids)] or \
        sorted(answered.values()) == sorted(m["content"] for m in recorded if m["role"] == "tool")


def test_each_step_is_the_agent_reply_format_the_agent_reads_back_to_the_message():
    trace = load_bytes(json.dumps(TASKS)).item
    first = read_reply(trace.steps[0].response)
    assert first.actions == [{"action": "user", "action_input": {"message": "Happy to help. What is your user id?"}}]
    assert first.final_answer is None
    parallel = read_reply(trace.steps[2].response)
    assert parallel.thought == "I'll search both airports at once."
    assert [a["action_input"]["origin"] for a in parallel.actions] == ["JFK", "EWR"]
    last = read_reply(trace.steps[-1].response)
    assert last.final_answer == FINAL and last.actions == []
    assert json.loads(trace.steps[-1].response)["after_final_answer"] == "###STOP###"
    assert {t.name for t in trace.tools} == {"get_user_details", "search_direct_flight", "book_reservation", "user"}


def test_the_imported_transcript_replays_to_its_last_reply_and_tight_settings_compress():
    trace = load_bytes(json.dumps(TASKS)).item
    loose = _replay(trace, summarize_every=None, max_scratchpad_chars=1_000_000)
    assert loose.outcome == "answered" and loose.final_answer == FINAL
    assert sum(1 for e in loose.events if e.kind == "iteration") == len(ASSISTANT)
    assert compressions(loose.events) == []
    tight = _replay(trace, summarize_every=2, max_scratchpad_chars=800)
    statuses = [c["status"] for c in compressions(tight.events)]
    assert tight.final_answer == FINAL and len(statuses) >= 2 and set(statuses) == {"ok"}


def test_a_messages_object_with_declared_tools_and_json_lines_import_the_same_steps():
    tools = [{"type": "function", "function": {"name": "book_reservation", "description": "Book a flight.",
                                               "parameters": {"type": "object", "properties": {
                                                   "flight": {"type": "string", "description": "number"}}}}}]
    as_object = load_bytes(json.dumps({"model": "gpt-4o", "messages": TRANSCRIPT, "tools": tools})).item
    as_lines = load_bytes("\n".join(json.dumps(m) for m in TRANSCRIPT) + "\n", "run.jsonl")
    as_list = load_bytes(json.dumps(TRANSCRIPT)).item
    assert [s.response for s in as_object.steps] == [s.response for s in as_list.steps] == [
        s.response for s in as_lines.item.steps]
    assert "read as JSON Lines (16 lines)" in as_lines.report.text()
    declared = next(t for t in as_object.tools if t.name == "book_reservation")
    assert declared.description == "Book a flight." and declared.parameters["properties"]["flight"]["type"] == "string"


def test_the_second_conversation_of_a_file_is_imported_when_asked():
    loaded = load_bytes(json.dumps(TASKS), conversation=2)
    assert len(loaded.item.steps) == 1 and read_reply(loaded.item.steps[0].response).final_answer == (
        "Happy to help. What is your user id?")
    with pytest.raises(TraceImportError, match="conversation 3 is not one of them"):
        load_bytes(json.dumps(TASKS), conversation=3)


def test_what_the_mapping_had_to_decide_is_counted_and_nothing_is_dropped():
    messages = [
        {"role": "user", "content": "Check the disk."},
        {"role": "assistant", "content": None, "tool_calls": [_call("c1", "df", path="/"), _call("c2", "du", path="/")]},
        {"role": "tool", "tool_call_id": "c1", "content": "91% used"},        # c2 never answered
        {"role": "tool", "tool_call_id": "zz", "name": "dmesg", "content": "I/O error on sda"},  # answers no call
        {"role": "user", "content": "Also look at /var."},                   # after tools, no assistant reply
        {"role": "assistant", "content": "Looking.", "tool_calls": [
            {"id": "c3", "type": "function", "function": {"name": "du", "arguments": "/var not json"}}]},
        {"role": "tool", "tool_call_id": "c3", "content": "12G /var/log"},
        {"role": "assistant", "content": "I will clean /var/log."},          # answered by nobody:
        {"role": "assistant", "content": [{"type": "text", "text": "Done: freed 12G."}]},
    ]
    loaded = load_bytes(json.dumps(messages))
    text, steps = loaded.report.text(), loaded.item.steps
    assert "1 tool call(s) had no tool message: their result is empty" in text
    assert "1 tool message(s) answered no call of their assistant message" in text
    assert "1 user turn(s) came after tool results with no assistant reply between" in text
    assert "1 assistant reply(ies) without tool calls were followed by another assistant message" in text
    assert "1 tool call(s) had arguments that are not a JSON object" in text
    assert steps[0].observations == ["91% used", "", "I/O error on sda", "Also look at /var."]
    assert read_reply(steps[1].response).actions[0]["action_input"] == {"arguments": "/var not json"}
    assert read_reply(steps[-1].response).final_answer == "Done: freed 12G."
    every_text = json.dumps(loaded.item.to_dict(), ensure_ascii=False)
    for m in messages:
        content = m["content"] if isinstance(m["content"], str) else (m["content"] or [{"text": ""}])[0]["text"]
        assert json.dumps(content, ensure_ascii=False)[1:-1] in every_text


def test_a_fence_inside_a_message_is_not_taken_for_the_reply():
    messages = [{"role": "user", "content": "Format it."},
                {"role": "assistant", "content": "Use ```json\n{}\n``` blocks, like ```{}```."},
                {"role": "user", "content": "ok"},
                {"role": "assistant", "content": "Done."}]
    trace = load_bytes(json.dumps(messages)).item
    assert read_reply(trace.steps[0].response).actions[0]["action_input"]["message"] == messages[1]["content"]
    assert _replay(trace).final_answer == "Done."


def test_a_step_over_the_cap_is_cut_longest_text_first_and_the_report_says_so():
    long = "x" * 20_000
    messages = [{"role": "user", "content": "Write it."},
                {"role": "assistant", "content": None, "tool_calls": [_call("c1", "write", path="a.txt", text=long)]},
                {"role": "tool", "tool_call_id": "c1", "content": "written"},
                {"role": "assistant", "content": "Written."}]
    loaded = load_bytes(json.dumps(messages))
    assert "1 step(s) were over the 12,000-character step cap and were cut" in loaded.report.text()
    assert not loaded.report.text().endswith("nothing cut")
    action = read_reply(loaded.item.steps[0].response).actions[0]["action_input"]
    assert action["path"] == "a.txt" and action["text"].endswith("[cut by the lab to the 12,000-character step cap]")
    assert len(loaded.item.steps[0].response) <= 12_000


# ── LangChain / LangGraph ──────────────────────────────────────────────────

def _langchain_messages():
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
    out = []
    for m in TRANSCRIPT:
        if m["role"] == "system":
            out.append(SystemMessage(m["content"]))
        elif m["role"] == "user":
            out.append(HumanMessage(m["content"]))
        elif m["role"] == "tool":
            out.append(ToolMessage(m["content"], tool_call_id=m["tool_call_id"], name=m["name"]))
        else:
            calls = [{"name": c["function"]["name"], "args": json.loads(c["function"]["arguments"]), "id": c["id"]}
                     for c in m.get("tool_calls", [])]
            out.append(AIMessage(m["content"] or "", tool_calls=calls))
    return out


@pytest.mark.parametrize("form", ["messages_to_dict", "dumpd", "langgraph state"])
def test_langchain_messages_import_by_the_same_mapping_as_openai_messages(form):
    from langchain_core.load import dumpd
    from langchain_core.messages import messages_to_dict
    messages = _langchain_messages()
    raw = {"messages_to_dict": lambda: messages_to_dict(messages), "dumpd": lambda: dumpd(messages),
           "langgraph state": lambda: dumpd({"messages": messages})}[form]()
    loaded = load_bytes(json.dumps(raw))
    assert loaded.report.format == "LangChain messages"
    assert loaded.report.text().startswith("LangChain messages: 16 messages → 6 steps; the system prompt (570 "
                                           "characters) is kept as the agent's system prompt")
    assert "3 user turns became `user` tool results" in loaded.report.text()
    openai = load_bytes(json.dumps(TRANSCRIPT)).item
    assert [s.response for s in loaded.item.steps] == [s.response for s in openai.steps]
    assert [s.observations for s in loaded.item.steps] == [s.observations for s in openai.steps]
    assert loaded.item.task == openai.task


# ── autourgos-agent history= ───────────────────────────────────────────────

def _history_run(tmp_path, responses, tools, **kwargs):
    """A real agent with scripted replies and real tools, writing its own history= file."""
    from autourgos_agent.testing import make_test_agent
    agent = make_test_agent(responses=responses, tools=tools, history=str(tmp_path), **kwargs)
    answer = agent.invoke("Find the failing service and say why it fails; quote its error code.")
    agent._history.flush()
    [path] = sorted(tmp_path.glob("Task_*.json"))
    return answer, path


LOGS = {"api": "ok " * 50, "billing": ("ERR_503 upstream timeout at 12:01; " * 30) + "last: ERR_503"}
TOOLS = [{"name": "list_services", "description": "List services.", "parameters": {"type": "object", "properties": {}},
          "func": lambda: "api, billing"},
         {"name": "fetch_logs", "description": "Fetch a service's logs.",
          "parameters": {"type": "object", "properties": {"service": {"type": "string"}}, "required": ["service"]},
          "func": lambda service: LOGS[service]}]


def _reply(thought, actions=(), final=None):
    return json.dumps({"thought": thought, "actions": [{"action": a, "action_input": i} for a, i in actions],
                       "final_answer": final})


HISTORY_REPLIES = [
    _reply("List the services first.", [("list_services", {})]),
    _reply("Fetch both logs.", [("fetch_logs", {"service": "api"}), ("fetch_logs", {"service": "billing"})]),
    "The billing log is long; I am thinking in prose now instead of JSON.",
    _reply("billing fails with ERR_503.", final="billing fails: ERR_503 upstream timeout."),
]


def test_a_real_agents_history_imports_and_replays_to_the_recorded_final_answer(tmp_path):
    answer, path = _history_run(tmp_path, HISTORY_REPLIES, TOOLS)
    loaded = load_file(path)
    report = loaded.report
    assert report.format == "autourgos-agent history" and report.task_missing
    text = report.text()
    assert text.startswith("autourgos-agent history: 4 iterations → 4 steps; 3 raw replies rebuilt from thought and "
                           "tools in the agent's reply format")
    assert "1 iteration with no action and no answer replayed as the text the history kept of the reply" in text
    assert "the query was not recorded ([REDACTED: length=68])" in text
    assert "1 text the history writer cut at 512 characters (\"... [TRUNCATED]\"): 1 tool results" in text
    assert report.cut == 1 and report.rebuilt == 3
    trace = loaded.item
    assert trace.task == "[REDACTED: length=68]"
    assert trace.steps[1].observations[1].endswith("... [TRUNCATED]"), "the writer's cut replays as written"
    assert trace.steps[2].response == HISTORY_REPLIES[2], "the unusable reply is the text the writer kept"
    assert {t.name for t in trace.tools} == {"list_services", "fetch_logs"}
    assert loaded.warnings == ["step 3: the agent cannot read an action or a final answer in this response, so it "
                               "counts it as a reply in the wrong format (three in a row end the replay). The format "
                               "is " + '{"thought": "...", "actions": [{"action": "tool_name", "action_input": '
                               '{"param": "value"}}], "final_answer": null}.']
    record = _replay(trace)
    assert record.outcome == "answered" and record.final_answer == answer == "billing fails: ERR_503 upstream timeout."
    assert sum(1 for e in record.events if e.kind == "iteration") == 4


def test_a_history_takes_the_task_it_did_not_record_from_the_caller(tmp_path):
    _, path = _history_run(tmp_path, HISTORY_REPLIES, TOOLS)
    task = "Find the failing service and say why it fails; quote its error code."
    loaded = load_file(path, task=task)
    assert loaded.item.task == task and not loaded.report.task_missing
    assert "the task is the one given" in loaded.report.text()


# ── refusals ───────────────────────────────────────────────────────────────

def test_a_file_of_no_known_format_gets_one_message_naming_each_format_and_why():
    with pytest.raises(TraceImportError) as caught:
        load_bytes(json.dumps({"events": [1, 2, 3]}), "The uploaded file")
    message = str(caught.value)
    assert message.startswith("The uploaded file is none of the formats the lab reads: ")
    for said in ("not a scratchpad-lab run record or trace (no \"schema\"; expected",
                 "not autourgos-agent history (no \"query\", \"iterations\", \"final_response\")",
                 "not OpenAI chat messages (a JSON object with no \"messages\"",
                 "not LangChain messages ("):
        assert said in message
    assert isinstance(caught.value, ValueError)


@pytest.mark.parametrize("raw, says", [
    ([{"role": "robot", "content": "x"}, {"role": "assistant", "content": "y"}], "has the role 'robot'"),
    ([{"role": "user", "content": "only a question"}], "with no assistant message"),
    ({"query": "q", "iterations": [], "final_response": None}, "the history has no iterations"),
    ({"query": "q", "iterations": [{"tools": "[REDACTED]", "observations": []}], "final_response": "a"},
     "were not recorded (the writer's include_tools"),
])
def test_a_file_in_a_known_format_that_cannot_be_used_says_what_is_wrong(raw, says):
    with pytest.raises(TraceImportError, match=__import__("re").escape(says)):
        load_bytes(json.dumps(raw))


def test_a_forced_format_refuses_a_file_of_another_format_with_its_reason():
    with pytest.raises(TraceImportError, match=r"run.json is not autourgos-agent history: not a JSON object"):
        load_bytes(json.dumps(TRANSCRIPT), "run.json", format="autourgos-history")
    assert importers.names() == ["autourgos-history", "mini-swe-agent", "openai-chat", "swe-agent", "langchain",
                                 "claude-code"]


def test_a_file_that_is_not_json_nor_json_lines_is_refused_as_before():
    from scratchpad_lab.model.trace import RecordError
    with pytest.raises(RecordError, match="is not valid JSON"):
        load_bytes(b"{not json", "f.json")
    with pytest.raises(RecordError, match=r"f.jsonl, line 2, is not valid JSON"):
        load_bytes(b'{"role": "user", "content": "a"}\n{"role": oops}\n', "f.jsonl")


def test_a_replys_recorded_usage_is_kept_with_the_conversation_and_round_trips():
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage, messages_to_dict

    from scratchpad_lab.engine.importers import import_raw
    from scratchpad_lab.model.trace import Trace

    recorded = [SystemMessage("Be brief."), HumanMessage("Find x."),
                AIMessage("", tool_calls=[{"name": "search", "args": {"q": "x"}, "id": "a"}],
                          usage_metadata={"input_tokens": 50, "output_tokens": 5, "total_tokens": 55}),
                ToolMessage("x=4", tool_call_id="a"), AIMessage("x is 4.")]
    trace = import_raw(messages_to_dict(recorded)).trace
    assert [m.usage for m in trace.messages if m.role == "assistant"] == [
        {"input_tokens": 50, "output_tokens": 5, "total_tokens": 55}, None]
    assert trace.system == "Be brief." and Trace.from_dict(trace.to_dict()).to_dict() == trace.to_dict()
