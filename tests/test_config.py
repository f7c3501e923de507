"""RunConfig: the package's defaults, clear refusals naming the field and its range, prompt templates."""
import inspect

import pytest
from autourgos_agent import Agent
from autourgos_summarizer import AutoSummarizeMiddleware
from autourgos_summarizer import middleware as summarizer_middleware

from scratchpad_lab.model.config import PACKAGE_PROMPT, ConfigError, RunConfig, validate_prompt_template


def _middleware_default(name):
    return inspect.signature(AutoSummarizeMiddleware.__init__).parameters[name].default


def test_defaults_are_the_packages_own_defaults():
    config = RunConfig.build()
    assert config.summarize_every == _middleware_default("summarize_every") == 5
    assert config.max_scratchpad_chars == _middleware_default("max_scratchpad_chars") == 15_000
    assert config.agent_trim_chars == Agent.MAX_SCRATCHPAD_CHARS == 15_000
    assert config.max_tool_output_chars == Agent.MAX_TOOL_OUTPUT_CHARS == 5_000
    assert config.summarizer.prompt is None
    assert config.prompt_template == summarizer_middleware._SUMMARIZE_PROMPT


@pytest.mark.parametrize("field, value, allowed", [
    ("summarize_every", 0, "1 to 1,000"),
    ("summarize_every", 1001, "1 to 1,000"),
    ("max_scratchpad_chars", 5, "100 to 1,000,000"),
    ("agent_trim_chars", 199, "200 to 1,000,000"),
    ("max_tool_output_chars", 99, "100 to 200,000"),
    ("max_iterations", 10_000, "1 to 500"),
    ("extractive_budget_chars", 10, "200 to 50,000"),
    ("wall_clock_s", 0.5, "1.0 to 3600.0"),
])
def test_out_of_range_value_is_refused_naming_the_field_and_the_allowed_range(field, value, allowed):
    with pytest.raises(ConfigError) as caught:
        RunConfig.build(**{field: value})
    message = str(caught.value)
    assert field in message
    assert allowed in message


def test_summarize_every_message_says_off_as_the_help_does():
    with pytest.raises(ConfigError, match="or off for no periodic trigger"):
        RunConfig.build(summarize_every=0)


def test_summarize_every_none_is_accepted_as_periodic_trigger_off():
    assert RunConfig.build(summarize_every=None).summarize_every is None


def test_a_wrong_type_is_refused_with_the_field_named():
    with pytest.raises(ConfigError, match="summarize_every"):
        RunConfig.build(summarize_every="abc")


def test_every_bad_field_is_reported_in_one_message():
    with pytest.raises(ConfigError) as caught:
        RunConfig.build(summarize_every=0, max_iterations=10_000)
    assert "summarize_every" in str(caught.value) and "max_iterations" in str(caught.value)


def test_unknown_setting_is_refused_by_name():
    with pytest.raises(ConfigError, match="trigger_chars is not a setting"):
        RunConfig.build(trigger_chars=100)


def test_unknown_summarizer_kind_is_refused():
    with pytest.raises(ConfigError, match="summarizer"):
        RunConfig.build(summarizer="gpt-4o")


def test_replace_validates_like_build():
    config = RunConfig.build(summarize_every=3)
    with pytest.raises(ConfigError, match="max_scratchpad_chars"):
        config.replace(max_scratchpad_chars=5)
    changed = config.replace(max_scratchpad_chars=2000)
    assert (changed.summarize_every, changed.max_scratchpad_chars) == (3, 2000)
    assert config.max_scratchpad_chars == 15_000  # the original is untouched


# ── summarizer prompt templates ─────────────────────────────────────────────

def test_template_without_scratchpad_placeholder_is_refused():
    with pytest.raises(ConfigError, match=r"must contain \{scratchpad\}"):
        RunConfig.build(summarizer_prompt="Summarize the work on {query} so far.")


def test_template_with_unknown_placeholder_is_refused_naming_it():
    with pytest.raises(ConfigError) as caught:
        RunConfig.build(summarizer_prompt="Summarize {scratchpad} for {foo}.")
    assert "{foo}" in str(caught.value)
    assert "{query}, {iteration} and {scratchpad}" in str(caught.value)


def test_template_with_positional_placeholder_is_refused():
    with pytest.raises(ConfigError, match=r"unknown placeholder"):
        RunConfig.build(summarizer_prompt="{0} {scratchpad}")


@pytest.mark.parametrize("template", ["Summarize {scratchpad", "Notes } {scratchpad}", "{ {scratchpad}"])
def test_template_with_stray_brace_is_refused_with_how_to_write_a_literal_brace(template):
    with pytest.raises(ConfigError, match=r"literal brace"):
        RunConfig.build(summarizer_prompt=template)


def test_blank_template_is_refused():
    with pytest.raises(ConfigError, match="empty"):
        RunConfig.build(summarizer_prompt="   \n")


def test_literal_braces_written_doubled_are_accepted():
    config = RunConfig.build(summarizer_prompt="Reply as JSON {{\"notes\": ...}} about:\n{scratchpad}")
    assert config.prompt_template.format(query="q", iteration=1, scratchpad="S") == \
        'Reply as JSON {"notes": ...} about:\nS'


def test_the_packages_own_prompt_is_accepted_and_stored_as_the_default():
    config = RunConfig.build(summarizer_prompt=summarizer_middleware._SUMMARIZE_PROMPT)
    assert config.summarizer.prompt is None
    assert config.prompt_template == PACKAGE_PROMPT == summarizer_middleware._SUMMARIZE_PROMPT


def test_a_custom_template_is_kept_and_used():
    template = "Task {query}, step {iteration}. Keep IDs.\n{scratchpad}"
    config = RunConfig.build(summarizer_prompt=template)
    assert config.summarizer.prompt == template == config.prompt_template


def test_replace_validates_the_prompt_template():
    with pytest.raises(ConfigError, match=r"\{foo\}"):
        RunConfig.build().replace(summarizer_prompt="{foo}{scratchpad}")


def test_validate_prompt_template_returns_a_good_template_unchanged():
    assert validate_prompt_template("{query}|{iteration}|{scratchpad}") == "{query}|{iteration}|{scratchpad}"


@pytest.mark.parametrize("template", [
    "{scratchpad!z}",                 # unknown conversion
    "{scratchpad:d}",                 # numeric format code on text
    "{scratchpad:{query}}",           # nested spec taken from the task text
    "{query[99]} {scratchpad}",       # index past the end of a short task
])
def test_every_accepted_template_can_be_rendered_with_the_three_placeholders(template):
    try:
        config = RunConfig.build(summarizer_prompt=template)
    except ConfigError:
        return
    config.prompt_template.format(query="short task", iteration=3, scratchpad="Step 1: ...")
