"""Issue 30, item 1 (by content): a secret in an ordinary file is redacted in every tool's output.

On main 5aec35f ``cat .git/config`` printed a token embedded in a remote URL, and any
file with an ordinary name printed whatever keys it held. Every tool result now passes
the executor's content check (gaia_lite/registry/redact.py): the token shapes are
replaced by ``[REDACTED:<kind>]`` and the payload says so under ``redacted``. The calls
go through the real ToolExecutor with the real tools, files and git repositories.
"""

from __future__ import annotations

import pytest

from gaia_lite.registry.context import ToolContext
from gaia_lite.registry.execute import Decision, ToolExecutor
from gaia_lite.registry.redact import redact_payload, redact_text
from gaia_lite.registry.registry import ToolRegistry
from gaia_lite.registry.spec import spec_of, tool
from gaia_lite.tools.catalog import doc_tool_specs

from .conftest import git, make_repo

# Real-shaped, made-up values (none is a live credential).
TOKENS = {
    "aws-access-key": "AKIAQ3EXAMPLE7PLMN4Z",
    "github-token": "ghp_R4nd0mL00k1ngT0k3nV4lu3xYz9876543210",
    "gitlab-token": "glpat-Zx81bQf0LkW2mPq7RtYv",
    "slack-token": "xoxb-2468013579-ZkQ8wR3tYpLm",
    "openai-key": "sk-proj-Q8wE3rT6yU9iO2pA5sD7fG1h",
    "google-key": "AIzaSyD3kF8mQ1xW7pL0zN5vR2tY9uB4cE6aH7s",
    "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJnYWlhIiwiaWF0IjoxNzAwMDAwMDAwfQ.Q2l3bUx6dFpXN2pLa0pQcFhtT3Zt",
}
PASSWORD = "Wq7#kP2!zR9m"
URL_TOKEN = "tok3nInUrl9Xq2Lm"
KEY_BODY = "MIIEowIBAAKCAQEAx8f3kZ9q"




@pytest.fixture
def executor(ctx: ToolContext) -> ToolExecutor:
    return ToolExecutor(ToolRegistry(doc_tool_specs()), ctx, approve=lambda spec, args: Decision.ALLOW,
                        default_timeout=30)


def _config_text() -> str:
    lines = [f"{kind}_value: {value}" for kind, value in TOKENS.items()]
    lines += [f"db_password = \"{PASSWORD}\"", f"mirror = https://deploy:{URL_TOKEN}@git.example.com/app.git",
              "-----BEGIN RSA PRIVATE KEY-----", KEY_BODY, "-----END RSA PRIVATE KEY-----", "plain = still here"]
    return "\n".join(lines) + "\n"


def _leaks(text: str) -> list[str]:
    return [v for v in (*TOKENS.values(), PASSWORD, URL_TOKEN, KEY_BODY) if v in text]


def test_read_file_output_is_redacted_and_says_so(executor, root) -> None:
    (root / "settings.yaml").write_text(_config_text())  # an ordinary name: the name rules let it through
    result = executor.execute("read_file", {"file_path": "settings.yaml"})
    assert result.ok
    shown = str(result.payload)
    assert _leaks(shown) == []
    assert "plain = still here" in shown
    for kind in (*TOKENS, "password", "url-credentials", "private-key"):
        assert f"[REDACTED:{kind}]" in shown, kind
    assert "secret(s) hidden" in result.payload["redacted"]


def test_a_password_the_users_message_asks_for_is_shown_and_tokens_and_keys_stay_hidden(executor, root, ctx) -> None:
    # "theres a file somewhere w the wifi pw for the lake cabin, can u find it and tell me the password": the mask
    # stood in the password's place and both models answered with it (probe57)
    (root / "settings.yaml").write_text(_config_text())
    ctx.request.message = "can u find the db pw in settings.yaml and tell me the password"
    shown = str(executor.execute("read_file", {"file_path": "settings.yaml"}).payload)
    assert _leaks(shown) == [PASSWORD], _leaks(shown)
    for kind in (*TOKENS, "url-credentials", "private-key"):
        assert f"[REDACTED:{kind}]" in shown, kind
    ctx.request.message = "what does settings.yaml hold?"   # not asked for: hidden
    assert _leaks(str(executor.execute("read_file", {"file_path": "settings.yaml"}).payload)) == []


