"""The ``O(lb^3 N)`` accuracy index and its finite-N ratio.

From Wu, Chen, Cai and Wang, "Error analysis of differentially private data
publishing methods under the matrix mechanism" (Journal of Frontiers of
Computer Science and Technology, 2018), definition 3. For an algorithm ``A``
on ``N = 2^m`` bins let ``f_A(N)`` be its average uniform-range MSE
coefficient in units of ``Lap(1)`` noise: the exact mean range MSE at
``eps = 1`` divided by 2 (``MSE * eps^2 / 2``, sensitivity included). The
index is

.. math:: k_A = \\lim_{N \\to \\infty} \\frac{\\mathrm{lb}^3 N}{f_A(N)},

higher is more accurate. The paper reports: naive binary tree 1, Boost 6,
Privelet 6.

The finite-N ratio converges like ``1/m`` (Privelet: ``6 - 13/m + ...``), too
slowly to read the limit off any computable ``N``, and not every algorithm
has a finite non-zero limit. :data:`LIMIT_FORMS` states, per algorithm, what
is known about ``f_A`` and hence what may be extrapolated:

* ``"zero"``: ``f_A`` grows faster than ``m^3`` (flat Laplace: ``f = (N+2)/3``),
  the ratio tends to 0; nothing is fitted.
* ``"cubic"``: ``f_A(2^m)`` is a cubic polynomial in ``m`` up to terms that
  vanish geometrically; :func:`estimate_index` fits that cubic on windows of
  the largest ``m`` and reports ``1 / (leading coefficient)``, with the spread
  of the fits over the windows as its uncertainty. The fit is withheld when
  the windows disagree by more than :data:`RELIABLE_SPREAD`.
* ``"irregular"``: the tree changes shape with ``N`` (Struct-Construct picks
  fan-outs per node), so ``f_A(2^m)`` has no smooth expansion in ``m`` and
  nothing is fitted; the ratio is shown as computed.
* ``"unknown"``: no justified form (Boost-UN, whose per-level budgets add a
  non-polynomial term); nothing is fitted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dpcore.hist import plans

PAPER_INDEX: dict[str, float] = {"binary_raw": 1.0, "boost": 6.0, "privelet": 6.0}
"""The indices Wu et al. (2018) report (section 4)."""

MAX_TREE_LEVELS = 22
"""Largest ``m`` for algorithms that need a tree over ``2^m`` bins (memory)."""

FIT_WINDOWS: tuple[tuple[int, int], ...] = ((6, 0), (6, 1), (6, 2), (8, 0))
"""``(points, offset)``: fit on ``points`` consecutive ``m`` ending ``offset`` below the largest."""
MIN_FIT_M = 5
"""No window may use ``m`` below this (pre-asymptotic sizes)."""
MIN_LARGEST_M = MIN_FIT_M + max(w + s for w, s in FIT_WINDOWS) - 1
"""The largest ``m`` must be at least this for every window to fit (12)."""
RELIABLE_SPREAD = 0.02
"""A cubic fit is shown only if its windows' estimates agree within 2% (relative)."""

LimitKind = Literal["zero", "cubic", "irregular", "unknown"]


@dataclass(frozen=True)
class LimitForm:
    """What is known about ``f_A(2^m)`` as ``m`` grows, and why.

    Attributes
    ----------
    kind : {"zero", "cubic", "irregular", "unknown"}
        The form (module docstring).
    reason : str
        Why, for users.
    """

    kind: LimitKind
    reason: str


_CUBIC_BLUE = (
    "BLUE on a complete binary tree: the per-level least-squares weights settle "
    "geometrically with depth, so f is a cubic in m up to geometrically small terms "
    "(an assumed form, checked by the agreement of fits on different m windows)."
)
_IRREGULAR = (
    "Struct-Construct chooses fan-outs per node depending on N, so f(2^m) has no smooth "
    "expansion in m (the ratio is not even monotone): not fitted."
)
LIMIT_FORMS: dict[str, LimitForm] = {
    "dwork": LimitForm(
        "zero", "f = E[L] = (N + 2)/3 exactly, so the ratio 3m³/(2^m + 2) tends to 0."
    ),
    "binary_raw": LimitForm(
        "cubic",
        "f = (m + 1)² × (expected number of nodes in a range's canonical decomposition); "
        "that count is linear in m up to O(m 2^-m), so f is a cubic in m.",
    ),
    "boost": LimitForm("cubic", _CUBIC_BLUE),
    "boost_un": LimitForm(
        "unknown",
        "Not fitted: per-level budgets make f = f_Boost − d(m) with d growing like m² but not "
        "as a polynomial (d/m² drifts from 0.52 at m = 6 to 0.43 at m = 20), so no cubic form "
        "is justified. Its ratio is above Boost's at every m computed.",
    ),
    "sc_raw": LimitForm("irregular", _IRREGULAR),
    "sc_tree": LimitForm("irregular", _IRREGULAR),
    "lue_dptree": LimitForm("irregular", _IRREGULAR),
    "hb": LimitForm(
        "irregular",
        "H_b's fan-out b is chosen anew for every N (and the tree is ragged unless N is a power "
        "of b), so f(2^m) has no smooth expansion in m: not fitted.",
    ),
    "consistent": LimitForm(
        "irregular",
        "Its tree is H_b's (fan-out chosen anew for every N) and its budgets come from a "
        "numeric search, so f(2^m) has no smooth expansion in m: not fitted.",
    ),
    "privelet": LimitForm(
        "cubic",
        "Eq. 16: f = (m + 1)² (m/6 + 1/36 + O(1/N)), a cubic in m up to O(m² 2^-m); "
        "its limit is exactly 6.",
    ),
}
_UNKNOWN = LimitForm("unknown", "No asymptotic form derived for this algorithm: not fitted.")


