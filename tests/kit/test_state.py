"""Widget values and the link (:mod:`dpui.kit.state`): a value is assigned to a widget only when
the widget is new on the page, so that the browser's own value is never overwritten by a
rerun (issue 37, L6: 10 quick clicks on a number input's + counted 8)."""

import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]


def _widgets(node: Any) -> Iterator[Any]:
    for child in getattr(node, "children", {}).values():
        yield child
        yield from _widgets(child)


def _sent(at: AppTest) -> list[str]:
    """The widgets whose value this run sends to the browser to replace the browser's own."""
    return sorted(
        w.key for w in _widgets(at._tree) if getattr(getattr(w, "proto", None), "set_value", False)
    )


def test_a_rerun_sends_no_widget_value_back_to_the_browser():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    at.switch_page("pages/laplace.py").run()
    assert "lap_seed" in _sent(at)  # new on this page: the link's value (the default) is set
    at.number_input(key="lap_seed").increment().run()  # a click: a rerun of the page's part
    assert _sent(at) == []
    at.number_input(key="lap_seed").increment().run()
    assert _sent(at) == []
    at.number_input(key="eps").set_value(0.5).run()  # a sidebar widget: a full rerun
    assert _sent(at) == ["eps_log10"]  # the log slider follows the box, nothing else is sent
    at.run()
    assert _sent(at) == []
    assert at.slider(key="eps_log10").value == round(math.log10(0.5), 2)
    assert at.number_input(key="lap_seed").value == 2


def test_values_are_still_carried_to_another_page_and_back():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    at.switch_page("pages/laplace.py").run()
    at.number_input(key="lap_seed").set_value(7).run()
    at.number_input(key="eps").set_value(0.5).run()
    at.switch_page("pages/exponential.py").run()
    assert not at.exception
    assert at.number_input(key="eps").value == 0.5  # the shared ε, drawn anew on this page
    assert "eps" in _sent(at)
    at.switch_page("pages/laplace.py").run()
    assert at.number_input(key="lap_seed").value == 7 and at.number_input(key="eps").value == 0.5
    assert at.query_params["lap_seed"] == "7"
