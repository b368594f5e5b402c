"""Argument checks shared by dpcore's public functions: ValueError naming the accepted range.

Faithful perturbation
---------------------
Adding Laplace noise of scale ``b`` to a value ``v`` in float64 rounds the sum to
the grid of spacing ``ulp(v) <= |v| 2^-52``. Above ``|v| = 2^53`` that grid is
coarser than 1 and whole draws of noise vanish (at ``eps = 1`` a tree's "noisy"
nodes equal the true ones). dpcore requires the rounding to stay below a
millionth (``2^-20``) of the noise scale:

.. math:: |v| \\le b \\cdot 2^{32} \\quad(\\Rightarrow\\ \\mathrm{ulp}(v) \\le 2^{-20} b)

so a value released with budget ``eps_x`` (``b = 1/eps_x``) may be at most
``2^32 / eps_x`` (about 4.29e9 at ``eps_x = 1``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

PERTURBABLE_RATIO = 2.0**32
"""Largest ``|value| / noise scale`` that float64 perturbs faithfully (see module doc)."""

MAX_LDP_EPS = 10.0
"""Largest local-DP epsilon accepted. Keep-probabilities such as ``e^eps / (e^eps + D - 1)``
lose their distance to 1 in float64 as eps grows: from eps = 20 an exact privacy check of
PCKV-GRR fails by rounding alone (and from ~37 probabilities round to exactly 1, an infinite
loss). Every mechanism passes its exact check at every eps <= 19 (tests/core/test_ldp_privacy.py);
10 keeps a wide margin and covers every setting the HISKV paper and its baselines use."""

MIN_BUDGET = 1e-300
"""Smallest positive budget accepted: below it ``1/eps`` and the noise overflow float64."""


def positive(name: str, value: Any, *, upper: float = math.inf, lower: float = MIN_BUDGET) -> float:
    """``value`` as a float in ``[lower, upper]`` (finite; ``lower`` defaults to the smallest
    budget), else ValueError naming ``name``."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number in (0, {upper:g}], got {value!r}") from None
    if not (math.isfinite(x) and lower <= x <= upper):
        accepted = f"[{lower:g}, {upper:g}]"
        raise ValueError(f"{name} must be a positive number in {accepted}, got {x}")
    return x


def fraction(name: str, value: Any, *, open_low: bool = True, open_high: bool = True) -> float:
    """``value`` as a float in the unit interval, each end open or closed as asked (``(0, 1)``
    by default), else ValueError naming ``name`` (TypeError for a bool or a non-number)."""
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise TypeError(f"{name} must be a number, got {type(value).__name__}")
    x = float(value)
    low_ok = x > 0.0 if open_low else x >= 0.0
    high_ok = x < 1.0 if open_high else x <= 1.0
    if not (math.isfinite(x) and low_ok and high_ok):
        accepted = f"{'(' if open_low else '['}0, 1{')' if open_high else ']'}"
        raise ValueError(f"{name} must be a number in {accepted}, got {x}")
    return x


def generator(name: str, value: Any) -> np.random.Generator:
    """``value`` if it is a ``numpy.random.Generator``, else TypeError naming ``name``."""
    if not isinstance(value, np.random.Generator):
        raise TypeError(
            f"{name} must be a numpy.random.Generator (np.random.default_rng(seed)), "
            f"got {type(value).__name__}"
        )
    return value


def finite_array(
    name: str, values: ArrayLike, *, size: int | None = None, nonnegative: bool = False
) -> NDArray[np.float64]:
    """``values`` as a 1-D float64 array of finite numbers (``>= 0`` if asked, of ``size``)."""
    array = np.asarray(values, dtype=np.float64)
    if array.ndim != 1 or (size is not None and array.size != size):
        expected = f"{size} values" if size is not None else "a 1-D array"
        raise ValueError(f"{name} must be {expected}, got shape {array.shape}")
    bad = ~np.isfinite(array) | ((array < 0) if nonnegative else False)
    if bad.any():
        i = int(np.argmax(bad))
        accepted = "finite numbers >= 0" if nonnegative else "finite numbers"
        raise ValueError(f"{name}[{i}] is {array[i]}; accepted: {accepted}")
    return array


def whole(name: str, value: Any, *, lower: int = 1, upper: int | None = None) -> int:
    """``value`` as an int in ``[lower, upper]`` (a whole number), else ValueError naming ``name``.

    Integral floats such as ``3.0`` are accepted; ``2.5``, strings and NaN are not.
    """
    accepted = f"[{lower}, {upper}]" if upper is not None else f">= {lower}"
    try:
        number = int(value)
    except (TypeError, ValueError, OverflowError):
        number = None
    if (
        number is None
        or number != value
        or number < lower
        or (upper is not None and number > upper)
    ):
        raise ValueError(f"{name} must be a whole number {accepted}, got {value!r}")
    return number


def counts(name: str, values: ArrayLike, *, size: int) -> NDArray[np.int64]:
    """``values`` as a 1-D int64 array of ``size`` whole numbers ``>= 0`` (e.g. users per item),
    else ValueError naming ``name`` and the first offending entry."""
    array = finite_array(name, values, size=size, nonnegative=True)
    fractional = array != np.floor(array)
    if fractional.any():
        i = int(np.argmax(fractional))
        raise ValueError(f"{name}[{i}] is {array[i]}; accepted: whole numbers >= 0")
    if array.size and array.max() >= 2.0**62:
        raise ValueError(f"{name} must stay below 2^62 (int64 sums), got {array.max():g}")
    return array.astype(np.int64)


