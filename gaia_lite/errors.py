"""Errors a user can see, each rendered by the CLI as one line (``gaia-lite: error: ...``).

Every error class in gaia_lite/ and tools/ sits in this tree; ``cli.app.main``
is the one boundary that prints it and exits with its code (tests/test_errors.py
keeps both true). Classes that callers also catch by a builtin kind keep that
base too (``SandboxError`` is still a ``PermissionError``).

    GaiaError                                                              -> exit 1
    ├── ConfigError          bad flag, env var or config file                  -> exit 2
    ├── InputError           a file or value handed in is malformed            -> exit 2
    │   ├── SkillFormatError      skills.procedure: a skill file
    │   ├── SuiteError            eval.suite: a task suite file
    │   └── MemoryInputError      memory.records: a fact, an export, a category
    ├── ServerUnreachable    the model server cannot be reached                -> exit 3
    ├── ModelError           the server answered with an error
    │   └── ServerTooSlow         ... or not within a time limit
    ├── ReplyCutOff          the reply stopped before it finished
    ├── Cancelled            the user cancelled (Ctrl-C)                       -> exit 130
    ├── LocalRuntimeError    the embedded runtime cannot start
    │   ├── ModelInstallError     runtime.model
    │   │   └── PullError             runtime.pull: pip could not install a model's parts
    │   └── ServerError           runtime.server
    ├── EmbedderError        embed.base: the embedder failed
    ├── TokenCounterError    eval.tokens: no tokenizer answers
    ├── DatabaseFileError    memory.migrations: a database file is unusable
    ├── ExtractionError      memory.extract: a document cannot be read as text
    ├── SkillStoreError      skills.store: a procedure operation cannot be done
    ├── McpCallError         mcp.connection: an MCP server's call did not complete
    ├── ToolDefinitionError  registry.spec: a tool's signature cannot become a schema
    ├── SandboxError         tools.sandbox: a path outside the allowed folders  -> exit 2
    │   └── SecretPathError       a path whose name is a credential's
    ├── TooManyFiles         tools.os_sandbox: too many files to mask credentials in
    ├── CommandRefused       tools.shell_policy: a command the shell tool refuses
    └── NoConversation       cli.resume: no conversation to continue (ask -c)   -> exit 2

Tools report failures to the model with ``registry.failure.ToolFailure``, which
the executor turns into the call's result; it never reaches the CLI.
"""

from __future__ import annotations

__all__ = ["GaiaError", "ConfigError", "InputError", "ServerUnreachable", "ModelError", "ServerTooSlow", "ReplyCutOff",
           "Cancelled", "LocalRuntimeError"]


class GaiaError(Exception):
    exit_code = 1


class ConfigError(GaiaError):
    exit_code = 2


class InputError(GaiaError):
    """A file or value the user (or the model) handed in is malformed; the message says what to fix."""

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