def limit_form(key: str) -> LimitForm:
    """The stated asymptotic form of algorithm ``key`` (``"unknown"`` if none is derived).

    Parameters
    ----------
    key : str
        An algorithm key of :data:`dpcore.hist.plans.ALGORITHMS`.

    Returns
    -------
    LimitForm
        Its entry in :data:`LIMIT_FORMS`, or the ``"unknown"`` form.
    """
    return LIMIT_FORMS.get(key, _UNKNOWN)


def lb3_coefficient(key: str, m: int) -> float:
    """``f_A(2^m)``: the exact mean uniform-range MSE at ``eps = 1``, halved.

    Parameters
    ----------
    key : str
        An algorithm key of :data:`dpcore.hist.plans.ALGORITHMS`.
    m : int
        ``log2 N`` (``>= 0``; at most :data:`MAX_TREE_LEVELS` for tree algorithms).

    Returns
    -------
    float
        ``f_A(2^m)``.

    Raises
    ------
    KeyError
        If ``key`` is not an algorithm.
    ValueError
        If ``m < 0``, or ``m > MAX_TREE_LEVELS`` for a tree algorithm.

    Examples
    --------
    >>> lb3_coefficient("dwork", 3)  # flat Laplace: E[L] = (N + 2) / 3
    3.3333333333333335
    """
    if m < 0:
        raise ValueError(f"m must be >= 0, got {m}")
    if plans.ALGORITHMS[key].kind == "tree" and m > MAX_TREE_LEVELS:
        raise ValueError(f"tree algorithms are computed up to m = {MAX_TREE_LEVELS}, got {m}")
    plan = plans.prepare(key, 2**m, 1.0)
    return plans.plan_expected_error(plan) / 2.0


def lb3_ratio(key: str, m: int) -> float:
    """The finite-N ratio ``m^3 / f_A(2^m)`` whose limit is the index.

    Parameters
    ----------
    key : str
        An algorithm key of :data:`dpcore.hist.plans.ALGORITHMS`.
    m : int
        ``log2 N``, as for :func:`lb3_coefficient`.

    Returns
    -------
    float
        ``m^3 / f_A(2^m)``.

    Raises
    ------
    KeyError
        If ``key`` is not an algorithm.
    ValueError
        As :func:`lb3_coefficient`.

    Examples
    --------
    >>> round(lb3_ratio("privelet", 200), 3)  # 6 - 13/m + ...
    5.936
    """
    return m**3 / lb3_coefficient(key, m)


def coefficient_curve(key: str, ms: ArrayLike) -> NDArray[np.float64]:
    """:func:`lb3_coefficient` for every ``m`` in ``ms``.

    Parameters
    ----------
    key : str
        An algorithm key of :data:`dpcore.hist.plans.ALGORITHMS`.
    ms : array_like of int
        ``m`` values (flattened).

    Returns
    -------
    ndarray of float64, shape (len(ms),)
        ``f_A(2^m)`` per ``m``.

    Raises
    ------
    KeyError
        If ``key`` is not an algorithm.
    ValueError
        As :func:`lb3_coefficient`.
    """
    return np.array(
        [lb3_coefficient(key, int(m)) for m in np.asarray(ms).ravel()], dtype=np.float64
    )


def ratio_curve(key: str, ms: ArrayLike) -> NDArray[np.float64]:
    """:func:`lb3_ratio` for every ``m`` in ``ms``.

    Parameters
    ----------
    key : str
        An algorithm key of :data:`dpcore.hist.plans.ALGORITHMS`.
    ms : array_like of int
        ``m`` values (flattened).

    Returns
    -------
    ndarray of float64, shape (len(ms),)
        ``m^3 / f_A(2^m)`` per ``m``.

    Raises
    ------
    KeyError
        If ``key`` is not an algorithm.
    ValueError
        As :func:`lb3_coefficient`.
    """
    m = np.asarray(ms, dtype=np.float64).ravel()
    return np.asarray(m**3 / coefficient_curve(key, m), dtype=np.float64)


