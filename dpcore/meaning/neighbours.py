"""One count released on two neighbouring datasets: the output distributions and the privacy loss.

``D`` holds a bin with ``count`` people; its neighbour ``D'`` is ``D`` without one of them
(Alice), so the bin holds ``count - 1``. A mechanism ``M`` releases the bin's count with noise;
ε-differential privacy asks that for every output ``o``

.. math:: e^{-\\varepsilon} \\le \\frac{p(o \\mid D)}{p(o \\mid D')} \\le e^{\\varepsilon},

i.e. that the privacy loss ``L(o) = ln p(o|D) / p(o|D')`` stays in ``[-ε, ε]`` (Dwork & Roth,
def. 2.4). Three mechanisms, each with its exact distribution and loss:

* Laplace, ``count + Lap(Δ/ε)``: ``L(o) = (|o - c'| - |o - c|) ε / Δ``, in ``[-ε, ε]`` for every
  ``o`` (flat at ``±ε`` outside the two counts);
* geometric (discrete Laplace, Ghosh, Roughgarden & Sundararajan 2009), integer outputs with
  ``P(o) ∝ α^|o - c|``, ``α = e^{-ε/Δ}``: the same loss on the integers;
* Gaussian, ``count + N(0, σ²)``: the loss is linear in ``o`` and unbounded, so only
  (ε, δ)-DP holds. With ``σ`` from the analytic Gaussian mechanism (Balle & Wang, ICML 2018,
  thm. 8) the hockey-stick divergence ``P_D[L > ε] - e^ε P_D'[L > ε]`` equals δ exactly; the
  probability that the loss exceeds ε at all, ``P_D[L > ε]``, is what the page shades.

All distributions and probabilities here are exact (closed forms and ``scipy.special``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import optimize, special

from dpcore import _validate

FloatArray = NDArray[np.float64]
Mechanism = Literal["laplace", "geometric", "gaussian"]
MECHANISMS: tuple[Mechanism, ...] = ("laplace", "geometric", "gaussian")


def _phi(x: ArrayLike) -> FloatArray:
    """The standard normal CDF."""
    return np.asarray(special.ndtr(x), dtype=np.float64)


def gaussian_delta(sigma: float, eps: float, sensitivity: float = 1.0) -> float:
    """The exact δ of the Gaussian mechanism ``N(0, σ²)`` at ε (Balle & Wang 2018, thm. 8).

    Parameters
    ----------
    sigma : float
        The noise's standard deviation, > 0.
    eps : float
        The ε at which δ is measured, > 0.
    sensitivity : float, default 1
        The L2 sensitivity Δ of the query.

    Returns
    -------
    float
        The smallest δ for which the mechanism is (ε, δ)-DP.

    Raises
    ------
    ValueError
        If an argument is not a positive finite number.

    Notes
    -----
    .. math:: \\delta = \\Phi\\Big(\\frac{\\Delta}{2\\sigma}
              - \\frac{\\varepsilon\\sigma}{\\Delta}\\Big)
              - e^{\\varepsilon}\\,\\Phi\\Big(-\\frac{\\Delta}{2\\sigma}
              - \\frac{\\varepsilon\\sigma}{\\Delta}\\Big)

    Examples
    --------
    >>> round(gaussian_delta(1.0, 1.0), 4)
    0.1269
    """
    sigma = _validate.positive("sigma", sigma)
    eps = _validate.positive("epsilon", eps)
    delta_f = _validate.positive("sensitivity", sensitivity)
    a, b = delta_f / (2 * sigma), eps * sigma / delta_f
    # e^ε Φ(-a - b) as exp(ε + log Φ(-a - b)): no overflow at large ε
    tail = math.exp(eps + float(special.log_ndtr(-a - b)))
    return max(float(_phi(a - b)) - tail, 0.0)


def gaussian_sigma(eps: float, delta: float, sensitivity: float = 1.0) -> float:
    """The smallest σ for which ``N(0, σ²)`` noise is (ε, δ)-DP (the analytic Gaussian
    mechanism, Balle & Wang 2018, alg. 1, solved by root finding on :func:`gaussian_delta`).

    Parameters
    ----------
    eps : float
        ε > 0.
    delta : float
        δ in (0, 1).
    sensitivity : float, default 1
        The L2 sensitivity Δ.

    Returns
    -------
    float
        σ with ``gaussian_delta(σ, ε, Δ) = δ`` (to a relative 1e-12).

    Raises
    ------
    ValueError
        If ε or Δ is not positive, or δ is not in (0, 1).

    Examples
    --------
    >>> s = gaussian_sigma(1.0, 1e-5)
    >>> round(s, 3), abs(gaussian_delta(s, 1.0) - 1e-5) < 1e-15
    (3.731, True)
    """
    eps = _validate.positive("epsilon", eps)
    delta_f = _validate.positive("sensitivity", sensitivity)
    if not (isinstance(delta, int | float) and 0 < delta < 1):
        raise ValueError(f"δ must be a number in (0, 1), got {delta!r}")
    lo, hi = 1e-6 * delta_f, delta_f
    while gaussian_delta(hi, eps, delta_f) > delta:  # δ falls as σ grows
        hi *= 2
    while gaussian_delta(lo, eps, delta_f) < delta:
        lo /= 2
    root: float = optimize.brentq(
        lambda s: gaussian_delta(s, eps, delta_f) - delta, lo, hi, xtol=1e-14 * hi, rtol=1e-14
    )
    return root


@dataclass(frozen=True)
class Neighbours:
    """One bin's release under ``D`` (``count``) and ``D'`` (``count - 1``): the mechanism,
    its noise scale (``b = Δ/ε`` for Laplace, ``α = e^{-ε/Δ}`` for geometric, σ for Gaussian),
    and the δ it satisfies at ε (0 for Laplace and geometric).

    Attributes
    ----------
    mechanism : {"laplace", "geometric", "gaussian"}
    count : float
        The bin's count in ``D`` (at least 1).
    eps : float
    sensitivity : float
    scale : float
    delta : float
    """

    mechanism: Mechanism
    count: float
    eps: float
    sensitivity: float
    scale: float
    delta: float

    @property
    def neighbour_count(self) -> float:
        return self.count - self.sensitivity

    def density(self, outputs: ArrayLike, *, neighbour: bool = False) -> FloatArray:
        """The density (Laplace, Gaussian) or mass (geometric, integer outputs) of each output
        under ``D`` (or under ``D'`` with ``neighbour``).

        Parameters
        ----------
        outputs : array_like of float
            The outputs ``o`` (integers for the geometric mechanism).
        neighbour : bool, default False
            Under ``D'`` instead of ``D``.

        Returns
        -------
        ndarray of float
            ``p(o | D)`` (or ``p(o | D')``), same shape as ``outputs``.
        """
        o = np.asarray(outputs, dtype=np.float64)
        centre = self.neighbour_count if neighbour else self.count
        if self.mechanism == "laplace":
            return np.exp(-np.abs(o - centre) / self.scale) / (2 * self.scale)
        if self.mechanism == "geometric":
            alpha = self.scale
            mass = (1 - alpha) / (1 + alpha) * alpha ** np.abs(o - centre)
            return np.where(o == np.round(o), mass, 0.0)
        z = (o - centre) / self.scale
        return np.exp(-0.5 * z**2) / (self.scale * math.sqrt(2 * math.pi))

    def loss(self, outputs: ArrayLike) -> FloatArray:
        """The privacy loss ``L(o) = ln p(o|D) / p(o|D')`` of each output, exact (in log space,
        so it stays finite where the densities underflow).

        Parameters
        ----------
        outputs : array_like of float

        Returns
        -------
        ndarray of float
        """
        o = np.asarray(outputs, dtype=np.float64)
        c, c2 = self.count, self.neighbour_count
        if self.mechanism == "laplace":
            return (np.abs(o - c2) - np.abs(o - c)) / self.scale
        if self.mechanism == "geometric":
            return (np.abs(o - c2) - np.abs(o - c)) * -math.log(self.scale)
        return ((o - c2) ** 2 - (o - c) ** 2) / (2 * self.scale**2)

    def exceeds(self) -> float:
        """``P_D[L(M(D)) > ε]``: the chance that one release's loss exceeds ε (0 for Laplace and
        geometric, whose loss never exceeds ε).

        Returns
        -------
        float
        """
        if self.mechanism != "gaussian":
            return 0.0
        a, b = self.sensitivity / (2 * self.scale), self.eps * self.scale / self.sensitivity
        return float(_phi(a - b))

    def loss_threshold(self) -> float:
        """For the Gaussian mechanism, the output above which the loss exceeds ε; ``inf`` for the
        others, whose loss never exceeds ε.

        .. math:: L(o) = \\frac{2\\Delta (o - c) + \\Delta^2}{2\\sigma^2} > \\varepsilon
                  \\iff o > c - \\frac{\\Delta}{2} + \\frac{\\varepsilon\\sigma^2}{\\Delta}

        Returns
        -------
        float
        """
        if self.mechanism != "gaussian":
            return math.inf
        return self.count - self.sensitivity / 2 + self.eps * self.scale**2 / self.sensitivity

    def sample(self, size: int, rng: np.random.Generator, *, neighbour: bool = False) -> FloatArray:
        """``size`` releases of the bin under ``D`` (or ``D'``).

        Parameters
        ----------
        size : int
            Number of releases, >= 1.
        rng : numpy.random.Generator
            The source of randomness (a teaching generator, not a hardened noise source).
        neighbour : bool, default False

        Returns
        -------
        ndarray of float, shape (size,)

        Raises
        ------
        ValueError
            If ``size`` is not a whole number >= 1.
        """
        n = _validate.whole("size", size, lower=1)
        centre = self.neighbour_count if neighbour else self.count
        if self.mechanism == "laplace":
            return centre + rng.laplace(0.0, self.scale, n)
        if self.mechanism == "geometric":
            # the difference of two geometric variables on {0, 1, ...} is two-sided geometric
            p = 1 - self.scale
            noise = rng.geometric(p, n) - rng.geometric(p, n)
            return centre + noise.astype(np.float64)
        return centre + rng.normal(0.0, self.scale, n)


def neighbours(
    mechanism: Mechanism, count: float, eps: float, *, delta: float = 0.0, sensitivity: float = 1.0
) -> Neighbours:
    """Set up one bin's release on ``D`` and its neighbour ``D'`` (one person fewer).

    Parameters
    ----------
    mechanism : {"laplace", "geometric", "gaussian"}
    count : float
        The bin's count in ``D``; at least ``sensitivity`` (someone must be there to remove),
        a whole number for the geometric mechanism.
    eps : float
        ε > 0.
    delta : float, default 0
        δ in (0, 1), for the Gaussian mechanism only.
    sensitivity : float, default 1
        How far one person moves the count (a whole number for the geometric mechanism).

    Returns
    -------
    Neighbours

    Raises
    ------
    ValueError
        On an unknown mechanism, a count below the sensitivity (an empty bin has nobody to
        remove), ε or Δ not positive, a non-integer count or Δ for the geometric mechanism,
        δ outside (0, 1) for the Gaussian one, or a count too large for float64 noise of
        this scale.

    Examples
    --------
    >>> nb = neighbours("laplace", 5, 0.5)
    >>> nb.scale, float(nb.loss([100.0])[0]), float(nb.loss([-100.0])[0])
    (2.0, 0.5, -0.5)
    """
    if mechanism not in MECHANISMS:
        raise ValueError(f"unknown mechanism {mechanism!r}; choose from {', '.join(MECHANISMS)}")
    eps = _validate.positive("epsilon", eps)
    delta_f = _validate.positive("sensitivity", sensitivity)
    count = float(count)
    if not math.isfinite(count) or count < delta_f:
        raise ValueError(
            f"the bin holds {count:g} people: D' removes one person from it, so it needs at "
            f"least {delta_f:g}; choose a bin that is not empty"
        )
    spread = delta_f / eps if mechanism != "gaussian" else gaussian_sigma(eps, delta, delta_f)
    if count > _validate.PERTURBABLE_RATIO * spread:
        raise ValueError(
            f"a count of {count:.4g} with noise of scale {spread:.4g} is beyond float64 (the "
            "noise would be rounded away); choose a smaller ε or count in larger units"
        )
    if mechanism == "laplace":
        return Neighbours(mechanism, count, eps, delta_f, delta_f / eps, 0.0)
    if mechanism == "geometric":
        if count != round(count) or delta_f != round(delta_f):
            raise ValueError("the geometric mechanism releases integers: count and Δ must be whole")
        return Neighbours(mechanism, count, eps, delta_f, math.exp(-eps / delta_f), 0.0)
    return Neighbours(mechanism, count, eps, delta_f, spread, float(delta))
