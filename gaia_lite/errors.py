"""Errors a user can see, each rendered by the CLI as one line.

    GaiaError
    ├── ConfigError          bad flag, env var or config file      -> exit 2
    ├── ServerUnreachable    the model server cannot be reached     -> exit 3
    └── ModelError           the server answered with an error      -> exit 1
"""

from __future__ import annotations

__all__ = ["GaiaError", "ConfigError", "ServerUnreachable", "ModelError"]


class GaiaError(Exception):
    exit_code = 1


class ConfigError(GaiaError):
    exit_code = 2


class ServerUnreachable(GaiaError):
    exit_code = 3

    def __init__(self, base_url: str, detail: str = "") -> None:
        self.base_url = base_url
        hint = (
            f"cannot reach the model server at {base_url}"
            + (f" ({detail})" if detail else "")
            + ". Start Lemonade Server (`lemonade-server serve`), or the embedded one with "
            "`gaia-lite serve`, or point LEMONADE_BASE_URL / --base-url at a running server."
        )
        super().__init__(hint)


class ModelError(GaiaError):
    exit_code = 1