def cubic_fit(ms: ArrayLike, coefficients: ArrayLike) -> NDArray[np.float64]:
    """Least-squares ``f(m) = c_3 m^3 + c_2 m^2 + c_1 m + c_0``; returns ``[c_3, c_2, c_1, c_0]``.

    Needs at least 5 points (one more than the parameters, so the fit is a check).

    Parameters
    ----------
    ms : array_like of float
        The ``m`` values (flattened), at least 5.
    coefficients : array_like of float
        ``f(m)``, one per ``m``.

    Returns
    -------
    ndarray of float64, shape (4,)
        ``[c_3, c_2, c_1, c_0]``.

    Raises
    ------
    ValueError
        If the sizes differ or there are fewer than 5 points.

    Examples
    --------
    >>> ms = np.arange(5, 11)
    >>> (np.round(cubic_fit(ms, ms**3 / 6 + ms**2 / 3 + 1), 6) + 0.0).tolist()  # + 0.0: no -0.0
    [0.166667, 0.333333, 0.0, 1.0]
    """
    m = np.asarray(ms, dtype=np.float64).ravel()
    f = np.asarray(coefficients, dtype=np.float64).ravel()
    if m.size != f.size or m.size < 5:
        raise ValueError(f"need at least 5 points and one value each, got {m.size} and {f.size}")
    solution, *_ = np.linalg.lstsq(np.vander(m, 4), f, rcond=None)
    return np.asarray(solution, dtype=np.float64)


@dataclass(frozen=True)
class IndexEstimate:
    """The index of one algorithm as far as the computed ``m`` support it.

    ``value`` is NaN whenever it is not shown: the ratio tends to 0 (``kind
    "zero"``, then ``limit`` is 0), no form is known, too few ``m``, or the
    window fits disagree (``reliable`` False). ``low``/``high`` span the
    window fits; ``fit`` holds the cubic of the main window (last 6 ``m``).

    Attributes
    ----------
    kind : {"zero", "cubic", "irregular", "unknown"}
        The stated form (:data:`LIMIT_FORMS`).
    value : float
        The index, or NaN.
    low, high : float
        Smallest and largest window estimate (NaN if not fitted).
    reliable : bool
        Whether ``value`` may be shown.
    note : str
        Explanation for users.
    limit : float
        The limit of the ratio if known (0 for ``"zero"``), else NaN.
    fit : tuple of 4 floats or None
        ``(c_3, c_2, c_1, c_0)`` of the main window.
    """

    kind: LimitKind
    value: float
    low: float
    high: float
    reliable: bool
    note: str
    limit: float = float("nan")
    fit: tuple[float, float, float, float] | None = None


def estimate_index(key: str, ms: ArrayLike, coefficients: ArrayLike) -> IndexEstimate:
    """Extrapolate ``m^3 / f(2^m)`` to ``m -> ∞`` in the form :data:`LIMIT_FORMS` states.

    ``ms`` must be consecutive integers with ``coefficients = f(2^m)``.

    Parameters
    ----------
    key : str
        An algorithm key.
    ms : array_like of int
        Consecutive ``m`` values (flattened).
    coefficients : array_like of float
        ``f(2^m)`` per ``m`` (:func:`coefficient_curve`).

    Returns
    -------
    IndexEstimate
        The estimate, with ``value`` NaN whenever it is not shown.
    """
    form = limit_form(key)
    nan = float("nan")
    m = np.asarray(ms, dtype=np.int64).ravel()
    f = np.asarray(coefficients, dtype=np.float64).ravel()
    if form.kind == "zero":
        return IndexEstimate("zero", nan, nan, nan, True, "ratio → 0: " + form.reason, 0.0)
    if form.kind != "cubic":
        return IndexEstimate(form.kind, nan, nan, nan, False, form.reason)
    largest = int(m.max()) if m.size else 0
    if largest < MIN_LARGEST_M:
        note = f"not fitted: needs the largest m ≥ {MIN_LARGEST_M} (windows of 6 and 8 points)."
        return IndexEstimate("cubic", nan, nan, nan, False, note)
    fits = []
    for points, offset in FIT_WINDOWS:
        top = largest - offset
        chosen = (m > top - points) & (m <= top)
        fits.append(cubic_fit(m[chosen], f[chosen]))
    estimates = np.array([1.0 / c[0] if c[0] > 0 else nan for c in fits])
    value, low, high = float(estimates[0]), float(estimates.min()), float(estimates.max())
    spread = (high - low) / abs(value) if np.all(np.isfinite(estimates)) else np.inf
    main = (float(fits[0][0]), float(fits[0][1]), float(fits[0][2]), float(fits[0][3]))
    if not spread <= RELIABLE_SPREAD:
        by = f" by {spread:.1%}" if np.isfinite(spread) else ""
        note = (
            f"not shown: fits on different m windows disagree{by} "
            f"(more than {RELIABLE_SPREAD:.0%}); compute larger m."
        )
        return IndexEstimate("cubic", nan, low, high, False, note, fit=main)
    note = f"cubic fit of f on m = {largest - 5}..{largest}; " + form.reason
    return IndexEstimate("cubic", value, low, high, True, note, value, main)
