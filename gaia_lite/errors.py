"""Errors a user can see, each rendered by the CLI as one line.

    GaiaError
    ├── ConfigError          bad flag, env var or config file        -> exit 2
    ├── ServerUnreachable    the model server cannot be reached       -> exit 3
    ├── ModelError           the server answered with an error        -> exit 1
    │   └── ServerTooSlow    ... or not within a time limit
    ├── ReplyCutOff          the reply stopped before it finished     -> exit 1
    ├── Cancelled            the user cancelled (Ctrl-C)              -> exit 130
    └── LocalRuntimeError    the embedded runtime cannot start        -> exit 1
        (runtime.ModelInstallError, runtime.ServerError)

Lower layers keep their own errors where callers catch them by kind
(``EmbedderError``, ``TokenCounterError``), and those derive from GaiaError
too, so nothing that reaches the CLI shows a traceback.
"""

from __future__ import annotations

__all__ = ["GaiaError", "ConfigError", "ServerUnreachable", "ModelError", "ServerTooSlow", "ReplyCutOff", "Cancelled",
           "LocalRuntimeError"]


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


class ServerTooSlow(ModelError):
    """The model server did not answer within a time limit; the message names the call and the limit."""


class Cancelled(GaiaError):
    """The user cancelled generation (Ctrl-C), or a tool call was given up; the conversation is kept."""

    exit_code = 130

    def __init__(self, message: str = "cancelled") -> None:
        super().__init__(message)


class LocalRuntimeError(GaiaError):
    """The embedded runtime cannot do what was asked; the message says how to fix it."""


class ReplyCutOff(GaiaError):
    """The model's reply stopped before it finished (no finish reason, or the connection was lost
    mid-reply). Not a ModelError on purpose: nothing about the request was refused, so it is never
    retried in another reply mode, and the partial answer is never taken as complete."""

    exit_code = 1
