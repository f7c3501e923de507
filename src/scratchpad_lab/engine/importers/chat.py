"""Chat messages (OpenAI's, LangChain's) to a trace: the one documented mapping both importers use.

Streamlit-free. The format modules read their files into `Message`s; `to_trace` maps them:

- the conversation is kept in its own shape (the trace's `system` and `messages`, `_conversation`): the system
  message(s) before the first assistant message are the agent's system prompt, user turns stay user turns,
  replies keep their tool calls and results their call ids. The message strategies are given that;
- for the autourgos strategies (one task, a scratchpad of steps): the user message(s) before the first
  assistant message are the task (the system prompt is the agent's own `system_prompt`, not the task);
- each assistant message is one model call, so one step. Its tool calls are the step's actions (its
  text, if any, the step's thought), and the tool messages after it, matched to the calls by
  `tool_call_id` in order (by position when a message has no id the step knows), its observations;
- an assistant reply without tool calls that a later user message answers becomes a call to a `user`
  tool (input: the reply) whose observation is that user message (several user messages in a row are
  joined); a later system message is given the same way, marked "[system]";
- the last assistant reply without tool calls is the final answer; messages after it (a simulated
  user's "###STOP###") are kept in the final step's response under "after_final_answer", a key the
  agent does not read.

Nothing of the text is dropped. What the mapping had to decide is counted in the report: a call no tool
message answered (empty result), a tool message that answered no call (an extra action), a user turn
after tool results with no assistant reply between (added to that step as a `user` call), an assistant
reply followed by another assistant message (a `user` call with an empty result), arguments that were
not a JSON object (kept as text), and any step cut to the step cap.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

from scratchpad_lab.engine.importers import ImportReport, Imported, TraceImportError
from scratchpad_lab.engine.run.reply import build_reply
from scratchpad_lab.model.schemas import MAX_STEP_ACTIONS, MAX_STEP_RESPONSE_CHARS, MAX_STEPS, MAX_TOOLS
from scratchpad_lab.model.trace import RecordError, Trace
from scratchpad_lab.model.untrusted import clean_text

USER_TOOL = "user"
USER_TOOL_DESCRIPTION = ("The person in the conversation: the input is what the agent said to them, the result is "
                         "their reply (a user turn of the transcript).")
STEP_CUT = f" ... [cut by the lab to the {MAX_STEP_RESPONSE_CHARS:,}-character step cap]"
AFTER_FINAL = "after_final_answer"


@dataclass
class Call:
    name: str
    arguments: Any                 # the parsed arguments (an object), or the text when it was not JSON
    id: Optional[str] = None


@dataclass
class Message:
    role: str                      # "system" | "user" | "assistant" | "tool"
    text: str = ""
    calls: List[Call] = field(default_factory=list)
    call_id: Optional[str] = None  # a tool message: the call it answers
    name: Optional[str] = None     # a tool message: the tool's name
    usage: Optional[Dict[str, int]] = None  # an assistant reply's recorded token usage, where the file has it


def usage_of(value: Any) -> Optional[Dict[str, int]]:
    """A reply's recorded token usage as whole numbers by name (LangChain's usage_metadata, OpenAI's usage), or None."""
    if not isinstance(value, dict):
        return None
    out = {str(k)[:60]: int(v) for k, v in value.items()
           if isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 10**12}
    return out or None


def arguments_of(value: Any) -> Tuple[Any, bool]:
    """(arguments as the agent's action_input, whether they had to be kept as text)."""
    if isinstance(value, dict):
        return value, False
    if isinstance(value, str):
        try:
            parsed = json.loads(value) if value.strip() else {}
        except (ValueError, RecursionError):
            parsed = None
        if isinstance(parsed, dict):
            return parsed, False
        return {"arguments": value}, True
    if value is None:
        return {}, False
    return {"arguments": json.dumps(value, ensure_ascii=False)}, True


