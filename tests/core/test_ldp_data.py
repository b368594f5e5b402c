"""Key-value datasets: CSR invariants, generator assumptions, CSV validation."""

from __future__ import annotations

import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcore.ldp import data as kvd
from dpcore.ldp import keysets
from dpcore.ldp.data import KVDataError
from dpcore.ldp.sampling import padding_sample


def _brute_pairs(data: kvd.KVData) -> list[tuple[int, int, float]]:
    return [
        (i, int(k), float(v))
        for i in range(data.n_users)
        for k, v in zip(
            data.keys[data.offsets[i] : data.offsets[i + 1]],
            data.values[data.offsets[i] : data.offsets[i + 1]],
            strict=True,
        )
    ]


@pytest.mark.parametrize("keys", kvd.KEY_MODELS)
@pytest.mark.parametrize("lengths", kvd.LENGTH_MODELS)
def test_generator_invariants(keys: kvd.KeyModel, lengths: kvd.LengthModel) -> None:
    data = kvd.generate(
        3000, 40, keys=keys, lengths=lengths, max_length=12, rng=np.random.default_rng(3)
    )
    assert data.n_users == 3000
    assert data.lengths.min() >= 1 and data.lengths.max() <= 12
    assert np.all((data.keys >= 0) & (data.keys < 40))
    assert np.all(np.abs(data.values) <= 1)
    user = data.user_of_pair()
    codes = user * data.d + data.keys
    assert np.unique(codes).size == codes.size, "a user holds a key twice"


def test_generator_is_seeded() -> None:
    a = kvd.generate(500, 30, rng=np.random.default_rng(7))
    b = kvd.generate(500, 30, rng=np.random.default_rng(7))
    assert np.array_equal(a.keys, b.keys) and np.array_equal(a.values, b.values)


def test_key_models_shape_frequencies() -> None:
    rng = np.random.default_rng(0)
    lnr = kvd.generate(20000, 20, keys="lnr", lengths="uniform", max_length=3, rng=rng)
    f = lnr.true_frequency()
    # linearly decreasing weights: the first quarter of keys is clearly more frequent
    assert f[:5].mean() > 2 * f[-5:].mean()
    m = lnr.true_mean()
    assert m[0] < -0.5 and m[-1] > 0.5  # linearly spaced means from -1 to 1
    gauss = kvd.generate(20000, 20, keys="gauss", lengths="uniform", max_length=3, rng=rng)
    assert gauss.true_frequency()[0] > gauss.true_frequency()[-1]


def test_heavy_lengths_match_talkingdata_shape() -> None:
    lengths = kvd.sample_lengths("heavy", 200_000, 10_000, rng=np.random.default_rng(1))
    share_below_50 = float(np.mean(lengths < 50))
    assert 0.96 < share_below_50 < 0.99  # "98% of users hold < 50 pairs"


def test_truth_matches_brute_force() -> None:
    data = kvd.generate(200, 8, max_length=5, rng=np.random.default_rng(2))
    pairs = _brute_pairs(data)
    for k in range(8):
        holders = [v for _, key, v in pairs if key == k]
        assert data.true_frequency()[k] == pytest.approx(len(holders) / 200)
        expected = np.mean(holders) if holders else 0.0
        assert data.true_mean()[k] == pytest.approx(expected)


def test_padding_sample_of_some_users_equals_sampling_their_copy() -> None:
    data = kvd.generate(50, 10, max_length=4, rng=np.random.default_rng(4))
    users = np.array([7, 3, 40, 3], dtype=np.int64)
    pairs = _brute_pairs(data)
    chosen = [(j, k, v) for j, u in enumerate(users.tolist()) for i, k, v in pairs if i == u]
    lengths = data.lengths[users]
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    copy = kvd.KVData(  # same pairs in the same within-user order
        offsets, np.array([p[1] for p in chosen]), np.array([p[2] for p in chosen]), data.d
    )
    for L in (1, 2, 5):
        a = padding_sample(data, L, rng=np.random.default_rng(L), users=users)
        b = padding_sample(copy, L, rng=np.random.default_rng(L))
        assert np.array_equal(a.keys, b.keys) and np.array_equal(a.values, b.values)


