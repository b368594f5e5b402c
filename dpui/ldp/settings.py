"""The Key-value LDP page's settings and data: its parameters, the dataset they describe
(synthetic, generated from them, or an uploaded CSV), what generating it costs, and its cache.

Datasets are cached as shared objects bounded by bytes
(:func:`dpui.kit.byte_cache.cache_by_bytes`: a million users are hundreds of MB of arrays
that ``cache_data`` would pickle on every rerun; they are never mutated), and
generated only when the page's cost estimate (:func:`generation_cost`) is within the limits.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import streamlit as st

from dpcore.ldp import data as kvdata
from dpcore.ldp import hiskv, keysets, mechanisms
from dpcore.ldp.data import KVData
from dpcore.ldp.mechanisms import KVSettings
from dpui.kit import byte_cache, limits, session_memory, untrusted
from dpui.kit.params import BoolParam, ChoiceParam, FloatParam, IntParam, Param

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
"""The parameters that define a view (a pin keeps them, with the sidebar's ε)."""

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

UPLOADED = "kv_uploaded_csv"  # session key of the last valid upload (bytes)
UPLOADED_HANDLE = "_kv_uploaded_handle"  # counts the upload against the sessions' budget
UPLOAD_WIDGET = "kv_upload_widget"
UPLOAD_ERROR = "kv_upload_error"


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
            return "the CSV uploaded in this session (a pin keeps settings, never files)"
        name = SYNTHETIC[self.source].split(" (")[0]
        return f"{name}, {self.users:,} users, d = {self.d}, data seed {self.seed}"

    def describe(self) -> str:
        if self.source == UPLOAD:
            return "uploaded CSV"
        return (
            f"{SYNTHETIC[self.source]}, {self.users:,} users, d = {self.d}, "
            f"{LENGTHS[self.lengths]} set lengths (max {self.max_length}), data seed {self.seed}"
        )


def data_spec(values: Mapping[str, Any], upload: bytes) -> DataSpec:
    """The dataset of the view ``values`` (parameter name -> value); ``upload`` is the
    session's uploaded CSV, used when the source is an upload."""
    if values[SOURCE.name] == UPLOAD:
        return DataSpec(UPLOAD, csv=upload)
    return DataSpec(
        values[SOURCE.name], values[LENGTH_MODEL.name], values[USERS.name], values[KEYS.name],
        values[MAX_LENGTH.name], values[DATA_SEED.name],
    )  # fmt: skip


def expected_length(model: str, max_length: int, d: int) -> float:
    """Mean set length of :func:`dpcore.ldp.data.sample_lengths` (capped at ``min(max, d)``)."""
    pmf = kvdata.length_pmf(model, max(1, min(max_length, d)))  # type: ignore[arg-type]
    return float(pmf @ np.arange(pmf.size))


def generation_cost(
    users: int, d: int, max_length: int, lengths: str, keys: str = "gauss"
) -> limits.Cost:
    """Synthetic key-value data (:func:`load_data`), from the expected work of
    :func:`dpcore.ldp.keysets.distinct_keys` for these key and length models: 0.03 µs and
    80 bytes at peak per (user, key) pair, 0.15 µs and 20 bytes per key drawn with
    replacement, 0.08 µs per key raced (32 bytes each, at most ``RACE_CELLS`` at once).
    Fitted on 180 settings (users x d x max length x key and length models, CPU time and
    tracemalloc peak; ``bench/bench_kv_generation.py`` prints estimate beside measured)."""
    top = max(1, min(max_length, d))
    pmf = kvdata.length_pmf(lengths, top)  # type: ignore[arg-type]
    model: kvdata.KeyModel = next((k for k in kvdata.KEY_MODELS if k == keys), "gauss")
    weights = kvdata.key_weights(model, d)
    draws, raced = keysets.expected_work(weights, pmf)
    pairs = users * float(pmf @ np.arange(pmf.size))
    seconds = 0.002 + pairs * 0.03e-6 + users * (draws * 0.15e-6 + raced * 0.08e-6)
    peak = pairs * 80 + users * draws * 20 + min(users * raced, keysets.RACE_CELLS) * 32
    return limits.Cost(seconds, (peak + d * 8) / limits.MB)


@byte_cache.cache_by_bytes(max_entries=4, spinner="Generating the key-value data…")
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


def upload_cost(size: int) -> limits.Cost:
    """Parsing a key-value CSV of ``size`` bytes: about 0.12 µs and 10 bytes at peak per byte
    (a 63 MB file took 6.8 s and 620 MB; 1.7 MB, 0.3 s)."""
    return limits.Cost(size * 0.12e-6, size * 10 / limits.MB)


def on_upload() -> None:
    """Keep a new CSV only if it is valid, within the work limit (estimated from its size
    before it is parsed) and within the memory kept for uploads; otherwise keep the previous
    one and say why. Either way the uploader lets go of the file (a kept file is held once,
    counted, in :data:`UPLOADED`)."""
    file = session_memory.uploaded(UPLOAD_WIDGET)
    if file is None:
        return
    session_memory.release_upload(UPLOAD_WIDGET)
    if wrong := untrusted.wrong_file_type(file.name, ("csv", "txt")):
        st.session_state[UPLOAD_ERROR] = wrong
        return
    content = file.getvalue()
    refused = limits.refusal(
        f"reading a {len(content) / limits.MB:,.1f} MB key-value file",
        upload_cost(len(content)),
        smaller="upload fewer rows (sample the users)",
        library="dpcore.ldp.data.read_kv_csv",
        limits=limits.current(),
    )
    if refused is not None:
        st.session_state[UPLOAD_ERROR] = refused
        return
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
    handle = session_memory.Held()
    refused = session_memory.admit("key-value upload", handle, len(content))
    if refused is not None:
        st.session_state[UPLOAD_ERROR] = refused
        return
    st.session_state[UPLOADED] = content
    st.session_state[UPLOADED_HANDLE] = handle
    st.session_state[UPLOAD_ERROR] = None
