#!/usr/bin/env bash
# Debian packages the tool tests use for real desktop facilities
# (clipboard, X server, speech, window list, notifications). Idempotent,
# quiet, and never fails the build: without them those tests skip.
set -u

packages=(xclip xvfb espeak-ng wmctrl libnotify-bin tmux ripgrep tree)

missing=()
for pkg in "${packages[@]}"; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
[ "${#missing[@]}" -eq 0 ] && exit 0

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then sudo="sudo -n"; else
    echo "ci-apt: not root and no sudo; skipping ${missing[*]}" >&2; exit 0
  fi
fi

export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >/dev/null 2>&1 || echo "ci-apt: apt-get update failed" >&2
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null 2>&1 \
  || echo "ci-apt: could not install ${missing[*]}; the tests that need them will skip" >&2
exit 0