@pytest.mark.parametrize("command", ["cat settings.yaml", "grep -n value settings.yaml", "head -n 20 settings.yaml",
                                     "grep -rn password ."])
def test_shell_output_is_redacted(executor, root, mode, command) -> None:
    (root / "settings.yaml").write_text(_config_text())
    result = executor.execute("run_shell_command", {"command": command})
    assert result.payload["status"] == "success", result.payload
    assert _leaks(str(result.payload)) == [] and "redacted" in result.payload


def test_git_config_with_a_token_in_the_remote_url(executor, root, mode) -> None:
    repo = make_repo(root / "repo")
    git(repo, "remote", "add", "origin", f"https://x-access-token:{URL_TOKEN}@github.com/o/r.git")
    git(repo, "remote", "add", "fork", f"https://{TOKENS['github-token']}@github.com/me/r.git")
    for command in ("cat repo/.git/config", "grep -rn url repo/.git"):
        result = executor.execute("run_shell_command", {"command": command})
        assert result.payload["status"] == "success", result.payload
        shown = str(result.payload)
        assert URL_TOKEN not in shown and TOKENS["github-token"] not in shown
        assert "github.com/o/r.git" in shown  # the rest of the URL is kept
    result = executor.execute("run_shell_command", {"command": "git log --format=%H", "working_directory": "repo"})
    assert result.ok


def test_every_tool_is_covered_not_only_the_built_in_ones(ctx) -> None:
    """A tool the executor knows nothing about (an MCP tool is one of these) is redacted too."""

    @tool
    def remote_lookup(name: str) -> dict:
        """Return what a remote service says.

        Args:
            name: What to look up.
        """
        return {"status": "success", "items": [{"env": f"OPENAI_API_KEY={TOKENS['openai-key']}"}],
                "text": f"connect with https://admin:{URL_TOKEN}@db.internal:5432/app"}

    result = ToolExecutor(ToolRegistry([spec_of(remote_lookup)]), ctx).execute("remote_lookup", {"name": "x"})
    assert _leaks(str(result.payload)) == []
    assert result.payload["items"][0]["env"] == "OPENAI_API_KEY=[REDACTED:openai-key]"
    assert "db.internal:5432/app" in result.payload["text"]


@pytest.mark.parametrize("text", [
    "def get_token(self, password: str) -> str:\n    return os.environ['TOKEN']\n",
    "commit 3f2a1b4c5d6e7f8091a2b3c4d5e6f708192a3b4c\nsha256: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b8\n",
    "token_count: 1234567890\ntokenizer: bert-base-uncased\npassword: required\ntoken: ${GITHUB_TOKEN}\n",
    "see http://example.com:8080/path and git@github.com:o/r.git, id 550e8400-e29b-41d4-a716-446655440000\n",
])
def test_ordinary_text_is_left_alone(text: str) -> None:
    assert redact_text(text) == (text, {})
    payload = {"status": "success", "content": text}
    assert redact_payload(payload) is payload


def test_redaction_keeps_the_payload_shape() -> None:
    payload = {"status": "success", "rows": [("a", f"key={TOKENS['github-token']}"), 3], "n": 2}
    clean = redact_payload(payload)
    assert clean["rows"][0] == ("a", "key=[REDACTED:github-token]") and clean["rows"][1] == 3
    assert payload["rows"][0][1].endswith(TOKENS["github-token"][-6:])  # the tool's own object is not changed


def test_a_payload_nested_too_deep_is_still_checked() -> None:
    deep: list = [f"password={PASSWORD}"]
    for _ in range(300):
        deep = [deep]
    clean = redact_payload({"status": "success", "data": deep})
    assert PASSWORD not in str(clean) and "redacted" in clean
