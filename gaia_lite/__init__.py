"""gaia-lite: a local terminal chat agent with dynamic tool loading."""

__version__ = "0.1.0"
__all__ = ["__version__"]
