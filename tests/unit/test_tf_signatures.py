"""Public ops take TensorFlow 2's parameter names in TensorFlow's order, so that
`tf.reduce_sum(input_tensor=x)`, `tf.add(x=a, y=b)` and `tf.nn.relu(features=x)` run.

tests/data/fixtures/tf_signatures.json is made by scripts/tf_signatures.py from the
reference TensorFlow: for each public callable texflow exports in tf, tf.math, tf.nn,
tf.linalg, tf.random and tf.nest, TensorFlow's parameters and which of them have no default
(null where TensorFlow has no such name: deeplearn.js names such as tf.sum and
texflow's own tf.max_pool are not checked).
"""

import inspect
import json
from pathlib import Path

import pytest

import texflow as tf

FIXTURE = Path(__file__).resolve().parent.parent / "data" / "fixtures" / "tf_signatures.json"
SIGNATURES = json.loads(FIXTURE.read_text())["signatures"]

# Known gaps, each with its reason: texflow's positional parameters are not (a prefix of)
# TensorFlow's. None remain; a name added here needs its reason as the value.
KNOWN_GAPS = {}
_VAR = {"VAR_POSITIONAL": "*", "VAR_KEYWORD": "**"}


def positional(params):
    """The parameters a call can fill by position (and *args/**kwargs, marked), in order;
    keyword-only ones are left out: texflow may add its own."""
    return [_VAR.get(kind, "") + name for name, kind, *_ in params if kind != "KEYWORD_ONLY"]


def required(params):
    """The positional parameters a call must give (those without a default), in order."""
    return [name for name, kind, *rest in params
            if kind in ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD") and rest and rest[0]]


def resolve(dotted):
    obj = tf
    for part in dotted.split(".")[1:]:
        obj = getattr(obj, part)
    return obj


def texflow_parameters(dotted):
    return [(p.name, p.kind.name, p.default is inspect.Parameter.empty)
            for p in inspect.signature(resolve(dotted)).parameters.values()]


CHECKED = sorted(name for name, sig in SIGNATURES.items() if sig is not None)


def test_fixture_covers_the_common_ops():
    for name in ("tf.reduce_sum", "tf.add", "tf.nn.relu", "tf.reshape", "tf.transpose",
                 "tf.concat", "tf.gather", "tf.cast", "tf.math.reduce_mean", "tf.matmul"):
        assert name in CHECKED, name
    assert len(CHECKED) >= 200, len(CHECKED)


@pytest.mark.parametrize("name", CHECKED)
def test_parameter_names_are_tensorflows(name):
    """texflow's positional parameters are TensorFlow's, in order; texflow may stop early
    (it lacks trailing parameters such as `layout`) and may add keyword-only ones."""
    mine, theirs = positional(texflow_parameters(name)), positional(SIGNATURES[name])
    if name in KNOWN_GAPS:
        assert mine[:len(theirs)] != theirs[:len(mine)], \
            f"{name} matches TensorFlow now: remove it from KNOWN_GAPS"
        return
    assert mine == theirs[:len(mine)], \
        f"{name}: texflow's parameters {mine}, TensorFlow's {theirs}"


@pytest.mark.parametrize("name", CHECKED)
def test_required_parameters_are_tensorflows(name):
    """A parameter TensorFlow requires has no default in texflow either (a call without it
    raises TypeError, as TensorFlow's does), and one with a default there has one here:
    `tf.nn.max_pool2d(x, 2)` is an error, as in TensorFlow."""
    mine, theirs = texflow_parameters(name), SIGNATURES[name]
    assert required(mine) == required(theirs)[:len(positional(mine))], \
        f"{name}: texflow requires {required(mine)}, TensorFlow {required(theirs)}"


def test_keywords_work():
    x = tf.constant([[1.0, -2.0], [3.0, 4.0]])
    assert tf.reduce_sum(input_tensor=x, axis=0).numpy().tolist() == [4.0, 2.0]
    assert tf.add(x=x, y=1.0).numpy().tolist() == [[2.0, -1.0], [4.0, 5.0]]
    assert tf.nn.relu(features=x).numpy().tolist() == [[1.0, 0.0], [3.0, 4.0]]
    assert tf.reshape(tensor=x, shape=[4]).shape == (4,)
    assert tf.transpose(a=x).numpy().tolist() == [[1.0, 3.0], [-2.0, 4.0]]
    assert tf.math.pow(x=x, y=2.0).numpy().tolist() == [[1.0, 4.0], [9.0, 16.0]]


def test_matmul_takes_tensorflows_hints():
    a = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    expected = tf.matmul(a, a, transpose_a=True).numpy().tolist()
    assert tf.matmul(a, a, adjoint_a=True, a_is_sparse=True, grad_b=True).numpy().tolist() \
        == expected
    assert tf.matmul(a, a, output_type=tf.float32).dtype == tf.float32
    with pytest.raises(ValueError, match="transpose_a and adjoint_a"):
        tf.matmul(a, a, transpose_a=True, adjoint_a=True)
    with pytest.raises(TypeError, match="output_type int32"):
        tf.matmul(a, a, output_type=tf.int32)


# dir(tf.random) in TensorFlow 2.21 (scripts/tf_signatures.py's reference environment)
_TF_RANDOM = {
    "Algorithm", "Generator", "all_candidate_sampler", "categorical", "create_rng_state",
    "experimental", "fixed_unigram_candidate_sampler", "fold_in", "gamma",
    "get_global_generator", "learned_unigram_candidate_sampler",
    "log_uniform_candidate_sampler", "normal", "poisson", "set_global_generator", "set_seed",
    "shuffle", "split", "stateless_binomial", "stateless_categorical", "stateless_gamma",
    "stateless_normal", "stateless_parameterized_truncated_normal", "stateless_poisson",
    "stateless_truncated_normal", "stateless_uniform", "truncated_normal", "uniform",
    "uniform_candidate_sampler"}


def test_tf_random_publishes_only_tensorflows_names():
    public = {n for n in dir(tf.random) if not n.startswith("_")}
    assert public <= _TF_RANDOM, sorted(public - _TF_RANDOM)
