"""The one summarizer choice: what a person picks for "who writes the summaries", on any page or command.

Plain data (no client, no thread, nothing stored): the kind, the offline summarizer's budget, the endpoint
and the prompt where they apply. A job builds its summarizer from it with engine/summarize/summarizers.py's
`build_summarizer` (the one builder), passing what belongs to the job only: its stop flag, its time left,
a search's shared replies. A RunConfig carries the same choice in its summarizer fields
(`run_config_fields`, `SummarizerChoice.of`).

Kinds (model/config.SummarizerKind): "extractive" (offline, no LLM: the salient lines under the budget),
"same-as-agent" (the package's fallback to the agent's own model), "endpoint" (a model at an
OpenAI-compatible endpoint), "builtin" (the lab's own small model on this CPU, engine/summarize/builtin_model.py),
"silent" (a stand-in that replies nothing, for tests and probes).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, Optional

from scratchpad_lab.model.config import BUILTIN_MODEL_ID, ConfigError, SummarizerKind, field_bounds, field_default
from scratchpad_lab.model.endpoint import Endpoint

EXTRACTIVE_NAME = "extractive summarizer (offline)"  # what the offline summarizer is called in a label
# What one summary by the built-in model takes, everywhere the lab says it (measured: docs/models.md, "How slow").
# A summary of a 1,900-token prompt (the largest sample scratchpad that fits) and a 160-token reply, 1 thread.
BUILTIN_SPEED = "about 20-40 s a summary on this 2-core CPU, 90-180 s while other work keeps it busy"
# A Prompt lab column's heading: what the summarizer is, and whether it follows the prompt (issue 45: only the
# extractive summarizer ignores it).
HEADINGS = {"extractive": f"{EXTRACTIVE_NAME}: ignores the prompt",
            "builtin": f"built-in {BUILTIN_MODEL_ID} (this CPU): follows the prompt, weakly"}


@dataclass(frozen=True)
class SummarizerChoice:
    """Who writes the summaries. The key, for an endpoint, is this job's only: never shown, never stored."""

    kind: SummarizerKind = "extractive"
    budget_chars: int = field_default("extractive_budget_chars")  # the offline summarizer's length cap
    endpoint: Optional[Endpoint] = None                           # kind "endpoint"
    prompt: Optional[str] = None                                  # a custom template; None: the package's
    key: Optional[str] = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        low, high = field_bounds("extractive_budget_chars")
        if not low <= int(self.budget_chars) <= high:
            raise ConfigError(f"extractive_budget_chars is out of range ({low:,} to {high:,}).")
        if self.kind == "endpoint" and self.endpoint is None:
            raise ConfigError("summarizer is 'endpoint' but no summarizer endpoint (model, base URL) is set.")

    @classmethod
    def of(cls, config: Any, key: Optional[str] = None) -> "SummarizerChoice":
        """The choice a RunConfig makes."""
        return cls(config.summarizer, config.extractive_budget_chars, config.summarizer_endpoint,
                   config.summarizer_prompt, key)

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

    def run_config_fields(self) -> Dict[str, Any]:
        """The RunConfig fields that make this choice (the prompt only when one was given)."""
        fields: Dict[str, Any] = {"summarizer": self.kind, "extractive_budget_chars": int(self.budget_chars)}
        if self.kind == "endpoint":
            fields["summarizer_endpoint"] = self.endpoint
        if self.prompt is not None:
            fields["summarizer_prompt"] = self.prompt
        return fields

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
