"""One gallery entry: a mechanism on two neighbouring inputs, its claim, and its true ε."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dpcore.audit.events import Score
from dpcore.audit.exact import exact_epsilon
from dpcore.audit.outputs import Sampler


@dataclass(frozen=True)
class ExactLaw:
    """The exact output distributions on both inputs, over one finite list of outputs.

    Attributes
    ----------
    pmf_d, pmf_d_prime : ndarray of float64, shape (outputs,)
        ``P[M(D) = o]`` and ``P[M(D') = o]``.
    index : callable
        Maps sampler outputs (an array of ``size`` outputs) to positions in the pmfs, so
        that the samplers can be checked against the law.
    """

    pmf_d: NDArray[np.float64]
    pmf_d_prime: NDArray[np.float64]
    index: Callable[[NDArray[Any]], NDArray[np.int64]]

    @property
    def epsilon(self) -> float:
        """The exact ε between the two inputs (:func:`dpcore.audit.exact.exact_epsilon`)."""
        return exact_epsilon(self.pmf_d, self.pmf_d_prime)


@dataclass(frozen=True)
class Entry:
    """A mechanism run on two neighbouring inputs, with what it claims and what it is.

    Attributes
    ----------
    name : str
        Short name (e.g. "Laplace", "SVT5").
    claimed_epsilon : float
        The ε the mechanism claims.
    claimed_delta : float
        The δ it claims (0 for pure DP).
    true_epsilon : float or None
        Its true ε under ``relation`` at ``claimed_delta`` (``inf`` if unbounded), ``None``
        if unknown. For the entries with an :class:`ExactLaw` and a worst-case pair of
        inputs it equals ``law.epsilon``.
    sample_d, sample_d_prime : callable
        ``sample(size, rng)``: ``size`` outputs on ``D`` and on ``D'``.
    buggy : bool
        Whether the true ε exceeds the claim.
    description : str
        One line: what the mechanism does and which inputs are compared.
    relation : str
        The neighbour relation the ε is stated for.
    law : ExactLaw or None
        The exact output distributions, where finite and known.
    score : callable or None
        The score the audit should threshold (vector outputs), where the violation needs
        one the auditor would not learn (``lower_bound(..., score=entry.score)``).
    """

    name: str
    claimed_epsilon: float
    claimed_delta: float
    true_epsilon: float | None
    sample_d: Sampler
    sample_d_prime: Sampler
    buggy: bool
    description: str
    relation: str
    law: ExactLaw | None = None
    score: Score | None = None


def make(
    name: str,
    claimed: float,
    true: float | None,
    samplers: tuple[Sampler, Sampler],
    description: str,
    relation: str,
    *,
    delta: float = 0.0,
    law: ExactLaw | None = None,
    buggy: bool | None = None,
    score: Score | None = None,
) -> Entry:
    """An :class:`Entry`; unless told, buggy exactly when its true ε exceeds the claim (by
    more than rounding)."""
    if buggy is None:
        buggy = true is not None and (math.isinf(true) or true > claimed * (1 + 1e-9))
    return Entry(name, claimed, delta, true, *samplers, buggy, description, relation, law, score)


def integers(outputs: NDArray[Any]) -> NDArray[np.int64]:
    """The index of integer outputs ``0..m-1`` in a pmf: the outputs themselves."""
    return np.asarray(outputs, dtype=np.int64)


def bit_rows(outputs: NDArray[Any]) -> NDArray[np.int64]:
    """The index of 0/1 rows in a pmf over bit vectors in lexicographic order."""
    rows = np.asarray(outputs, dtype=np.int64)
    weights = 2 ** np.arange(rows.shape[1] - 1, -1, -1, dtype=np.int64)
    return np.asarray(rows @ weights, dtype=np.int64)
