"""The "Stored sweeps" section of Which algorithm for my data?: DPBench-style tables and
figures read by SQL from the sweep store (:mod:`dpcore.sweep.report`), and a sweep file for
the setting on screen, to run the grid the page will not run in a request."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from dpcore.algorithms import ALGORITHMS
from dpcore.sweep import report, spec, store
from dpui.algorithms import figures
from dpui.algorithms.compare import SCALES, Setting
from dpui.kit import downloads, examples, present, untrusted

SWEEP_WORKLOADS = {"prefix": "prefix", "random": "random ranges"}
"""The page's workloads a sweep file can name."""
STORE_ERRORS = (store.StoreError, duckdb.Error, OSError, ValueError)


def dataset_entry(s: Setting) -> str:
    """How a sweep file names the histogram of ``s``: a bundled example by its path relative
    to the project (never this server's install path), another one as ``my-histogram.csv``,
    which the user saves beside the sweep file."""
    bundled = examples.EXAMPLES_DIR / f"{s.hist.name}.csv"
    if not bundled.is_file():
        return "my-histogram.csv"
    return bundled.relative_to(spec.REPO_ROOT).as_posix()


def sweep_file(s: Setting) -> str | None:
    """A sweep file running this setting at every scale of the error-vs-scale grid (every
    algorithm compared here), or None for a workload a sweep cannot name."""
    if s.workload not in SWEEP_WORKLOADS:
        return None
    digest = hashlib.sha256(repr(s.key()).encode()).hexdigest()[:8]
    return spec.to_toml(
        {
            "name": f"which-algorithm-{digest}",
            "seed": s.seed,
            "trials": max(s.trials, 5),
            "datasets": [dataset_entry(s)],
            "scales": list(SCALES),
            "domains": [s.domain],
            "epsilons": [s.eps],
            "workloads": [SWEEP_WORKLOADS[s.workload]],
            "algorithms": list(s.names),
        }
    )


def queue(s: Setting) -> None:
    """The sweep file of this setting to download, and the command that runs it."""
    text = sweep_file(s)
    if text is None:
        st.caption("Sweeps run DPBench's workloads (prefix or random ranges) only.")
        return
    st.markdown(
        "Run this setting at every scale from 100 to 10⁸ records, outside the page (on this "
        "machine's cores or a Dask cluster), into the store this section reads:"
    )
    st.code("dp-sweep run which_algorithm_sweep.toml", language="bash")
    if dataset_entry(s) == "my-histogram.csv":
        st.caption("Save your histogram as my-histogram.csv beside the sweep file first.")
    else:
        st.caption(
            "Save the sweep file in the project's folder (beside app.py): the dataset's path "
            "in it is relative to that folder."
        )
    st.download_button(
        "Download the sweep file",
        text,
        "which_algorithm_sweep.toml",
        mime="application/toml",
        icon=":material/download:",
    )


def version(path: Path) -> tuple[int, ...]:
    """The store's modification time and size (with its write-ahead log's, when there is
    one): what the cached summaries are keyed by, so that a commit shows at the next rerun."""
    parts: list[int] = []
    for file in (path, path.with_name(path.name + ".wal")):
        if file.is_file():
            info = file.stat()
            parts += [info.st_mtime_ns, info.st_size]
    return tuple(parts)


@st.cache_data(max_entries=64, show_spinner="Reading the sweep store…")
def read(summary: str, path: str, stamp: tuple[int, ...], *args: Any, **filters: Any) -> Any:
    """``report.<summary>(path, *args, **filters)`` (computed by SQL in the store), cached by
    the store's ``stamp`` (:func:`version`): a rerun of the page reads nothing while the
    store is unchanged, however many cells it holds."""
    return getattr(report, summary)(Path(path), *args, **filters)


