"""The composition root: the bundle menu reaches native tool-callers only (text-path models recover
unlisted tools for free from the full registry), with the real
registry, loader, ONNX embedder and a memory DB in a temp GAIA_HOME, against the scripted fake server."""

from __future__ import annotations

import pytest

from gaia_lite.agent.prompt import MENU_HEADER
from gaia_lite.config import load_settings
from gaia_lite.llm.client import ChatClient
from tests.fakes.openai_server import FakeOpenAIServer, text_chunks

pytest.importorskip("onnxruntime", reason="onnxruntime is not installed")


@pytest.mark.parametrize("native", [True, False])
def test_the_bundle_menu_is_for_native_models_only(gaia_home, tmp_path, native: bool) -> None:
    from gaia_lite.cli.services import build_services

    settings = load_settings({"dynamic_tools": True, "native_tools": native, "tool_calls": "free"},
                             {"GAIA_HOME": str(gaia_home)})
    with FakeOpenAIServer() as srv:
        srv.script.append(text_chunks("Hello."))
        services = build_services(settings, ChatClient(srv.base_url), workdir=tmp_path)
        try:
            list(services.agent.run("list the files in this folder"))
        finally:
            services.close()
        system = srv.requests[0]["messages"][0]["content"]
    assert (MENU_HEADER in system) is native
    assert "load_tools" in system or native  # the text path still lists load_tools among its tools
