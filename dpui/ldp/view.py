"""Settings and cached computations behind the "Key-value LDP" page.

Datasets are cached as shared objects bounded by bytes
(:func:`dpui.kit.limits.cache_by_bytes`: a million users are hundreds of MB of arrays
that ``cache_data`` would pickle on every rerun; they are never mutated), and
generated only when :func:`dpui.kit.limits.allow` accepts their estimated cost.
Simulation results are small tables cached with ``st.cache_data`` per
(mechanism, eps) cell, keyed by primitive specs and an explicit ``seed``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

from dpcore.ldp import data as kvdata
from dpcore.ldp import experiment, hiskv, mechanisms, privacy
from dpcore.ldp.data import KVData
from dpcore.ldp.mechanisms import KVSettings
from dpui.kit import limits, pin, references, untrusted
from dpui.kit.params import BoolParam, ChoiceParam, FloatParam, IntParam, Param
from dpui.ldp import figures as ldp_figures

SYNTHETIC = {
    "gauss": "GAUSS-like (folded-normal keys, normal means)",
    "lnr": "LNR-like (linear key frequencies and means)",
    "uniform": "uniform keys and means",
}
UPLOAD = "upload"
SOURCES = (*SYNTHETIC, UPLOAD)
LENGTHS = {"heavy": "heavy-tailed (TalkingData-like)", "uniform": "uniform 1..max"}
EPS_GRIDS = {
    "coarse": (0.4, 0.8, 1.6, 3.2),
    "paper": (0.1, 0.2, 0.4, 0.8, 1.6, 3.2),
    "high": (0.8, 1.6, 3.2, 6.4),
}
EPS_CHOICES = tuple(f"{e:g}" for e in sorted({e for g in EPS_GRIDS.values() for e in g}))
T_VALUES = (10, 20, 30, 40, 50)

SOURCE = ChoiceParam("kv_source", "gauss", SOURCES)
LENGTH_MODEL = ChoiceParam("kv_lengths", "heavy", tuple(LENGTHS))
USERS = IntParam("kv_users", 20_000, 1_000, 1_000_000)
KEYS = IntParam("kv_d", 100, 2, 5_000)
MAX_LENGTH = IntParam("kv_max_len", 50, 1, 200)
DATA_SEED = IntParam("kv_data_seed", 0, 0, 2**31 - 1)
GRID = ChoiceParam("kv_grid", "coarse", tuple(EPS_GRIDS))
REPS = IntParam("kv_reps", 3, 1, 200)
TOP_T = IntParam("kv_t", 20, 1, 200)
RE_EPS = ChoiceParam("kv_re_eps", "0.8", EPS_CHOICES)
SHARE = FloatParam("kv_share", hiskv.DEFAULT_VALUE_SHARE, 0.05, 1.0)
AMPLIFIED = BoolParam("kv_amplified", True)
BETA = FloatParam("kv_beta", 0.1, 0.01, 0.5)
PCKV_L = IntParam("kv_pckv_l", 0, 0, 200)
ROUNDS = IntParam("kv_privkvm_c", 3, 1, 10)
SEED = IntParam("kv_seed", 0, 0, 2**31 - 1)
MECHANISM_FLAGS = {
    name: BoolParam(f"kv_m_{name.lower().replace('-', '_')}", True)
    for name in mechanisms.MECHANISMS
}
PARAMS: tuple[Param, ...] = (
    SOURCE, LENGTH_MODEL, USERS, KEYS, MAX_LENGTH, DATA_SEED, GRID, REPS, TOP_T, RE_EPS,
    SHARE, AMPLIFIED, BETA, PCKV_L, ROUNDS, SEED, *MECHANISM_FLAGS.values(),
)  # fmt: skip

# what the page shows below the accuracy charts, one at a time; first the exact check that
# every mechanism keeps its privacy claim (a table: a new simulation redraws only the
# accuracy charts above it)
SECTIONS = {
    "privacy": "Privacy check",
    "re": "Relative error vs top-t",
    "truncation": "Truncation length",
    "split": "Value / key split",
    "hiskv": "Why HISKV does not win",
}
SECTION = ChoiceParam("kv_show", "privacy", tuple(SECTIONS))

UPLOADED = "kv_uploaded_csv"  # session key of the last valid upload (bytes, file name)
CHECK_D, CHECK_L = 3, 2  # small enough to enumerate every input and output exactly
SHARE_POINTS = 9  # value shares in the budget-split sweep
DEFAULT_ROUNDS = mechanisms.DEFAULT_SETTINGS.privkvm_rounds


@dataclass(frozen=True)
class DataSpec:
    """Primitive description of the dataset (hashable cache key)."""

    source: str
    lengths: str = "heavy"
    users: int = 20_000
    d: int = 100
    max_length: int = 50
    seed: int = 0
    csv: bytes = b""

    def brief(self) -> str:
        """A few words (the comparison's captions; :meth:`describe` has the rest)."""
        if self.source == UPLOAD:
            return "uploaded CSV"
        name = SYNTHETIC[self.source].split(" (")[0]
        return f"{name}, {self.users:,} users, d = {self.d}, data seed {self.seed}"

    def describe(self) -> str:
        if self.source == UPLOAD:
            return "uploaded CSV"
        return (
            f"{SYNTHETIC[self.source]}, {self.users:,} users, d = {self.d}, "
            f"{LENGTHS[self.lengths]} set lengths (max {self.max_length}), data seed {self.seed}"
        )


@limits.cache_by_bytes(max_entries=4, spinner="Generating the key-value data…")
def load_data(spec: DataSpec) -> KVData:
    """The dataset of ``spec`` (raises :class:`~dpcore.ldp.data.KVDataError` on a bad CSV)."""
    if spec.source == UPLOAD:
        return kvdata.read_kv_csv(spec.csv)
    return kvdata.generate(
        spec.users,
        spec.d,
        keys=spec.source,  # type: ignore[arg-type]
        lengths=spec.lengths,  # type: ignore[arg-type]
        max_length=spec.max_length,
        rng=np.random.default_rng(spec.seed),
    )


def generation_allowed(spec: DataSpec) -> bool:
    """Whether generating ``spec``'s synthetic data is within the work limit (else say why)."""
    return limits.allow(
        f"generating {spec.users:,} users' key-value data",
        limits.kv_generation(spec.users, spec.d, spec.max_length, spec.lengths),
        smaller="lower Users n, Keys d or Max set length",
        library="dpcore.ldp.data.generate",
    )


def simulation_cost(
    data: KVData, names: tuple[str, ...], grid: tuple[float, ...], reps: int, rounds: int
) -> limits.Cost:
    """The page's simulations: mechanisms ``names`` x ``grid`` and the value-share sweep,
    ``reps`` runs each, PrivKVM with ``rounds`` rounds, and the truncation table."""
    top = int(min(max(data.lengths.max(), 2), 200))
    cells = len(names) * len(grid)
    round_runs = rounds * len(grid) * reps if "PrivKVM" in names else 0
    return limits.kv_simulation(
        data.n_users, int(data.keys.size), (cells + SHARE_POINTS) * reps, top,
        round_runs=round_runs,
    )  # fmt: skip


def simulation_repetitions(
    data: KVData,
    names: tuple[str, ...],
    grid: tuple[float, ...],
    reps: int,
    rounds: int,
    key: Hashable,
) -> int:
    """The repetitions to simulate now: all ``reps`` when within the work limit (or run on
    request, ``key`` naming the request), else the most that fit, with a notice and a button
    offering the full run; 0 when not even one fits."""
    cells = len(names) * len(grid) + SHARE_POINTS
    what = f"simulating {cells} settings x {reps} repetitions on {data.n_users:,} users"
    if limits.allow_or_offer(
        what,
        simulation_cost(data, names, grid, reps, rounds),
        key=key,
        smaller="lower Repetitions or Users n, choose a smaller ε grid or fewer mechanisms",
        library="dpcore.ldp.experiment.run_cell",
    ):
        return reps
    fit = limits.largest_within(
        range(1, reps), lambda r: simulation_cost(data, names, grid, r, rounds)
    )
    if fit:
        st.caption(
            f"Shown: {fit} repetition{'s' if fit > 1 else ''} per point instead of {reps}, "
            "within this server's limit for a change (wider confidence intervals)."
        )
    return fit or 0


def data_spec(values: Mapping[str, Any], upload: bytes) -> DataSpec:
    """The dataset of the view ``values`` (parameter name -> value); ``upload`` is the
    session's uploaded CSV, used when the source is an upload."""
    if values[SOURCE.name] == UPLOAD:
        return DataSpec(UPLOAD, csv=upload)
    return DataSpec(
        values[SOURCE.name], values[LENGTH_MODEL.name], values[USERS.name], values[KEYS.name],
        values[MAX_LENGTH.name], values[DATA_SEED.name],
    )  # fmt: skip


def dataset(spec: DataSpec) -> KVData | None:
    """The data of ``spec``; None, the reason shown, when generating it is over the work limit
    or the file cannot be used."""
    if spec.source != UPLOAD and not generation_allowed(spec):
        return None
    try:
        return load_data(spec)
    except kvdata.KVDataError as err:
        st.error(f"This data cannot be used: {err}")
        return None


@dataclass(frozen=True)
class Accuracy:
    """The accuracy simulation of one view: every (mechanism, ε) cell's runs and summary."""

    names: tuple[str, ...]  # the ticked mechanisms
    grid: tuple[float, ...]
    reps: int
    t: int
    seed: int
    settings: KVSettings
    re_eps: float  # the grid value nearest the chosen "ε for RE"
    runs: pd.DataFrame | None  # None when no mechanism is ticked
    summary: pd.DataFrame | None


def accuracy(
    values: Mapping[str, Any],
    spec: DataSpec,
    data: KVData,
    *,
    partial: Callable[[Accuracy], object] | None = None,
) -> Accuracy | None:
    """The simulation of the view ``values`` on ``spec``'s ``data``: the same cached cells
    whichever view asks, with as many repetitions as the work limit allows (the full run on
    request); None, the reason shown, when not even one fits. ``partial`` receives the
    result so far each time a mechanism is complete while others still run."""
    settings = settings_for(
        data,
        share=values[SHARE.name],
        amplified=values[AMPLIFIED.name],
        beta=values[BETA.name],
        pckv_l=values[PCKV_L.name],
        rounds=values[ROUNDS.name],
    )
    names = tuple(n for n, flag in MECHANISM_FLAGS.items() if values[flag.name])
    grid = EPS_GRIDS[values[GRID.name]]
    wanted, t, seed = values[REPS.name], values[TOP_T.name], values[SEED.name]
    request = (spec, names, grid, wanted, settings, seed, t)
    reps = simulation_repetitions(data, names, grid, wanted, settings.privkvm_rounds, request)
    if not reps:
        return None
    re_eps = nearest(float(values[RE_EPS.name]), grid)

    def result(runs: pd.DataFrame | None, summary: pd.DataFrame | None) -> Accuracy:
        return Accuracy(names, grid, reps, t, seed, settings, re_eps, runs, summary)

    def so_far(runs: pd.DataFrame) -> None:
        if partial is not None:
            partial(result(runs, experiment.summarize(runs)))

    if not names:
        return result(None, None)
    return result(*simulation(spec, names, grid, reps, settings, seed, t, _partial=so_far))


def stamp(spec: DataSpec, acc: Accuracy) -> dict[str, Any]:
    """The settings printed on the accuracy charts."""
    return {"data": spec.describe(), "reps": acc.reps, "top-t": acc.t, "seed": acc.seed}


def key_numbers(data: KVData, acc: Accuracy) -> dict[str, float]:
    """The numbers a pinned comparison puts side by side: the data's size, and each ticked
    mechanism's MSEs over the top-t keys at the grid value nearest "ε for RE"."""
    numbers = {
        "users n": float(data.n_users),
        "keys d": float(data.d),
        "pairs": float(data.keys.size),
        "mean set length": float(data.lengths.mean()),
        "top-t": float(acc.t),
        "ε of the MSEs below": acc.re_eps,
    }
    if acc.summary is not None:
        at = acc.summary[(acc.summary["t"] == acc.t) & np.isclose(acc.summary["eps"], acc.re_eps)]
        for _, row in at.iterrows():
            for metric in ("mse_freq", "mse_mean"):
                if np.isfinite(row[metric]):
                    label = ldp_figures.METRIC_LABELS[metric]
                    numbers[f"{row['mechanism']}: {label}"] = float(row[metric])
    return numbers


def show_comparison(
    pinned: Mapping[str, Any],
    current: Mapping[str, Any],
    b: tuple[DataSpec, KVData, Accuracy],
    upload: bytes | None,
) -> None:
    """Pinned view A beside the current view B (its spec, data and simulation): MSE of
    frequencies vs ε on the same log axes, and the key numbers with their ratio.

    A's simulation is the page's own cached call for A's settings, so pinning, unpinning
    and switching back to A's settings recompute nothing. A link cannot carry an uploaded
    file: a view with an upload source uses the file uploaded in this session, if any.
    """
    uses_upload = [v for v, s in (("A", pinned), ("B", current)) if s[SOURCE.name] == UPLOAD]
    if uses_upload:
        st.info(
            f"**{' and '.join(uses_upload)}** {'use' if len(uses_upload) > 1 else 'uses'} "
            "the uploaded file of this session. A pin keeps settings, never files: the link "
            "reopens this comparison only after the same file is uploaded again.",
            icon=":material/upload_file:",
        )
    if pinned[SOURCE.name] == UPLOAD and upload is None:
        st.warning(
            "**A (pinned)** uses an uploaded file and none is loaded: choose the source "
            "'upload a user,key,value CSV' and upload it to see A.",
            icon=":material/compare:",
        )
        return
    spec = data_spec(pinned, upload or b"")
    data = dataset(spec)
    a = None if data is None else accuracy(pinned, spec, data)
    if data is None or a is None:
        st.warning(
            "**A (pinned)** cannot be shown (see the message above).", icon=":material/compare:"
        )
        return

    def view(v: Mapping[str, Any], s: DataSpec, acc: Accuracy, summary: pd.DataFrame) -> Any:
        reps = f"{acc.reps} run{'s' if acc.reps > 1 else ''}"
        text = f"{s.brief()}; ε grid {v[GRID.name]}, {reps}, seed {acc.seed}"
        return text, ldp_figures.error_vs_eps(summary, "mse_freq", acc.t), stamp(s, acc)

    if a.summary is not None and b[2].summary is not None:
        pin.side_by_side(
            view(pinned, spec, a, a.summary),
            view(current, b[0], b[2], b[2].summary),
            key="kv_compare",
            share="xy",
        )
    else:
        st.info("Tick at least one mechanism in both views to compare their errors.")
    pin.show_table(key_numbers(data, a), key_numbers(b[1], b[2]))
    st.caption(
        "The sidebar's ε is pinned too, but these errors do not depend on it: the simulation "
        "runs over its own ε grid."
    )


def digest(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()[:12]


def settings_for(
    data: KVData, *, share: float, amplified: bool, beta: float, pckv_l: int, rounds: int
) -> KVSettings:
    """Mechanism settings; ``pckv_l = 0`` means the 90th percentile of the true lengths
    (tuned on the raw data, not privately, as PCKV's experiments do)."""
    length = pckv_l if pckv_l > 0 else auto_padding_length(data)
    return KVSettings(
        beta=beta,
        value_share=share,
        amplified=amplified,
        padding_length=length,
        privkvm_rounds=rounds,
    )


def auto_padding_length(data: KVData) -> int:
    return max(1, int(np.ceil(np.percentile(data.lengths, 90))))


@st.cache_data(max_entries=512, show_spinner=False)
def experiment_cell(
    spec: DataSpec,
    mechanism: str,
    eps: float,
    reps: int,
    settings: KVSettings,
    seed: int,
    t_values: tuple[int, ...],
) -> pd.DataFrame:
    """One (mechanism, eps) cell of the experiment, ``reps`` seeded repetitions."""
    return experiment.run_cell(
        load_data(spec),
        mechanism,
        eps,
        t_values=t_values,
        repetitions=reps,
        settings=settings,
        seed=seed,
    )


@limits.cache_by_bytes(max_entries=16)
def simulation(
    spec: DataSpec,
    names: tuple[str, ...],
    grid: tuple[float, ...],
    reps: int,
    settings: KVSettings,
    seed: int,
    t: int,
    _partial: Callable[[pd.DataFrame], object] | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """All cells' runs, errors at ``t = 10..50`` and the chosen ``t``, and their summary,
    with a progress bar. ``_partial`` receives the runs so far each time a mechanism is
    complete while others are still to run, so a page can draw them early.

    Kept whole (never mutated): a view seen before is one lookup. The cells are cached
    too (another view shares them), but looking up three dozen of them, each argument
    hashed, with the progress bar redrawn for each, took a fifth of a second per rerun."""
    t_values = tuple(sorted({*T_VALUES, t}))
    cells = [(m, e) for m in names for e in grid]
    bar = st.progress(0.0, text="Simulating…")
    frames = []
    for i, (name, eps) in enumerate(cells):
        bar.progress(i / len(cells), text=f"Simulating {name} at ε = {eps:g} ({reps} runs)…")
        # only PrivKVM uses its rounds: other cells stay cached when c changes
        own = settings if name == "PrivKVM" else replace(settings, privkvm_rounds=DEFAULT_ROUNDS)
        frames.append(experiment_cell(spec, name, eps, reps, own, seed, t_values))
        mechanism_done = eps == grid[-1] and i + 1 < len(cells)
        if _partial is not None and mechanism_done:
            _partial(pd.concat(frames, ignore_index=True))
    bar.empty()
    runs = pd.concat(frames, ignore_index=True)
    return runs, experiment.summarize(runs)


@st.cache_data(max_entries=64, show_spinner="Sweeping the value budget share…")
def share_sweep(
    spec: DataSpec, eps: float, length: int, t: int, reps: int, amplified: bool, seed: int
) -> pd.DataFrame:
    shares = tuple(float(s) for s in np.round(np.linspace(0.05, 1.0, SHARE_POINTS), 4))
    return experiment.value_share_sweep(
        load_data(spec), eps, shares, length=length, t=t, repetitions=reps,
        amplified=amplified, seed=seed,
    )  # fmt: skip


@st.cache_data(max_entries=64, show_spinner=False)
def truncation_table(
    spec: DataSpec, eps: float, t: int, share: float, amplified: bool, beta: float
) -> pd.DataFrame:
    data = load_data(spec)
    top = int(min(max(data.lengths.max(), 2), 200))
    n_reports = max(1, round((1 - beta) * data.n_users))
    return experiment.truncation_tradeoff(
        data, eps, range(1, top + 1), t=t, n_reports=n_reports, value_share=share,
        amplified=amplified,
    )  # fmt: skip


@st.cache_data(max_entries=64, show_spinner=False)
def oetl_estimate(spec: DataSpec, eps: float, beta: float, seed: int) -> tuple[int, np.ndarray]:
    """HISKV's OETL step alone on a ``beta`` share of users: (L, estimated length shares)."""
    data = load_data(spec)
    rng = experiment.cell_rng(seed, "HISKV-OETL", eps)
    group = rng.permutation(data.n_users)[: max(1, round(beta * data.n_users))]
    reports = hiskv.oetl_perturb(data.lengths[group], eps, 50, rng=rng)
    return hiskv.oetl_length(reports, eps, 50)


@st.cache_data(max_entries=64, show_spinner="Checking privacy exactly…")
def privacy_table(eps: float, share: float, amplified: bool, rounds: int) -> pd.DataFrame:
    """Claimed eps vs the exact worst log-ratio, every mechanism, at ``d = 3, L = 2`` (six
    columns: the table fits the page at 1280 px; notes go in the caption)."""
    settings = KVSettings(value_share=share, amplified=amplified, privkvm_rounds=rounds, l_max=8)
    rows = []
    for name in privacy.CHECKED:
        check = privacy.check(name, eps, CHECK_D, CHECK_L, settings=settings)
        rows.append(
            {
                "mechanism": name,
                "claimed ε": eps,
                "claim about": "one report" if check.claim_level == "report" else "whole set",
                "worst ln-ratio, one report": check.report_level,
                "worst ln-ratio, whole set": check.user_level,
                "holds": "yes" if check.holds else "NO",
            }
        )
    for name in mechanisms.UNAVAILABLE:  # the page's caption says why
        rows.append({"mechanism": name, "holds": "unavailable"})
    return pd.DataFrame(rows)


def prose() -> str:
    return references.prose("kv_ldp.md")


def nearest(value: float, grid: tuple[float, ...]) -> float:
    return min(grid, key=lambda e: abs(np.log(e) - np.log(value)))


def probability_table(eps: float, d: int, length: int, share: float) -> pd.DataFrame:
    """LRR_KV's probabilities under both accountings at the page's settings."""
    rows = []
    for amplified in (False, True):
        probs = hiskv.pair_probabilities(eps, d, length, value_share=share, amplified=amplified)
        eps_star = hiskv.amplified_epsilon(eps, length) if amplified else eps
        rows.append(
            {
                "accounting": "padding-amplified" if amplified else "conservative",
                "ε* per report": eps_star,
                "ε_v": share * eps_star,
                "p1 (keep)": probs.p1,
                "q1 (flip value)": probs.q1,
                "q2 (other pair)": probs.q2,
                "D = 2(d+L)": 2 * (d + length),
            }
        )
    return pd.DataFrame(rows)


def data_summary(data: KVData) -> dict[str, str]:
    lengths = data.lengths
    return {
        "Users n": f"{data.n_users:,}",
        "Keys d": f"{data.d:,}",
        "Pairs": f"{data.keys.size:,}",
        "Mean set length": f"{lengths.mean():.1f}",
        "90th pct length": f"{auto_padding_length(data)}",
    }


UPLOAD_WIDGET = "kv_upload_widget"
UPLOAD_ERROR = "kv_upload_error"


def on_upload() -> None:
    """Keep a new CSV only if it is valid; otherwise keep the previous one and say why."""
    file = st.session_state.get(UPLOAD_WIDGET)
    if file is None:
        return
    if wrong := untrusted.wrong_file_type(file.name, ("csv", "txt")):
        st.session_state[UPLOAD_ERROR] = wrong
        return
    content = file.getvalue()
    try:
        users = load_data(DataSpec(UPLOAD, csv=content)).n_users
        if users < mechanisms.MIN_USERS:
            raise kvdata.KVDataError(
                f"{users} user(s); the mechanisms need at least {mechanisms.MIN_USERS} (HISKV "
                "splits users into a length-estimation group and a reporting group)"
            )
    except kvdata.KVDataError as err:
        name = untrusted.file_name(file.name)
        st.session_state[UPLOAD_ERROR] = f"{name}: {untrusted.markdown(err, 600)}"
        return
    st.session_state[UPLOADED] = content
    st.session_state[UPLOAD_ERROR] = None
