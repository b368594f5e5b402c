"""Which algorithm for my data?: the figure factories as plain functions."""

import re

import numpy as np
import pandas as pd
import pytest

from dpui.algorithms import figures

RECT = re.compile(r"M(-?[\d.]+),0H(-?[\d.]+)V1H(-?[\d.]+)Z")


def rectangles(fig) -> list[tuple[float, float]]:
    """The shaded x-intervals of the release chart, read back from its one path shape."""
    (shape,) = fig.layout.shapes
    assert (shape.type, shape.xref, shape.yref, shape.layer) == ("path", "x", "paper", "below")
    found = RECT.findall(shape.path)
    assert "".join(f"M{a},0H{b}V1H{c}Z" for a, b, c in found) == shape.path  # nothing else
    assert all(a == c for a, _, c in found)
    return [(float(a), float(b)) for a, b, _ in found]


def test_the_release_chart_shades_every_other_bucket_over_its_bins():
    """Buckets [0, 2), [2, 3), [3, 7), [7, 10) of 10 bins: the first and third are shaded,
    from half a bin before their first bin to half a bin after their last."""
    truth = np.arange(10.0)
    fig = figures.release(truth, truth + 1, np.array([0, 2, 3, 7]), name="X")
    assert rectangles(fig) == [(-0.5, 1.5), (2.5, 6.5)]
    assert "4 buckets (every other one shaded)" in fig.layout.title.text


def test_the_shading_covers_exactly_the_bins_of_even_numbered_buckets():
    """Random buckets over 5,000 bins (about 1,200 buckets, more than the 400 once drawn):
    a bin centre is shaded iff its bucket's number (found by searching the starts) is even."""
    rng = np.random.default_rng(5)
    bins = 5000
    starts = np.flatnonzero(np.r_[True, rng.random(bins - 1) < 0.25])
    fig = figures.release(np.ones(bins), np.ones(bins), starts, name="X")
    spans = np.array(rectangles(fig))
    centres = np.arange(bins)
    covered = ((centres[:, None] > spans[:, 0]) & (centres[:, None] < spans[:, 1])).any(axis=1)
    bucket = np.searchsorted(starts, centres, side="right") - 1
    assert np.array_equal(covered, bucket % 2 == 0)
    assert len(spans) == (starts.size + 1) // 2


@pytest.mark.parametrize("buckets", [None, np.array([0])])
def test_a_release_without_buckets_shades_nothing(buckets):
    fig = figures.release(np.ones(4), np.ones(4), buckets, name="Identity")
    assert fig.layout.shapes == ()


def test_error_vs_scale_marks_the_datas_own_n_across_the_curves():
    names, means = ["A", "A", "B", "B"], [0.1, 0.01, 0.2, 0.02]
    curves = pd.DataFrame({"algorithm": names, "scale": [100, 1000] * 2, "mean": means})
    label = "your data's N = 120,000"
    fig = figures.by_scale(curves, {"A": True, "B": False}, {label: 120_000})
    (mark,) = [trace for trace in fig.data if trace.name == label]
    assert list(mark.x) == [120_000, 120_000] and list(mark.y) == [0.01, 0.2]
    assert {trace.name for trace in fig.data} == {label, "A", "B"}


def test_the_ranking_is_dots_with_intervals_on_a_log_axis():
    """B's interval [0.5, 1.5]; C's reaches below 0 ([-1, 3]), so it is drawn to the axis's
    left end, half the smallest positive end or mean (0.25 = Identity's 0.5 / 2); Identity is
    exact: a diamond at its value, no interval; HB's approximate closed form a hollow one."""
    table = pd.DataFrame(
        {
            "mean": [0.5, 1.0, 1.0, 1.0],
            "half width": [0.0, 0.5, 2.0, 0.3],
            "how": ["exact", "mean of 3 trials", "mean of 3 trials", "mean of 3 trials"],
            "closed form": [0.5, np.nan, np.nan, 1.1],
            "data-dependent": [False, True, True, False],
        },
        index=["Identity", "B", "C", "HB"],
    )
    fig = figures.ranking(table)
    assert fig.layout.xaxis.type == "log"
    assert all(trace.type == "scatter" and trace.mode == "markers" for trace in fig.data)
    by_name = {trace.name: trace for trace in fig.data}
    dependent = by_name["data-dependent: mean of trials, 95% interval"]
    assert list(dependent.y) == ["C", "B"]  # best on top: Plotly draws the first at the bottom
    assert list(dependent.error_x.array) == [2.0, 0.5]
    assert list(dependent.error_x.arrayminus) == [0.75, 0.5]  # C: 1.0 - 0.25
    assert list(by_name["exact expected error"].x) == [0.5]
    assert list(by_name["closed form (approximate)"].y) == ["HB"]