def test_csv_roundtrip_and_labels() -> None:
    text = b"user,key,value\nb,pear,0.5\na,apple,-0.25\na,pear,1\n"
    data = kvd.read_kv_csv(text)
    assert data.n_users == 2 and data.d == 2
    assert data.key_labels == ("apple", "pear")
    assert data.true_frequency().tolist() == [0.5, 1.0]
    assert data.true_mean().tolist() == [-0.25, 0.75]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "empty"),
        (b"user,key\nu,k\n", "missing column(s) value"),
        (b"user,key,value\n", "no rows"),
        (b"user,key,value\nu1,k1,abc\n", "must be numbers; see line(s) 2"),
        (b"user,key,value\nu1,k1,\n", "empty value"),
        (b"user,key,value\n,k1,0.1\n", "empty user"),
        (b"user,key,value\nu1,k1,0.1\nu1,k2,1.5\n", "[-1, 1]; see line(s) 3"),
        (b"user,key,value\nu1,k1,nan\n", "must be numbers"),
        (b"user,key,value\nu1,k1,0.1\nu1,k1,0.2\n", "same key twice"),
        (b'user,key,value\nu1,k1,0.1\n"u2,k1\n', "not a readable CSV"),
    ],
)
def test_bad_csv_is_rejected_clearly(content: bytes, message: str) -> None:
    with pytest.raises(KVDataError, match=None) as info:
        kvd.read_kv_csv(content)
    assert message in str(info.value)


def test_csv_error_lists_many_rows_compactly() -> None:
    rows = "".join(f"u{i},k,2\n" for i in range(9))
    with pytest.raises(KVDataError) as info:
        kvd.read_kv_csv(("user,key,value\n" + rows).encode())
    assert "2, 3, 4, 5, 6 and 4 more" in str(info.value)


# ---- issue 10: uploads that crashed or were misread (C, D, F)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"user,key,value,Value\nu1,a,0.5,0.7\n", "value appear more than once"),
        (b"user,key,value\nu1,a,0.5,9\nu2,b,0.1,3\n", "line 2 has 4 fields but the header has 3"),
        (b"user,key,value\nu1,a,0.5\nu2,b,0.1,3\n", "line 3 has 4 fields"),
        (b"user,key,value\nu1,a\n", "empty value cell(s); see line(s) 2"),
        (b"user,key,value\n" + b"u," * 6000 + b"\n", "Line 2 is longer than 10,000 bytes"),
        (b"user,key,value\n\xff\xfe,a,1\n", "not UTF-8"),
    ],
)
def test_hostile_csv_is_rejected_clearly(content: bytes, message: str) -> None:
    with pytest.raises(KVDataError) as info:
        kvd.read_kv_csv(content)
    assert message in str(info.value)


def test_extra_columns_are_ignored_and_bom_and_cr_accepted() -> None:
    data = kvd.read_kv_csv(b"\xef\xbb\xbfUser,key,value,note\r\nu1,a,0.5,x\r\nu2,a,-0.5,y\r\n")
    assert data.n_users == 2 and data.true_mean().tolist() == [0.0]


def test_row_limit_is_checked_before_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("pandas parsed a file the byte scan must reject")

    monkeypatch.setattr(kvd.pd, "read_csv", never)
    with pytest.raises(KVDataError, match="more than 4 non-empty lines"):
        kvd.read_kv_csv(b"user,key,value\n" + b"u,k,1\n" * 4, max_rows=3)
    with pytest.raises(KVDataError, match="larger than the limit"):
        kvd.read_kv_csv(b"user,key,value\n" + b"u,k,1\n" * 10, max_bytes=40)


