"""A strategy that is not shipped, for the registry tests: one module with `run(...)`, as a new one would be.

It is the agent's own trim at `keep_chars`, run through the trim-only strategy's path and reported under
its own name, so the tests can check that one `register(...)` entry puts it everywhere."""
from dataclasses import replace

from scratchpad_lab.engine.strategies import trim_only
from scratchpad_lab.engine.strategies.spec import StrategySpec


def run(trace, spec, summarizer, baseline, stop=None):
    inner = StrategySpec("trim-only", {"agent_trim_chars": spec.resolved()["keep_chars"]}, spec.label)
    return replace(trim_only.run(trace, inner, summarizer, baseline), name=spec.name, settings=spec.resolved())
