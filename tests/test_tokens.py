"""Token counting: offline vocabularies placed where tiktoken looks, the right encoding per model."""
import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
import tiktoken
import tiktoken.load
import tiktoken_ext.openai_public as openai_public

from scratchpad_lab.engine.run import tokens
from scratchpad_lab.engine.run.tokens import TokenCounter, count_tokens, encoding_name_for_model, install_vocabularies


def _tiktoken_sources():
    """{encoding name: (blob url, expected sha256)} exactly as tiktoken itself asks for them."""
    asked = {}

    def capture(url, expected_hash=None):
        asked["url"], asked["hash"] = url, expected_hash
        raise _Captured

    class _Captured(Exception):
        pass

    out = {}
    original = openai_public.load_tiktoken_bpe
    openai_public.load_tiktoken_bpe = capture
    try:
        for name in ("cl100k_base", "o200k_base"):
            with pytest.raises(_Captured):
                getattr(openai_public, name)()
            out[name] = (asked["url"], asked["hash"])
    finally:
        openai_public.load_tiktoken_bpe = original
    return out


@pytest.fixture
def empty_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    return tmp_path


def test_install_into_an_empty_cache_places_each_vocabulary_under_tiktokens_cache_key(empty_cache):
    assert install_vocabularies() == empty_cache
    for name, (url, expected) in _tiktoken_sources().items():
        cached = empty_cache / hashlib.sha1(url.encode()).hexdigest()
        assert cached.is_file(), name
        assert hashlib.sha256(cached.read_bytes()).hexdigest() == expected, name
    assert not list(empty_cache.glob("*.tmp"))


def test_tiktoken_then_loads_both_vocabularies_without_any_fetch(empty_cache, no_network):
    install_vocabularies()
    for name, (url, expected) in _tiktoken_sources().items():
        ranks = tiktoken.load.load_tiktoken_bpe(url, expected_hash=expected)
        assert len(ranks) > 100_000, name


def test_a_corrupted_cached_vocabulary_is_replaced(empty_cache):
    sources = _tiktoken_sources()
    url, expected = sources["o200k_base"]
    cached = empty_cache / hashlib.sha1(url.encode()).hexdigest()
    cached.write_bytes(b"not a vocabulary")
    install_vocabularies()
    assert hashlib.sha256(cached.read_bytes()).hexdigest() == expected


def test_a_good_cached_vocabulary_is_left_as_it_is(empty_cache):
    install_vocabularies()
    url, _ = _tiktoken_sources()["cl100k_base"]
    cached = empty_cache / hashlib.sha1(url.encode()).hexdigest()
    stamp = cached.stat().st_mtime_ns
    install_vocabularies()
    assert cached.stat().st_mtime_ns == stamp


@pytest.mark.parametrize("model, encoding", [
    ("gpt-4o", "o200k_base"),
    ("gpt-4o-mini", "o200k_base"),
    ("gpt-4.1", "o200k_base"),
    ("o3-mini", "o200k_base"),
    ("gpt-5", "o200k_base"),
    ("openai/gpt-4o", "o200k_base"),
    ("gpt-4", "cl100k_base"),
    ("GPT-4", "cl100k_base"),
    ("gpt-4-turbo", "cl100k_base"),
    ("gpt-3.5-turbo", "cl100k_base"),
    ("llama3", "o200k_base"),
    ("some-unknown-model", "o200k_base"),
    (None, "o200k_base"),
    ("scripted", "o200k_base"),
])
def test_each_model_is_counted_with_its_own_encoding(model, encoding):
    assert encoding_name_for_model(model) == encoding
    assert TokenCounter(model).encoding_name == encoding


TEXTS = [
    "Step 1:\nThought: look up A-1001\nAction: lookup({'id': 'A-1001'})\nObservation: ERR_503 after 3 retries",
    "Ünïcödé tèxt, 漢字とかな, emoji 🙂 and tabs\tand\nnewlines",
    "x" * 5000,
]


