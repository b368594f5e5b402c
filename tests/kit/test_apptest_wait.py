"""``AppTest``'s wait for its script as ``tests/conftest.py`` replaces it: a run that ends is
returned whole, a run still going at the timeout is stopped and reported as Streamlit's own
wait reports it."""

from __future__ import annotations

import time

import pytest
from streamlit.testing.v1 import AppTest

SLOW = """
import time
import streamlit as st
for i in range(200):
    time.sleep(0.02)
    st.empty()  # a Streamlit call: where a stop request takes effect
st.write("finished")
"""


def test_a_finished_run_is_returned_with_every_element():
    at = AppTest.from_string("import streamlit as st\nfor i in range(50):\n    st.markdown(str(i))")
    at.run(timeout=30)
    assert [m.value for m in at.markdown] == [str(i) for i in range(50)]


def test_a_run_past_its_timeout_is_stopped_and_reported():
    at = AppTest.from_string(SLOW)
    start = time.monotonic()
    with pytest.raises(RuntimeError, match=r"timed out after 0.3\(s\)"):
        at.run(timeout=0.3)
    assert time.monotonic() - start < 3.0  # stopped, not waited out (4 s)
