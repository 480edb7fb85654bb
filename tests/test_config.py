"""Settings precedence (flag > env > file > default) and one-line errors for bad values."""

from __future__ import annotations

from pathlib import Path

import pytest

from gaia_lite.config import load_settings, normalize_base_url
from gaia_lite.errors import ConfigError


def _write_config(home: Path, text: str) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(text)


def test_defaults(gaia_home):
    s = load_settings({}, {"GAIA_HOME": str(gaia_home)})
    assert s.base_url == "http://localhost:13305/api/v1"
    assert s.dynamic_tools is True and s.max_steps == 50 and s.tool_timeout == 180.0
    assert s.paths.data_dir == gaia_home / "data"


@pytest.mark.parametrize(("cli", "env", "on"), [
    ({}, {}, True),                                                  # the loader is on by default
    ({}, {"GAIA_DYNAMIC_TOOLS": "0"}, False),                        # ... GAIA_DYNAMIC_TOOLS=0 turns it off
    ({"dynamic_tools": False}, {}, False),                           # ... and so does --no-dynamic-tools
    ({"preset": "gaia"}, {}, False),                                 # the gaia preset reproduces GAIA: off
    ({"preset": "gaia"}, {"GAIA_DYNAMIC_TOOLS": "1"}, True),         # ... unless asked for
    ({}, {"GAIA_DYNAMIC_TOOLS_PRESET": "gaia"}, False),
])
def test_the_loader_is_on_by_default_but_not_for_the_gaia_preset(gaia_home, cli, env, on):
    assert load_settings(cli, {"GAIA_HOME": str(gaia_home), **env}).dynamic_tools is on


def test_precedence_flag_over_env_over_file_over_default(gaia_home):
    _write_config(gaia_home, 'model = "from-file"\nmax_steps = 7\ntau = 0.3\nmax_tools = 20\n')
    env = {"GAIA_HOME": str(gaia_home), "GAIA_MODEL": "from-env", "GAIA_DYNAMIC_TOOLS_TAU": "0.25"}
    s = load_settings({"model": "from-flag", "max_tools": None}, env)
    assert s.model == "from-flag"          # flag beats env and file
    assert s.tau == 0.25                    # env beats file
    assert s.max_steps == 7                 # file beats default
    assert s.max_tools == 20                # a None flag means "not passed"


@pytest.mark.parametrize("value, expected", [
    ("1", True), ("true", True), ("YES", True), (" On ", True),
    ("0", False), ("false", False), ("", False), ("enabled", False), ("2", False),
])
def test_dynamic_tools_truthy_set_anything_else_off(gaia_home, value, expected):
    env = {"GAIA_HOME": str(gaia_home), "GAIA_DYNAMIC_TOOLS": value}
    assert load_settings({}, env).dynamic_tools is expected


@pytest.mark.parametrize("raw, expected", [
    ("http://localhost:13305", "http://localhost:13305/api/v1"),
    ("http://localhost:13305/", "http://localhost:13305/api/v1"),
    ("http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1"),
    ("https://box:13305/api/v1/", "https://box:13305/api/v1"),
])
def test_base_url_gets_api_v1_when_path_missing(raw, expected):
    assert normalize_base_url(raw) == expected


