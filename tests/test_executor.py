"""The executor seam without a cluster (issue 32): the CLI's flags and the operator's settings make one choice;
`--executor ray` without Ray installed, with an address nobody answers at, or with a malformed address is one
line and exit 2, and no Ray is started."""
import socket
import sys

import pytest

from conftest import ROOT
from scratchpad_lab.cli import main
from scratchpad_lab.engine.cells.executor import ExecutorChoice, ExecutorError, choice_from_args, choice_from_settings

SAMPLES = str(ROOT / "sample_runs")
BENCH = ["bench", SAMPLES, "--runs", "1", "--strategy", "trim-only", "--grid", "trim-only:agent_trim_chars=4000"]


def one_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.startswith("scratchpad-lab: error:")]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


def test_without_ray_installed_executor_ray_exits_2_saying_what_to_install(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError, as where it is not installed
    assert main(BENCH + ["--executor", "ray"]) == 2
    assert "pip install -r requirements-ray.txt" in one_line(capsys.readouterr().err)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_an_address_nobody_answers_at_is_one_line_and_starts_nothing(capsys):
    ray = pytest.importorskip("ray", reason="needs Ray: pip install -r requirements-ray.txt")
    port = free_port()
    assert main(BENCH + ["--executor", "ray", "--ray-address", f"127.0.0.1:{port}"]) == 2
    line = one_line(capsys.readouterr().err)
    assert f"the Ray cluster at 127.0.0.1:{port} cannot be reached" in line and "Nothing was started" in line
    assert not ray.is_initialized()


@pytest.mark.parametrize("address", ["just-a-host", "ray://host:port", "10.0.0.5:99999"])
def test_a_malformed_address_is_one_line_naming_the_form(address, capsys):
    pytest.importorskip("ray", reason="needs Ray: pip install -r requirements-ray.txt")
    assert main(BENCH + ["--executor", "ray", "--ray-address", address]) == 2
    assert "give the cluster head's host:port" in one_line(capsys.readouterr().err)


def test_an_address_without_executor_ray_is_refused(capsys):
    assert main(BENCH + ["--ray-address", "10.0.0.5:6379"]) == 2
    assert "--ray-address is for --executor ray" in one_line(capsys.readouterr().err)


def test_the_cli_reads_ray_address_for_ray_only():
    env = {"RAY_ADDRESS": "10.0.0.5:6379"}
    assert choice_from_args("ray", None, env) == ExecutorChoice("ray", "10.0.0.5:6379")
    assert choice_from_args("ray", "10.0.0.9:6379", env).address == "10.0.0.9:6379"
    assert choice_from_args(None, None, env) == ExecutorChoice("local")


def test_the_operator_sets_the_executor_in_secrets_or_the_environment_and_secrets_win():
    assert choice_from_settings({}, None) == ExecutorChoice("local")
    env = {"SCRATCHPAD_LAB_EXECUTOR": "ray", "SCRATCHPAD_LAB_RAY_ADDRESS": "10.0.0.5:6379"}
    assert choice_from_settings(env) == ExecutorChoice("ray", "10.0.0.5:6379")
    secrets = {"scratchpad_lab": {"executor": "ray", "ray_address": "ray://head:10001"}}
    assert choice_from_settings(env, secrets) == ExecutorChoice("ray", "ray://head:10001")
    assert choice_from_settings({"SCRATCHPAD_LAB_EXECUTOR": "ray"}).address is None  # a cluster of this machine
    with pytest.raises(ExecutorError, match="set it to local or ray"):
        choice_from_settings({"SCRATCHPAD_LAB_EXECUTOR": "dask"})


def test_the_page_names_where_it_runs_and_never_the_address():
    assert ExecutorChoice().where == "this machine's worker processes"
    assert "10.0.0.5" not in ExecutorChoice("ray", "10.0.0.5:6379").where
    assert "started for the job" in ExecutorChoice("ray").where
