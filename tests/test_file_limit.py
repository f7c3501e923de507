"""Issue 29, item 9: one file limit, said the same way by the Runs page's uploader, the CLI and the store.

Streamlit's uploader counts a megabyte as 1,000,000 bytes in the browser (on every system but Windows), so
a limit of 10 x 1,024 x 1,024 bytes had the page refuse files of 10,000,000-10,485,760 bytes that the
command line and the store accepted. The limit is now 10,000,000 bytes everywhere."""
import json
import tomllib
from pathlib import Path

import pytest

from scratchpad_lab.cli import main
from scratchpad_lab.model.schemas import FILE_LIMIT, MAX_FILE_BYTES
from scratchpad_lab.model.trace import RecordError, parse_json_bytes

ROOT = Path(__file__).resolve().parents[1]


def test_the_uploaders_limit_is_the_files_limit():
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["server"]["maxUploadSize"] * 1_000_000 == MAX_FILE_BYTES == 10_000_000
    assert FILE_LIMIT == "10 MB (10,000,000 bytes)"


def _trace_of(size: int) -> bytes:
    head = {"schema": "scratchpad-lab/trace@1", "task": "t", "tools": [],
            "steps": [{"response": "{}", "observations": ["~"]}]}
    body = json.dumps(head).encode()
    return body.replace(b"~", b"x" * (size - len(body) + 1))


def test_a_file_at_the_limit_is_read_and_one_byte_more_is_refused_in_the_same_words(tmp_path, capsys):
    assert len(_trace_of(MAX_FILE_BYTES)) == MAX_FILE_BYTES
    parse_json_bytes(_trace_of(MAX_FILE_BYTES), "upload")  # within the limit
    with pytest.raises(RecordError, match=r"10,000,001 bytes; the limit is 10 MB \(10,000,000 bytes\)"):
        parse_json_bytes(_trace_of(MAX_FILE_BYTES + 1), "upload")
    path = tmp_path / "big.json"
    path.write_bytes(_trace_of(MAX_FILE_BYTES + 1))
    assert main(["import", str(path), "--out", str(tmp_path / "out.json")]) == 2
    assert "the limit is 10 MB (10,000,000 bytes)" in capsys.readouterr().err

