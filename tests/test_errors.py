"""Every error class sits in the GaiaError tree, and the CLI's one boundary prints each as one line.

The classes are found by reading gaia_lite/ and tools/ (every ``class`` statement),
then imported, so a new error class anywhere is covered without being listed here.
"""

from __future__ import annotations

import ast
import importlib
import re

import pytest

from gaia_lite import errors
from gaia_lite.errors import GaiaError
from tests.codebase import modules, parse

# Exceptions that are translated before they can reach the CLI, with the module that does it.
TRANSLATED_ELSEWHERE = {
    "gaia_lite.registry.failure.ToolFailure": "gaia_lite.registry.execute",  # becomes the call's result
    # a ToolFailure: the figures go beside it in data.py, and the executor makes it the call's result
    "gaia_lite.tools.table_sql.QueryMistake": "gaia_lite.tools.data",
}


def exception_classes() -> dict[str, type[BaseException]]:
    """Qualified name -> class, for every exception class defined in the codebase."""
    found: dict[str, type[BaseException]] = {}
    for module in modules():
        if module == "gaia_lite.__main__":  # runs the app when imported
            continue
        names = [n.name for n in ast.walk(parse(module)) if isinstance(n, ast.ClassDef) and n.bases]
        if not names:
            continue
        loaded = importlib.import_module(module)
        for name in names:
            cls = getattr(loaded, name, None)
            if isinstance(cls, type) and issubclass(cls, BaseException) and cls.__module__ == module:
                found[f"{module}.{name}"] = cls
    return found


@pytest.fixture(scope="module")
def classes() -> dict[str, type[BaseException]]:
    return exception_classes()


def test_the_scan_finds_the_error_classes(classes: dict[str, type[BaseException]]) -> None:
    assert "gaia_lite.errors.GaiaError" in classes and "gaia_lite.tools.sandbox.SandboxError" in classes
    assert len(classes) >= 20


def test_every_error_class_is_in_the_gaia_error_tree(classes: dict[str, type[BaseException]]) -> None:
    outside = [name for name, cls in classes.items()
               if not issubclass(cls, GaiaError) and name not in TRANSLATED_ELSEWHERE]
    assert not outside, ("derive these from GaiaError (gaia_lite/errors.py), keeping a builtin base "
                         f"if callers catch it: {outside}")


def test_what_stays_outside_the_tree_is_caught_where_it_is_said_to_be(
        classes: dict[str, type[BaseException]]) -> None:
    for qualified, boundary in TRANSLATED_ELSEWHERE.items():
        assert qualified in classes, f"{qualified} is gone: drop it from TRANSLATED_ELSEWHERE"
        name = qualified.rsplit(".", 1)[1]
        handlers = [h for h in ast.walk(parse(boundary)) if isinstance(h, ast.ExceptHandler) and h.type is not None
                    and name in ast.unparse(h.type)]
        assert handlers, f"{boundary} does not catch {name}"


def test_there_is_one_model_error(classes: dict[str, type[BaseException]]) -> None:
    named = [name for name in classes if name.rsplit(".", 1)[1] == "ModelError"]
    assert named == ["gaia_lite.errors.ModelError"]


def test_the_errors_docstring_draws_the_whole_tree(classes: dict[str, type[BaseException]]) -> None:
    drawn = set(re.findall(r"[├└]── (\w+)", errors.__doc__ or ""))
    subclasses = {name.rsplit(".", 1)[1] for name, cls in classes.items()
                  if issubclass(cls, GaiaError) and cls is not GaiaError}
    assert drawn == subclasses, f"missing from the tree: {subclasses - drawn}; drawn but gone: {drawn - subclasses}"


def _raise_through_main(exc: BaseException, monkeypatch: pytest.MonkeyPatch,
                        capsys: pytest.CaptureFixture[str]) -> tuple[object, str]:
    from gaia_lite.cli import app as app_module

    def command() -> None:
        raise exc

    monkeypatch.setattr(app_module, "command", lambda: command)  # what main() runs: the built click command
    with pytest.raises(SystemExit) as ended:
        app_module.main()
    return ended.value.code, capsys.readouterr().err


def test_the_cli_prints_every_error_as_one_line(classes: dict[str, type[BaseException]],
                                                monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    checked = 0
    for name, cls in classes.items():
        if name in TRANSLATED_ELSEWHERE:
            continue
        exc = cls("what went wrong, and how to fix it")  # type: ignore[call-arg]
        code, err = _raise_through_main(exc, monkeypatch, capsys)
        assert (code, err) == (getattr(cls, "exit_code", None), f"gaia-lite: error: {exc}\n"), name
        checked += 1
    assert checked == len(classes) - len(TRANSLATED_ELSEWHERE)


def test_an_error_outside_the_tree_would_reach_the_user_as_a_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    """Why the tree matters: main() translates GaiaError (and OSError, Ctrl-C), not any exception."""
    from gaia_lite.cli import app as app_module

    class StrayError(ValueError):
        pass

    def command() -> None:
        raise StrayError("no one translates me")

    monkeypatch.setattr(app_module, "command", lambda: command)
    with pytest.raises(StrayError):
        app_module.main()
