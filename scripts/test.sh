#!/usr/bin/env bash
# Run the whole test suite, real-model tests included (README's second command; CI runs this).
# Sets up the venv and the embedded runtime first (idempotent; the first llama-server build takes ~6 min).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --quiet
if [ -f scripts/ci-apt.sh ]; then bash scripts/ci-apt.sh || echo "note: some optional Debian packages could not be installed" >&2; fi
exec .venv/bin/python -m pytest -m "slow or not slow" "$@"
