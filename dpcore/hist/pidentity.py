"""p-Identity strategies: the best known linear strategy for range workloads, as a reference.

McKenna, Miklau, Hay, Machanavajjhala, "Optimizing error of high-dimensional
statistical queries under differential privacy" (VLDB 2018, HDMM) parameterise
a strategy of ``n + p`` queries as the identity stacked on ``p`` free rows
``Θ >= 0`` (``p x n``), every column scaled to L1 norm 1:

.. math:: s = 1 + \\mathbf{1}^T Θ, \\quad A = \\begin{bmatrix} I \\\\ Θ \\end{bmatrix}
          \\mathrm{diag}(1/s),

so the L1 sensitivity (largest column L1 norm) is exactly 1. Answering each
row with ``Lap(1/eps)`` noise and reconstructing by least squares, the mean
squared error over the ``m`` workload ranges is

.. math:: \\mathrm{MSE} = \\frac{2}{\\epsilon^2 m} \\mathrm{tr}\\big(G (A^T A)^{-1}\\big),
          \\quad (A^T A)^{-1} = S (I - Θ^T R Θ) S, \\quad R = (I_p + Θ Θ^T)^{-1},

``S = diag(s)``, ``G = W^T W``. With ``C = S G S`` and ``X = I - Θ^T R Θ`` the
loss ``L = tr(C X)`` has gradient

.. math:: \\frac{\\partial L}{\\partial Θ} = -2 R Θ C X + \\mathbf{1}_p
          \\big(2 (G \\circ X) s\\big)^T.

Every product with ``G`` uses its closed form (:func:`gram_matvec`, ``O(n)``
per vector), so one loss-and-gradient costs ``O(n p^2)`` instead of the
``O(n^2 p)`` of a dense ``G``. Projected L-BFGS (:mod:`dpcore.hist.nonnegative_lbfgs`)
on ``Θ >= 0`` from several random starts finds a local optimum; the best start is kept.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import scipy.linalg
from numpy.typing import NDArray
from threadpoolctl import threadpool_limits

from dpcore import _validate
from dpcore.hist import nonnegative_lbfgs
from dpcore.hist.workload import Workload, parse_workload

FloatArray = NDArray[np.float64]
Progress = Callable[[float], object] | None

MAX_BINS = 8192
"""Largest ``n`` the optimiser accepts (one evaluation is ``O(n p^2)`` with ``p = n / 16``)."""
MAX_ITER = 300
"""Iterations per start of :func:`optimise` unless told otherwise."""


# ----------------------------------------------------------- the Gram matrix


def gram_diagonal(workload: str | Workload, n: int) -> FloatArray:
    """``G_ii``: how many workload ranges contain bin ``i``.

    Parameters
    ----------
    workload : str or Workload
        Any form :func:`dpcore.hist.workload.parse_workload` accepts.
    n : int
        Number of bins.

    Returns
    -------
    ndarray of float64, shape (n,)
        ``G_ii``.

    Raises
    ------
    ValueError
        If ``workload`` is invalid for ``n`` bins.
    """
    spec = parse_workload(workload, n)
    bins = np.arange(n, dtype=np.int64)
    return spec.containing_count(n, bins, bins)


def gram_matvec(workload: str | Workload, n: int, rows: FloatArray) -> FloatArray:
    """``rows @ G`` for a ``k x n`` array (``G = W^T W`` symmetric), ``O(k n)``.

    .. math:: G^{all}_{ij} = (\\min(i,j)+1)(n-\\max(i,j)), \\quad
              G^{prefix}_{ij} = n - \\max(i,j)

    so ``(G v)_i = g(i) \\sum_{j \\le i} f(j) v_j + f(i) \\sum_{j > i} g(j) v_j``
    with two running sums; ranges of one length ``L``: ``W^T (W v)`` with window
    sums; listed ranges: ``W^T (W v)`` with prefix sums and a difference array.

    Parameters
    ----------
    workload : str or Workload
        Any form :func:`dpcore.hist.workload.parse_workload` accepts.
    n : int
        Number of bins.
    rows : array_like of float, shape (k, n) or (n,)
        The vectors, one per row.

    Returns
    -------
    ndarray of float64, shape (k, n)
        ``rows @ G`` (a single vector gives one row).

    Raises
    ------
    ValueError
        If ``workload`` is invalid for ``n`` bins.
    """
    spec = parse_workload(workload, n)
    v = np.atleast_2d(np.asarray(rows, dtype=np.float64))
    idx = np.arange(n, dtype=np.float64)
    if spec.kind == "ranges":
        a, b = spec.bounds()
        cum = np.concatenate((np.zeros((v.shape[0], 1)), np.cumsum(v, axis=1)), axis=1)
        sums = cum[:, b + 1] - cum[:, a]  # W v: one sum per listed range
        diff = np.zeros((v.shape[0], n + 1))
        np.add.at(diff.T, a, sums.T)
        np.add.at(diff.T, b + 1, -sums.T)
        return np.asarray(np.cumsum(diff[:, :n], axis=1), dtype=np.float64)
    if spec.kind == "length":
        assert spec.length is not None
        ell = spec.length
        cum = np.concatenate((np.zeros((v.shape[0], 1)), np.cumsum(v, axis=1)), axis=1)
        window = cum[:, ell:] - cum[:, : n - ell + 1]  # W v: one sum per window start
        spread = np.concatenate((np.zeros((v.shape[0], 1)), np.cumsum(window, axis=1)), axis=1)
        first = np.maximum(np.arange(n) - ell + 1, 0)
        last = np.minimum(np.arange(n), n - ell)  # windows containing bin i: starts first..last
        return np.asarray(spread[:, last + 1] - spread[:, first], dtype=np.float64)
    f = idx + 1.0 if spec.kind == "uniform" else np.ones(n)
    g = n - idx
    below = np.cumsum(v * f, axis=1)
    weighted = v * g
    above = weighted.sum(axis=1, keepdims=True) - np.cumsum(weighted, axis=1)
    return np.asarray(g * below + f * above, dtype=np.float64)


# ------------------------------------------------------------ loss, gradient


@dataclass(frozen=True)
class LossGradient:
    """``L = tr(G (A^T A)^{-1})`` and ``dL/dΘ`` (``p x n``).

    Attributes
    ----------
    loss : float
        ``tr(G (A^T A)^{-1})``.
    gradient : ndarray of float64, shape (p, n)
        ``dL/dΘ``.
    """

    loss: float
    gradient: FloatArray


def loss_and_gradient(theta: FloatArray, workload: str | Workload) -> LossGradient:
    """The p-Identity loss ``tr(G (A^T A)^{-1})`` and its gradient, ``O(n p^2)``.

    With ``V = R Θ``, ``Y = V S`` and ``Z = (Y G) S``:
    ``L = \\sum_i s_i^2 G_ii - \\sum (Z \\circ Θ)``,
    ``dL/dΘ = -2 (Z - (Z Θ^T) V) + 1_p (dL/ds)^T`` and
    ``dL/ds = 2 (s \\circ \\mathrm{diag}\\, G - \\mathbf{1}^T (Θ \\circ Y G))``.

    Parameters
    ----------
    theta : array_like of float, shape (p, n)
        The free rows ``Θ >= 0``.
    workload : str or Workload
        Any form :func:`dpcore.hist.workload.parse_workload` accepts.

    Returns
    -------
    LossGradient
        The loss and its gradient.

    Raises
    ------
    ValueError
        If ``workload`` is invalid for ``n`` bins.
    """
    th = np.asarray(theta, dtype=np.float64)
    s = 1.0 + th.sum(axis=0)
    v = _solved(th)
    loss, yg, diag = _loss(th, s, v, workload)
    z = yg * s
    d_s = 2.0 * (s * diag - np.sum(th * yg, axis=0))
    grad = -2.0 * (z - (z @ th.T) @ v) + d_s
    return LossGradient(loss, np.asarray(grad, dtype=np.float64))


def _solved(th: FloatArray) -> FloatArray:
    """``V = R Θ = (I_p + Θ Θ^T)^{-1} Θ`` (a Cholesky solve), ``O(n p^2)``."""
    inner = th @ th.T
    inner[np.diag_indices(th.shape[0])] += 1.0
    return np.asarray(scipy.linalg.cho_solve(scipy.linalg.cho_factor(inner), th), np.float64)


def _loss(
    th: FloatArray, s: FloatArray, v: FloatArray, workload: str | Workload
) -> tuple[float, FloatArray, FloatArray]:
    """``L`` from ``Θ``, ``s`` and ``V = R Θ`` in ``O(n p)``, with ``Y G`` and ``diag G``."""
    n = th.shape[1]
    yg = gram_matvec(workload, n, v * s)  # Y G
    diag = gram_diagonal(workload, n)
    return float(np.sum(s**2 * diag) - np.sum(yg * s * th)), yg, diag


# --------------------------------------------------------------- strategies


@dataclass(frozen=True, eq=False)
class PIdentityStrategy:
    """An optimised p-Identity strategy: ``A = [I; Θ] diag(1/s)``.

    ``loss`` is ``tr(G (A^T A)^{-1})`` for ``workload``; :meth:`expected_error`
    turns it into the mean squared error of a range at a given epsilon.

    Attributes
    ----------
    theta : ndarray of float64, shape (p, n)
        The free rows ``Θ >= 0``.
    workload : Workload
        The workload it was optimised for.
    loss : float
        ``tr(G (A^T A)^{-1})`` for ``workload``.
    n : int
        Number of bins.
    scale : ndarray of float64, shape (n,)
        ``s``, each column's L1 norm before scaling.
    sensitivity : float
        The L1 sensitivity of ``A`` (1 up to rounding).
    """

    theta: FloatArray
    workload: Workload
    loss: float

    @property
    def n(self) -> int:
        return int(self.theta.shape[1])

    @property
    def scale(self) -> FloatArray:
        """``s``: each column's L1 norm before scaling."""
        return np.asarray(1.0 + self.theta.sum(axis=0), dtype=np.float64)

    def matrix(self) -> FloatArray:
        """The dense ``(n + p) x n`` strategy (for tests and small ``n``)."""
        return np.vstack((np.eye(self.n), self.theta)) / self.scale

    @cached_property
    def solved(self) -> FloatArray:
        """``V = R Θ = (I_p + Θ Θ^T)^{-1} Θ``, computed once: every error and the
        reconstruction of this strategy reuse it (``O(n p)`` each instead of ``O(n p^2)``)."""
        with threadpool_limits(limits=1, user_api="blas"):  # n = 4,096: 0.02 s, threaded 0.4 s
            return _solved(self.theta)

    @cached_property
    def prefix_sums(self) -> tuple[FloatArray, FloatArray, FloatArray]:
        """Running sums over bins of ``s^2``, ``Θ S`` and ``V S`` (a leading zero column),
        computed once: a range's error is then ``O(p)`` (:func:`range_errors`)."""
        zero = np.zeros((self.theta.shape[0], 1))
        s = self.scale
        return (
            np.concatenate(([0.0], np.cumsum(s**2))),
            np.concatenate((zero, np.cumsum(self.theta * s, axis=1)), axis=1),
            np.concatenate((zero, np.cumsum(self.solved * s, axis=1)), axis=1),
        )

    @cached_property
    def sensitivity(self) -> float:
        """L1 sensitivity: the largest column L1 norm of ``A`` (1 up to rounding)."""
        s = self.scale
        return float(np.max(1.0 / s + np.abs(self.theta / s).sum(axis=0)))

    def expected_error(self, eps: float, workload: str | Workload | None = None) -> float:
        """Mean squared error of a workload range: ``2 Δ^2 L / (eps^2 m)``.

        ``workload`` defaults to the one the strategy was optimised for.
        """
        eps = _validate.positive("epsilon", eps)
        load = self.workload if workload is None else parse_workload(workload, self.n)
        loss = self.loss if load == self.workload else workload_loss(self, load)
        return 2.0 * self.sensitivity**2 * loss / (eps**2 * load.size(self.n))


