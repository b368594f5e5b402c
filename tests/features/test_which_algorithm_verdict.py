"""Which algorithm for my data?: how sure the ranking is, in numbers and in words."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from dpcore.algorithms import estimate
from dpcore.algorithms.dpbench import sample
from dpcore.histogram import from_counts
from dpui.algorithms import compare, verdict

NAMES = ("DAWA", "MWEM", "DPCube")  # no closed form: every one ranked by its trials


def runs(means: tuple[float, ...], sd: float, trials: int, seed: int) -> pd.DataFrame:
    """Seeded normal errors per algorithm and trial, as :func:`compare.errors` returns them."""
    rng = np.random.default_rng(seed)
    rows = [
        (name, t, float(rng.normal(mean, sd)))
        for name, mean in zip(NAMES, means, strict=True)
        for t in range(trials)
    ]
    return pd.DataFrame(rows, columns=["algorithm", "trial", "error"])


def ranked(errors: pd.DataFrame, trials: int) -> pd.DataFrame:
    hist = from_counts(np.ones(64), "flat.csv")
    setting = compare.Setting(hist, 1000, 64, "prefix", "", 1.0, trials, 0, NAMES)
    return compare.summary(errors, setting)


def intervals(errors: pd.DataFrame, trials: int) -> dict[str, tuple[float, float]]:
    """Each algorithm's 95% t interval, computed here from the raw errors."""
    out = {}
    for name, e in errors.groupby("algorithm")["error"]:
        half = stats.t.ppf(0.975, trials - 1) * e.std(ddof=1) / np.sqrt(trials)
        out[name] = (e.mean() - half, e.mean() + half)
    return out


def test_overlapping_intervals_are_named_as_a_tie():
    errors = runs((1.0, 1.05, 3.0), 0.3, 3, seed=7)
    box = intervals(errors, 3)
    lead = min(box, key=lambda n: sum(box[n]))
    overlapping = sorted(n for n in box if box[n][0] <= box[lead][1])
    assert overlapping == ["DAWA", "MWEM"]  # the premise, from the raw errors
    table = ranked(errors, 3)
    text = verdict.verdict(table)
    pair = " and ".join(table.index[:2])
    assert f"**{pair} are within noise of each other**" in text
    assert "DPCube" not in text.split("**")[1] and "Best here" not in text
    assert table["probability best"].sum() == pytest.approx(1.0, abs=1e-12)


def test_a_clear_winner_is_named_alone_with_its_probability():
    errors = runs((1.0, 2.0, 3.0), 0.01, 5, seed=8)
    box = intervals(errors, 5)
    assert box["DAWA"][1] < min(box["MWEM"][0], box["DPCube"][0])  # the premise
    table = ranked(errors, 5)
    text = verdict.verdict(table)
    assert text.startswith("Best here: **DAWA** (data-dependent), probability best > 99.5%")
    assert "within noise" not in text
    assert table["probability best"].sum() == pytest.approx(1.0, abs=1e-12)
    assert list(table["within noise"]) == [True, False, False]


def test_the_table_s_intervals_are_the_t_intervals():
    errors = runs((1.0, 1.2, 1.4), 0.2, 4, seed=9)
    table = ranked(errors, 4)
    for name, (lo, hi) in intervals(errors, 4).items():
        assert table.loc[name, "mean"] == pytest.approx((lo + hi) / 2, rel=1e-12)
        assert table.loc[name, "half width"] == pytest.approx((hi - lo) / 2, rel=1e-12)
        assert table.loc[name, "how"] == "mean of 4 trials"


def test_one_trial_claims_no_certainty():
    errors = runs((1.0, 2.0, 3.0), 0.01, 1, seed=10)
    table = ranked(errors, 1)
    text = verdict.verdict(table)
    assert text.startswith("Lowest error in this one trial: **DAWA**")
    assert "choose 2 or more trials" in text and "Best here" not in text
    assert table["probability best"].isna().all() and table["half width"].isna().all()


def test_the_card_gives_the_error_in_records_per_query():
    """Prefix workload over 64 bins at ε = 0.5: Identity's expected error is exactly the mean
    over prefix lengths L of E|sum of L Laplace(2) draws| (here by simulation, 1% tolerance);
    with a huge Identity error DAWA leads, its records per query the mean over trials of the
    brute-force mean |prefix sum error| (cumulative sums of the sampled input and estimate)."""
    hist = from_counts(np.arange(1.0, 65.0) * 50, "ramp.csv")
    names = ("Identity", "DAWA")
    s = compare.Setting(hist, 104_000, 64, "prefix", "", 0.5, 3, 4, names, own=True)
    table = compare.summary(compare.errors(s, s.key()), s)
    rng = np.random.default_rng(11)
    draws = rng.laplace(0.0, 2.0, size=(100_000, 64)).cumsum(axis=1)
    identity = np.abs(draws).mean()
    shown = verdict.card(table.loc[["Identity"]].assign(**{"within noise": True}), s)
    value = float(shown.split("Identity: exactly ")[1].split("\n")[0].replace(",", ""))
    assert value == pytest.approx(identity, rel=0.01)
    assert "at your data's N = 104,000 records, ε = 0.5, on prefix ranges" in shown
    dawa = []
    for trial in range(3):
        r = np.random.default_rng([4, trial])
        truth = sample(hist.counts, 104_000, 64, r)
        guess = estimate(
            "DAWA",
            truth,
            0.5,
            workload="prefix",
            rng=np.random.default_rng([4, trial, compare.stream("DAWA")]),
        )
        dawa.append(np.abs(np.cumsum(truth) - np.cumsum(guess)).mean())
    text = verdict.card(table.loc[["DAWA"]].assign(**{"within noise": True}), s)
    assert f"DAWA: {np.mean(dawa):,.3g} (95% interval" in text
