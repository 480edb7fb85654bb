"""A path that dropped the working directory's last folder is put back under it, and only then."""

from __future__ import annotations

from pathlib import Path

import pytest

from gaia_lite.registry import ToolRegistry
from gaia_lite.registry.context import ToolContext
from gaia_lite.registry.execute import Decision, ToolExecutor, ToolStatus
from gaia_lite.registry.paths import beside_workdir
from gaia_lite.registry.spec import spec_of
from gaia_lite.tools.files import browse_directory, write_file
from gaia_lite.tools.sandbox import Sandbox


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    """<tmp>/task-on/work, the layout `eval tasks` gives a task, with a config file and a folder."""
    work = tmp_path / "task-on" / "work"
    (work / "projects").mkdir(parents=True)
    (work / "config.ini").write_text("port = 8080\n")
    (work / "projects" / "roadmap.md").write_text("# Roadmap\n")
    (tmp_path / "task-on" / "home").mkdir()
    (tmp_path / "task-on" / "home" / "notes.txt").write_text("the home folder's own file\n")
    return work


@pytest.mark.parametrize("given, meant", [
    ("config.ini", "config.ini"),                   # an existing file
    ("projects", "projects"),                       # an existing folder
    ("projects/roadmap.md", "projects/roadmap.md"),
    ("todo.txt", "todo.txt"),                       # a new file in the working directory
    ("projects/new.md", "projects/new.md"),         # a new file in a folder there
])
def test_a_path_beside_the_working_directory_is_put_under_it(workdir: Path, given: str, meant: str) -> None:
    assert beside_workdir(str(workdir.parent / given), workdir) == str(workdir / meant)


def test_a_path_that_dropped_two_folders_is_put_under_the_working_directory(workdir: Path) -> None:
    # the 1.5B indexed <out>/contracts for <out>/<task>-on/work/contracts
    (workdir / "contracts").mkdir()
    assert beside_workdir(str(workdir.parent.parent / "contracts"), workdir) == str(workdir / "contracts")


@pytest.mark.parametrize("given", [
    "config.ini",                    # relative: it already resolves in the working directory
    "{work}/config.ini",             # inside the working directory
    "{parent}/home/notes.txt",       # a real file beside it: the model may mean just that
    "{parent}",                      # the parent itself exists
    "{parent}/nowhere/todo.txt",     # no folder 'nowhere' in the working directory either
    "/elsewhere/config.ini",         # not beside the working directory at all
])
def test_other_paths_are_used_as_given(workdir: Path, given: str) -> None:
    raw = given.format(work=workdir, parent=workdir.parent)
    assert beside_workdir(raw, workdir) is None


def test_a_path_in_an_allowed_folder_is_used_as_given(workdir: Path) -> None:
    # the user allowed the parent folder: a new file there may be just what the model meant
    assert beside_workdir(str(workdir.parent / "todo.txt"), workdir, allowed=[workdir.parent]) is None


def _executor(workdir: Path, asked: list[dict]) -> ToolExecutor:
    ctx = ToolContext(workdir=workdir, sandbox=Sandbox([workdir]), data_dir=workdir.parent / "home")

    def approve(spec, args):
        asked.append(dict(args))
        return Decision.ALLOW

    return ToolExecutor(ToolRegistry([spec_of(write_file), spec_of(browse_directory)]), ctx, approve=approve)


def test_the_user_approves_the_path_the_call_will_use(workdir: Path) -> None:
    asked: list[dict] = []
    result = _executor(workdir, asked).execute(
        "write_file", {"file_path": str(workdir.parent / "todo.txt"), "content": "call mom"})
    assert result.status is ToolStatus.OK
    assert asked[0]["file_path"] == str(workdir / "todo.txt") == result.arguments["file_path"]
    assert (workdir / "todo.txt").read_text() == "call mom"
    assert not (workdir.parent / "todo.txt").exists()


def test_a_folder_listing_beside_the_working_directory_lists_the_folder_meant(workdir: Path) -> None:
    result = _executor(workdir, []).execute("browse_directory", {"directory_path": str(workdir.parent / "projects")})
    assert result.status is ToolStatus.OK, result.payload
    assert "roadmap.md" in str(result.payload)
