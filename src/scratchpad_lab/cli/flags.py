"""Command-line flags more than one command takes, each written once.

Streamlit-free; imported by cli/__init__.py (run, replay, sweep) and cli/strategies.py (strategies, recommend).
"""
from __future__ import annotations

import argparse
from typing import Any, Callable


def add_key_flags(p, both: bool = False) -> None:
    """Where a model's key comes from (keys only from the environment; the rule is engine/net/keys.py's).
    `both`: the command has an agent endpoint and a summarizer endpoint."""
    p.add_argument("--api-key-env", metavar="NAME",
                   help=f"environment variable holding the key{' for both endpoints' if both else ''} (a "
                        "provider's own variable, e.g. OPENAI_API_KEY, goes only to that provider's URL)")
    p.add_argument("--send-key-to-custom-url", action="store_true",
                   help="also send a provider's key variable to a base URL that is not that provider's")


def add_pin_flags(p, note: str = "") -> None:
    """--pin TEXT (repeatable) and --pins-to-summarizer: run, replay, strategies and recommend (model/pins.py's
    limits, checked where the pins are taken: a one-line refusal naming the limit). `note`: what the command does
    with them."""
    from scratchpad_lab.model.pins import MAX_PIN_CHARS, MAX_PINS
    p.add_argument("--pin", action="append", metavar="TEXT",
                   help=f"text that must survive compression; repeat for more (at most {MAX_PINS}, each at most "
                        f"{MAX_PIN_CHARS} chars); every compression is checked against it" + (f". {note}" if note else ""))
    p.add_argument("--pins-to-summarizer", action="store_true",
                   help="also ask the summarizer to keep the pins verbatim, in its prompt (a model summarizer only)")


def add_timeout_flag(p) -> None:
    """--timeout: each endpoint call's own limit, the page's "per-call timeout (s)" field (same bounds)."""
    from scratchpad_lab.model.endpoint import Endpoint
    low, high = Endpoint.bounds("timeout_s")
    p.add_argument("--timeout", type=float, metavar="SECONDS",
                   help=f"how long one call to an endpoint model may take, {low:g} to {high:g} "
                        f"(default {Endpoint.model_fields['timeout_s'].default:g}; raise it for a slow local model)")


def add_executor_flags(p) -> None:
    """Where a study's cells run (engine/cells/executor.py): this machine's processes, or a Ray cluster."""
    p.add_argument("--executor", choices=("local", "ray"), default="local",
                   help="where the cells run: local, this machine's worker processes (the default), or ray, a Ray "
                        "cluster (pip install -r requirements-ray.txt)")
    p.add_argument("--ray-address", metavar="ADDRESS",
                   help="the Ray cluster to join (its head's host:port, or ray://host:10001); default RAY_ADDRESS; "
                        "with neither, --executor ray starts a cluster of this machine's cores for the job")


def executor_from_args(args: argparse.Namespace) -> Any:
    """The ExecutorChoice the flags make (an address without --executor ray is refused, one line)."""
    from scratchpad_lab.engine.tasks import choice_from_args
    return choice_from_args(getattr(args, "executor", None), getattr(args, "ray_address", None))


def strategy_argument(parse: Callable[[str], Any]) -> Callable[[str], Any]:
    """An argparse `type=` for a strategy argument: `parse(text)`, with a StrategyError's sentence as the
    usage error argparse prints (exit 2)."""
    from scratchpad_lab.engine.strategies.registry import StrategyError

    def convert(text: str) -> Any:
        try:
            return parse(text)
        except StrategyError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
    return convert
