"""Issue 30, item 6: ``doctor`` tells the truth about a memory.db or rag.db that is not a file.

Attack: a folder (or a FIFO) where the database should be. On 5aec35f ``doctor`` said
"✓ memory database … not created yet", while every command that needs the database then failed.
Evidence checked absent: an ok mark for that check, exit 0, a hang on the FIFO.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from .test_cli_errors import gaia


class TestDoctorOnDatabasesThatAreNotFiles:
    @pytest.mark.parametrize("name,check", [("memory.db", "memory database"), ("rag.db", "document index")])
    @pytest.mark.parametrize("kind", ["folder", "fifo", "dangling-link"])
    def test_a_database_path_that_is_not_a_file_fails_with_the_fix(self, tmp_path: Path, name: str, check: str,
                                                                   kind: str) -> None:
        home = tmp_path / "home"
        (home / "data").mkdir(parents=True)
        target = home / "data" / name
        if kind == "folder":
            target.mkdir()
        elif kind == "fifo":
            os.mkfifo(target)
        else:
            target.symlink_to(tmp_path / "gone.db")
        run = gaia(home, "doctor", "--json", env={"LEMONADE_BASE_URL": "http://127.0.0.1:9/api/v1"})
        assert "Traceback" not in run.stderr
        row = next(c for c in json.loads(run.stdout)["checks"] if c["name"] == check)
        assert row["status"] == "fail", row
        assert "not created yet" not in row["detail"] and "not a database file" in row["detail"]
        assert "move it away" in row["fix"]
        assert run.returncode != 0
