"""TensorFlow-differential snippets for TensorFlow 2's core names (owner: tfcore):
tf.nest, tf.name_scope, tf.Module (tracking, names, tf.function methods traced per
instance, checkpoints), tf.custom_gradient (eager, inside tf.function, under a tape
outside one, with Variables, higher order), tf.get_static_value, tf.identity_n,
tf.init_scope, tf.inside_function, tf.group, tf.tuple, tf.control_dependencies.
Variable names drop TensorFlow's ":0" (texflow's names have none: README's table).
`id: source` or `id: (source, options)`; the id's part before '/' is its test group.
After editing: `$TF_PYTHON scripts/make_tf_diff_fixtures.py core_names`.
"""

# a whole error message (both libraries' text), or the result
_ERR = """
def err(f):
    try:
        return f()
    except Exception as e:
        return type(e).__name__ + ': ' + str(e)
"""
_NT = "import collections\nNT = collections.namedtuple('NT', 'b a')\n"
_S = _NT + "s = {'b': [1, (2, 3)], 'a': NT(4, {'z': 5, 'y': 6}), 'c': None}\n"


def _name(expr):
    return f"{expr}.name.split(':')[0]"


_MODULES = """
class Leaf(tf.Module):
    def __init__(self, k, name=None):
        super().__init__(name=name)
        self.k = tf.Variable(k, name='k')

class Tree(tf.Module):
    def __init__(self):
        super().__init__()
        self.z = tf.Variable(1., name='z')
        self.a = tf.Variable(2., name='a', trainable=False)
        self.lst = [tf.Variable(3., name='l0'), Leaf(4., name='in_list')]
        self.d = {'y': tf.Variable(5., name='dy'), 'b': tf.Variable(6., name='db')}
        self.t = (Leaf(7., name='in_tuple'), tf.Variable(8., name='t1'))
        self.sub = Leaf(9., name='sub')
        self.x = tf.constant(1.)
        self.same = self.z
        self.dense = tf.keras.layers.Dense(2)
tree = Tree()
"""
_SCALE = """
class Scale(tf.Module):
    def __init__(self, k):
        super().__init__()
        self.k = tf.Variable(k)
    @tf.function
    def __call__(self, x):
        return x * self.k
a, b = Scale(2.), Scale(3.)
x = tf.constant([1., 2.])
"""
_LOG1PEXP = """
@tf.custom_gradient
def log1pexp(x):
    e = tf.exp(x)
    def grad(upstream):
        return upstream * (1 - 1 / (1 + e))
    return tf.math.log(1 + e), grad
x = tf.constant([0., 100., -3.])
"""
_VAR = """
v = tf.Variable(5.)
@tf.custom_gradient
def scaled(x):
    def grad(dy, variables=None):
        return dy * v, [tf.reduce_sum(dy * x) * 100]
    return x * v, grad
"""

