"""Histogram parsing: every accepted layout, every rejection, and fuzzing (hypothesis)."""

import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcore.histogram import HistogramError, parse_histogram

SHARED_DATA = Path(__file__).resolve().parents[3] / "shared" / "data"


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
        (b"1\n2\nthree\n", {}, "Line 3: 'three' is not a number"),
        (b"1\n-2\n", {}, "negative"),
        (b"1\nnan\n", {}, "NaN"),
        (b"1\ninf\n", {}, "NaN/infinite"),
        (b"\x00\x01\x02", {}, "binary"),
        (b"\xff\xfe\xfa", {}, "not UTF-8"),
        (b"a,1,2\n", {}, "3 column"),
        (b"1\n2\n3\n", {"max_bins": 2}, "more than the limit"),
        (b"1\n" * 100, {"max_bytes": 50}, "MiB"),
        (b"1\n2\n", {"layout": "values"}, "number of bins or a bin width"),
        (b"1\n2\n", {"layout": "values", "bins": 0}, "at least 1"),
        (b"1\n2\n", {"layout": "values", "bin_width": -1.0}, "positive"),
        (b"1\n2\n", {"layout": "labelled"}, "a label column and a count column"),
        (b"a,1\nb\n", {}, "Line 2 has 1 column"),
    ],
)
def test_rejections_say_what_was_wrong(data, kwargs, message):
    with pytest.raises(HistogramError, match=message):
        parse_histogram(data, **kwargs)


def test_real_shared_data_parses():
    paths = sorted(SHARED_DATA.glob("*.csv"))
    if not paths:  # CI has shared/ beside the clone; a clone elsewhere may not
        if os.environ.get("CI"):
            pytest.fail(f"no real histograms in {SHARED_DATA}")
        pytest.skip(f"no real histograms in {SHARED_DATA}")
    for path in paths:
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


# ---- issue 10: regressions (B huge counts, C crashes, D cost before rejection, F misreads)


def test_counts_float64_cannot_perturb_are_rejected_with_the_limit():
    with pytest.raises(HistogramError, match=r"limit of 4,294,967,296 \(2\^32\)"):
        parse_histogram(b"count\n" + b"100000000000000000000\n" * 64)
    with pytest.raises(HistogramError, match="limit of"):
        parse_histogram(b"1e308\n1e308\n")  # the total overflows to inf
    assert parse_histogram(b"4294967295\n1\n").total == 2**32  # the limit itself is accepted


@pytest.mark.parametrize(
    "data,kwargs,message",
    [
        (b"v\n-1e308\n1e308\n", {"layout": "values", "bins": 10}, "wider than float64 can bin"),
        (b"x" * 200_000 + b",1\nb,2\n", {}, "Line 1 is longer than 10,000 bytes"),
        (b"v\n1e16\n1.0000000000000002e16\n", {"layout": "values", "bins": 10**6}, "narrower"),
        (b"v\n0\n1e300\n", {"layout": "values", "bin_width": 1e-300}, "more than the limit"),
        (b'a,"1\n' + b"xxx\n" * 40_000 + b'"\n', {}, "not valid CSV"),
    ],
    ids=["values-1e308", "200k-field", "narrow-bins", "tiny-width", "multiline-field"],
)
def test_crashing_uploads_raise_histogram_error(data, kwargs, message):
    with pytest.raises(HistogramError, match=message):
        parse_histogram(data, **kwargs)


def test_over_size_file_is_rejected_before_parsing(monkeypatch):
    def never(*args, **kwargs):
        raise AssertionError("parsed rows of a file the byte scan must reject")

    monkeypatch.setattr("dpcore.histogram._read", never)
    with pytest.raises(HistogramError, match="more than 4,194,305 non-empty lines"):
        parse_histogram(b"1\n" * (32 * 2**20 - 1))  # just under 64 MiB
    with pytest.raises(HistogramError, match="more than 4 non-empty lines"):
        parse_histogram(b"1\n\n \n2\n3\n4\n5\n", max_rows=3)
    with pytest.raises(HistogramError, match="Line 3 is longer"):
        parse_histogram(b"1\n2\n" + b"1," * 6000 + b"\n")


def test_blank_lines_do_not_count_towards_the_row_limit():
    assert parse_histogram(b"c\n1\n\n\n \n2\n3\n", max_rows=3).counts.tolist() == [1, 2, 3]


