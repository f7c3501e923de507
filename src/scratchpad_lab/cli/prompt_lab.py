"""`scratchpad-lab prompt-lab`: the prompt lab from a terminal (registered in scratchpad_lab.cli)."""



from scratchpad_lab.analysis.probes import ProbeError, parse_probe, scenario_probes
from scratchpad_lab.model.errors import UsageError
from scratchpad_lab.model.summarizer import SummarizerChoice
from scratchpad_lab.engine.tasks import (MAX_PROMPTS, MAX_SUMMARIZERS, MatrixRequest, PromptVariant,
                                         check_prompt, prompt_matrix, record_for, snapshot_at_compression,
                                         snapshot_at_iteration)


# ── command line: `scratchpad-lab prompt-lab` (registered in cli.py) ───────────────────────────

class _Append(__import__("argparse").Action):
    """--summarizer and --summarizer-model share one ordered list, so columns keep the order given."""

    def __call__(self, parser, namespace, values, option_string=None):
        items = list(getattr(namespace, "columns", None) or [])
        items.append(("model", values) if option_string == "--summarizer-model" else (values, values))
        namespace.columns = items


def add_cli(sub) -> None:
    p = sub.add_parser("prompt-lab", help="try summarizer prompts x summarizers on one scratchpad")
    p.add_argument("source", help="a run record or a trace (a trace is replayed with the package defaults)")
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("--compression", type=int, metavar="K", help="the scratchpad before the K-th compression")
    which.add_argument("--iteration", type=int, metavar="N", help="the scratchpad as iteration N started")
    p.add_argument("--prompt-file", action="append", required=True, metavar="FILE",
                   help=f"a prompt template file (1 to {MAX_PROMPTS}); its file name names it")
    p.add_argument("--summarizer", action=_Append, choices=["extractive", "builtin"],
                   help="the offline extractive column (ignores the prompt), or builtin: the built-in SmolLM2-135M on this "
                        "CPU, a real model that follows the prompt (weak; requirements-model.txt)")
    p.add_argument("--summarizer-model", action=_Append, metavar="NAME", help="an endpoint model column (repeatable)")
    p.add_argument("--summarizer-base-url", action="append", metavar="URL",
                   help="one per --summarizer-model in order, or one for all (default: OpenAI)")
    p.add_argument("--api-key-env", metavar="VAR", help="environment variable holding the key")
    p.add_argument("--send-key-to-custom-url", action="store_true",
                   help="send a provider's own key variable to a custom base URL too")
    from scratchpad_lab.cli.flags import add_timeout_flag
    add_timeout_flag(p)
    p.add_argument("--probe", action="append", metavar="QUESTION=ANSWER", help="your own probe question (repeatable); each cell says whether ANSWER is still in the "
                   "scratchpad after its summary, beside the scenario's own probes")
    p.add_argument("--json", action="store_true",
                   help="print one JSON array with an object per cell (prompts in order, then summarizers)")


def _cli_inputs(args):
    """(snapshot, prompts, summarizers, probes) from the arguments; a LabError says what is wrong."""
    from pathlib import Path

    from scratchpad_lab.engine.tasks import cli_key, endpoint_for
    from scratchpad_lab.cli.import_trace import load

    given = vars(args)
    prompts = []
    if len(args.prompt_file) > MAX_PROMPTS:
        raise UsageError(f"give at most {MAX_PROMPTS} --prompt-file")
    for name in args.prompt_file:
        try:
            text = Path(name).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise UsageError(f"cannot read --prompt-file {name}: {exc}") from None
        check = check_prompt(text)
        if not check.ok:
            raise UsageError(f"--prompt-file {name}: " + " ".join(check.problems))
        prompts.append(PromptVariant(Path(name).name, text))
    columns = given.get("columns") or [("extractive", "extractive")]
    models = [v for kind, v in columns if kind == "model"]
    urls = given.get("summarizer_base_url") or []
    if urls and not models:
        raise UsageError("--summarizer-base-url needs --summarizer-model")
    if len(urls) not in (0, 1, len(models)):
        raise UsageError(f"{len(urls)} --summarizer-base-url for {len(models)} --summarizer-model: give one for "
                         "all, or one per model in order")
    if len(columns) > MAX_SUMMARIZERS:
        raise UsageError(f"give at most {MAX_SUMMARIZERS} summarizers")
    specs, m = [], 0
    for kind, value in columns:
        if kind in ("extractive", "builtin"):
            specs.append(SummarizerChoice(kind))
            continue
        url = urls[m] if len(urls) > 1 else (urls[0] if urls else None)
        m += 1
        endpoint = endpoint_for(value, url, given.get("api_key_env") or "", given.get("timeout"))
        specs.append(SummarizerChoice("endpoint", endpoint=endpoint, key=cli_key(endpoint, given, "summarizer")))
    probes = []
    for text in given.get("probe") or []:
        try:
            probe = parse_probe(text)  # the page's rule too
        except ProbeError as exc:
            raise UsageError(f"--probe: {exc}") from None
        if probe is None:
            raise UsageError("--probe is empty: give QUESTION=ANSWER")
        probes.append(probe)
    loaded = load(args.source)
    record = record_for(loaded, Path(args.source).name)
    label = Path(args.source).name
    if given.get("compression") is not None:
        snapshot = snapshot_at_compression(record, args.compression, label)
    else:
        snapshot = snapshot_at_iteration(record, args.iteration, label)
    return snapshot, prompts, specs, probes


def _yes_no(value: bool) -> str:
    return "yes" if value else "no"


def run_cli(args) -> int:
    """0: the cells ran (some may be empty or errors); 1: no cell could run (every cell is an error: e.g.
    no endpoint could be reached). Bad arguments or files raise a LabError: cli.main says it, exit 2."""
    import json

    snapshot, prompts, specs, probes = _cli_inputs(args)  # a LabError goes to cli.main's edge: exit 2
    matrix = prompt_matrix(MatrixRequest(snapshot, tuple(prompts), tuple(specs),
                                         tuple(scenario_probes(snapshot.scenario) + probes))).run_here()
    if "json" in vars(args):
        print(json.dumps(matrix.to_json(), ensure_ascii=False))
    else:
        print(f"snapshot: {snapshot.label}: {len(snapshot.scratchpad):,} chars, {len(snapshot.facts())} facts")
        for c in matrix.cells:
            d = c.to_json()
            kept = len(d["facts_before"]) - len(d["facts_lost"])
            # a failed call or an empty reply replaced nothing: its facts are not scored (never "kept")
            facts = f"facts kept {kept}/{len(d['facts_before'])}" if c.is_summary else "facts not scored (no summary)"
            print(f"{d['prompt']:<28} {d['summarizer']:<20} {d['status']:<6} {d['before_chars']:>7,} -> "
                  f"{d['after_chars']:>7,} chars, {facts}, "
                  f"{d['latency_s']:.2f} s" + (f", error: {d['error']}" if d["error"] else ""))
            for r in d["probes"]:
                print(f"    probe {r['question']!r} (expects {r['expected']!r}): answerable before "
                      f"{_yes_no(r['answerable_before'])}, after {_yes_no(r['answerable_after'])}")
    return 0 if any(c.status in ("ok", "empty") for c in matrix.cells) else 1