def stored_sweeps(s: Setting) -> None:
    queue(s)
    path = store.default_path()  # $DP_EXPLORER_STORE, else the user's data directory
    if not path.exists():
        st.info(
            f"No sweep store yet at `{path}`: run a sweep (above, or `dp-sweep run "
            "sweeps/dpbench_1d.toml` for DPBench's 1-D headline) and its results appear here.",
            icon=":material/database:",
        )
        return
    stamp = version(path)
    try:
        names = read("names", str(path), stamp)
    except STORE_ERRORS as err:
        st.warning(f"The sweep store `{path}` cannot be read: {untrusted.markdown(err, 300)}")
        return
    if not names:
        st.info(f"The sweep store `{path}` holds no sweep yet.")
        return
    name = st.selectbox("Sweep", names, key="_wa_sweep", format_func=untrusted.plot_label)
    shown_name = untrusted.markdown(name)
    try:
        axes = read("axes", str(path), stamp, name)
        if not axes["eps"]:
            st.info(
                f"The sweep {shown_name} has no cells yet: its run has not stored any (still "
                "starting, or stopped before its first batch). Rerun it to fill it.",
                icon=":material/hourglass_empty:",
            )
            return
        c1, c2, c3 = st.columns(3)
        near = int(np.argmin([abs(np.log(e / s.eps)) for e in axes["eps"]]))  # the sidebar's
        eps = c1.selectbox("ε", axes["eps"], index=near, key="_wa_sweep_eps")
        workload = c2.selectbox("Workload", axes["workload"], key="_wa_sweep_workload")
        domain = c3.selectbox("Domain", axes["domain"], key="_wa_sweep_domain")
        where = {"eps": eps, "workload": workload, "domain": domain}
        curves = read("error_vs_scale", str(path), stamp, name, **where)
        regret = read("regret", str(path), stamp, name, **where)
    except STORE_ERRORS as err:
        st.warning(f"The sweep {shown_name} cannot be read: {untrusted.markdown(err, 300)}")
        return
    if curves.empty:
        st.info(
            f"The sweep {shown_name} has no cells at ε = {eps:g}, workload {workload!r} and "
            f"{domain:,} bins together: its runs stored other combinations (two runs with "
            "different grids, or one stopped early). Choose another ε, workload or domain.",
            icon=":material/filter_alt_off:",
        )
        return
    shown = curves.rename(columns={"mean_error": "mean"})
    dependent = {
        a: a in ALGORITHMS and ALGORITHMS[a].data_dependent for a in shown["algorithm"].unique()
    }
    stamp_text = {"sweep": name, "ε": eps, "workload": workload, "domain": f"{domain:,}"}
    typical = np.exp(
        np.log(shown["mean"].where(shown["mean"] > 0)).groupby(shown["algorithm"]).mean()
    )
    top = [str(a) for a in typical.sort_values().index[:3]]
    present.show_chart(
        figures.by_scale(shown, dependent, highlight=top), stamp_text, key="wa_stored_scale"
    )
    named = ", ".join(untrusted.markdown(a) for a in top)
    st.caption(f"In colour: the three lowest errors on average over the scales ({named}).")
    scales = sorted(curves["scale"].unique())
    scale = scales[0]
    if len(scales) > 1:
        scale = st.select_slider("Scale for the regret map", scales, key="_wa_sweep_scale")
    at = regret[regret["scale"] == scale]
    if at.empty:
        st.info(
            f"No regret at {scale:,} records: the best mean error there is 0 (regret divides "
            "by it).",
            icon=":material/filter_alt_off:",
        )
    else:
        present.show_chart(
            regret_map(at), stamp_text | {"scale": f"{scale:,}"}, key="wa_stored_regret"
        )
    try:
        mean = read("mean_errors", str(path), stamp, name, scale=scale, **where)
    except STORE_ERRORS as err:
        st.warning(f"The sweep {shown_name} cannot be read: {untrusted.markdown(err, 300)}")
        return
    present.table(mean.drop(columns=["domain", "domain_cols", "eps", "workload", "scale"]))
    downloads.csv_button("Download these means (CSV)", mean, "stored_sweep_means.csv")


def regret_map(at: pd.DataFrame) -> go.Figure:
    """Regret per algorithm (rows, best on average on top) and dataset (columns), log
    colour, the value written in every cell."""
    table = at.pivot_table(index="algorithm", columns="dataset", values="regret")
    table = table.loc[np.exp(np.log(table).mean(axis=1)).sort_values().index]
    return figures.regret_heat_map(table)
