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


def code_span(text: str) -> str | None:
    """The literal content of ``text`` if it is exactly one CommonMark code span, else None:
    an opening run of backticks, content with no run of that length, the same closing run
    (one space stripped from each end when both ends are spaces and the content is not)."""
    match = re.fullmatch(r"(`+)(.*?)(`+)", text, flags=re.S)
    if match is None or match.group(1) != match.group(3):
        return None
    fence, content = match.group(1), match.group(2)
    if any(len(run) == len(fence) for run in re.findall("`+", content)):
        return None
    if len(content) >= 2 and content[0] == content[-1] == " " and content.strip(" "):
        content = content[1:-1]
    return content


@given(st.text(max_size=120))
def test_markdown_is_one_code_span_holding_exactly_the_text(value: str) -> None:
    shown = untrusted.markdown(value)
    assert "\n" not in shown and "\r" not in shown
    expected = untrusted.shorten(value, untrusted.MARKDOWN_LIMIT) or " "
    assert code_span(shown) == expected


def test_long_values_are_cut() -> None:
    shown = untrusted.markdown("9" * 60_000)
    assert len(shown) == untrusted.MARKDOWN_LIMIT + 2 and shown.endswith("…`")


def test_link_notice_cannot_carry_a_link_or_an_image() -> None:
    params = (FloatParam("eps", 1.0, 0.001, 100.0), ChoiceParam("view", "a", ("a", "b")))
    _, notices = decode(params, {"eps": LINK, "view": IMAGE + "x" * 60_000})
    assert len(notices) == 2
    for notice in notices:
        assert len(notice) < 400
    assert f"Ignored `eps={LINK}` in the link" in notices[0]  # inert: inside inline code


def test_app_warning_echoes_the_link_value_escaped() -> None:
    at = AppTest.from_file(str(ROOT / "pages" / "home.py"), default_timeout=60)
    at.query_params["eps"] = LINK
    at.run()
    assert not at.exception
    text = " ".join(w.value for w in at.warning)
    assert f"Ignored `eps={LINK}`" in text


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
    assert untrusted.file_name("www.evil.example.csv") == "www_evil.example.csv"  # no autolink


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