def text_of(content: Any) -> str:
    """A message's content as text: a string as it is; a list of parts as their texts, one per line (a part
    that is not text is kept as its JSON, so nothing is dropped)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, dict) and isinstance(part.get("text"), str):
                parts.append(part["text"])
            elif isinstance(part, dict) and part.get("type") in ("tool_use", "tool_call", "function_call"):
                continue  # the same call is in the message's tool calls
            else:
                parts.append(json.dumps(part, ensure_ascii=False))
        return "\n".join(parts)
    return json.dumps(content, ensure_ascii=False)


def json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    return "string"


def _tool_spec(name: str, description: str, parameters: Any) -> Dict[str, Any]:
    spec: Dict[str, Any] = {"name": name, "description": clean_text(description or "")}
    if isinstance(parameters, dict):
        props = parameters.get("properties")
        props = {k: v for k, v in props.items() if isinstance(k, str) and isinstance(v, dict)} \
            if isinstance(props, dict) else {}
        required = [r for r in parameters.get("required", []) if isinstance(r, str)] \
            if isinstance(parameters.get("required"), list) else []
        spec["parameters"] = {"type": "object", "properties": props, **({"required": required} if required else {})}
    return spec


@dataclass
class _Step:
    thought: Optional[str]
    actions: List[Dict[str, Any]]
    observations: List[Optional[str]]   # None: not answered yet
    ids: List[Optional[str]]            # each action's tool_call_id (None for a `user` call)
    kinds: List[str]                    # each action: "call" (a tool call) or "user" (a user turn)
    final: Optional[str] = None
    after: List[str] = field(default_factory=list)
    waits_for_user: bool = False        # an assistant reply without tool calls: the next user turn answers it
    reply_turns: int = 0                # the user turns that answered that reply

    def add(self, action: Dict[str, Any], observation: Optional[str], call_id: Optional[str], kind: str) -> None:
        self.actions.append(action)
        self.observations.append(observation)
        self.ids.append(call_id)
        self.kinds.append(kind)


class _Counts:
    def __init__(self) -> None:
        self.user_results = self.later_system = self.unanswered = self.orphans = self.by_position = 0
        self.interjections = self.to_nobody = self.text_arguments = self.cut_steps = 0


def to_trace(messages: List[Message], *, label: str, where: str, unit: str = "messages",
             declared: Optional[List[Dict[str, Any]]] = None, task: Optional[str] = None,
             notes: Optional[List[str]] = None, compactions: Optional[List[Dict[str, Any]]] = None) -> Imported:
    """The trace of one conversation and the report; TraceImportError when it has no assistant message.
    `compactions`: the recording's own ({"before": index in `messages` of the first message after it, "trigger",
    "tokens_before", "summary"}), kept with the conversation at the same place."""
    counts = _Counts()
    first = next((i for i, m in enumerate(messages) if m.role == "assistant"), None)
    if first is None:
        raise TraceImportError(f"{where}: {label} with no assistant message: there is no model call to replay.")
    systems = [m.text for m in messages[:first] if m.role == "system"]
    users = [m.text for m in messages[:first] if m.role in ("user", "tool")]
    report_notes = list(notes or [])
    system = "\n\n".join(systems)
    own_task = "\n\n".join(users)
    if task and own_task.strip():
        report_notes.append("--task is not used: the transcript carries its own task")
    elif task:
        own_task = task
    user_tool = USER_TOOL
    declared = list(declared or [])
    taken = {t["name"] for t in declared}
    used_names: List[str] = []
    if USER_TOOL in taken or any(c.name == USER_TOOL for m in messages for c in m.calls):
        user_tool = "user_turn"

    steps: List[_Step] = []
    for number, message in enumerate(messages[first:], start=first + 1):
        if message.role == "assistant":
            if len(steps) >= MAX_STEPS:  # counted as each is read, so an over-long file costs no more work
                raise TraceImportError(f"{where}: more than {MAX_STEPS:,} assistant messages; a trace may have at "
                                       f"most {MAX_STEPS:,} steps. Import a shorter conversation.")
            if len(message.calls) > MAX_STEP_ACTIONS:
                raise TraceImportError(too_many_actions(where, number, len(message.calls)))
            if steps and steps[-1].waits_for_user:  # a reply nobody answered before the model spoke again
                steps[-1].observations[-1] = ""
                steps[-1].waits_for_user = False
                counts.to_nobody += 1
            step = _Step(message.text or None, [], [], [], [])
            for call in message.calls:
                arguments, as_text = arguments_of(call.arguments)
                counts.text_arguments += as_text
                step.add({"action": call.name, "action_input": arguments}, None, call.id, "call")
                if call.name not in used_names:
                    used_names.append(call.name)
            if not message.calls:
                step.thought = None
                step.add({"action": user_tool, "action_input": {"message": message.text}}, None, None, "user")
                step.waits_for_user = True
            steps.append(step)
        elif message.role == "tool":
            _answer_call(steps[-1], message, counts)
        else:  # a user (or later system) turn
            text = message.text if message.role == "user" else "[system] " + message.text
            counts.later_system += message.role == "system"
            step = steps[-1]
            if step.waits_for_user:
                step.observations[-1] = text
                step.waits_for_user = False
                step.reply_turns += message.role == "user"
            elif step.kinds[-1] == "user" and step.observations[-1] is not None:
                step.observations[-1] += "\n\n" + text  # several turns in a row answer the same reply
                step.reply_turns += message.role == "user"
            else:  # the person spoke after tool results, with no assistant reply between
                step.add({"action": user_tool, "action_input": {"message": ""}}, text, None, "user")
                step.reply_turns += message.role == "user"
                counts.interjections += 1
        if steps and len(steps[-1].actions) > MAX_STEP_ACTIONS:  # tool messages that answered no call add actions
            raise TraceImportError(too_many_actions(where, number, len(steps[-1].actions)))
    counts.user_results = sum(s.reply_turns for s in steps)

    _final_answer(steps, user_tool, counts, report_notes)
    for step in steps:
        for k, seen in enumerate(step.observations):
            if seen is None:
                step.observations[k] = ""
                counts.unanswered += 1
    tools = [_tool_spec(t["name"], t.get("description", ""), t.get("parameters")) for t in declared]
    for name in used_names:
        if name not in taken:
            sample = next(s.actions[k]["action_input"] for s in steps for k in range(len(s.actions))
                          if s.actions[k]["action"] == name)
            props = {k: {"type": json_type(v)} for k, v in sample.items()} if isinstance(sample, dict) else {}
            tools.append(_tool_spec(name, f"{name} (from the transcript; it declares no description)",
                                    {"properties": props}))
            taken.add(name)
    if any(a["action"] == user_tool for s in steps for a in s.actions):
        tools.append(_tool_spec(user_tool, USER_TOOL_DESCRIPTION,
                                {"properties": {"message": {"type": "string"}}, "required": ["message"]}))
    if len(tools) > MAX_TOOLS:
        raise TraceImportError(f"{where}: {len(tools)} tools; a trace may declare at most {MAX_TOOLS}.")
    conversation, unanswered, orphans, where_in = _conversation(messages, first)
    kept_compactions = []
    for c in compactions or []:
        at = where_in[c["before"]] if c["before"] < len(where_in) else len(conversation)
        kept_compactions.append({"at": at, "replaced": at - (kept_compactions[-1]["at"] if kept_compactions else 0),
                                 "trigger": clean_text(str(c.get("trigger") or ""))[:200],
                                 "tokens_before": c.get("tokens_before"), "summary": clean_text(c.get("summary") or ""),
                                 "by": clean_text(str(c.get("by") or ""))[:200]})
    raw = {"schema": "scratchpad-lab/trace@1", "task": clean_text(own_task), "tools": tools,
           "steps": [{"response": _response(s, counts), "observations": [clean_text(o) for o in s.observations]}
                     for s in steps],
           "system": clean_text(system), "messages": conversation, "compactions": kept_compactions}
    try:
        trace = Trace.from_dict(raw, where)
    except RecordError as exc:
        raise TraceImportError(f"{where}: imported as {label}, but the result is not a valid trace: {exc}") from None
    report_notes[:0] = _shape_notes(system, conversation, user_tool, counts) + _mapping_notes(counts, user_tool)
    summary = f"{len(messages):,} {unit} → {len(steps):,} step{'' if len(steps) == 1 else 's'}"
    return Imported(trace, ImportReport(label, summary, report_notes, cut=counts.cut_steps))


def _conversation(messages: List[Message], first: int) -> Tuple[List[Dict[str, Any]], int, int, List[int]]:
    """The conversation as a LangChain agent would hold it: (messages as the trace's `messages`, calls no result
    answered, results that answered no call, where each input message starts in the output). System messages before the first assistant message are the system
    prompt (not messages); user turns stay user turns; each call gets an id of its own (two recorded runs reuse
    an id across turns), and each tool result is paired with its call by the mapping the steps use (its
    tool_call_id among the open calls of the assistant message before it, else its tool's name, else position).
    A call no result answered gets an empty result (a LangChain agent cannot hold a call without one), and a
    result that answered no call becomes a call of the assistant message before it, as in the steps."""
    out: List[Dict[str, Any]] = []
    used: set = set()
    open_calls: List[Dict[str, Any]] = []   # the latest assistant message's calls still without a result
    last_ai: Optional[Dict[str, Any]] = None
    unanswered = orphans = 0
    where_in: List[int] = []

    def fresh(wanted: Optional[str]) -> str:
        base = wanted or f"call_{len(used) + 1}"
        name, n = base, 1
        while name in used:
            n += 1
            name = f"{base}#{n}"
        used.add(name)
        return name

    def close_open() -> None:
        nonlocal unanswered
        for call in open_calls:
            out.append({"role": "tool", "text": "", "call_id": call["id"], "name": call["name"]})
            unanswered += 1
        open_calls.clear()

    for index, message in enumerate(messages):
        if message.role != "tool":
            close_open()  # a call no result answered gets its empty one before the next message
        where_in.append(len(out))
        if index < first and message.role == "system":
            continue  # the system prompt: the trace's `system`
        text = clean_text(message.text)
        if message.role == "assistant":
            calls = []
            for call in message.calls:
                arguments, _ = arguments_of(call.arguments)
                calls.append({"id": fresh(call.id), "name": call.name, "args": json.loads(json.dumps(arguments)),
                              "recorded_id": call.id})
            last_ai = {"role": "assistant", "text": text,
                       "calls": [{k: c[k] for k in ("id", "name", "args")} for c in calls],
                       **({"usage": message.usage} if message.usage else {})}
            out.append(last_ai)
            open_calls[:] = calls
        elif message.role == "tool" and last_ai is not None:
            match = next((c for c in open_calls if message.call_id is not None
                          and c["recorded_id"] == message.call_id), None)
            if match is None and not (message.call_id is not None and any(c["recorded_id"] for c in open_calls)):
                match = next((c for c in open_calls if c["name"] == message.name), None) or \
                    (open_calls[0] if open_calls else None)
            if match is None:  # answered no call of its assistant message: a call of that message, as in the steps
                orphans += 1
                match = {"id": fresh(message.call_id), "name": message.name or "tool", "args": {}}
                last_ai["calls"].append({k: match[k] for k in ("id", "name", "args")})
            else:
                open_calls.remove(match)
            out.append({"role": "tool", "text": text, "call_id": match["id"], "name": match["name"]})
        else:  # a user turn, a later system message, or a tool message before any assistant (part of the task)
            out.append({"role": "system" if message.role == "system" else "user", "text": text})
    close_open()
    return out, unanswered, orphans, where_in


def _shape_notes(system: str, conversation: List[Dict[str, Any]], user_tool: str, counts: "_Counts") -> List[str]:
    """What the import kept of the conversation's own shape, and how each kind of strategy sees it."""
    users = sum(1 for m in conversation if m["role"] == "user")
    results = sum(1 for m in conversation if m["role"] == "tool")
    notes = []
    if system:
        notes.append(f"the system prompt ({len(system):,} characters) is kept as the agent's system prompt: sent with "
                     "every model call, never a message (the autourgos agent gets it as its system_prompt)")
    notes.append(f"the conversation is kept as recorded: {users:,} user turn{'s' * (users != 1)}, "
                 f"{results:,} tool result{'s' * (results != 1)}; the message strategies see it as a LangChain "
                 "agent holds it")
    if counts.user_results or counts.later_system or counts.interjections:
        notes.append(f"an autourgos agent takes one task: for the autourgos strategies the later user turns are the "
                     f"results of a `{user_tool}` tool (the mapping an autourgos agent would need)")
    return notes


def too_many_actions(where: str, number: int, count: int) -> str:
    return (f"{where}: message {number:,} makes {count:,} tool calls (with the tool messages that answer them); a "
            f"step may make at most {MAX_STEP_ACTIONS:,} (the step limit on actions). Split that message's calls "
            "over several assistant messages, or import a shorter conversation.")


def _answer_call(step: _Step, message: Message, counts: _Counts) -> None:
    """A tool message: the first open call with its tool_call_id; else, when ids do not decide (the message or
    the calls have none), the first open call of its tool (or any open call) by position; else an extra
    action of the step."""
    open_calls = [k for k, seen in enumerate(step.observations) if seen is None and step.kinds[k] == "call"]
    by_id = [k for k in open_calls if message.call_id is not None and step.ids[k] == message.call_id]
    if by_id:
        step.observations[by_id[0]] = message.text
        return
    if message.call_id is not None and any(step.ids[k] is not None for k in open_calls):
        candidates = []  # it names a call, and not one of these: it answers none of them
    else:
        candidates = [k for k in open_calls if step.actions[k]["action"] == message.name] or open_calls
    if candidates:
        step.observations[candidates[0]] = message.text
        counts.by_position += 1
        return
    step.add({"action": message.name or "tool", "action_input": {}}, message.text, message.call_id, "call")
    counts.orphans += 1


def _final_answer(steps: List[_Step], user_tool: str, counts: _Counts, notes: List[str]) -> None:
    """The last assistant reply without tool calls is the final answer; what came after it is kept aside."""
    last = steps[-1]
    if last.kinds != ["user"] or last.thought is not None:
        notes.append("the transcript ends with tool results, not an assistant reply: there is no final answer, so "
                     "the replay ends with an error after the last step")
        return
    message = last.actions[0]["action_input"]["message"]
    after = last.observations[0]
    counts.user_results -= last.reply_turns
    if after:
        last.after = [after]
        notes.append(f"the {len(after):,} characters after the last assistant reply ({_quote(after)}) are kept in "
                     f"the final step's response under \"{AFTER_FINAL}\" (the agent does not read that key)")
    last.actions, last.observations, last.ids, last.kinds, last.waits_for_user = [], [], [], [], False
    last.final = message
    if not message:
        notes.append("the last assistant reply is empty, and the agent takes an empty final answer for none")


def _quote(text: str) -> str:
    one_line = " ".join(text.split())
    return json.dumps(one_line if len(one_line) <= 40 else one_line[:37] + "...", ensure_ascii=False)


def _response(step: _Step, counts: _Counts) -> str:
    """The step's raw reply in the agent's format, cut (longest text first) if it is over the step cap."""
    thought, actions, final = step.thought, json.loads(json.dumps(step.actions)), step.final
    after = {AFTER_FINAL: "\n\n".join(step.after)} if step.after else {}
    text = build_reply(thought, actions, final, **after)
    cut = False
    for _ in range(20):
        if len(text) <= MAX_STEP_RESPONSE_CHARS:
            break
        cut = True
        over = len(text) - MAX_STEP_RESPONSE_CHARS + len(STEP_CUT) + 16
        slots = [("thought", None), ("final", None)] + [("after", None)] * bool(after) + [
            ("input", (k, key)) for k, a in enumerate(actions) if isinstance(a["action_input"], dict)
            for key, v in a["action_input"].items() if isinstance(v, str)]
        def size(slot):
            kind, at = slot
            value = {"thought": thought, "final": final, "after": after.get(AFTER_FINAL)}.get(kind) \
                if kind != "input" else actions[at[0]]["action_input"][at[1]]
            return len(json.dumps(value or "", ensure_ascii=False))
        kind, at = max(slots, key=size)
        def shorten(value: str) -> str:
            return value[:max(0, len(value) - over)] + STEP_CUT
        if kind == "thought":
            thought = shorten(thought or "")
        elif kind == "final":
            final = shorten(final or "")
        elif kind == "after":
            after[AFTER_FINAL] = shorten(after[AFTER_FINAL])
        else:
            actions[at[0]]["action_input"][at[1]] = shorten(actions[at[0]]["action_input"][at[1]])
        text = build_reply(thought, actions, final, **after)
    counts.cut_steps += cut
    return clean_text(text)


def _mapping_notes(counts: _Counts, user_tool: str) -> List[str]:
    notes = []
    if counts.user_results == 1:
        notes.append(f"1 user turn became a `{user_tool}` tool result")
    elif counts.user_results:
        notes.append(f"{counts.user_results} user turns became `{user_tool}` tool results")
    if counts.later_system:
        notes.append(f"{counts.later_system} later system message(s) became `{user_tool}` tool results marked "
                     "[system]")
    if counts.interjections:
        notes.append(f"{counts.interjections} user turn(s) came after tool results with no assistant reply between: "
                     f"each was added to the step before as a `{user_tool}` call")
    if counts.to_nobody:
        notes.append(f"{counts.to_nobody} assistant reply(ies) without tool calls were followed by another assistant "
                     f"message, not a user turn: each became a `{user_tool}` call with an empty result")
    if counts.unanswered:
        notes.append(f"{counts.unanswered} tool call(s) had no tool message: their result is empty")
    if counts.orphans:
        notes.append(f"{counts.orphans} tool message(s) answered no call of their assistant message: each became an "
                     "extra action of that step")
    if counts.by_position:
        notes.append(f"{counts.by_position} tool message(s) had no matching tool_call_id and were matched by position")
    if counts.text_arguments:
        notes.append(f"{counts.text_arguments} tool call(s) had arguments that are not a JSON object: kept as text "
                     "under \"arguments\"")
    if counts.cut_steps:
        notes.append(f"{counts.cut_steps} step(s) were over the {MAX_STEP_RESPONSE_CHARS:,}-character step cap and "
                     "were cut, longest text first")
    return notes
