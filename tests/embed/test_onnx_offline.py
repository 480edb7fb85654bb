"""The in-process embedder sends nothing anywhere: onnxruntime's own usage events are off."""

from __future__ import annotations

import os
import subprocess
import sys


def test_onnxruntime_telemetry_is_off_before_its_first_session() -> None:
    # onnxruntime 1.32's Linux wheel carries 1DS telemetry: a warm worker resolved a Microsoft host after each
    # ask until ORT_DISABLE_TELEMETRY was set. A fresh interpreter: the variable must be there once the
    # embedder module is imported, before onnxruntime makes its environment.
    env = {k: v for k, v in os.environ.items() if k != "ORT_DISABLE_TELEMETRY"}
    code = "import os, gaia_lite.embed.onnx; print(os.environ.get('ORT_DISABLE_TELEMETRY'))"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "1", out.stderr


def test_a_users_own_setting_is_kept() -> None:
    code = "import os, gaia_lite.embed.onnx; print(os.environ.get('ORT_DISABLE_TELEMETRY'))"
    out = subprocess.run([sys.executable, "-c", code], env={**os.environ, "ORT_DISABLE_TELEMETRY": "0"},
                         capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "0", out.stderr