@pytest.mark.parametrize("model, encoding", [("gpt-4o", "o200k_base"), ("gpt-4", "cl100k_base")])
def test_counts_equal_tiktokens_own_count(model, encoding):
    count_tokens("warm up", model)  # makes sure the vocabulary is installed before tiktoken is asked directly
    reference = tiktoken.get_encoding(encoding)
    counter = TokenCounter(model)
    for text in TEXTS:
        expected = len(reference.encode(text))
        assert count_tokens(text, model) == expected
        assert counter(text) == expected


def test_the_two_encodings_count_the_same_text_differently():
    text = TEXTS[1] * 20
    assert count_tokens(text, "gpt-4o") != count_tokens(text, "gpt-4")


def test_special_token_text_in_a_scratchpad_is_counted_not_refused():
    text = "the tool printed <|endoftext|> and stopped"
    expected = len(tiktoken.get_encoding(tokens.encoding_name_for_model("gpt-4o")).encode(text, disallowed_special=()))
    assert count_tokens(text, "gpt-4o") == expected
    assert TokenCounter("gpt-4o")(text) == expected


def test_empty_text_is_zero_tokens():
    assert count_tokens("") == 0
    assert TokenCounter("gpt-4")("") == 0


def test_the_counter_stays_right_after_many_different_texts():
    counter = TokenCounter("gpt-4o")
    texts = [f"line {i} " * (i + 1) for i in range(150)]
    first = [counter(t) for t in texts]
    again = [counter(t) for t in texts]
    assert first == again == [count_tokens(t, "gpt-4o") for t in texts]


_pieces = st.sampled_from(["\n", "\n\n", " ", "  ", "\t", "/", ".", "'s", "'", "a", "Word", "x1", "123", "4567",
                           "é", "—", "ß", "\r\n", "://", "-", "[", "]", "{", "}", "...", "日本", "😀", " \n", "!\n"])


@settings(max_examples=400, deadline=None)
@given(st.lists(_pieces, max_size=60), st.sampled_from(["cl100k_base", "o200k_base"]))
def test_counting_line_by_line_gives_exactly_the_whole_texts_count(parts, encoding):
    text = "".join(parts)
    counter = TokenCounter("gpt-4" if encoding == "cl100k_base" else "gpt-4o")
    assert counter.encoding_name == encoding
    whole = len(tokens.get_encoding(encoding).encode(text, disallowed_special=()))
    assert counter(text) == whole


def test_a_recorded_scratchpad_counts_the_same_line_by_line_as_whole():
    from scratchpad_lab.model.records import load_path

    record = load_path(tokens_sample())
    counter = TokenCounter()
    encoding = tokens.get_encoding(counter.encoding_name)
    pads = [e.data["scratchpad"] for e in record.events if e.kind == "iteration"]
    assert len(pads) > 10
    for pad in pads:
        assert counter(pad) == len(encoding.encode(pad, disallowed_special=()))


def tokens_sample():
    from pathlib import Path

    return Path(__file__).resolve().parents[1] / "sample_runs" / "log-triage-defaults.json"


def test_the_pre_parsed_vocabulary_is_tiktokens_own_and_a_tampered_one_is_ignored(empty_cache):
    from tiktoken.load import load_tiktoken_bpe

    install_vocabularies()
    url, expected = tokens._VOCABS["cl100k_base"]
    truth = load_tiktoken_bpe(url, expected_hash=expected)
    assert tokens._ranks("cl100k_base", empty_cache) == truth  # parsed, then written
    written = empty_cache / "cl100k_base.ranks.marshal2"
    assert written.exists()
    assert tokens._ranks("cl100k_base", empty_cache) == truth  # read back
    import marshal

    written.write_bytes(marshal.dumps({b"hello": 0}, 2))  # someone else's file in the shared cache
    assert tokens._ranks("cl100k_base", empty_cache) == truth


def test_a_newline_alone_is_one_token_in_both_encodings():
    for name in ("cl100k_base", "o200k_base"):  # what TokenCounter adds for a line's own newline
        assert len(tokens.get_encoding(name).encode("\n", disallowed_special=())) == 1


_ends = st.sampled_from(["a", "Z", "9", "12345", "word", "x1", ".", "!", " ", "\t", "é", "日本", "'s", "ms", "-", "]"])