def workload_loss(strategy: PIdentityStrategy, workload: str | Workload) -> float:
    """``tr(G (A^T A)^{-1})`` for any workload (the strategy may be optimised for another).

    Parameters
    ----------
    strategy : PIdentityStrategy
        The strategy.
    workload : str or Workload
        Any form :func:`dpcore.hist.workload.parse_workload` accepts.

    Returns
    -------
    float
        The loss for ``workload``.

    Raises
    ------
    ValueError
        If ``workload`` is invalid for ``strategy.n`` bins.
    """
    return _loss(strategy.theta, strategy.scale, strategy.solved, workload)[0]


def range_errors(
    strategy: PIdentityStrategy, eps: float, a: NDArray[np.int64], b: NDArray[np.int64]
) -> FloatArray:
    """Exact MSE of each range ``[a, b]`` (0-based inclusive), ``O(p^2)`` per range.

    .. math:: \\mathrm{MSE}(w) = \\frac{2 Δ^2}{\\epsilon^2} \\big(\\|S w\\|^2
              - u^T R u\\big), \\quad u = Θ S w

    Parameters
    ----------
    strategy : PIdentityStrategy
        The strategy.
    eps : float
        Privacy budget, in ``[1e-300, inf)``.
    a, b : array_like of int
        Range starts and ends (0-based, inclusive), broadcast together.

    Returns
    -------
    ndarray of float64
        MSE per range (count units squared), shaped like the broadcast ``a`` and ``b``.

    Raises
    ------
    ValueError
        If a range is not ``0 <= a <= b < strategy.n``, ``a`` and ``b`` do not broadcast, or
        ``eps`` is not a finite number in ``[1e-300, inf)``.
    """
    a_arr, b_arr = _validate.ranges(strategy.n, a, b)
    eps = _validate.positive("epsilon", eps)
    sq, cum, cum_v = strategy.prefix_sums
    u = cum[:, b_arr + 1] - cum[:, a_arr]  # p x ranges: u = Θ S w per range
    ru = cum_v[:, b_arr + 1] - cum_v[:, a_arr]  # R u = V S w
    own = sq[b_arr + 1] - sq[a_arr] - np.sum(u * ru, axis=0)
    return np.asarray(2.0 * strategy.sensitivity**2 / eps**2 * own, dtype=np.float64)


