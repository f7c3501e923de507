"""The file limit (10 MB) and how to raise it (issue 44: "a file over the size cap is refused in one line that says the
cap and how to raise it"): the one line names the variable, and with it set the same file is read."""
import json
import os
import subprocess
import sys

from scratchpad_lab.model.schemas import FILE_CAP_ENV, file_cap_mb


def test_the_cap_is_ten_megabytes_unless_raised_within_its_bounds():
    assert file_cap_mb({}) == 10 and file_cap_mb({FILE_CAP_ENV: "50"}) == 50 and file_cap_mb({FILE_CAP_ENV: "200"}) == 200
    for wrong in ("0", "201", "-5", "ten", "1e3", ""):
        assert file_cap_mb({FILE_CAP_ENV: wrong}) == 10, wrong


def test_a_file_over_the_cap_is_refused_in_one_line_that_says_how_to_raise_it_and_raised_it_is_read(tmp_path):
    path = tmp_path / "long.json"
    reply = json.dumps({"thought": "read the next part", "actions": [{"action": "read", "action_input": {}}],
                        "final_answer": None})
    steps = [{"response": reply, "observations": [f"part {i}: " + "x" * 5000]} for i in range(2200)]
    path.write_text(json.dumps({"schema": "scratchpad-lab/trace@1", "task": "read everything", "steps": steps}))
    assert path.stat().st_size > 11_000_000
    env = {k: v for k, v in os.environ.items() if k != FILE_CAP_ENV}
    command = [sys.executable, "-m", "scratchpad_lab.cli", "import", str(path), "--out", str(tmp_path / "out.json")]
    refused = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)
    lines = refused.stderr.strip().splitlines()
    assert refused.returncode == 2 and len(lines) == 1, refused.stderr
    assert "the limit is 10 MB (10,000,000 bytes)" in lines[0] and f"{FILE_CAP_ENV}=50" in lines[0]
    assert "server.maxUploadSize" in lines[0]
    raised = subprocess.run(command, capture_output=True, text=True, env={**env, FILE_CAP_ENV: "20"}, timeout=120)
    assert raised.returncode == 0, raised.stderr
    assert len(json.loads((tmp_path / "out.json").read_text())["steps"]) == 2200
