"""Histogram parsing: every accepted layout, every rejection, and fuzzing (hypothesis)."""

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcore.histogram import HistogramError, parse_histogram

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def test_counts_with_and_without_header():
    assert parse_histogram(b"count\n1\n2\n3\n").counts.tolist() == [1, 2, 3]
    assert parse_histogram(b"1\n2\n3").counts.tolist() == [1, 2, 3]


def test_labelled_csv_tsv_semicolon():
    for sep in (",", "\t", ";"):
        h = parse_histogram(f"name{sep}n\na{sep}1\nb{sep}5\n".encode())
        assert h.labels == ("a", "b") and h.counts.tolist() == [1, 5]


def test_raw_values_by_bin_count_and_width():
    data = b"value\n0\n0.5\n1\n2\n4\n"
    by_count = parse_histogram(data, layout="values", bins=4)
    assert by_count.counts.tolist() == [2, 1, 1, 1]  # [0,1) [1,2) [2,3) [3,4]
    by_width = parse_histogram(data, layout="values", bin_width=2.0)
    assert by_width.counts.sum() == 5 and by_width.n_bins == 3


def test_non_integer_counts_are_accepted_and_reported():
    h = parse_histogram(b"1.5\n2\n")
    assert h.counts.tolist() == [1.5, 2.0] and h.notes


def test_utf8_bom_and_blank_lines():
    assert parse_histogram("\ufeffcount\n\n4\n\n5\n".encode()).counts.tolist() == [4, 5]


@pytest.mark.parametrize(
    "data,kwargs,message",
    [
        (b"", {}, "empty"),
        (b"\n \n", {}, "empty"),
        (b"count\n", {}, "no data rows"),
        (b"a,b\nx,y\n", {}, "not a number"),
        (b"1\n2\nthree\n", {}, "Row 3: 'three' is not a number"),
        (b"1\n-2\n", {}, "negative"),
        (b"1\nnan\n", {}, "NaN"),
        (b"1\ninf\n", {}, "NaN/infinite"),
        (b"\x00\x01\x02", {}, "binary"),
        (b"\xff\xfe\xfa", {}, "not UTF-8"),
        (b"a,1,2\n", {}, "3 columns"),
        (b"1\n2\n3\n", {"max_bins": 2}, "more than the limit"),
        (b"1\n" * 100, {"max_bytes": 50}, "MiB"),
        (b"1\n2\n", {"layout": "values"}, "number of bins or a bin width"),
        (b"1\n2\n", {"layout": "values", "bins": 0}, "at least 1"),
        (b"1\n2\n", {"layout": "values", "bin_width": -1.0}, "positive"),
        (b"1\n2\n", {"layout": "labelled"}, "label and a count"),
        (b"a,1\nb\n", {}, "Row 2 does not have 2 columns"),
    ],
)
def test_rejections_say_what_was_wrong(data, kwargs, message):
    with pytest.raises(HistogramError, match=message):
        parse_histogram(data, **kwargs)


def test_real_shared_data_parses():
    for path in sorted(SHARED_DATA.glob("*.csv")):
        h = parse_histogram(path.read_bytes(), name=path.stem)
        assert h.n_bins == 4096 and h.total > 0 and not h.notes


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300))
def test_any_bytes_parse_or_raise_histogram_error(data):
    try:
        h = parse_histogram(data)
    except HistogramError:
        return
    assert h.n_bins >= 1 and np.isfinite(h.counts).all() and (h.counts >= 0).all()


CELL = st.one_of(
    st.integers(-5, 1000).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.text(max_size=6),
    st.sampled_from(["", " ", "1e309", "-0", "0x10", "NaN", "--1", "1,5"]),
)


@settings(max_examples=300, deadline=None)
@given(
    rows=st.lists(st.lists(CELL, min_size=1, max_size=3), max_size=12),
    sep=st.sampled_from([",", "\t", ";"]),
    layout=st.sampled_from(["auto", "counts", "labelled", "values"]),
    bins=st.one_of(st.none(), st.integers(-2, 50)),
)
def test_malformed_tables_raise_only_histogram_error(rows, sep, layout, bins):
    data = "\n".join(sep.join(r) for r in rows).encode()
    try:
        h = parse_histogram(data, layout=layout, bins=bins, max_bins=1000)
    except HistogramError:
        return
    assert np.isfinite(h.counts).all() and (h.counts >= 0).all() and h.n_bins >= 1