def length_errors(
    strategy: PIdentityStrategy, eps: float, lengths: NDArray[np.int64]
) -> FloatArray:
    """Mean MSE over all ranges of each length ``L`` (the workload ``"length:L"``), ``O(n p)``
    per length: :func:`range_errors` averaged over the ``n - L + 1`` windows, their sums taken
    as differences of the strategy's :attr:`~PIdentityStrategy.prefix_sums`.

    Parameters
    ----------
    strategy : PIdentityStrategy
        The strategy.
    eps : float
        Privacy budget, in ``[1e-300, inf)``.
    lengths : array_like of int
        Range lengths, each in ``[1, strategy.n]``.

    Returns
    -------
    ndarray of float64
        The mean MSE of each length (count units squared), shaped like ``lengths``.

    Raises
    ------
    ValueError
        If a length is outside ``[1, strategy.n]`` or ``eps`` is not a finite number in
        ``[1e-300, inf)``.
    """
    n = strategy.n
    wanted = np.asarray(lengths, dtype=np.int64)
    bad = wanted[(wanted < 1) | (wanted > n)]
    if bad.size:
        raise ValueError(f"range lengths must be in [1, {n}], got {bad.flat[0]}")
    eps = _validate.positive("epsilon", eps)
    sq, cum, cum_v = strategy.prefix_sums
    means = []
    for ell in wanted.ravel().tolist():
        windows = n - ell + 1  # window a covers bins a .. a + ell - 1
        u = cum[:, ell:] - cum[:, :windows]  # Θ S w_a, one column per window
        ru = cum_v[:, ell:] - cum_v[:, :windows]  # R u = V S w_a
        means.append((np.sum(sq[ell:] - sq[:windows]) - np.sum(u * ru)) / windows)
    scale = 2.0 * strategy.sensitivity**2 / eps**2
    return np.asarray(scale * np.reshape(means, wanted.shape), dtype=np.float64)


