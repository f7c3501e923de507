"""Strategies: one trajectory replayed under every compression system of the references, each through
its real package (autourgos middleware, the autourgos agent's built-in summarizer, trim only,
deepagents, LangMem). Streamlit-free; the LangChain packages are imported only by the strategies that
need them (`deep_agents`, `lang_mem`, `summarizer.chat_model`), so importing this package is cheap.
A new strategy is one module plus one `register(Strategy(...))` entry in `registry.py`.
"""
from scratchpad_lab.engine.strategies.engine import run_strategies
from scratchpad_lab.engine.strategies.result import ROW_KEYS, Quirk, StrategyResult
from scratchpad_lab.engine.strategies.registry import STRATEGIES, Knob, Strategy, StrategyError, names, register, strategy
from scratchpad_lab.engine.strategies.spec import StrategySpec, make_spec, parse_spec
from scratchpad_lab.engine.strategies.chat_summarizer import BuiltSummarizer

__all__ = ["ROW_KEYS", "STRATEGIES", "Knob", "Quirk", "Strategy", "StrategyError", "StrategyResult", "StrategySpec",
           "BuiltSummarizer", "make_spec", "names", "parse_spec", "register", "run_strategies", "strategy"]
