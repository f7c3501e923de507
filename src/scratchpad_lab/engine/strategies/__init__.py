"""Strategies: one trajectory replayed under every compression system of the references, each through
its real package (autourgos middleware, the autourgos agent's built-in summarizer, trim only,
deepagents, LangMem). Streamlit-free; the LangChain packages are imported only by the strategies that
need them (`deep_agents`, `lang_mem`, `summarizer.chat_model`), so importing this package is cheap.
"""
from scratchpad_lab.engine.strategies.engine import run_strategies
from scratchpad_lab.engine.strategies.result import ROW_KEYS, Quirk, StrategyResult
from scratchpad_lab.engine.strategies.settings import NAMES, STRATEGIES, StrategyError, StrategySpec, make_spec, parse_spec
from scratchpad_lab.engine.strategies.summarizer import SummarizerSpec

__all__ = ["NAMES", "ROW_KEYS", "STRATEGIES", "Quirk", "StrategyError", "StrategyResult", "StrategySpec",
           "SummarizerSpec", "make_spec", "parse_spec", "run_strategies"]