def measure(
    strategy: PIdentityStrategy, counts: FloatArray, eps: float, rng: np.random.Generator
) -> FloatArray:
    """Noisy answers ``A x + Lap(Δ/eps)`` of the ``n + p`` strategy queries.

    ``Δ`` is the strategy's L1 sensitivity (:attr:`PIdentityStrategy.sensitivity`),
    so the release is ``eps``-DP.

    Parameters
    ----------
    strategy : PIdentityStrategy
        The strategy.
    counts : array_like of float, shape (n,)
        The histogram, finite.
    eps : float
        Privacy budget, in ``[1e-300, inf)``.
    rng : numpy.random.Generator
        Source of the Laplace noise.

    Returns
    -------
    ndarray of float64, shape (n + p,)
        The noisy answers, identity rows first.

    Raises
    ------
    ValueError
        If ``counts`` is not ``strategy.n`` finite numbers, or ``eps`` is not a finite
        number in ``[1e-300, inf)``.
    """
    x = _validate.finite_array("counts", counts, size=strategy.n)
    eps = _validate.positive("epsilon", eps)
    scaled = x / strategy.scale
    exact = np.concatenate((scaled, strategy.theta @ scaled))
    return np.asarray(exact + rng.laplace(0.0, strategy.sensitivity / eps, exact.size))


