"""The one summarizer choice: what a person picks for "who writes the summaries", on any page or command.

Plain data (no client, no thread): the kind, the offline summarizer's budget, the endpoint and the prompt where
they apply. It is the one noun everywhere: a RunConfig holds one (`config.summarizer`, stored in a run file as
one object since run@3), as do a Compare setting, a study's request and the Prompt lab's columns. A job builds
its summarizer from it with engine/summarize/summarizers.py's `build_summarizer` (the one builder, which gives a
`BuiltSummarizer`), passing what belongs to the job only: its stop flag, its time left, a search's shared replies.

Kinds (SummarizerKind): "extractive" (offline, no LLM: the salient lines under the budget), "same-as-agent" (the
package's fallback to the agent's own model), "endpoint" (a model at an OpenAI-compatible endpoint), "builtin" (the
lab's own small model on this CPU, engine/summarize/builtin_model.py), "silent" (a stand-in that replies nothing,
for tests and probes).

The key, for an endpoint, is a private attribute: never validated from data, never dumped, never compared, never
in a RunConfig (which drops it), so it cannot reach a file, the store or a page.
"""
from __future__ import annotations

from typing import Any, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, model_validator

from scratchpad_lab.model.endpoint import Endpoint
from scratchpad_lab.model.errors import ConfigError

SummarizerKind = Literal["extractive", "same-as-agent", "endpoint", "silent", "builtin"]  # silent: replies nothing
# builtin: the lab's own small model on this CPU (engine/summarize/builtin_model.py); its id for token counts and records
BUILTIN_MODEL_ID = "SmolLM2-135M-Instruct"
# The offline summarizer's length cap (extractive_budget_chars where settings are written flat): its one home.
BUDGET_DEFAULT, BUDGET_LOW, BUDGET_HIGH = 1_500, 200, 50_000
# The flat names a run@1/run@2 file, a preset, a lesson, a CLI flag or a Compare row writes the choice with, and
# the field of the choice each one is.
FLAT_NAMES = {"summarizer": "kind", "extractive_budget_chars": "budget_chars", "summarizer_endpoint": "endpoint",
              "summarizer_prompt": "prompt"}

EXTRACTIVE_NAME = "extractive summarizer (offline)"  # what the offline summarizer is called in a label
# What one summary by the built-in model takes, everywhere the lab says it (measured: docs/models.md, "How slow").
# A summary of a 1,900-token prompt (the largest sample scratchpad that fits) and a 160-token reply, 1 thread.
BUILTIN_SPEED = "about 20-40 s a summary on this 2-core CPU, 90-180 s while other work keeps it busy"
# A Prompt lab column's heading: what the summarizer is, and whether it follows the prompt (issue 45: only the
# extractive summarizer ignores it).
HEADINGS = {"extractive": f"{EXTRACTIVE_NAME}: ignores the prompt",
            "builtin": f"built-in {BUILTIN_MODEL_ID} (this CPU): follows the prompt, weakly"}


def _check(kind: str, budget_chars: Any, endpoint: Optional[Endpoint]) -> None:
    if not isinstance(budget_chars, bool) and isinstance(budget_chars, int) \
            and not BUDGET_LOW <= budget_chars <= BUDGET_HIGH:
        raise ConfigError(f"extractive_budget_chars is out of range ({BUDGET_LOW:,} to {BUDGET_HIGH:,}).")
    if kind == "endpoint" and endpoint is None:
        raise ConfigError("summarizer is 'endpoint' but no summarizer endpoint (model, base URL) is set.")


def values_of(choice: "SummarizerChoice") -> dict:
    """A choice's fields as they are (the endpoint an Endpoint still), without its key."""
    return {"kind": choice.kind, "budget_chars": choice.budget_chars, "endpoint": choice.endpoint,
            "prompt": choice.prompt}