SNIPPETS = {
    # -- tf.nest ----------------------------------------------------------------------------
    "nest/flatten": _S + "(tf.nest.flatten(s), tf.nest.flatten(None), tf.nest.flatten(1), "
                         "tf.nest.flatten([]), tf.nest.flatten({}), tf.nest.flatten('ab'))",
    "nest/flatten_tensor": "tf.nest.flatten([tf.constant([1, 2]), {'b': tf.constant(2.), "
                           "'a': tf.constant(3)}])",
    "nest/flatten_mappings": _NT + "(tf.nest.flatten(collections.OrderedDict([('b', 1), "
                                   "('a', 2)])), tf.nest.flatten(range(3)), "
                                   "tf.nest.flatten(tf.TensorShape([1, 2])))",
    "nest/is_nested": _NT + "[tf.nest.is_nested(v) for v in ([], 1, {}, 'ab', b'x', "
                            "tf.constant([1]), NT(1, 2), {1, 2}, (), None)]",
    "nest/map_structure": _S + "tf.nest.map_structure(lambda x: None if x is None else "
                               "x * 10, s)",
    "nest/map_two": "tf.nest.map_structure(lambda x, y: x + y, [1, (2, 3)], [10, (20, 30)])",
    "nest/map_ordered": _NT + "m = tf.nest.map_structure(lambda x: x * 2, "
                              "collections.OrderedDict([('b', 1), ('a', 2)]))\n"
                              "(type(m).__name__, list(m.items()))",
    "nest/map_check_types_off": "tf.nest.map_structure(lambda x, y: x + y, [1, 2], (3, 4), "
                                "check_types=False)",
    "nest/map_errors": _ERR + _NT + """[
    err(lambda: tf.nest.map_structure(lambda x, y: x + y, [1, 2], (3, 4))),
    err(lambda: tf.nest.map_structure(lambda x, y: x + y, [1, 2], [3])),
    err(lambda: tf.nest.map_structure(lambda x, y: x + y, {'a': 1}, {'b': 1})),
    err(lambda: tf.nest.map_structure(lambda x: x, 1, foo=2)),
    err(lambda: tf.nest.map_structure(lambda x: x)),
    err(lambda: tf.nest.map_structure(lambda x, y: x, 1, [1])),
    err(lambda: tf.nest.map_structure(lambda x, y: x, [1], 1)),
    err(lambda: tf.nest.map_structure(lambda x, y: x, [1], {'a': 1})),
    err(lambda: tf.nest.map_structure(lambda x, y: x, NT(1, 2), (1, 2))),
    err(lambda: tf.nest.map_structure(lambda x, y: x, {'a': [1], 'b': NT(1, {'x': 2})},
                                      {'a': [1], 'b': NT(1, {'y': 2})})),
]""",
    "nest/pack_sequence_as": _S + "(tf.nest.pack_sequence_as([1, (2, 3)], [10, 20, 30]), "
                                  "tf.nest.pack_sequence_as(s, list(range(7))), "
                                  "tf.nest.pack_sequence_as({'b': 1, 'a': 2}, [1, 2]), "
                                  "tf.nest.pack_sequence_as(1, [10]), "
                                  "tf.nest.pack_sequence_as((), []), "
                                  "tf.nest.pack_sequence_as(NT(1, [2]), (5, 6)))",
    "nest/pack_errors": _ERR + """[
    err(lambda: tf.nest.pack_sequence_as([1, (2, 3)], [10, 20])),
    err(lambda: tf.nest.pack_sequence_as(1, 10)),
    err(lambda: tf.nest.pack_sequence_as([1], 10)),
    err(lambda: tf.nest.pack_sequence_as([1, 2], 'ab')),
]""",
    "nest/assert_same_structure": _ERR + _NT + """[
    tf.nest.assert_same_structure([1, (2, 3)], [4, (5, 6)]),
    tf.nest.assert_same_structure([1, (2, 3)], [4, [5, 6]], check_types=False),
    tf.nest.assert_same_structure({'a': 1}, collections.OrderedDict(a=2)),
    err(lambda: tf.nest.assert_same_structure([1, (2, 3)], [4, [5, 6]])),
    err(lambda: tf.nest.assert_same_structure([1, (2, 3)], [4, (5,)])),
    err(lambda: tf.nest.assert_same_structure({'a': 1, 'b': 2}, {'b': 1, 'a': 2, 'c': 3})),
    err(lambda: tf.nest.flatten({'b': 1, 2: 3})),
]""",
    # -- tf.name_scope -------------------------------------------------------------------
    "name_scope/eager": _ERR + f"""
out = []
with tf.name_scope('a') as s:
    out += [s, tf.get_current_name_scope(), {_name("tf.Variable(1., name='v')")}]
    with tf.name_scope('b') as s2:
        out += [s2, tf.get_current_name_scope(), {_name("tf.Variable(1., name='v')")}]
    with tf.name_scope('a') as s3:
        out.append(s3)
    with tf.name_scope('') as s4:
        out += [s4, tf.get_current_name_scope()]
    with tf.name_scope('c/') as s6:
        out += [s6, tf.get_current_name_scope(), {_name("tf.Variable(1., name='v')")}]
    with tf.name_scope('x y') as s7:  # eagerly any string
        out.append(s7)
out += [tf.get_current_name_scope(), err(lambda: tf.name_scope(None)),
        err(lambda: tf.name_scope(3)), tf.name_scope('q').name]
ns = tf.name_scope('k')
with ns as first:
    with ns as second:
        out += [first, second]
out""",
    "name_scope/unnamed_variable": "with tf.name_scope('a'):\n"
                                   "    v = tf.Variable(1.)\n"
                                   "v.name.startswith('a/Variable')",
    "name_scope/in_function": """
out = []
with tf.name_scope('outer'):
    @tf.function
    def f(x):
        out.append(tf.get_current_name_scope())
        with tf.name_scope('y') as s:
            out.append(s)
        with tf.name_scope('y') as s:
            out.append(s)
        with tf.name_scope('Y') as s:
            out.append(s)
        with tf.name_scope('1a') as s:
            with tf.name_scope('_b') as s2:
                out.extend([s, s2])
        return x
    f(tf.constant(1.))
out""",
    "name_scope/invalid_in_function": ("""
@tf.function
def f(x):
    with tf.name_scope('a b'):
        return x
f(tf.constant(1.))""", {"match": ["'a b' is not a valid root scope name"]}),
    "name_scope/invalid_nested_in_function": ("""
@tf.function
def f(x):
    with tf.name_scope('a'):
        with tf.name_scope('b c'):
            return x
f(tf.constant(1.))""", {"match": ["'b c' is not a valid scope name"]}),
    # -- tf.Module -----------------------------------------------------------------------
    "module/names": _ERR + """
class MyHTTPModule(tf.Module):
    pass
class getHTTP2Response(tf.Module):
    pass
[tf.Module().name, MyHTTPModule().name, getHTTP2Response().name,
 tf.Module(name='foo').name, tf.Module(name='_A_1').name,
 err(lambda: tf.Module(name='a b')), err(lambda: tf.Module(name='1a')),
 err(lambda: tf.Module(name='')), err(lambda: tf.Module(name='a.b'))]""",
    "module/bad_name_type": ("tf.Module(name=3)", {"match": ["expected string"]}),
    "module/tracking": _MODULES + f"""
[[{_name('v')} for v in tree.variables],
 [{_name('v')} for v in tree.trainable_variables],
 [{_name('v')} for v in tree.non_trainable_variables],
 [m.name for m in tree.submodules],
 type(tree.variables).__name__, type(tree.submodules).__name__]""",
    "module/order_and_cycles": """
a, b, c, d = (tf.Module(name=n) for n in 'abcd')
a.y, a.x, b.z = b, c, d
a.vs = [tf.Variable(1., name='a1')]
b.v, c.v, d.v = (tf.Variable(float(i), name=n) for i, n in ((2, 'b1'), (3, 'c1'), (4, 'd1')))
d.back = a
([m.name for m in a.submodules], [v.name.split(':')[0] for v in a.variables],
 [m.name for m in b.submodules])""",
    "module/name_scope": """
class M(tf.Module):
    @tf.Module.with_name_scope
    def make(self):
        self.w = tf.Variable(1.)
        return tf.get_current_name_scope()
m = M()
with tf.name_scope('outer'):
    m2 = M(name='inner')
(m.name_scope.name, m.make(), m.w.name.startswith('m/Variable'), m2.name_scope.name, m2.make(),
 M.make.__name__, isinstance(tf.keras.layers.Dense(1), tf.Module))""",
    "module/function_per_instance": _SCALE + """
ya, yb, ya2 = a(x), b(x), a(x)
(ya, yb, ya2, a.__call__.experimental_get_tracing_count(),
 b.__call__.experimental_get_tracing_count(),
 Scale.__call__.experimental_get_tracing_count(), a.__call__ is a.__call__)""",
    "module/function_per_instance_assign": _SCALE + """
first = a(x)
a.k.assign(10.)
(first, a(x), b(x), a.__call__.experimental_get_tracing_count())""",
    "module/function_plain_class": """
class P:
    def __init__(self, k):
        self.k = k
    @tf.function
    def f(self, x):
        return x * self.k
p, q = P(2.), P(3.)
x = tf.constant(1.)
(p.f(x), q.f(x), p.f(x), p.f.experimental_get_tracing_count(),
 P.f.experimental_get_tracing_count())""",
    "module/train_step": """
class Linear(tf.Module):
    def __init__(self):
        super().__init__()
        self.w = tf.Variable([[1.], [2.]])
        self.b = tf.Variable([0.5])
    @tf.function
    def step(self, x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((x @ self.w + self.b - y) ** 2)
        grads = tape.gradient(loss, self.trainable_variables)
        for v, g in zip(self.trainable_variables, grads):
            v.assign_sub(0.1 * g)
        return loss
m = Linear()
x, y = tf.constant([[1., 2.], [3., 4.]]), tf.constant([[1.], [2.]])
losses = [m.step(x, y) for _ in range(3)]
(losses, m.w, m.b, m.step.experimental_get_tracing_count())""",
    "module/checkpoint": """
import os, tempfile
class Sub(tf.Module):
    def __init__(self):
        super().__init__()
        self.w = tf.Variable([1., 2.])
        self.ws = [tf.Variable(3.), {'q': tf.Variable(4.)}]
class Net(tf.Module):
    def __init__(self):
        super().__init__()
        self.sub, self.b, self.lst = Sub(), tf.Variable(5.), [Sub()]
m = Net()
path = tf.train.Checkpoint(model=m).save(os.path.join(tempfile.mkdtemp(), 'ck'))
for v in m.variables:
    v.assign(v * 0 - 1)
changed = list(m.variables)
tf.train.Checkpoint(model=m).restore(path)
fresh = Net()
for v in fresh.variables:
    v.assign(v * 0 + 7)
tf.train.Checkpoint(model=fresh).restore(path)
(changed, list(m.variables), list(fresh.variables))""",
    # -- tf.custom_gradient --------------------------------------------------------------
    "custom_gradient/eager": _LOG1PEXP + """
with tf.GradientTape() as t:
    t.watch(x)
    y = log1pexp(x)
(y, t.gradient(y, x), log1pexp.__name__)""",
    "custom_gradient/identity_and_two_inputs": """
@tf.custom_gradient
def same(x):
    return x, lambda dy: dy * 3
@tf.custom_gradient
def two(a, b):
    def grad(dy):
        return dy * b, dy * a * 10
    return a * b, grad
a, b = tf.constant(2.), tf.constant(3.)
with tf.GradientTape(persistent=True) as t:
    t.watch([a, b])
    y1 = same(a)
    y2 = two(a, b)
    y3 = tf.reduce_sum(same(tf.stack([a, b])) * [1., 2.])
(t.gradient(y1, a), t.gradient(y2, [a, b]), t.gradient(y3, [a, b]))""",
    "custom_gradient/multiple_outputs": """
seen = []
@tf.custom_gradient
def multi(a):
    def grad(dy1, dy2):
        seen.append((dy1, dy2))
        return dy1 * 2 + dy2 * 3
    return (a * 1, a * 1), grad
@tf.custom_gradient
def nested(a):
    return [a * 2, {'k': a * 3}], lambda d1, d2: d1 + 10 * d2
a = tf.constant(2.)
with tf.GradientTape(persistent=True) as t:
    t.watch(a)
    y1, y2 = multi(a)
    y = multi(a)
    n = nested(a)
(t.gradient(y1, a), t.gradient(y, a), seen, n, t.gradient(n, a),
 t.gradient(n[1]['k'], a))""",
    "custom_gradient/variables": _VAR + """
a = tf.constant(2.)
with tf.GradientTape() as t:
    t.watch(a)
    y = scaled(a)
(y, t.gradient(y, [a, v]))""",
    "custom_gradient/variables_needs_keyword": ("""
v = tf.Variable(5.)
@tf.custom_gradient
def bad(x):
    return x * v, lambda dy: dy * v
bad(tf.constant(2.))""", {"match": ["grad_fn must accept keyword argument 'variables'"]}),
    "custom_gradient/gradient_count": _ERR + """
@tf.custom_gradient
def too_many(a):
    return a * 2, lambda dy: (dy, dy)
@tf.custom_gradient
def positional_number(x, k):
    return x * k, lambda dy: dy * k
@tf.custom_gradient
def keyword(x, k=2.):
    return x * k, lambda dy: dy * k
@tf.custom_gradient
def with_none(a, b):
    return a * b, lambda dy: (dy, None)
a, b = tf.constant(2.), tf.constant(3.)
out = []
for fn in (lambda: too_many(a), lambda: positional_number(a, 4.), lambda: keyword(a, k=4.),
           lambda: with_none(a, b)):
    with tf.GradientTape() as t:
        t.watch([a, b])
        y = fn()
    out.append(err(lambda: t.gradient(y, [a, b])))
out""",
    "custom_gradient/second_order": _LOG1PEXP + """
a = tf.constant(1.)
with tf.GradientTape() as t2:
    t2.watch(a)
    with tf.GradientTape() as t1:
        t1.watch(a)
        y = log1pexp(a)
    g = t1.gradient(y, a)
(g, t2.gradient(g, a))""",
    "custom_gradient/tape_in_function": _LOG1PEXP + """
@tf.function
def f(x):
    with tf.GradientTape() as t:
        t.watch(x)
        y = log1pexp(x)
    return y, t.gradient(y, x)
(f(x), f(tf.constant([1., -1., 2.])), f.experimental_get_tracing_count())""",
    "custom_gradient/tape_outside_function": _LOG1PEXP + """
@tf.function
def f(x):
    return log1pexp(x) * 2
out = []
for value in ([0., 100., -3.], [1., -1., 2.], [3., 0.5, -2.]):
    x = tf.constant(value)
    with tf.GradientTape() as t:
        t.watch(x)
        y = f(x)
    out += [y, t.gradient(y, x)]
out + [f(tf.constant([1., 2., 3.]))]""",
    "custom_gradient/variables_in_function": _VAR + """
@tf.function
def step(a):
    with tf.GradientTape() as t:
        t.watch(a)
        y = scaled(a)
    return t.gradient(y, [a, v])
first = step(tf.constant(2.))
v.assign(7.)
(first, step(tf.constant(3.)))""",
    "custom_gradient/method": """
class Clip(tf.Module):
    def __init__(self):
        super().__init__()
        self.limit = 0.5
    @tf.custom_gradient
    def __call__(self, x):
        return tf.identity(x), lambda dy: tf.clip_by_value(dy, -self.limit, self.limit)
c = Clip()
x = tf.constant([1., 2.])
with tf.GradientTape() as t:
    t.watch(x)
    y = tf.reduce_sum(c(x) * [3., -0.25])
t.gradient(y, x)""",
    # -- small names ---------------------------------------------------------------------
    "framework/get_static_value": """
seen = []
@tf.function
def f(x):
    seen.extend([tf.get_static_value(x), tf.get_static_value(tf.shape(x)),
                 tf.get_static_value(tf.constant(3) * 2), tf.get_static_value(x * 0),
                 tf.get_static_value(tf.constant([4, 5]))])
    return x
f(tf.constant([1., 2.]))
[tf.get_static_value(tf.constant([1, 2])), tf.get_static_value(tf.constant(1.5)),
 tf.get_static_value(3), tf.get_static_value([1, 2]), tf.get_static_value(tf.Variable(2.)),
 tf.get_static_value(None), tf.get_static_value(tf.constant([1, 2]), partial=True)] + seen""",
    "framework/inside_function_init_scope": """
seen = []
@tf.function
def f(x):
    seen.append((tf.inside_function(), tf.executing_eagerly()))
    with tf.init_scope():
        seen.append((tf.inside_function(), tf.executing_eagerly()))
        c = tf.constant(10.) * 2
    return x + c
ys = [f(tf.constant(1.)), f(tf.constant(2.))]
with tf.init_scope() as scope:
    eager = tf.executing_eagerly()
(ys, seen, tf.inside_function(), scope, eager)""",
    "framework/init_scope_pauses_tape": """
x = tf.constant(3.)
with tf.GradientTape() as t:
    t.watch(x)
    with tf.init_scope():
        z = x * x
    y = x * 2 + z
t.gradient(y, x)""",
    "framework/identity_n_group_tuple": """
with tf.control_dependencies([tf.constant(1.)]) as c:
    inside = tf.constant(2.) + 1
(tf.identity_n([tf.constant(1.), tf.constant([2, 3])]), tf.identity_n([1., 2]),
 tf.identity_n(tf.constant([1., 2.])), tf.no_op(), tf.group(tf.constant(1.), tf.constant(2)),
 tf.group(), tf.tuple([tf.constant(1.), None]),
 tf.tuple([tf.constant(1.)], control_inputs=[tf.constant(2.)]), c, inside,
 isinstance(tf.get_logger(), __import__("logging").Logger),
 tf.version.VERSION == tf.__version__)""",
    "framework/group_in_function": """
@tf.function
def f(x):
    v.assign_add(x)
    g = tf.group(v)
    with tf.control_dependencies([g]):
        return tf.identity(v) * 2
v = tf.Variable(1.)
(f(tf.constant(2.)), f(tf.constant(3.)), v)""",
}
