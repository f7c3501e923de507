"""Trace files: any agent's trajectory, in one small JSON shape, so it can be replayed here.

    {"schema": "scratchpad-lab/trace@1", "task": "...",
     "tools": [{"name": "search", "description": "..."}],
     "steps": [{"response": "<raw text the agent LLM returned at this iteration>",
                "observations": ["<raw result of action 1>", "..."]}]}

steps[i] is iteration i+1; observations[k] answers the k-th action of that step's response. The
observations are raw (uncut): the agent cuts them to max_tool_output_chars on replay as usual.
Streamlit-free; loading never trusts the file.
"""
from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Union

from .untrusted import clean_json, may_hold_surrogates

TRACE_SCHEMA = "scratchpad-lab/trace@1"
MAX_FILE_BYTES = 10 * 1024 * 1024
MAX_STEPS = 5000
# The longest response one agent step may be, in a file or from a model. The agent's JSON parser
# (autourgos_agent.runtime.parse_json_object) retries at every "}" of text that is not JSON, which is
# quadratic: bench/parse_cap.py measures its worst case at this size (well under a second).
MAX_STEP_RESPONSE_BYTES = 12_000


class RecordError(ValueError):
    """A run or trace file cannot be used; the message says what is wrong and what to do."""


@dataclass
class TraceTool:
    name: str
    description: str = ""
    parameters: Dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> Dict[str, Any]:
        out: Dict[str, Any] = {"name": self.name, "description": self.description}
        if self.parameters:
            out["parameters"] = self.parameters
        return out


@dataclass
class TraceStep:
    response: str
    observations: List[str] = field(default_factory=list)


@dataclass
class Trace:
    task: str
    tools: List[TraceTool]
    steps: List[TraceStep]

    def to_dict(self) -> Dict[str, Any]:
        return {
            "schema": TRACE_SCHEMA,
            "task": self.task,
            "tools": [t.to_dict() for t in self.tools],
            "steps": [{"response": s.response, "observations": list(s.observations)} for s in self.steps],
        }

    @classmethod
    def from_dict(cls, raw: Any, where: str = "trace") -> "Trace":
        if not isinstance(raw, dict):
            raise RecordError(f"{where}: expected a JSON object at the top level.")
        if raw.get("schema") != TRACE_SCHEMA:
            raise RecordError(f"{where}: schema is {raw.get('schema')!r}; expected {TRACE_SCHEMA!r}.")
        task = raw.get("task")
        if not isinstance(task, str):
            raise RecordError(f"{where}: 'task' must be a string.")
        tools_raw = raw.get("tools", [])
        if not isinstance(tools_raw, list):
            raise RecordError(f"{where}: 'tools' must be a list of {{name, description}} objects.")
        tools = []
        for i, tool in enumerate(tools_raw):
            if not isinstance(tool, dict) or not isinstance(tool.get("name"), str) or not tool["name"]:
                raise RecordError(f"{where}: tools[{i}] needs a non-empty string 'name'.")
            description = tool.get("description", "")
            parameters = tool.get("parameters", {})
            if not isinstance(description, str) or not isinstance(parameters, dict):
                raise RecordError(f"{where}: tools[{i}] 'description' must be text and 'parameters' an object.")
            problem = parameters_problem(parameters)
            if problem:
                raise RecordError(f"{where}: tools[{i}].parameters {problem}")
            tools.append(TraceTool(tool["name"], description, parameters))
        steps_raw = raw.get("steps")
        if not isinstance(steps_raw, list) or not steps_raw:
            raise RecordError(f"{where}: 'steps' must be a non-empty list.")
        if len(steps_raw) > MAX_STEPS:
            raise RecordError(f"{where}: {len(steps_raw)} steps is over the limit of {MAX_STEPS}.")
        steps = []
        for i, step in enumerate(steps_raw):
            if not isinstance(step, dict) or not isinstance(step.get("response"), str):
                raise RecordError(f"{where}: steps[{i}] needs a string 'response'.")
            size = len(step["response"].encode("utf-8"))
            if size > MAX_STEP_RESPONSE_BYTES:
                raise RecordError(step_too_large(f"{where}: steps[{i}].response", size))
            observations = step.get("observations", [])
            if not isinstance(observations, list) or not all(isinstance(o, str) for o in observations):
                raise RecordError(f"{where}: steps[{i}].observations must be a list of strings.")
            steps.append(TraceStep(step["response"], list(observations)))
        return cls(task=task, tools=tools, steps=steps)


def parameters_problem(parameters: Dict[str, Any]) -> str:
    """What is wrong with a tool's JSON-Schema parameters for the agent's prompt ('' if nothing): the agent
    reads `properties` as {name: {type, description}} and `required` as a list of names."""
    props = parameters.get("properties", {})
    if not isinstance(props, dict):
        return "'properties' must be an object of {parameter name: {type, description}}."
    for name, info in props.items():
        if not isinstance(info, dict):
            return f"'properties' entry {str(name)[:60]!r} must be an object such as {{\"type\": \"string\"}}."
    required = parameters.get("required", [])
    if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
        return "'required' must be a list of parameter names."
    return ""


def step_too_large(what: str, size: int) -> str:
    return (f"{what} is {size:,} bytes; one agent step may be at most {MAX_STEP_RESPONSE_BYTES:,} bytes "
            "(the agent's JSON parser slows down sharply on longer text that is not JSON). Shorten that step.")


def parse_json_bytes(data: Union[bytes, str], where: str) -> Any:
    """Decode an untrusted JSON document with a size cap, raising RecordError on anything wrong."""
    size = len(data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data)
    if size > MAX_FILE_BYTES:
        raise RecordError(
            f"{where} is {size / 1e6:.1f} MB; the limit is {MAX_FILE_BYTES / 1e6:.0f} MB. "
            "Use a shorter run or trace.")
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
        raw = json.loads(text)
        return clean_json(raw) if may_hold_surrogates(text) else raw  # text from a file is made safe here
    except UnicodeDecodeError:
        raise RecordError(f"{where} is not UTF-8 text; expected a JSON run record or trace.") from None
    except RecursionError:
        raise RecordError(f"{where} is nested too deeply to be a run record or trace.") from None
    except json.JSONDecodeError as exc:
        raise RecordError(f"{where} is not valid JSON ({exc.msg} at line {exc.lineno}).") from None
    except ValueError as exc:  # an integer of more digits than Python will convert
        if "digits" in str(exc):
            raise RecordError(f"{where} holds a number of more than {sys.get_int_max_str_digits():,} digits; no "
                              "field of a run record or trace is a number that long. Remove it.") from None
        raise RecordError(f"{where} holds a value that cannot be read as JSON.") from None


def read_file_bytes(path: Union[str, Path]) -> bytes:
    p = Path(path)
    if not p.is_file():
        raise RecordError(f"{p} does not exist or is not a file.")
    if p.stat().st_size > MAX_FILE_BYTES:
        raise RecordError(f"{p} is {p.stat().st_size / 1e6:.1f} MB; the limit is {MAX_FILE_BYTES / 1e6:.0f} MB.")
    return p.read_bytes()