def test_header_detection_is_reported():
    h = parse_histogram(b"country,population\na,1\n")
    assert h.header_note == "First row read as a header: country, population."
    h = parse_histogram(b"country,2020\na,1\n")  # a number in the header: read as data, said so
    assert h.labels == ("country", "a") and "No header: the first row (country, 2020)" in (
        h.header_note
    )
    h = parse_histogram(b"country,2020\na,1\n", header=True)
    assert h.labels == ("a",) and h.header_note.startswith("First row read as a header")


def test_forcing_no_header_rejects_a_text_first_row():
    with pytest.raises(HistogramError, match="Line 1: 'n' is not a number"):
        parse_histogram(b"n\n5\n", header=False)


@pytest.mark.parametrize("first", [b'a,"1,000"', b"a,0x10", b"0x10", b"1_0x"])
def test_unparseable_first_count_is_an_error_not_a_header(first):
    with pytest.raises(HistogramError, match=r"Line 1: .* not a number.*If it is a header"):
        parse_histogram(first + b"\n" + (b"b,2\n" if b"," in first else b"2\n"))


@pytest.mark.parametrize(
    "data,layout,message",
    [
        (b"a,1,2\nb,3,4\n", "counts", "Line 1 has 3 column.*needs one column"),
        (b"a,1\nb,2\n", "values", "Line 1 has 2 column"),
        (b"1\n2\na,3\n", "auto", "Line 3 has 2 column.*first row has 1"),
        (b"x,n\na,1\n\nb,2,3\n", "auto", "Line 4 has 3 column"),
    ],
)
def test_wrong_width_and_ragged_rows_name_the_line(data, layout, message):
    with pytest.raises(HistogramError, match=message):
        parse_histogram(data, layout=layout, bins=4)


def test_old_mac_line_endings_still_parse():
    assert parse_histogram(b"n\r1\r2\r").counts.tolist() == [1, 2]
    assert parse_histogram(b"n\r\n1\r\n2\r\n").counts.tolist() == [1, 2]


HOSTILE = st.sampled_from(
    [b"1e308", b"-1e308", b"1e20", b"x" * 20_000, b'"', b'"a\n,b"', b"\r", b"0x10", b'"1,000"']
)


@settings(max_examples=300, deadline=None)
@given(
    parts=st.lists(st.one_of(HOSTILE, st.binary(max_size=8), st.sampled_from([b",", b"\n"]))),
    layout=st.sampled_from(["auto", "counts", "labelled", "values"]),
    header=st.sampled_from([None, True, False]),
    bins=st.one_of(st.none(), st.integers(-2, 2**23)),
    bin_width=st.one_of(st.none(), st.floats()),
)
def test_hostile_shapes_raise_only_histogram_error(parts, layout, header, bins, bin_width):
    try:
        h = parse_histogram(
            b"".join(parts), layout=layout, header=header, bins=bins, bin_width=bin_width
        )
    except HistogramError:
        return
    assert np.isfinite(h.counts).all() and (h.counts >= 0).all() and h.total <= 2**32


def test_the_first_bad_cell_in_the_file_is_the_one_named():
    """A negative count on line 3 is reported before a non-number on line 4."""
    with pytest.raises(HistogramError, match=r"^Line 3: the count '-3' is negative"):
        parse_histogram(b"count\n5\n-3\nx\n", name="t")
    with pytest.raises(HistogramError, match=r"^Line 2: 'x' is not a number"):
        parse_histogram(b"count\nx\n-3\n", name="t")


@pytest.mark.parametrize(
    ("first_row", "unit"),
    [
        (b"people", "people"),
        (b"income,Number of patients", "patients"),
        (b"count (households)", "households"),
        (b"count", ""),
        (b"N", ""),
        (b"**bold**", ""),
        (b"", ""),
    ],
)
def test_the_count_columns_header_gives_the_unit(first_row, unit):
    """Issue 36: the page states errors in the upload's unit where its header names one."""
    two = b"," in first_row
    row = b"a,3\nb,4\n" if two else b"3\n4\n"
    data = (first_row + b"\n" if first_row else b"") + row
    hist = parse_histogram(data)
    assert hist.unit == unit
    assert hist.counts.tolist() == [3.0, 4.0]


def test_raw_values_have_no_unit_from_their_header():
    hist = parse_histogram(b"income\n1\n2\n3\n", layout="values", bins=2)
    assert hist.unit == ""
