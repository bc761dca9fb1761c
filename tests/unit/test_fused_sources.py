"""What fused kernels read and write (issue 11: "reading each input once and writing only
values used later"), checked on the GLSL and WGSL sources generated for traced chains
and on the trace's plan: each input texture or buffer is fetched once per output
element, op bodies run once per node (a value read twice is computed once), and only
the values later steps or the caller read are written."""

import re
from types import SimpleNamespace

import numpy as np
import pytest

import texflow as tf
from texflow.autodiff import compiled
from texflow.backends.glsl import fused as glsl_fused
from texflow.backends.glsl.program import Arg
from texflow.backends.wgsl import fused as wgsl_fused
from texflow.backends.wgsl.program import Builder
from texflow.bench.cases import CHAIN
from texflow.engine.trace import step_reads


def _bench_chain(x):
    for step in CHAIN:
        name, *arg = step.split()
        x = getattr(tf, name)(x, float(arg[0])) if arg else getattr(tf, name)(x)
    return x


def _shared_and_broadcast(x, b):
    # x feeds two ops, b (a row) is broadcast, y is returned and read again
    y = tf.tanh(x * b + 1.0)
    return tf.sqrt(tf.abs(tf.exp(-y) * x + y * 2.0)), y


def _square_of_a_node(x):
    y = tf.tanh(x)
    return y * y + 1.0


def _read_by_a_product(x, w):
    h = tf.nn.relu(x * 2.0 - 1.0)  # read by the matmul as well: written
    return tf.matmul(h, w), tf.exp(h) - h


def _strided(x, col):
    return tf.maximum(x - col, 0.0) * col  # col (3, 1) across (3, 8): strided reads


_rng = np.random.default_rng(3)
CASES = {
    "bench chain": (_bench_chain, [(1 << 12,)]),
    "shared input, broadcast row, returned value": (_shared_and_broadcast, [(3, 8), (8,)]),
    "value read twice": (_square_of_a_node, [(4, 8)]),
    "value read by a product": (_read_by_a_product, [(4, 8), (8, 3)]),
    "strided column": (_strided, [(3, 8), (3, 1)]),
}


def _fused_steps(fn, shapes, monkeypatch):
    """(fused steps, the concrete function, the trace's slot -> (shape, dtype)) of `fn`
    traced on the numpy backend."""
    tf.set_backend("numpy")
    metas = []

    def fuse(steps, meta, *rest):
        metas.append(meta)
        return plain_fuse(steps, meta, *rest)
    plain_fuse = compiled.fuse
    monkeypatch.setattr(compiled, "fuse", fuse)
    args = [tf.constant(_rng.normal(size=s).astype(np.float32)) for s in shapes]
    concrete = tf.function(fn).get_concrete_function(*args)
    steps = concrete._steps
    fused = [(i, st) for i, st in enumerate(steps)
             if st[0] == "op" and st[1].name.startswith("fused_elementwise")]
    assert fused, [st[1].name for st in steps if st[0] == "op"]
    return fused, concrete, metas[-1]


def _fetches(text, j):
    """Sites in GLSL `text` reading texture j, each as the variable it assigns."""
    sites = re.finditer(rf"(v\d+)(?:\.x|\[c\])?\s*=[^;]*?(?:texelFetch\(uT{j}\b|"
                        rf"texel{j}\(|get{j}\()", text)
    return [m.group(1) for m in sites]


def _glsl(step, program):
    """The GLSL sources and output counts of `step`'s launches."""
    launches = []

    def launch(key, source, out, inputs, uniforms=None, scalars=()):
        launches.append((source(), len(out) if isinstance(out, list) else 1, len(inputs)))

    args = [Arg(k, m.shape, m.dtype) for k, m in enumerate(step)]
    b = SimpleNamespace(out=Arg(-1, program.shape, program.dtype), launch=launch,
                        output=lambda: Arg(-2, program.shape, program.dtype),
                        backend=SimpleNamespace(max_draw_buffers=4))
    kernel = (glsl_fused.fused_elementwise_multi if len(program.outputs) > 1
              else glsl_fused.fused_elementwise)
    kernel(b, *args, program=program)
    return launches


