"""The Key-value LDP page's view: its cost estimate and its pure ``view`` (the accuracy
simulation's MSE of frequencies vs ε, the key numbers, the stamp) for the runner
(:func:`dpui.kit.page.run`), which also compares a pinned view A with it.

The simulation of the view set now (B) is the one part the page streams: it may take
seconds on a first run, and the body draws each mechanism's errors as soon as they are
simulated, with a progress bar. So ``view`` leaves a simulation of the view set now that is
not cached yet to the body (``KV.pending``): nothing it returns is drawn before the body
runs, except in a comparison, which the body then redraws once B is complete. Any other
view (a pinned A) is simulated here, without drawing.
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from dpcore.ldp import baselines
from dpcore.ldp.data import KVData, KVDataError
from dpcore.ldp.mechanisms import MAX_EPS
from dpui.kit import references, sidebar
from dpui.kit.page import Estimate, Inputs, Refused, View
from dpui.ldp import figures as ldp_figures
from dpui.ldp import simulation as sim
from dpui.ldp.settings import (
    AMPLIFIED,
    BETA,
    EPS_GRIDS,
    GRID,
    KEYS,
    LENGTH_MODEL,
    MAX_LENGTH,
    MECHANISM_FLAGS,
    PARAMS,
    PCKV_L,
    RE_EPS,
    REPS,
    ROUNDS,
    SEED,
    SHARE,
    SOURCE,
    TOP_T,
    UPLOAD,
    USERS,
    DataSpec,
    auto_padding_length,
    data_spec,
    generation_cost,
    load_data,
    settings_for,
)

UPLOADED_CSV = "upload"
"""``Inputs.extra`` key: the CSV uploaded in this session (bytes), or None."""
REQUESTED = "requested"
"""``Inputs.extra`` key: the full runs this session asked for ("Run it")."""
SET_NOW = "set_now"
"""``Inputs.extra`` key: the parameter values set now (those of view B)."""

NO_UPLOAD = (
    "No file is uploaded in this session for this view. Upload a CSV with columns "
    "user,key,value to continue, or pick a synthetic source. A pin keeps settings, never "
    "files: a link to a view of an uploaded file shows it only after the same file is "
    "uploaded again."
)
NOTE = (
    "The sidebar's ε is pinned too, but these errors do not depend on it: the simulation "
    "runs over its own ε grid."
)


@dataclass(frozen=True)
class KV:
    """One view, for the page's body: its settings, data and accuracy simulation."""

    values: Mapping[str, Any]
    spec: DataSpec
    data: KVData
    acc: sim.Accuracy
    sidebar_eps: float
    pending: bool = False
    """The simulation is not cached yet and left to the body, which streams it."""

    @property
    def eps(self) -> float:
        """The ε of the sections below the accuracy charts: the sidebar's, at most
        :data:`~dpcore.ldp.mechanisms.MAX_EPS`."""
        return min(self.sidebar_eps, MAX_EPS)

    def stamp(self) -> dict[str, Any]:
        """The settings printed on the accuracy charts."""
        return stamp(self.spec, self.acc)


def cost(inputs: Inputs) -> Estimate | None:
    """Generating the synthetic data (an upload is read already); the simulation that follows
    is scaled to the limit by :func:`dpui.ldp.simulation.repetitions`."""
    if inputs[SOURCE] == UPLOAD:
        return None
    users = int(inputs[USERS])
    return Estimate(
        f"generating {users:,} users' key-value data",
        generation_cost(
            users,
            int(inputs[KEYS]),
            int(inputs[MAX_LENGTH]),
            inputs[LENGTH_MODEL],
            inputs[SOURCE],
        ),
        smaller="lower Users n, Keys d or Max set length",
        library="dpcore.ldp.data.generate",
    )