@pytest.mark.parametrize("var, value, accepted", [
    ("GAIA_DYNAMIC_TOOLS_TAU", "high", "a number between -1 and 1"),
    ("GAIA_DYNAMIC_TOOLS_TAU", "1.5", "a number between -1 and 1"),
    ("GAIA_DYNAMIC_TOOLS_MAX", "ten", "a whole number >= 11"),
    ("GAIA_DYNAMIC_TOOLS_MAX", "5", "a whole number >= 11"),
    ("LEMONADE_BASE_URL", "localhost:13305", "an http(s) URL"),
    ("GAIA_AGENT_MAX_STEPS", "0", "a whole number >= 1"),
    ("GAIA_AGENT_MAX_STEPS", "many", "a whole number >= 1"),
    ("GAIA_AGENT_TOOL_TIMEOUT", "-3", "a number of seconds > 0"),
    ("GAIA_AGENT_TOOL_TIMEOUT", "soon", "a number of seconds > 0"),
    ("GAIA_MEMORY_DISABLED", "maybe", "1/0, true/false"),
    ("GAIA_AUTO_APPROVE_TOOLS", "please", "1/0, true/false"),
    ("GAIA_EMBEDDER", "torch", "onnx"),
    ("GAIA_DYNAMIC_TOOLS_PRESET", "fast", "default, lean, examples or gaia"),
    ("GAIA_PROMPT_LAYOUT", "sorted", "auto, stable, rewrite or append"),
    ("GAIA_TOOL_CALLS", "grammar", "auto (constrained when the server supports it), constrained or free"),
    ("GAIA_CTX_SIZE", "512", "a whole number of tokens >= 1024"),
    ("GAIA_CTX_SIZE", "big", "a whole number of tokens >= 1024"),
])
def test_malformed_env_var_gives_one_line_error_naming_it(gaia_home, var, value, accepted):
    with pytest.raises(ConfigError) as info:
        load_settings({}, {"GAIA_HOME": str(gaia_home), var: value})
    message = str(info.value)
    assert "\n" not in message
    assert var in message and repr(value) in message and accepted in message


def test_bad_config_file_names_file_and_key(gaia_home):
    _write_config(gaia_home, "max_steps = 'lots'\n")
    with pytest.raises(ConfigError, match=r"config\.toml: max_steps = 'lots' is invalid"):
        load_settings({}, {"GAIA_HOME": str(gaia_home)})


def test_unknown_config_key_is_an_error(gaia_home):
    _write_config(gaia_home, "modle = 'x'\n")
    with pytest.raises(ConfigError, match="unknown setting 'modle'"):
        load_settings({}, {"GAIA_HOME": str(gaia_home)})


def test_invalid_toml_is_an_error(gaia_home):
    _write_config(gaia_home, "model = \n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_settings({}, {"GAIA_HOME": str(gaia_home)})


def test_flag_max_tools_below_core_is_rejected(gaia_home):
    with pytest.raises(ConfigError, match="--max-tools 3"):
        load_settings({"max_tools": 3}, {"GAIA_HOME": str(gaia_home)})


@pytest.mark.parametrize(("preset", "layout", "effective"), [
    ("default", "auto", "stable"), ("lean", "auto", "stable"), ("gaia", "auto", "rewrite"),
    ("gaia", "stable", "stable"), ("default", "rewrite", "rewrite"),
])
def test_auto_prompt_layout_follows_the_preset(preset: str, layout: str, effective: str) -> None:
    from gaia_lite.loader.presets import layout_for

    assert layout_for(layout, preset) == effective


def test_config_keys_from_before_the_rename_still_work(gaia_home):
    _write_config(gaia_home, 'loader_preset = "lean"\nauto_start_server = false\n')
    s = load_settings({}, {"GAIA_HOME": str(gaia_home)})
    assert s.preset == "lean" and s.local_server is False


def test_judge_skip_is_a_comma_list_and_a_wrong_name_is_one_line_naming_it(gaia_home):
    from gaia_lite.cli.services import judge_skip
    from gaia_lite.errors import ConfigError

    s = load_settings({}, {"GAIA_HOME": str(gaia_home), "GAIA_JUDGE_SKIP": " narrated, template ,"})
    assert s.judge_skip == ("narrated", "template")
    assert judge_skip(s) == frozenset({"narrated", "template"})
    typo = load_settings({}, {"GAIA_HOME": str(gaia_home), "GAIA_JUDGE_SKIP": "narated"})
    with pytest.raises(ConfigError, match="GAIA_JUDGE_SKIP names no guard called narated") as err:
        judge_skip(typo)
    assert "\n" not in str(err.value)