class SummarizerChoice(BaseModel):
    """Who writes the summaries. Written positionally in code (`SummarizerChoice("builtin", 900)`), as an object
    in a file (`{"kind": "builtin", "budget_chars": 900}`, types as the schema says: strict)."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, title="who writes the summaries")

    kind: SummarizerKind = Field("extractive", description="extractive, same-as-agent, endpoint, builtin or silent")
    budget_chars: int = Field(BUDGET_DEFAULT, ge=BUDGET_LOW, le=BUDGET_HIGH,
                              description="the offline extractive summarizer's longest summary, in characters")
    endpoint: Optional[Endpoint] = Field(None, description="kind endpoint: the model and where it is (never a key)")
    prompt: Optional[str] = Field(None, description="a custom prompt template; none: the package's own")
    _key: Optional[str] = PrivateAttr(None)

    def __init__(self, kind: SummarizerKind = "extractive", budget_chars: int = BUDGET_DEFAULT,
                 endpoint: Optional[Endpoint] = None, prompt: Optional[str] = None, key: Optional[str] = None,
                 **extra: Any) -> None:
        _check(kind, budget_chars, endpoint)  # ConfigError, one sentence, where code builds one
        super().__init__(kind=kind, budget_chars=budget_chars, endpoint=endpoint, prompt=prompt, **extra)
        self.__pydantic_private__["_key"] = key  # type: ignore[index]

    @model_validator(mode="after")
    def _complete(self) -> "SummarizerChoice":
        _check(self.kind, self.budget_chars, self.endpoint)  # read from a file: the same rule
        return self

    @property
    def key(self) -> Optional[str]:
        """The endpoint's key for this job only (None: the environment's)."""
        return self._key

    def with_key(self, key: Optional[str]) -> "SummarizerChoice":
        """The same choice, carrying a job's key (None: without one)."""
        return SummarizerChoice(self.kind, self.budget_chars, self.endpoint, self.prompt, key)

    def but(self, **changes: Any) -> "SummarizerChoice":
        """The same choice with some fields changed (flat names too: summarizer_prompt=...), keeping the key."""
        fields = values_of(self)
        for name, value in changes.items():
            fields[FLAT_NAMES.get(name, name)] = value
        return SummarizerChoice(**fields, key=self.key)

    def __eq__(self, other: object) -> bool:  # the key is never part of what a choice is
        return isinstance(other, SummarizerChoice) and self.model_dump() == other.model_dump()

    def __hash__(self) -> int:
        return hash(self.model_dump_json())

    @property
    def model_id(self) -> str:
        if self.kind == "builtin":
            return BUILTIN_MODEL_ID
        return self.endpoint.model if self.kind == "endpoint" and self.endpoint else "extractive"

    @property
    def heading(self) -> str:
        """The column's heading in the Prompt lab: the endpoint's model as the person named it, else what it is."""
        return self.model_id if self.kind == "endpoint" else HEADINGS.get(self.kind, self.kind)

    @property
    def follows_prompt(self) -> bool:
        """Does the prompt reach a model? The extractive summarizer and the silent stand-in never read it."""
        return self.kind in ("endpoint", "builtin", "same-as-agent")

    @property
    def measured_with(self) -> str:
        """Which summarizer a study's figures were measured with, and what that means for them: the sentence a
        benchmark, a search and a Strategies verdict give beside their picks (and keep in the store)."""
        if self.kind == "endpoint":
            return (f"Measured with the model {self.model_id} as the summarizer: another model writes other "
                    "summaries, so the summarizing strategies' figures may move with it.")
        if self.kind == "builtin":
            return (f"Measured with the built-in model ({BUILTIN_MODEL_ID} on this CPU) as the summarizer: a weak "
                    "model; a capable one writes other summaries, so the summarizing strategies' figures may move.")
        if self.kind == "silent":
            return "Measured with the silent stand-in as the summarizer: every summary is empty."
        return ("Measured with the offline extractive summarizer (it copies the most fact-dense lines and ignores "
                "prompts): an endpoint model writes other summaries, so the summarizing strategies' figures may "
                "move with one; the strategies that only trim or clear read the same.")