def test_one_user_is_below_every_mechanisms_minimum() -> None:
    from dpcore.ldp import hiskv, mechanisms

    data = kvd.read_kv_csv(b"user,key,value\nu1,a,0.5\n")
    assert mechanisms.MIN_USERS == 2 and mechanisms.MECHANISMS["HISKV"].min_users == 2
    with pytest.raises(ValueError, match="HISKV needs at least 2 users"):
        mechanisms.run("HISKV", data, 1.0, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="at least 2 users"):
        hiskv.run(data, 1.0, rng=np.random.default_rng(0))
    two = kvd.read_kv_csv(b"user,key,value\nu1,a,0.5\nu2,a,-1\n")
    for name in mechanisms.MECHANISMS:
        est = mechanisms.run(name, two, 1.0, rng=np.random.default_rng(0))
        assert all(v is None or np.isfinite(v).all() for v in (est.frequency, est.mean)), name


KV_CELL = st.one_of(
    st.sampled_from(["u1", "u2", "a", "b", "0.5", "-1", "1e308", "nan", "", '"', "Value", "USER"]),
    st.text(max_size=5),
)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300))
def test_any_bytes_load_or_raise_kv_data_error(content: bytes) -> None:
    try:
        data = kvd.read_kv_csv(content)
    except KVDataError:
        return
    assert data.n_users >= 1 and np.all(np.abs(data.values) <= 1)


@settings(max_examples=300, deadline=None)
@given(
    header=st.lists(st.sampled_from(["user", "key", "value", "Value", "x"]), max_size=5),
    rows=st.lists(st.lists(KV_CELL, max_size=5), max_size=8),
    sep=st.sampled_from([",", ", ", ",,"]),
)
def test_malformed_kv_tables_raise_only_kv_data_error(
    header: list[str], rows: list[list[str]], sep: str
) -> None:
    content = "\n".join(sep.join(r) for r in [header, *rows]).encode()
    try:
        data = kvd.read_kv_csv(content)
    except KVDataError:
        return
    assert np.all(np.abs(data.values) <= 1) and data.keys.size == data.values.size


@pytest.mark.parametrize("keys", kvd.KEY_MODELS)
@pytest.mark.parametrize("lengths", kvd.LENGTH_MODELS)
def test_every_set_length_up_to_d_is_drawn_exactly_and_quickly(
    keys: kvd.KeyModel, lengths: kvd.LengthModel
) -> None:
    """Issue 27, 1: max_length = d (every key for some users) under a skewed key model ran up
    to 200 redraw rounds and raised RuntimeError; now every setting is drawn in bounded work."""
    rng = np.random.default_rng(5)
    start = time.process_time()
    data = kvd.generate(2000, 100, keys=keys, lengths=lengths, max_length=100, rng=rng)
    assert time.process_time() - start < 1.5
    assert data.lengths.max() <= 100 and data.lengths.min() >= 1
    assert lengths == "heavy" or data.lengths.max() == 100  # some users hold every key
    codes = data.user_of_pair() * data.d + data.keys
    assert np.unique(codes).size == codes.size, "a user holds a key twice"


def test_distinct_keys_are_a_successive_sample_in_draw_order() -> None:
    """Both samplers (redraws for short sets, exponential race for long ones) give the
    successive sample: the first key with probability w_k, the next w_j / (1 - w_k)."""
    weights = np.array([0.5, 0.3, 0.15, 0.05])
    n = 40_000
    for length in (2, 3):  # 3 of 4 keys: the race; 2: mostly redraws
        lengths = np.full(n, length, dtype=np.int64)
        users, keys = keysets.distinct_keys(lengths, weights, np.random.default_rng(length))
        assert np.array_equal(users, np.repeat(np.arange(n), length))
        first, second = keys[::length], keys[1::length]
        for k in range(4):
            assert abs(np.mean(first == k) - weights[k]) < 0.01
        for k, j in ((0, 1), (1, 0), (0, 3), (2, 3)):
            p = weights[k] * weights[j] / (1 - weights[k])
            assert abs(np.mean((first == k) & (second == j)) - p) < 0.01, (length, k, j)
