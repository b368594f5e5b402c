"""2-D histograms from CSV: grids, the long form and binned points; every bad input is a
GridError naming the first bad line or cell and what is accepted."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from dpcore.spatial import grid_data
from dpcore.spatial.grid_data import GridError, from_grid, grid_csv, parse_grid

ROOT = Path(__file__).resolve().parents[2]
SHARED_2D = ROOT.parent / "shared" / "data" / "2d"


def refused(data: bytes, **options) -> str:
    with pytest.raises(GridError) as err:
        parse_grid(data, **options)
    return str(err.value)


# ---------------------------------------------------------------- accepted inputs


def test_a_grid_with_a_header_tab_separated_and_crlf():
    got = parse_grid(b"a\tb\tc\r\n1\t2\t3\r\n4\t5\t6\r\n", layout="grid")
    np.testing.assert_array_equal(got.counts, [[1, 2, 3], [4, 5, 6]])
    assert got.notes[0].startswith("First row read as a header")


def test_auto_reads_three_columns_as_long_form_only_under_a_header():
    np.testing.assert_array_equal(parse_grid(b"1,2,3\n4,5,6\n").counts, [[1, 2, 3], [4, 5, 6]])
    np.testing.assert_array_equal(parse_grid(b"x,y,n\n1,1,6\n").counts, [[0, 0], [0, 6]])


def test_long_form_fills_unlisted_cells_with_zero():
    got = parse_grid(b"x;y;count\n2;1;5\n0;0;3\n")
    expected = np.zeros((3, 2))
    expected[2, 1], expected[0, 0] = 5, 3
    np.testing.assert_array_equal(got.counts, expected)
    assert "3 x 2" in got.notes[1]


def test_points_are_binned_within_the_bounds_edges_included():
    data = b"lon,lat\n0,0\n0.49,0.99\n0.5,0.5\n1,1\n1,0\n"
    got = parse_grid(data, layout="points", bins=(2, 2), bounds=((0, 1), (0, 1)))
    # rows: first coordinate in [0, .5) or [.5, 1]; columns: the second likewise
    np.testing.assert_array_equal(got.counts, [[1, 1], [1, 2]])
    assert got.total == 5


def test_points_without_bounds_use_their_own_range():
    got = parse_grid(b"2,10\n4,30\n", layout="points", bins=(2, 2))
    np.testing.assert_array_equal(got.counts, [[1, 0], [0, 1]])
    assert "[2, 4]" in got.notes[1] and "[10, 30]" in got.notes[1]


@pytest.mark.parametrize("layout", ["grid", "long"])
def test_round_trip(layout):
    rng = np.random.default_rng(3)
    counts = rng.integers(0, 4, (5, 7)) * rng.integers(0, 2, (5, 7))
    counts[-1, -1] = 0  # the long form must keep the extent of a zero last cell
    back = parse_grid(grid_csv(counts, layout=layout))
    np.testing.assert_array_equal(back.counts, counts)


def test_the_bundled_grids_are_the_named_sources_coarsened():
    """Each example equals its DPBench source summed over blocks (when the source is here)."""
    sources = {"stroke-32x32": ("STROKE", 8), "md-salary-64x64": ("MD-SAL-2D", 4)}
    for name, (source, block) in sources.items():
        got = parse_grid((ROOT / "assets" / "grids" / f"{name}.csv").read_bytes())
        path = SHARED_2D / f"{source}.n256x256.csv"
        if not path.exists():
            pytest.skip("the shared 2-D data are not on this machine")
        full = np.loadtxt(path, delimiter=",")
        side = 256 // block
        for i, j in [(0, 0), (side // 2, side // 3), (side - 1, side - 1)]:
            block_sum = full[i * block : (i + 1) * block, j * block : (j + 1) * block].sum()
            assert got.counts[i, j] == block_sum
        assert got.total == full.sum()


# ---------------------------------------------------------------- bad inputs


def test_a_ragged_grid_names_its_line():
    message = refused(b"1,2,3\n4,5,6\n7,8\n")
    assert "Line 3 has 2 column(s) but the first row has 3" in message
    assert "Accepted:" in message


def test_a_non_numeric_cell_names_line_and_column():
    message = refused(b"1,2,3,4\n4,x5,6,7\n")
    assert "Line 2, column 2: 'x5' is not a number" in message


@pytest.mark.parametrize(
    ("cell", "why"),
    [("-1", "negative"), ("2.5", "not a whole number"), ("nan", "not a finite number")],
)
def test_bad_counts_name_the_first_bad_cell(cell, why):
    message = refused(f"1,2\n3,4\n5,{cell}\n6,-7\n".encode())
    assert f"Line 3, column 2: the count {cell}" in message and why in message


def test_one_row_or_one_column_is_refused():
    assert "at least 2 rows and 2 columns" in refused(b"1,2,3,4\n")
    assert "1 column(s)" in refused(b"1\n2\n3\n", layout="grid")


def test_a_grid_larger_than_the_limit():
    message = refused(b"1,2,3\n4,5,6\n7,8,9\n", max_cells=8)
    assert "more than the limit of 8" in message


def test_a_long_form_over_the_limit_is_refused_before_allocating():
    message = refused(b"x,y,count\n0,0,1\n100000,100000,1\n", max_cells=10_000)
    assert "limit of 10,000 cells" in message


def test_long_form_bad_indices_and_counts_and_repeats():
    assert "Line 3: the row -1 is not a whole number" in refused(b"x,y,c\n0,0,1\n-1,1,2\n")
    assert "Line 2: the column 0.5" in refused(b"x,y,c\n1,0.5,1\n")
    assert "Line 3: the count -2" in refused(b"x,y,c\n0,0,1\n1,1,-2\n")
    message = refused(b"x,y,c\n0,0,1\n1,1,2\n0,0,3\n1,1,1\n")
    assert "Line 4 lists cell (0, 0) again (first at line 2)" in message


def test_nan_coordinates_and_points_outside_the_bounds():
    nan = refused(b"0,0\nnan,1\n", layout="points")
    assert "Line 2" in nan and "NaN or infinite" in nan
    outside = refused(b"0,0\n0.5,0.5\n2,0\n", layout="points", bounds=((0, 1), (0, 1)))
    assert "Line 3: the point (2, 0) is outside the bounds [0, 1] x [0, 1]" in outside


def test_bad_bins_and_bounds():
    assert "at least 2 rows" in refused(b"0,0\n1,1\n", layout="points", bins=(1, 4))
    assert "low < high" in refused(b"0,0\n", layout="points", bounds=((1, 0), (0, 1)))
    wrong = refused(b"1,2,3\n", layout="points")
    assert "Line 1 has 3 column(s); the points layout needs 2" in wrong


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"", "empty"),
        (b"\n  \n", "empty"),
        (b"x,y,count\n", "no data rows"),
        (b"1,2\x00\n", "binary"),
        (b"1,\xff\n3,4\n", "not UTF-8"),
        (b"9" * 70_000 + b"\n", "longer than"),
    ],
)
def test_unreadable_files(data, expected):
    assert expected in refused(data)


def test_a_too_large_total():
    assert "more than the limit of 4,294,967,296" in refused(b"1e10,0\n0,0\n")


def test_in_memory_grids_name_cells_by_row_and_column():
    with pytest.raises(GridError, match=r"Cell \(row 1, column 0\) has the count 0.5"):
        from_grid([[1, 2], [0.5, 1]], "x")
    with pytest.raises(GridError, match="at least 2 rows"):
        from_grid([[1, 2, 3]], "x")


def test_the_layout_is_checked():
    assert "Unknown layout" in refused(b"1,2\n3,4\n", layout="wide")  # type: ignore[arg-type]
    assert grid_data.LAYOUTS == ("auto", "grid", "long", "points")
