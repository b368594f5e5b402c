"""The four parts of What ε means, one at a time: the part switch (kept in the link) and the
page's one ``view`` and ``cost``, which dispatch on the chosen part."""

from __future__ import annotations

from collections.abc import Callable

from dpui.kit.page import Estimate, Inputs, View
from dpui.kit.params import ChoiceParam
from dpui.kit.sidebar import EPSILON
from dpui.meaning import attacker, composition, reconstruction
from dpui.meaning import neighbours as nbv

PARTS = {
    "neighbours": "Neighbours",
    "attacker": "Attacker's view",
    "composition": "Composition",
    "reconstruction": "Reconstruction",
}
PART = ChoiceParam("eps_part", "neighbours", tuple(PARTS))
VIEWS: dict[str, Callable[[Inputs], View]] = {
    "neighbours": nbv.view,
    "attacker": attacker.view,
    "composition": composition.view,
    "reconstruction": reconstruction.view,
}
COSTS: dict[str, Callable[[Inputs], Estimate]] = {
    "neighbours": nbv.cost,
    "attacker": attacker.cost,
    "composition": composition.cost,
    "reconstruction": reconstruction.cost,
}
PARAMS = (
    PART,
    *nbv.PARAMS,
    *attacker.PARAMS,
    *composition.PARAMS,
    *reconstruction.PARAMS,
)
PINNED = (*PARAMS, EPSILON)


def view(inputs: Inputs) -> View:
    """The chosen part's main figure, stamp and key numbers (``kind`` names the part, so that
    A and B of different parts get axes of their own)."""
    return VIEWS[inputs[PART]](inputs)


def cost(inputs: Inputs) -> Estimate:
    """The chosen part's cost, before it runs."""
    return COSTS[inputs[PART]](inputs)