def plan(
    values: Mapping[str, Any], spec: DataSpec, data: KVData, requested: Collection[Hashable]
) -> sim.Accuracy:
    """The accuracy simulation of ``values`` on ``data``, not run yet: the ticked mechanisms,
    the ε grid, and as many repetitions as the work limit allows (all of them when
    ``requested`` holds its request)."""
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
    wanted, t, seed = int(values[REPS.name]), int(values[TOP_T.name]), int(values[SEED.name])
    re_eps = sim.nearest(float(values[RE_EPS.name]), grid)
    acc = sim.Accuracy(names, grid, wanted, wanted, t, seed, settings, re_eps)
    reps = sim.repetitions(
        data,
        names,
        grid,
        wanted,
        settings.privkvm_rounds,
        requested=acc.request(spec) in requested,
    )
    return replace(acc, reps=reps)


def view(inputs: Inputs) -> View:
    """The accuracy simulation of ``inputs``: MSE of frequencies vs ε, one line per ticked
    mechanism (left to the body when it is the view set now and not cached, see the module's
    docstring); :class:`Refused` without data, or when not even one repetition of a pinned
    view fits the work limit."""
    values = inputs.values
    upload = inputs.extra.get(UPLOADED_CSV)
    if values[SOURCE.name] == UPLOAD and upload is None:
        raise Refused(NO_UPLOAD)
    spec = data_spec(values, upload or b"")
    try:
        data = load_data(spec)
    except KVDataError as err:
        raise Refused(f"This data cannot be used: {err}") from err
    acc = plan(values, spec, data, inputs.extra.get(REQUESTED, frozenset()))
    set_now = inputs.extra.get(SET_NOW, {})
    current = all(set_now.get(p.name) == values[p.name] for p in PARAMS)
    pending = False
    if not acc.reps and not current:
        raise Refused(
            f"Not computed: {sim.simulation_what(data, acc.names, acc.grid, 1)} is over this "
            "server's limit for a change. To run it on request, unpin and choose these "
            f"settings; or {sim.SMALLER}."
        )
    if acc.names and acc.reps:
        done = sim.cached(acc, spec) if current else acc.run(spec)
        pending = done is None
        acc = done or acc
    kv = KV(values, spec, data, acc, float(inputs[sidebar.EPSILON]), pending)
    runs = f"{acc.reps} run{'s' if acc.reps != 1 else ''}"
    described = f"{spec.brief()}; ε grid {values[GRID.name]}, {runs}, seed {acc.seed}"
    if acc.summary is not None:
        figure = ldp_figures.error_vs_eps(
            acc.summary, "mse_freq", acc.t, central=central(data, acc.grid)
        )
        kind = "mse_freq"
    else:
        figure, kind = ldp_figures.placeholder(_why_empty(kv)), "empty"
    return View(
        described, figure, kv.stamp(), key_numbers(data, acc), detail=kv, share="xy",
        kind=kind, note=NOTE,
    )  # fmt: skip


def central(data: KVData, grid: Collection[float]) -> dict[float, float]:
    """The frequencies' exact error under central DP at every ε of ``grid``: the baseline a
    trusted curator would reach on this data (L = its longest set)."""
    longest = max(int(data.lengths.max(initial=1)), 1)
    return {
        float(e): baselines.central_frequency_mse(float(e), max(data.n_users, 1), longest)
        for e in grid
    }


def _why_empty(kv: KV) -> str:
    if not kv.acc.names:
        return "No mechanism ticked: tick at least one to compare errors"
    if not kv.acc.reps:
        return "Not simulated: over this server's work limit"
    return "Simulating…"


def stamp(spec: DataSpec, acc: sim.Accuracy) -> dict[str, Any]:
    """The settings printed on the accuracy charts."""
    return {"data": spec.describe(), "reps": acc.reps, "top-t": acc.t, "seed": acc.seed}


def key_numbers(data: KVData, acc: sim.Accuracy) -> dict[str, float]:
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


def data_summary(data: KVData) -> dict[str, str]:
    lengths = data.lengths
    return {
        "Users n": f"{data.n_users:,}",
        "Keys d": f"{data.d:,}",
        "Pairs": f"{data.keys.size:,}",
        "Mean set length": f"{lengths.mean():.1f}",
        "90th pct length": f"{auto_padding_length(data)}",
    }


def prose() -> str:
    return references.prose("kv_ldp.md")
