from __future__ import annotations

import pytest

from gaia_lite.ui.view import ChatView

from .scenes import new_view


@pytest.fixture
def view() -> ChatView:
    return new_view()