def reconstruct(strategy: PIdentityStrategy, answers: FloatArray) -> FloatArray:
    """Least-squares estimate ``(A^T A)^{-1} A^T y`` in ``O(n p)`` (Woodbury form).

    .. math:: \\hat x = S (I - Θ^T R Θ) (y_I + Θ^T y_Θ)

    Parameters
    ----------
    strategy : PIdentityStrategy
        The strategy.
    answers : array_like of float, shape (n + p,)
        Noisy answers as :func:`measure` returns them.

    Returns
    -------
    ndarray of float64, shape (n,)
        The estimated bins.
    """
    th, s = strategy.theta, strategy.scale
    y = np.asarray(answers, dtype=np.float64)
    u = y[: strategy.n] + th.T @ y[strategy.n :]
    correction = th.T @ (strategy.solved @ u)  # Θ^T R Θ u, R Θ = V
    return np.asarray(s * (u - correction), dtype=np.float64)


def default_rows(n: int) -> int:
    """``p = n / 16`` rows (HDMM's choice for range workloads), between 1 and 128.

    Parameters
    ----------
    n : int
        Number of bins.

    Returns
    -------
    int
        ``p``, in ``[1, 128]``.
    """
    return int(min(max(1, n // 16), 128))


def default_starts(n: int) -> int:
    """Random starts: 3 up to 512 bins, 2 up to 2,048, then 1 (each costs ``O(n p^2)`` per step).

    Parameters
    ----------
    n : int
        Number of bins.

    Returns
    -------
    int
        1, 2 or 3.
    """
    return 3 if n <= 512 else 2 if n <= 2048 else 1


def optimise(
    n: int,
    workload: str | Workload = "uniform",
    *,
    p: int | None = None,
    starts: int | None = None,
    max_iter: int = MAX_ITER,
    seed: int = 0,
    progress: Progress = None,
) -> PIdentityStrategy:
    """Optimise a p-Identity strategy for ``workload`` over ``n`` bins (best of ``starts``,
    default :func:`default_starts`).

    A bound-constrained quasi-Newton method (projected L-BFGS, the method of
    L-BFGS-B) on ``Θ >= 0`` from random starts ``U[0, 1)`` drawn from
    ``numpy.random.default_rng(seed)``; ``progress(fraction)`` is called after
    each iteration. ``n`` is limited to :data:`MAX_BINS`.

    Parameters
    ----------
    n : int
        Number of bins, in ``[2, MAX_BINS]``.
    workload : str or Workload, default "uniform"
        Any form :func:`dpcore.hist.workload.parse_workload` accepts.
    p : int, optional
        Number of free rows, in ``[1, n]``; :func:`default_rows` if omitted.
    starts : int, optional
        Number of random starts (``>= 1``); :func:`default_starts` if omitted.
    max_iter : int, default MAX_ITER (300)
        Iterations per start (``>= 1``).
    seed : int, default 0
        Seed of the random starts.
    progress : callable, optional
        Called with the fraction done, in ``[0, 1]``.

    Returns
    -------
    PIdentityStrategy
        The start with the lowest loss.

    Raises
    ------
    ValueError
        If ``n`` is outside ``[2, MAX_BINS]``, ``p`` outside ``[1, n]``, ``starts`` or
        ``max_iter`` is not a whole number ``>= 1``, or ``workload`` is invalid.
    """
    if not 2 <= n <= MAX_BINS:
        raise ValueError(f"the p-Identity optimiser takes 2 to {MAX_BINS:,} bins, got n = {n:,}")
    rows = default_rows(n) if p is None else _validate.whole("p", p, upper=n)
    starts = default_starts(n) if starts is None else _validate.whole("starts", starts)
    max_iter = _validate.whole("max_iter", max_iter)
    load = parse_workload(workload, n)
    rng = np.random.default_rng(seed)
    done = [0]
    total = starts * max_iter

    def objective(flat: FloatArray) -> tuple[float, FloatArray]:
        out = loss_and_gradient(flat.reshape(rows, n), load)
        return out.loss, out.gradient.ravel()

    def step() -> None:
        done[0] += 1
        if progress is not None:
            progress(min(done[0] / total, 1.0))

    best: PIdentityStrategy | None = None
    # One BLAS thread: the products are n x p with p <= 128, too small to split; on a
    # 2-core machine OpenBLAS's threads made n = 1,024 take 20 s instead of 5 s.
    with threadpool_limits(limits=1, user_api="blas"):
        for start in range(starts):
            done[0] = start * max_iter
            found = nonnegative_lbfgs.minimise(objective, rng.random(rows * n), max_iter, step)
            theta = found.reshape(rows, n)
            candidate = PIdentityStrategy(theta, load, loss_and_gradient(theta, load).loss)
            if best is None or candidate.loss < best.loss:
                best = candidate
    assert best is not None
    return best