def ranges(
    n: int, a: ArrayLike, b: ArrayLike, *, nonempty: bool = False
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """0-based inclusive ranges ``[a, b]`` over ``n`` bins as broadcast int64 arrays, else
    ValueError naming the first offending range (or the shapes that do not broadcast)."""
    starts, ends = np.asarray(a, np.int64), np.asarray(b, np.int64)
    try:
        a_arr, b_arr = np.broadcast_arrays(starts, ends)
    except ValueError:
        shapes = f"{starts.shape} and {ends.shape}"
        raise ValueError(f"range starts a and ends b must have one shape, got {shapes}") from None
    if nonempty and not a_arr.size:
        raise ValueError("need at least one range [a, b], got none")
    bad = (a_arr < 0) | (b_arr >= n) | (a_arr > b_arr)
    if bad.any():
        i = np.unravel_index(int(np.argmax(bad)), bad.shape)
        got = f"[{a_arr[i]}, {b_arr[i]}]"
        raise ValueError(f"ranges must satisfy 0 <= a <= b < n = {n}, got {got}")
    return a_arr, b_arr


def budgets(name: str, values: ArrayLike, *, size: int) -> NDArray[np.float64]:
    """Per-node budgets: 0 (not measured) or in ``[MIN_BUDGET, inf)``, one per node."""
    array = finite_array(name, values, size=size, nonnegative=True)
    tiny = (array > 0) & (array < MIN_BUDGET)
    if tiny.any():
        i = int(np.argmax(tiny))
        raise ValueError(
            f"{name}[{i}] is {array[i]}; a measured budget must be >= {MIN_BUDGET:g} "
            "(0 = not measured)"
        )
    return array


def perturbable(name: str, values: ArrayLike, scale: ArrayLike) -> None:
    """Raise ValueError unless every ``|values| <= scale * 2^32`` (float64 keeps the noise).

    ``scale`` is the Laplace scale each value gets (a scalar, or broadcast against
    ``values`` with ``inf`` where a value is not released). A scalar scale is checked
    against the largest magnitude without temporaries (simulations pass big arrays).
    """
    v = np.asarray(values, dtype=np.float64)
    s = np.asarray(scale, dtype=np.float64)
    if v.size == 0:
        return
    if s.ndim == 0:
        top = max(float(v.max()), -float(v.min()))  # NaN propagates and fails below
        if not top <= float(s) * PERTURBABLE_RATIO:
            raise _not_perturbable(name, top, float(s))
        return
    magnitude = np.abs(v)
    bad = ~(magnitude <= s * PERTURBABLE_RATIO)
    if bad.any():
        index = np.unravel_index(int(np.argmax(bad)), bad.shape)
        raise _not_perturbable(
            name, float(magnitude[index]), float(np.broadcast_to(s, bad.shape)[index])
        )


def _not_perturbable(name: str, value: float, scale: float) -> ValueError:
    return ValueError(
        f"{name} has the value {value:.4g} but noise of scale {scale:.4g}: float64 would round "
        f"the noise away. Accepted: |value| <= 2^32 x noise scale ({scale * PERTURBABLE_RATIO:.4g}"
        " here); use a smaller epsilon or rescale the data (e.g. count in thousands)."
    )


def ldp_epsilon(eps: Any, *, lower: float = MIN_BUDGET) -> float:
    """A local-DP ``eps`` in ``[lower, MAX_LDP_EPS]`` (float64 stays exact there; ``lower``
    defaults to ``1e-300``, a caller whose formulas square ``e^eps - 1`` needs more)."""
    return positive("eps", eps, upper=MAX_LDP_EPS, lower=lower)


_CHUNK = 2**20
_BLANK = np.zeros(256, dtype=bool)
_BLANK[list(b" \t\n\x0b\x0c\r")] = True


def scan_lines(data: bytes, *, max_rows: int, max_line: int) -> None:
    """Raise ValueError for more than ``max_rows + 1`` non-blank lines (data rows plus a
    header) or a line longer than ``max_line`` bytes, before anything is parsed.

    One vectorised pass over the bytes in chunks cut at ``\\n``: memory stays a few
    times the 4 MiB chunk whatever the file, and it stops at the first excess.
    """
    view = np.frombuffer(data, dtype=np.uint8)
    nonblank = lines_before = start = 0
    chunk_size = max(_CHUNK, 2 * max_line)
    while start < view.size:
        stop = min(start + chunk_size, view.size)
        if stop < view.size:
            stop = data.rfind(b"\n", start, stop) + 1
            if stop <= start:
                raise ValueError(f"Line {lines_before + 1} is longer than {max_line:,} bytes.")
        chunk = view[start:stop]
        breaks = np.flatnonzero(chunk == 10)
        ends = breaks if chunk[-1] == 10 else np.append(breaks, chunk.size)
        begins = np.concatenate(([0], breaks[: ends.size - 1] + 1))
        long = np.flatnonzero(ends - begins > max_line)
        if long.size:
            line = lines_before + int(long[0]) + 1
            raise ValueError(f"Line {line} is longer than {max_line:,} bytes.")
        ink = np.concatenate(([0], np.cumsum(~_BLANK[chunk], dtype=np.int64)))
        nonblank += int(np.count_nonzero(ink[ends] > ink[begins]))
        if nonblank > max_rows + 1:
            raise ValueError(
                f"The file has more than {max_rows + 1:,} non-empty lines; at most {max_rows:,} "
                "data rows plus a header are accepted."
            )
        lines_before += ends.size
        start = stop