def _wgsl(step, program):
    inputs = [SimpleNamespace(shape=m.shape, dtype=m.dtype) for m in step]
    k = Builder(len(inputs), SimpleNamespace(max_storage_buffers=32),
                [(program.shape, program.dtype)])
    kernel = (wgsl_fused.fused_elementwise_multi if len(program.outputs) > 1
              else wgsl_fused.fused_elementwise)
    recipe = kernel(k, *inputs, program=program)
    return [(s.program.source, s.program.n_out, s.program.n_in) for s in recipe.steps]


def _body_calls(text, program):
    """Calls of each op body in `text` against the nodes of each op in `program`."""
    names = [name for name, _, _ in program.nodes if name not in ("cast", "where")]
    want = {n: names.count(n) for n in names}
    got = {n: len(re.findall(rf"\bop_{n}(?:_[a-z0-9]+)?\(", text)) for n in want}
    return got, want


@pytest.mark.parametrize("case", list(CASES))
def test_fused_kernels_read_each_input_once_and_write_only_live_values(case, monkeypatch):
    fn, shapes = CASES[case]
    fused, concrete, meta = _fused_steps(fn, shapes, monkeypatch)
    steps, out_slots = concrete._steps, concrete._out_slots
    for i, st in fused:
        program, written = st[3]["program"], st[4]
        # the plan: one program output per written value, each returned or read later
        assert len(program.outputs) == len(written), (case, program)
        for slot in written:
            assert slot in out_slots or any(slot in step_reads(later)
                                            for later in steps[i + 1:]), (case, slot)
        # no node is computed twice: equal nodes are one
        keys = [(name, sorted(attrs.items()), ops) for name, attrs, ops in program.nodes]
        assert len(set(map(repr, keys))) == len(keys), (case, program)
        metas = [SimpleNamespace(shape=meta[k][0], dtype=meta[k][1]) for k in st[2]]

        outputs = 0
        for source, n_out, n_in in _glsl(metas, program):
            main = source[source.index("void main()"):]
            lane = source[source.index(" lane("):source.index("void main()")]
            assert not re.search(r"texel|get\d+\(", lane), (case, lane)
            for j in range(n_in):
                sites = _fetches(main, j)
                # one load per input: its texel, or its four elements (the first, then
                # the other three in the strided loop)
                assert len(set(sites)) == 1 and len(sites) in (1, 2), (case, j, sites)
                if len(sites) == 2:
                    assert "for (int c = 1; c < 4; c++)" in main, (case, main)
            assert len(re.findall(r"\blane\(", main)) == 4, (case, main)
            assert len(re.findall(r"\bout highp", source)) == n_out, case
            outputs += n_out
            got, want = _body_calls(lane, program)
            assert got == want or n_out < len(program.outputs), (case, got, want)
        assert outputs == len(program.outputs), case

        outputs = 0
        for source, n_out, n_in in _wgsl(metas, program):
            main = source[source.index("fn main("):]
            elem = source[source.index("fn elem("):source.index("fn main(")]
            assert not re.search(r"\bin\d+\[", elem), (case, elem)
            for k in range(n_in):
                assert len(re.findall(rf"\bin{k}\[", main)) == 1, (case, k, main)
            writes = re.findall(r"\bout(\d+)\[i\] =", main)
            assert sorted(writes) == [str(j) for j in range(n_out)], (case, main)
            outputs += n_out
            got, want = _body_calls(elem, program)
            assert got == want or n_out < len(program.outputs), (case, got, want)
        assert outputs == len(program.outputs), case



def test_wgsl_fused_values_keep_their_own_rounding():
    # x * y + 1 fused: the product reaches the sum through an OR with a run-time zero,
    # so no compiler can contract the two into one fma (NVIDIA's did: results an ulp off
    # eager's); the sum, the kernel's result, is stored as it is
    program = SimpleNamespace(
        nodes=[("mul", {}, [("in", 0), ("in", 1)]), ("add", {}, [("node", 0), ("const", 1.0)])],
        reads=[1, 1], node_dtypes=[tf.float32, tf.float32], outputs=[1])
    text, _ = wgsl_fused.tree_expression(program, [tf.float32, tf.float32])
    assert text.count("params[0] >> 31u") == 1, text
    assert re.search(r"bitcast<u32>\(\(op_mul\w*\(x0, x1\)\)\) \| ", text), text
