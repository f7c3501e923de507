"""What in a trace will not replay as it reads, each said with its step number.

Streamlit-free. A trace that passes the schema can still hold steps the agent will not take as meant:
a response that is not in the agent's reply format (the agent counts it as a parse error; three in a
row end the run), a step whose observations do not match its actions (a missing one is answered with
a "[replay] ... has no observation" text, extra ones are never used), an action calling a tool the
trace does not declare (the agent answers it with its own "tool not found" error), a final answer
before the last step (the steps after it never run), and a last step without a final answer.

These are warnings, not refusals: every one of them also happens in real recorded runs (a model that
replied in prose, called a tool it does not have, or was cut off before answering), and showing such a
run is part of what the lab is for. So the file loads, and each problem is shown next to it: on the
page as a warning, on the command line on stderr.

One thing is a refusal: a trace whose responses would take the agent's parser longer than
PARSE_BUDGET_S to read (text with many "}" that is not JSON is retried at every "}", quadratic in its
length; a file of such steps at the size cap is about five minutes of CPU for each reading, and every
replay reads it again). The cost is judged in linear time before any step is parsed (`check_parse_work`).
"""
from __future__ import annotations

from typing import List

from scratchpad_lab.engine.run.reply import REPLY_FORMAT, parse_seconds, read_reply
from scratchpad_lab.model.trace import RecordError, Trace

MAX_WARNINGS = 20  # a long broken trace says the first ones and how many more


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


PARSE_BUDGET_S = 5.0  # the agent's parser on all of a file's responses, once (a valid trace's: milliseconds)


class ParseWorkExceeded(RecordError):
    """Reading a trace's responses would cost more than PARSE_BUDGET_S; the message says which steps."""


def check_parse_work(trace: Trace, where: str = "The trace") -> float:
    """The estimated seconds the agent's parser takes on every response, once; ParseWorkExceeded when that
    is over PARSE_BUDGET_S (checked before any response is parsed, in linear time)."""
    costs = [parse_seconds(step.response) for step in trace.steps]
    total = sum(costs)
    if total > PARSE_BUDGET_S:
        worst = sorted(range(len(costs)), key=lambda k: -costs[k])[:5]
        named = ", ".join(str(k + 1) for k in sorted(worst) if costs[k] > 0)
        raise ParseWorkExceeded(
            f"{where}: the agent's reply parser would take about {total:,.0f} s to read its steps' responses, over "
            f"the {PARSE_BUDGET_S:.0f} s a trace may take (the parse-work limit). Responses that are not JSON but "
            f"hold many \"}}\" are tried again at every one (the slowest: steps {named}). Make each response one "
            f"JSON object in the agent's reply format, {REPLY_FORMAT}, or remove those steps.")
    return total


def check_trace(trace: Trace, where: str = "The trace") -> List[str]:
    """One sentence per problem, each starting with the step it is in ("step 3: ..."); ParseWorkExceeded
    first, before any parsing, when the responses would take too long to read."""
    check_parse_work(trace, where)
    problems: List[str] = []
    declared = [t.name for t in trace.tools]
    last = len(trace.steps)
    for number, step in enumerate(trace.steps, start=1):
        reply = read_reply(step.response)
        if reply.final_answer is not None:
            if reply.actions:
                problems.append(f"step {number}: the response has both actions and a final answer; the agent takes "
                                "the final answer and runs none of the actions.")
            if number < last:
                problems.append(f"step {number}: the response gives a final answer, so the agent stops there and "
                                f"steps {number + 1} to {last} are never replayed.")
            if step.observations:
                problems.append(f"step {number}: a final answer runs no action, so its "
                                f"{_plural(len(step.observations), 'observation')} are never used.")
            continue
        if not reply.actions:
            problems.append(f"step {number}: the agent cannot read an action or a final answer in this response, "
                            f"so it counts it as a reply in the wrong format (three in a row end the replay). "
                            f"The format is {REPLY_FORMAT}.")
            if step.observations:
                problems.append(f"step {number}: with no action, its {_plural(len(step.observations), 'observation')}"
                                " are never used.")
        else:
            acts, seen = len(reply.actions), len(step.observations)
            if seen < acts:
                problems.append(f"step {number}: {_plural(acts, 'action')} but {_plural(seen, 'observation')}; "
                                f"action {seen + 1}{'' if acts - seen == 1 else f' to {acts}'} gets a "
                                "'[replay] no observation' text instead of a recorded result. Add one observation "
                                "per action, in order.")
            elif seen > acts:
                problems.append(f"step {number}: {_plural(acts, 'action')} but {_plural(seen, 'observation')}; the "
                                f"last {seen - acts} are never used. Give one observation per action, in order.")
            for k, action in enumerate(reply.actions, start=1):
                name = action.get("action", "")
                if name not in declared:
                    known = ", ".join(declared) if declared else "none"
                    problems.append(f"step {number}, action {k}: calls the tool {name!r}, which the trace does not "
                                    f"declare (its tools: {known}); the agent answers it with its own 'tool not "
                                    "found' error. Add the tool to \"tools\".")
        if number == last:
            problems.append(f"step {number} (the last): gives no final answer, so the replay ends with an error "
                            "after it. End the trace with a step whose response has a final_answer.")
    if len(problems) > MAX_WARNINGS:
        problems = problems[:MAX_WARNINGS] + [f"... and {len(problems) - MAX_WARNINGS} more."]
    return problems
