"""Every page runs on its own with default state, and the app frame runs (Streamlit AppTest)."""

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "pages").glob("*.py"))


@pytest.mark.parametrize("page", PAGES)
def test_page_runs_alone_with_defaults(page):
    at = AppTest.from_file(str(ROOT / page), default_timeout=120).run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    assert at.title, "every page has a title"


def test_app_frame_runs_and_lists_every_page():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    assert not at.exception
    assert at.selectbox(key="data").value
    assert at.number_input(key="eps").value == 1.0
