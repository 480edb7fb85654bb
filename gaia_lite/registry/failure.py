"""How a tool says it failed: raise ``ToolFailure`` with words meant for the model and the user.

The executor turns it into the one error payload (``error_payload``) and passes the message through word
for word, so a tool never has to build an error dict by hand, and its own words are not buried under
``"<tool> failed: SomeException:"``. Any other exception is a bug in the tool and is reported as one.
"""

from __future__ import annotations

from typing import Any

__all__ = ["ToolFailure", "error_payload"]


class ToolFailure(Exception):
    """A tool could not do what was asked; ``message`` says why and how to ask better.

    ``details`` are extra keys of the error payload the model may use ("hint", "candidates", ...)."""

    def __init__(self, message: str, **details: Any) -> None:
        super().__init__(message)
        self.message = message
        self.details = details

    def payload(self) -> dict[str, Any]:
        return error_payload(self.message, **self.details)


def error_payload(message: str, **details: Any) -> dict[str, Any]:
    """The one shape of a failed call's result: ``{"status": "error", "error": message, ...details}``."""
    return {"status": "error", "error": message, **details}
