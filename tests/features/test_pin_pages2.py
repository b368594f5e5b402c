"""Pin and compare on the Exponential mechanism and Key-value LDP pages (Streamlit AppTest).

The compared numbers are recomputed here from the definitions (the exponential mechanism's
closed form) or from ``dpcore`` directly (the key-value simulation), not through the pages'
view modules.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qsl

import numpy as np
import pandas as pd
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from dpcore.histogram import parse_histogram
from dpcore.ldp import data as kvdata
from dpcore.ldp import experiment
from dpcore.ldp.mechanisms import KVSettings
from dpui.kit import byte_cache, limits

ROOT = Path(__file__).resolve().parents[2]
SPORTS = np.array([30.0, 24.0, 9.0, 6.0])
ADULT = np.array(
    [10501, 7291, 5355, 1723, 1382, 1175, 1067, 933, 646, 576, 514, 433, 413, 333, 168, 51],
    dtype=float,
)


def _button(at: AppTest, label: str):
    return next(b for b in at.button if b.label == label)


def _pin_values(at: AppTest) -> dict[str, str]:
    value = at.query_params["pin"]
    return dict(parse_qsl(value[0] if isinstance(value, list) else value))


def _table(at: AppTest) -> pd.DataFrame:
    return next(d.value for d in at.dataframe if "quantity" in d.value.columns).set_index(
        "quantity"
    )


def _titles(at: AppTest) -> dict[str, str]:
    """The A and B captions above the side-by-side figures."""
    return {
        m.value[2]: m.value
        for m in at.markdown
        if m.value.startswith(("**A (pinned):**", "**B (current):**"))
    }


def _warnings(at: AppTest) -> str:
    """The warnings as the user reads them (quoted text is set as code between backticks)."""
    return " ".join(w.value.replace("`", "") for w in at.warning)


# --- Exponential mechanism ------------------------------------------------------------------


def _exponential() -> AppTest:
    return AppTest.from_file(str(ROOT / "pages" / "exponential.py"), default_timeout=120)


def _closed_form(scores: np.ndarray, eps: float, sensitivity: float) -> dict[str, float]:
    """Pr[M = r] ∝ exp(ε u_r / 2Δu) written out; the bound is Dwork & Roth's thm. 3.11 at the
    best wrong score c: |R| / |R_OPT| · exp(ε (c − OPT) / 2Δu)."""
    opt = scores.max()
    weights = np.exp(eps * (scores - opt) / (2 * sensitivity))
    p = weights / weights.sum()
    wrong = np.sort(np.unique(scores))[-2]
    n_best = np.sum(scores == opt)
    return {
        "Pr[best answer]": p[scores == opt].sum(),
        "expected score loss": np.sum(p * (opt - scores)),
        "Pr[wrong answer], exact": p[scores <= wrong].sum(),
        "Pr[wrong answer], bound": scores.size
        / n_best
        * np.exp(eps * (wrong - opt) / (2 * sensitivity)),
    }


def test_exponential_pin_then_change_compares_a_with_b_and_unpin_returns():
    at = _exponential().run()
    _button(at, "Pin this view").click().run()
    assert _pin_values(at) == {
        "exp_source": "sports",
        "exp_sens": "1",
        "exp_seed": "0",
        "exp_draws": "100",
        "eps": "1",
    }
    at.selectbox(key="exp_source").set_value("adult")
    at.number_input(key="exp_sens").set_value(2.0)
    at.run()
    assert not at.exception and not at.error
    table = _table(at)
    for column, scores, sensitivity in (("A (pinned)", SPORTS, 1.0), ("B (current)", ADULT, 2.0)):
        assert table.loc["candidates |R|", column] == scores.size
        assert table.loc["Δu", column] == sensitivity
        for name, value in _closed_form(scores, 1.0, sensitivity).items():
            assert table.loc[name, column] == pytest.approx(value, rel=1e-9, abs=1e-300), name
    titles = _titles(at)
    assert "sports vote" in titles["A"] and "preset as shipped" in titles["A"]
    assert "Adult education, the table in Settings" in titles["B"]
    assert any("A uses its preset table as shipped" in c.value for c in at.caption)
    assert _pin_values(at)["exp_source"] == "sports"  # the pin stays A while B changes
    _button(at, "Unpin").click().run()
    assert not at.exception and "pin" not in at.query_params
    assert not _titles(at) and not any("quantity" in d.value.columns for d in at.dataframe)
    assert any(b.label == "Pin this view" for b in at.button)


def test_exponential_a_with_b_s_source_uses_the_edited_table():
    at = _exponential()
    at.query_params["pin"] = "exp_source=sports&exp_sens=2"
    at.session_state["exp_table_sports"] = {  # the data editor's own edit record
        "edited_rows": {0: {"score": "100"}},
        "added_rows": [],
        "deleted_rows": [],
    }
    at.run()
    assert not at.exception and not at.error
    edited = np.array([100.0, 24.0, 9.0, 6.0])
    table = _table(at)
    for column, sensitivity in (("A (pinned)", 2.0), ("B (current)", 1.0)):
        for name, value in _closed_form(edited, 1.0, sensitivity).items():
            assert table.loc[name, column] == pytest.approx(value, rel=1e-9, abs=1e-300), name
    assert "sports vote, the table in Settings" in _titles(at)["A"]
    assert not any("as shipped" in c.value for c in at.caption)


def test_exponential_invalid_edited_table_refuses_a_and_b_and_keeps_the_edits():
    at = _exponential()
    at.query_params["pin"] = "exp_source=sports&exp_sens=2"
    edits = {"edited_rows": {1: {"score": "lots"}}, "added_rows": [], "deleted_rows": []}
    at.session_state["exp_table_sports"] = edits
    at.run()
    assert not at.exception
    assert len(at.error) == 1 and "'lots' is not a number" in at.error[0].value
    warnings = _warnings(at)
    assert "Pinned view A: The candidate table in Settings has a problem" in warnings
    assert "The candidate table in Settings has a problem" in warnings.replace(
        "Pinned view A: ", ""
    )
    assert not at.get("plotly_chart") and not _titles(at)
    assert at.session_state["exp_table_sports"]["edited_rows"] == edits["edited_rows"]


def test_exponential_pinned_link_reopens_with_the_sidebar_histogram_as_a():
    at = _exponential()
    at.query_params["pin"] = "exp_source=sidebar&exp_sens=1&exp_seed=0&exp_draws=100&eps=0.5"
    at.run()
    assert not at.exception and not at.error
    counts = parse_histogram(
        (ROOT / "assets" / "examples" / "bimodal-1024.csv").read_bytes(), name="bimodal-1024"
    ).counts
    table = _table(at)
    assert table.loc["candidates |R|", "A (pinned)"] == 1024
    assert table.loc["ε", "A (pinned)"] == 0.5
    expected = _closed_form(counts.astype(float), 0.5, 1.0)["Pr[best answer]"]
    assert table.loc["Pr[best answer]", "A (pinned)"] == pytest.approx(expected, rel=1e-9)
    assert "bimodal-1024" in _titles(at)["A"]


def test_exponential_bad_pinned_values_fall_back_with_a_notice():
    at = _exponential()
    at.query_params["pin"] = "exp_source=bogus&exp_sens=-3&eps=2"
    at.run()
    assert not at.exception
    warnings = _warnings(at)
    assert (
        "Pinned view" in warnings and "exp_source=bogus" in warnings and "exp_sens=-3" in warnings
    )
    table = _table(at)  # A falls back to the sports vote at Δu = 1, keeping ε = 2
    expected = _closed_form(SPORTS, 2.0, 1.0)["Pr[best answer]"]
    assert table.loc["Pr[best answer]", "A (pinned)"] == pytest.approx(expected, rel=1e-9)


def test_exponential_a_over_the_work_limit_is_refused_not_computed(monkeypatch):
    monkeypatch.setenv(limits.SECONDS_VARIABLE, "0.01")  # B (100 runs) fits, 10^6 runs do not
    at = _exponential()
    at.query_params["pin"] = "exp_draws=1000000"
    at.run()
    assert not at.exception
    assert "Not computed: Pinned view A: the exponential mechanism over 4" in _warnings(at)
    assert not any("quantity" in d.value.columns for d in at.dataframe)
    assert any(m.label == "Pr[best answer]" for m in at.metric)  # B is still shown


# --- Key-value LDP --------------------------------------------------------------------------

KV_SMALL = {"kv_users": 2_000, "kv_d": 30, "kv_reps": 1}
KV_TICKED = ("HISKV", "PCKV-GRR")
KV_FLAGS = {
    "HISKV": "kv_m_hiskv", "PCKV-GRR": "kv_m_pckv_grr", "PCKV-UE": "kv_m_pckv_ue",
    "PrivKV": "kv_m_privkv", "PrivKVM": "kv_m_privkvm", "KVUE": "kv_m_kvue",
    "KVOH": "kv_m_kvoh", "Harmony": "kv_m_harmony", "SUE": "kv_m_sue",
}  # fmt: skip


def _kv(**values) -> AppTest:
    """The page with few users and keys, one repetition and two mechanisms ticked."""
    at = AppTest.from_file(str(ROOT / "pages" / "kv_ldp.py"), default_timeout=300)
    for key, value in (KV_SMALL | values).items():
        at.session_state[key] = value
    for name, flag in KV_FLAGS.items():
        at.session_state[flag] = name in KV_TICKED
    return at


def _kv_link(**values) -> str:
    """A pin link for the small setting (``values`` override)."""
    pinned = {k: str(v) for k, v in KV_SMALL.items()}
    pinned |= {flag: str(name in KV_TICKED).lower() for name, flag in KV_FLAGS.items()}
    return "&".join(f"{k}={v}" for k, v in (pinned | values).items())


def _kv_expected(data_seed: int, reps: int, eps: float, t: int = 20) -> dict[str, float]:
    """The table's numbers for the small setting, straight from dpcore: data generated by
    ``data_seed``, PCKV's padding l the 90th percentile of the true lengths, the simulation
    seed 0, the mean over ``reps`` runs of each MSE over the top-``t`` keys."""
    data = kvdata.generate(2_000, 30, max_length=50, rng=np.random.default_rng(data_seed))
    padding = int(np.ceil(np.percentile(data.lengths, 90)))
    settings = KVSettings(padding_length=padding)  # β 0.1, value share 0.5, amplified, c = 3
    out = {"users n": 2_000.0, "keys d": 30.0, "pairs": float(data.keys.size)}
    for name in KV_TICKED:
        runs = experiment.run_cell(
            data, name, eps, t_values=(t,), repetitions=reps, settings=settings, seed=0
        )
        out[f"{name}: MSE of frequencies"] = runs["mse_freq"].mean()
        out[f"{name}: MSE of means"] = runs["mse_mean"].mean()
    return out


def test_kv_pin_then_change_compares_a_with_b_and_unpin_returns():
    at = _kv().run()
    _button(at, "Pin this view").click().run()
    pinned = _pin_values(at)
    assert pinned["kv_users"] == "2000" and pinned["kv_data_seed"] == "0"
    assert pinned["kv_m_hiskv"] == "true" and pinned["kv_m_sue"] == "false"
    assert pinned["eps"] == "1"
    at.number_input(key="kv_data_seed").set_value(1)
    at.number_input(key="kv_reps").set_value(2)
    at.run()
    assert not at.exception and not at.error
    table = _table(at)
    for column, data_seed, reps in (("A (pinned)", 0, 1), ("B (current)", 1, 2)):
        assert table.loc["ε of the MSEs below", column] == 0.8  # the default "ε for RE"
        for name, value in _kv_expected(data_seed, reps, 0.8).items():
            assert table.loc[name, column] == pytest.approx(value, rel=1e-9), (column, name)
    assert "SUE: MSE of frequencies" not in table.index  # not ticked in either view
    titles = _titles(at)
    assert "data seed 0" in titles["A"] and "1 run," in titles["A"]
    assert "data seed 1" in titles["B"] and "2 runs" in titles["B"]
    _button(at, "Unpin").click().run()
    assert not at.exception and "pin" not in at.query_params and not _titles(at)


def test_kv_pinning_and_unpinning_reuse_the_cached_simulation(monkeypatch):
    st.cache_data.clear()
    byte_cache.clear_caches()
    calls = []
    run_cell = experiment.run_cell

    def counted(*args, **kwargs):
        calls.append((args[1], args[2]))
        return run_cell(*args, **kwargs)

    monkeypatch.setattr(experiment, "run_cell", counted)
    at = _kv().run()
    cells = len(KV_TICKED) * 4  # the coarse grid has four ε
    assert len(calls) == cells
    _button(at, "Pin this view").click().run()
    at.number_input(key="kv_seed").set_value(5).run()  # B: a new simulation, A: cached
    assert not at.exception and len(calls) == 2 * cells
    _button(at, "Unpin").click().run()
    at.number_input(key="kv_seed").set_value(0).run()  # back to A's settings
    assert not at.exception and len(calls) == 2 * cells


def test_kv_pinned_link_reopens_and_bad_values_fall_back():
    at = _kv()
    at.query_params["pin"] = _kv_link(kv_data_seed=3, kv_re_eps="1.6")
    at.run()
    assert not at.exception and not at.error
    table = _table(at)
    expected = _kv_expected(3, 1, 1.6)
    assert table.loc["pairs", "A (pinned)"] == expected["pairs"]
    assert table.loc["HISKV: MSE of means", "A (pinned)"] == pytest.approx(
        expected["HISKV: MSE of means"], rel=1e-9
    )
    assert table.loc["ε of the MSEs below", "A (pinned)"] == 1.6
    at = _kv()
    at.query_params["pin"] = _kv_link(kv_grid="bogus", kv_t=999)
    at.run()
    assert not at.exception
    warnings = _warnings(at)
    assert "Pinned view" in warnings and "kv_grid=bogus" in warnings and "kv_t=999" in warnings
    assert _table(at).loc["top-t", "A (pinned)"] == 20  # the default


def test_kv_a_from_an_upload_or_over_the_work_limit_says_so():
    at = _kv()
    at.query_params["pin"] = _kv_link(kv_source="upload")
    at.run()
    assert not at.exception
    warnings = _warnings(at)
    assert "Pinned view A: No file is uploaded in this session for this view" in warnings
    assert "A pin keeps settings, never files" in warnings
    at = _kv()
    at.query_params["pin"] = _kv_link(kv_users=1_000_000)  # generation alone is ~25 s
    at.run()
    assert not at.exception
    warnings = _warnings(at)
    assert "Not computed: Pinned view A: generating 1,000,000 users" in warnings
    assert not any("quantity" in d.value.columns for d in at.dataframe)
