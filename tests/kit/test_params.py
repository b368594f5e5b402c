"""The query-parameter codec: round trips, and invalid values fall back with a notice."""

from hypothesis import given, settings
from hypothesis import strategies as st

from dpui import registry
from dpui.kit import present, sidebar
from dpui.kit.params import (
    BoolParam,
    ChoiceParam,
    FloatParam,
    IntParam,
    Param,
    RangeParam,
    TextParam,
    decode,
    encode,
)

PARAMS = (
    IntParam("k", 2, 2, 20),
    FloatParam("eps", 1.0, 0.001, 100.0),
    ChoiceParam("alloc", "node", ("uniform", "level", "node")),
    BoolParam("flag", False),
)


def test_missing_values_take_defaults_silently():
    values, notices = decode(PARAMS, {})
    assert values == {"k": 2, "eps": 1.0, "alloc": "node", "flag": False} and notices == []


def test_invalid_values_fall_back_with_a_notice_each():
    raw = {"k": "99", "eps": "nan", "alloc": "magic", "flag": "maybe"}
    values, notices = decode(PARAMS, raw)
    assert values == decode(PARAMS, {})[0]
    assert len(notices) == 4
    assert "k=99" in notices[0] and "outside [2, 20]" in notices[0]
    assert "alloc=magic" in notices[2] and "uniform, level, node" in notices[2]


def test_an_int_parameter_with_a_value_of_its_own_accepts_it_and_says_so():
    scale = IntParam("scale", 0, 100, 10**8, also=0)
    assert decode([scale], {"scale": "0"}) == ({"scale": 0}, [])
    assert decode([scale], {"scale": "100"}) == ({"scale": 100}, [])
    for raw in ("50", "-1", "100000001"):
        values, (notice,) = decode([scale], {"scale": raw})
        assert values == {"scale": 0}
        assert f"{raw} is outside [100, 100000000] and is not 0" in notice
    _, (notice,) = decode([scale], {"scale": "many"})
    assert "expected 0 or a whole number in [100, 100000000]" in notice


@given(
    k=st.integers(2, 20),
    eps=st.floats(0.001, 100.0),
    alloc=st.sampled_from(["uniform", "level", "node"]),
    flag=st.booleans(),
)
def test_round_trip(k, eps, alloc, flag):
    values = {"k": k, "eps": eps, "alloc": alloc, "flag": flag}
    back, notices = decode(PARAMS, encode(PARAMS, values))
    assert notices == []
    assert back["k"] == k and back["alloc"] == alloc and back["flag"] == flag
    assert back["eps"] == eps  # exactly: a copied link reproduces the view


@given(st.dictionaries(st.sampled_from(["k", "eps", "alloc", "flag"]), st.text(max_size=8)))
def test_any_query_string_decodes_to_valid_values(raw):
    values, _ = decode(PARAMS, raw)
    assert 2 <= values["k"] <= 20 and 0.001 <= values["eps"] <= 100
    assert values["alloc"] in ("uniform", "level", "node") and isinstance(values["flag"], bool)


def values_of(param: Param) -> st.SearchStrategy[object]:
    """Every value a parameter of this kind accepts."""
    if isinstance(param, BoolParam):
        return st.booleans()
    if isinstance(param, IntParam):
        return st.integers(param.lo, param.hi)
    if isinstance(param, FloatParam):
        return st.floats(param.lo, param.hi, allow_nan=False)
    if isinstance(param, ChoiceParam):
        return st.sampled_from(param.options)
    if isinstance(param, RangeParam):
        ends = st.integers(param.lo, param.hi)
        return st.tuples(ends, ends).map(lambda pair: tuple(sorted(pair)))
    assert isinstance(param, TextParam), param
    return st.text(max_size=param.max_chars)


EVERY_PARAM = {
    p.name: p
    for p in (
        *sidebar.SHARED,
        *sidebar.UPLOAD_OPTIONS,
        *present.PARAMS,
        *(q for page in registry.PAGES for q in (*page.params, *page.pinned)),
    )
}


def test_every_page_declares_its_parameters_once_under_distinct_names():
    assert len(EVERY_PARAM) > 40
    declared = [q for page in registry.PAGES for q in page.params]
    assert len({q.name for q in declared}) == len(declared)


@settings(deadline=None)  # timing varies on a shared 2-core machine
@given(st.data())
def test_every_parameter_of_every_page_round_trips_exactly(data):
    for param in EVERY_PARAM.values():
        value = data.draw(values_of(param), label=param.name)
        back, notices = decode([param], encode([param], {param.name: value}))
        assert notices == [] and back[param.name] == value, param.name
