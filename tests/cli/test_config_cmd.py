"""`gaia-lite config show|path|set|unset` on a real config file in the temp GAIA_HOME."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

import pytest

from gaia_lite.config import SETTING_NAMES, load_settings
from gaia_lite.errors import ConfigError

from .conftest import one_line_error


def _show(cli: Any, *args: str) -> dict[str, Any]:
    result = cli("config", "show", "--json", *args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_show_lists_every_setting_with_its_source(cli: Any, gaia_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (gaia_home / "config.toml").write_text('tau = 0.3\nmodel = "from-file"\n', encoding="utf-8")
    monkeypatch.setenv("GAIA_MODEL", "from-env")
    monkeypatch.setenv("GAIA_AGENT_MAX_STEPS", "7")
    shown = _show(cli, "--max-tools", "16")
    settings = shown["settings"]
    assert list(settings) == list(SETTING_NAMES)
    assert settings["tau"] == {"value": 0.3, "source": "file", "env": "GAIA_DYNAMIC_TOOLS_TAU"}
    assert settings["model"] == {"value": "from-env", "source": "env", "env": "GAIA_MODEL"}
    assert settings["max_steps"]["value"] == 7 and settings["max_steps"]["source"] == "env"
    assert settings["max_tools"] == {"value": 16, "source": "flag", "env": "GAIA_DYNAMIC_TOOLS_MAX"}
    assert settings["temperature"] == {"value": 0.1, "source": "default", "env": None}
    assert shown["paths"]["config_file"] == str(gaia_home / "config.toml")
    assert shown["paths"]["memory_db"] == str(gaia_home / "data" / "memory.db")

    text = cli("config", "show").stdout
    assert f"# config file: {gaia_home / 'config.toml'}\n" in text
    lines = {ln.split(" = ")[0]: ln for ln in text.splitlines() if " = " in ln}
    assert lines["model"].startswith('model = "from-env"') and lines["model"].endswith("# env     $GAIA_MODEL")
    assert lines["tau"].split("#")[1].startswith(" file")
    assert lines["temperature"].rstrip().endswith("# default")


def test_show_hides_the_api_key(cli: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LEMONADE_API_KEY", "sk-verysecretvalue1234567890")
    assert _show(cli)["settings"]["api_key"]["value"] == "***"
    assert "verysecret" not in cli("config", "show").stdout


def test_show_validates_exactly_as_start_up(cli: Any, gaia_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GAIA_DYNAMIC_TOOLS_TAU", "2")
    with pytest.raises(ConfigError) as at_start:
        load_settings()
    result = cli("config", "show")
    assert result.exit_code == 2
    assert one_line_error(result) == f"gaia-lite: error: {at_start.value}"
    monkeypatch.delenv("GAIA_DYNAMIC_TOOLS_TAU")
    (gaia_home / "config.toml").write_text("nonsense = 1\n", encoding="utf-8")
    result = cli("config", "show")
    assert result.exit_code == 2 and "unknown setting 'nonsense'" in one_line_error(result)


def test_path_prints_the_config_file(cli: Any, gaia_home: Path) -> None:
    assert cli("config", "path").stdout == f"{gaia_home / 'config.toml'}\n"
    assert json.loads(cli("config", "path", "--json").stdout) == {"config_file": str(gaia_home / "config.toml"),
                                                                  "exists": False, "error": None}


def test_path_still_prints_the_path_of_a_broken_file_but_fails(cli: Any, gaia_home: Path) -> None:
    (gaia_home / "config.toml").write_text("tau = 7\n", encoding="utf-8")
    result = cli("config", "path")
    assert result.exit_code == 2 and result.stdout == f"{gaia_home / 'config.toml'}\n"
    assert "tau = 7 is invalid; expected a number between -1 and 1" in one_line_error(result)


def test_set_keeps_other_keys_and_comments_and_start_up_reads_it(cli: Any, gaia_home: Path) -> None:
    path = gaia_home / "config.toml"
    path.write_text('# my settings\nmodel = "qwen2.5-coder-1.5b"  # the bigger one\n\ntau = 0.25\n', encoding="utf-8")
    for key, value in (("dynamic_tools", "yes"), ("max_tools", "16"), ("tau", "0.3"),
                       ("base_url", "http://127.0.0.1:8080"), ("allowed_paths", "/srv/a:/srv/b")):
        result = cli("config", "set", key, value)
        assert result.exit_code == 0, result.output
    text = path.read_text(encoding="utf-8")
    assert text.startswith('# my settings\nmodel = "qwen2.5-coder-1.5b"  # the bigger one\n')
    settings = load_settings()
    assert (settings.model, settings.dynamic_tools, settings.max_tools, settings.tau) == \
        ("qwen2.5-coder-1.5b", True, 16, 0.3)
    assert settings.base_url == "http://127.0.0.1:8080/api/v1"  # normalised as at start-up
    assert settings.allowed_paths == ("/srv/a", "/srv/b")
    assert [p.name for p in gaia_home.iterdir() if p.name.endswith(".tmp")] == []

    assert cli("config", "unset", "tau").exit_code == 0
    assert "tau" not in path.read_text(encoding="utf-8") and load_settings().tau is None
    assert cli("config", "set", "context_tokens", "").exit_code == 0  # empty: back to "ask the server"
    assert load_settings().context_tokens is None


def test_a_new_config_file_is_private(cli: Any, gaia_home: Path) -> None:
    assert cli("config", "set", "api_key", "local-key").exit_code == 0
    mode = stat.S_IMODE((gaia_home / "config.toml").stat().st_mode)
    assert mode == 0o600
    assert json.loads(cli("config", "set", "api_key", "k2", "--json").stdout)["value"] == "***"


@pytest.mark.parametrize("args, wanted", [
    (("max_tools", "5"), "max_tools = '5' is invalid; expected a whole number >= 11 (the CORE size)"),
    (("tau", "high"), "tau = 'high' is invalid; expected a number between -1 and 1"),
    (("embedder", "torch"), "embedder = 'torch' is invalid; expected onnx"),
    (("nope", "1"), "unknown setting 'nope'; known: allowed_paths"),
])
def test_set_rejects_what_start_up_rejects_and_leaves_the_file(cli: Any, gaia_home: Path, args: tuple[str, str],
                                                               wanted: str) -> None:
    path = gaia_home / "config.toml"
    path.write_text('model = "m"\n', encoding="utf-8")
    result = cli("config", "set", *args)
    assert result.exit_code == 2
    assert wanted in one_line_error(result)
    assert path.read_text(encoding="utf-8") == 'model = "m"\n'


def test_set_refuses_to_edit_a_broken_file(cli: Any, gaia_home: Path) -> None:
    path = gaia_home / "config.toml"
    path.write_text("model = \n", encoding="utf-8")
    result = cli("config", "set", "model", "x")
    assert result.exit_code == 2 and "is not valid TOML" in one_line_error(result)
    assert path.read_text(encoding="utf-8") == "model = \n"
    assert cli("config", "unset", "nope").exit_code == 2


def test_config_keys_of_earlier_versions_are_read_and_set_under_the_new_name(cli: Any, gaia_home: Path) -> None:
    path = gaia_home / "config.toml"
    path.write_text('loader_preset = "lean"\nauto_start_server = false\n', encoding="utf-8")
    settings = _show(cli)["settings"]
    assert settings["preset"] == {"value": "lean", "source": "file", "env": "GAIA_DYNAMIC_TOOLS_PRESET"}
    assert settings["local_server"]["value"] is False and settings["local_server"]["source"] == "file"
    assert "loader_preset" not in settings and "auto_start_server" not in settings

    assert _show(cli, "--preset", "gaia")["settings"]["preset"]["source"] == "flag"
    result = cli("config", "set", "loader_preset", "gaia", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["key"] == "preset"
    assert path.read_text(encoding="utf-8") == 'auto_start_server = false\npreset = "gaia"\n'
    assert cli("config", "unset", "auto_start_server").exit_code == 0
    assert path.read_text(encoding="utf-8") == 'preset = "gaia"\n'
    assert load_settings().preset == "gaia" and load_settings().local_server is True