@settings(max_examples=300, deadline=None)
@given(st.lists(_pieces, max_size=30), _ends, st.booleans(), st.sampled_from(["gpt-4", "gpt-4o"]))
def test_a_line_counted_with_and_without_its_newline_gives_tiktokens_counts_either_way(parts, end, newline_first,
                                                                                     model):
    line = "".join(parts) + end
    counter = TokenCounter(model)
    encoding = tokens.get_encoding(counter.encoding_name)
    order = [line + "\n", line] if newline_first else [line, line + "\n"]
    for text in order:  # the second reuses what the first remembered
        assert counter(text) == len(encoding.encode(text, disallowed_special=()))
    assert counter(line + "\nnext") == len(encoding.encode(line + "\nnext", disallowed_special=()))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(_pieces, max_size=12), min_size=1, max_size=8), st.sampled_from(["gpt-4", "gpt-4o"]),
       st.lists(st.integers(min_value=0, max_value=7), max_size=4))
def test_a_text_counted_as_it_grows_step_by_step_gives_tiktokens_count_at_every_step(steps, model, detours):
    """A scratchpad grows by whole steps and is counted at each; the counter reuses the earlier count up
    to its last seam (and other texts counted in between must not confuse it)."""
    counter = TokenCounter(model)
    encoding = tokens.get_encoding(counter.encoding_name)
    text = ""
    for k, step in enumerate(steps):
        text += "".join(step)
        if k in detours:  # something else counted in between (a prompt's fixed part, a reply)
            counter("Reply: " + text[-7:])
        assert counter(text) == len(encoding.encode(text, disallowed_special=())), repr(text)


@settings(max_examples=400, deadline=None)
@given(st.lists(_pieces, min_size=1, max_size=30), st.lists(_pieces, max_size=10), st.integers(min_value=0),
       st.sampled_from(["gpt-4", "gpt-4o"]))
def test_a_text_sharing_only_part_of_an_earlier_one_is_still_counted_exactly(first, other, keep, model):
    """The earlier count is reused only up to a seam that the new text still has (a text that differs
    right after a newline, as a trimmed or summarized scratchpad does, is not mistaken for a longer one)."""
    counter = TokenCounter(model)
    encoding = tokens.get_encoding(counter.encoding_name)
    a = "".join(first)
    b = a[:keep % (len(a) + 1)] + "".join(other)
    for text in (a, b):
        assert counter(text) == len(encoding.encode(text, disallowed_special=())), repr(text)


@pytest.mark.parametrize("model", ["gpt-4", "gpt-4o"])
@pytest.mark.parametrize("second", ["Step 1\n\nStep 2", "Step 1\n/var/log/x", "Step 1\n   indented", "Step 1\n\n\n"])
def test_a_text_that_merges_across_the_earlier_texts_last_seam_is_counted_whole(model, second):
    counter = TokenCounter(model)
    encoding = tokens.get_encoding(counter.encoding_name)
    for text in ("Step 1\nStep 2", second):
        assert counter(text) == len(encoding.encode(text, disallowed_special=())), repr(text)


def test_one_counter_shared_by_many_threads_counts_right_and_never_raises():
    """Issue 29, item 8: `recommend` shares a counter between threads; its recent-texts dict was changed
    by one thread while another went through it ("dictionary changed size during iteration")."""
    import sys
    import threading

    counter = TokenCounter("gpt-4o")
    encoding = tokens.get_encoding("o200k_base")
    errors, wrong = [], []
    start = threading.Barrier(8)

    def hammer(seed: int) -> None:
        start.wait()
        try:
            text = f"Task {seed}\n"
            for step in range(300):  # a scratchpad that grows: each text goes on from the one before
                text += f"Step {step} of worker {seed}: read T-{seed * 1000 + step}\n"
                if step % 3 == 0:
                    counter(f"prompt {seed}-{step}\n" + text)  # distinct texts keep the recent dict changing
                if counter(text) != len(encoding.encode(text, disallowed_special=())):
                    wrong.append((seed, step))
        except Exception as exc:  # what the race raised
            errors.append(repr(exc))

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible, so the race shows every time
    try:
        threads = [threading.Thread(target=hammer, args=(seed,)) for seed in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
    finally:
        sys.setswitchinterval(interval)
    assert errors == [] and wrong == []
