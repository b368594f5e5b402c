"""Values from links and uploads are shown as text only: markdown, Plotly labels, CSV cells."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
from hypothesis import given
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

from dpui.kit import downloads, untrusted
from dpui.kit.params import ChoiceParam, FloatParam, decode
from dpui.mechanisms.figures import true_vs_noisy

ROOT = Path(__file__).resolve().parents[2]
LINK = "[Your session expired - click here](http://attacker)"
IMAGE = "![x](http://attacker/p.png)"


def _unescaped_specials(text: str) -> list[str]:
    """Special characters not preceded by a backslash (each backslash escapes one char)."""
    bare, i = [], 0
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] in untrusted.MARKDOWN_SPECIAL:
            bare.append(text[i])
        i += 1
    return bare


@given(st.text(max_size=120))
def test_markdown_escapes_every_special_character_and_keeps_the_text(value: str) -> None:
    shown = untrusted.markdown(value)
    assert _unescaped_specials(shown) == []
    assert "\n" not in shown and "\r" not in shown
    unescaped = re.sub(r"\\(.)", r"\1", shown)
    assert unescaped == untrusted.shorten(value, untrusted.MARKDOWN_LIMIT)


def test_long_values_are_cut() -> None:
    shown = untrusted.markdown("9" * 60_000)
    assert len(shown) == untrusted.MARKDOWN_LIMIT and shown.endswith("…")


def test_link_notice_cannot_carry_a_link_or_an_image() -> None:
    params = (FloatParam("eps", 1.0, 0.001, 100.0), ChoiceParam("view", "a", ("a", "b")))
    _, notices = decode(params, {"eps": LINK, "view": IMAGE + "x" * 60_000})
    assert len(notices) == 2
    for notice in notices:
        assert "](" not in notice and "![" not in notice and "http://" not in notice
        assert len(notice) < 400
    assert r"\[Your session expired \- click here\]" not in notices[0]  # '-' is left alone
    assert r"\[Your session expired - click here\]\(http\://attacker\)" in notices[0]


def test_app_warning_echoes_the_link_value_escaped() -> None:
    at = AppTest.from_file(str(ROOT / "pages" / "home.py"), default_timeout=60)
    at.query_params["eps"] = LINK
    at.run()
    assert not at.exception
    text = " ".join(w.value for w in at.warning)
    assert "Ignored eps=" in text and "](" not in text


def test_plot_labels_are_entities_and_stay_distinct() -> None:
    labels = ['<a href="http://attacker">x</a>', "=1" + "y" * 100, "=1" + "y" * 100 + "z"]
    shown = untrusted.plot_labels(labels)
    assert shown[0] == '&lt;a href="http://attacker"&gt;x&lt;/a&gt;'
    assert len(set(shown)) == 3 and all(len(s) <= untrusted.LABEL_LIMIT + 4 for s in shown)
    fig = true_vs_noisy(tuple(labels), pd.Series([1.0, 2, 3]).to_numpy(), pd.Series([1.0, 2, 3]))
    assert all("<" not in str(x) for x in fig.data[0].x)


def test_uploaded_file_names_keep_only_plain_characters() -> None:
    assert untrusted.file_name(IMAGE + ".csv") == "x_http_attacker_p.png_.csv"
    assert untrusted.file_name("counts 2024-01_v2.csv") == "counts 2024-01_v2.csv"
    assert untrusted.file_name("[]()") == "upload"


def test_csv_cells_that_look_like_formulas_become_text() -> None:
    table = pd.DataFrame(
        {
            "label": ['=HYPERLINK("http://attacker")', "+1", "-2", "@SUM(A1)", "ok", "\tx"],
            "count": [-1.5, 2.0, 3.0, 4.0, 5.0, 6.0],
            "=cmd": pd.Categorical(["=a", "b", "c", "d", "e", "f"]),
        }
    )
    back = pd.read_csv(pd.io.common.StringIO(downloads.safe_csv(table)), keep_default_na=False)
    assert back["label"].tolist() == [
        "'=HYPERLINK(\"http://attacker\")", "'+1", "'-2", "'@SUM(A1)", "ok", "'\tx"
    ]  # fmt: skip
    assert back["count"].tolist() == [-1.5, 2.0, 3.0, 4.0, 5.0, 6.0]  # numbers stay numbers
    assert list(back.columns) == ["label", "count", "'=cmd"]
    assert back["'=cmd"].tolist()[:2] == ["'=a", "b"]
    assert table["label"].iloc[0].startswith("=")  # the page's own table is not modified


def test_a_table_made_on_click_is_only_made_then_and_written_safely() -> None:
    made = []

    def make() -> pd.DataFrame:
        made.append(1)
        return pd.DataFrame({"label": ["=x"], "count": [1.0]})

    downloads.csv_button("Download", make, "t.csv")  # bare mode: no page, same call
    assert made == []  # drawing the button did not build the table
    assert downloads._made_csv(make) == "label,count\n'=x,1.0\n" and made == [1]
