"""The functional model: `tf.keras.Model(inputs, outputs)` over a graph of layer calls.

The model walks the nodes recorded when layers were called on KerasTensors,
from the outputs back to the inputs, and orders them as Keras does (deepest
first, then by first visit), so `layers`, `weights` and `summary()` come in
Keras's order. Calling the model runs each node's layer on the values of its
inputs.
"""

from ...data import structure
from ..layers.base import InputSpec, Layer, check_input_spec
from ..layers.node import KerasTensor
from ..serialization import deserialize_keras_object, serializable, serialize_keras_object
from .model import Model


def map_graph(inputs, outputs):
    """(nodes to run in order, layers in Keras's order) between `inputs` and `outputs`."""
    input_ids = {id(t) for t in inputs}
    order, index = [], {}   # nodes from inputs to outputs; layer -> first-visit index
    done, active = set(), set()

    def visit(tensor):
        layer, node_index, _ = tensor._keras_history
        node = layer._inbound_nodes[node_index]
        if id(node) in done:
            return
        if id(tensor) in input_ids and not node.is_input:
            done.add(id(node))  # a declared input made by a layer outside the model
            return
        if id(node) in active:
            raise ValueError(f"Tensor {tensor} from layer {layer.name!r} is part of a cycle.")
        index.setdefault(id(layer), (len(index), layer))
        active.add(id(node))
        if not node.is_input:
            for t in node.input_tensors:
                visit(t)
        active.discard(id(node))
        done.add(id(node))
        order.append(node)

    for t in outputs:
        visit(t)
    depth, layer_depth = {}, {}
    for node in reversed(order):
        d = max(depth.setdefault(id(node), 0), layer_depth.get(id(node.layer), 0))
        depth[id(node)] = layer_depth[id(node.layer)] = d
        for parent in _parents(node, input_ids):
            depth[id(parent)] = max(d + 1, depth.get(id(parent), 0))
    for t in inputs:
        layer = t._keras_history[0]
        if id(layer) not in layer_depth:
            layer_depth[id(layer)] = 0
            index.setdefault(id(layer), (-1, layer))
    reachable = {id(t) for t in inputs}
    nodes = sorted(order, key=lambda n: -depth[id(n)])
    for node in nodes:
        for t in node.input_tensors:
            if id(t) not in reachable:
                raise ValueError(f"Graph disconnected: cannot find parent for tensor {t} at "
                                 f"layer {node.layer.name!r}. Its inputs must come from the "
                                 f"model's inputs.")
        reachable.update(id(t) for t in node.output_tensors)
    layers = sorted((entry for entry in index.values()),
                    key=lambda e: (-layer_depth[id(e[1])], e[0]))
    names = [layer.name for _, layer in layers]
    for name in names:
        if names.count(name) > 1:
            raise ValueError(f'The name "{name}" is used {names.count(name)} times in the '
                             "model. All layer names should be unique.")
    return [n for n in nodes if not n.is_input], [layer for _, layer in layers]


def _parents(node, input_ids):
    if node.is_input:
        return []
    out = []
    for t in node.input_tensors:
        layer, index, _ = t._keras_history
        out.append(layer._inbound_nodes[index])
    return out


@serializable("keras")
class Functional(Model):
    """A model defined by its inputs and outputs (what `tf.keras.Model(inputs, outputs)`
    returns).

    >>> x = tf.keras.Input((4,), name="features")
    >>> h = tf.keras.layers.Dense(8, activation="relu")(x)
    >>> model = tf.keras.Model(inputs=x, outputs=[tf.keras.layers.Dense(1)(h),
    ...                                           tf.keras.layers.Dense(3)(h)])
    >>> [o.shape for o in model(np.ones((2, 4), np.float32))]
    [TensorShape([2, 1]), TensorShape([2, 3])]
    """

    def __init__(self, inputs, outputs, name=None, trainable=True, **kwargs):
        Model.__init__(self, name=name or _unique("functional"), trainable=trainable,
                       **kwargs)
        for what, value in (("inputs", inputs), ("outputs", outputs)):
            bad = [v for v in structure.flatten(value) if not isinstance(v, KerasTensor)]
            if bad:
                raise ValueError(f"All `{what}` of a functional Model must be KerasTensors "
                                 f"(from tf.keras.Input and layer calls); received "
                                 f"{bad[0]!r:.100}")
        if isinstance(inputs, (list, tuple)) and len(inputs) == 1 and not isinstance(
                outputs, dict):
            inputs = inputs[0] if not isinstance(inputs, dict) else inputs
        # Kept as given (not made TrackedLists): calls and predict return their structure.
        object.__setattr__(self, "_inputs_struct", inputs)
        object.__setattr__(self, "_outputs_struct", outputs)
        self._input_tensors = structure.flatten(inputs) if not isinstance(inputs, dict) \
            else [inputs[k] for k in inputs]
        self._output_tensors = structure.flatten(outputs) if not isinstance(outputs, dict) \
            else [outputs[k] for k in outputs]
        self._nodes, self._functional_layers = map_graph(self._input_tensors,
                                                         self._output_tensors)
        self._input_names = [t._keras_history[0].name for t in self._input_tensors]
        self._out_names = list(outputs) if isinstance(outputs, dict) else [
            t._keras_history[0].name for t in self._output_tensors]
        # Keras 3's attribute: the output layers' names (a dict's in its sorted keys' order).
        object.__setattr__(self, "output_names", [
            outputs[k]._keras_history[0].name for k in sorted(outputs)]
            if isinstance(outputs, dict) else [n for n in self._out_names])
        # Checked in call, once dict inputs are put in the inputs' order.
        self._input_specs = [InputSpec(shape=(None,) + tuple(t.shape[1:]))
                             for t in self._input_tensors]
        self._build_input_shape = structure.map_structure(lambda t: t.shape, inputs)
        self.built = True

    def _untracked_attributes(self):
        return super()._untracked_attributes() + ("_nodes", "_inputs_struct",
                                                  "_outputs_struct", "_input_tensors",
                                                  "_output_tensors")

    def _output_names(self):
        return self._out_names

    @property
    def layers(self):
        return list(self._functional_layers)

    @property
    def inputs(self):
        return list(self._input_tensors)

    @property
    def outputs(self):
        return list(self._output_tensors)

    @property
    def input_shape(self):
        shapes = [t.shape for t in self._input_tensors]
        return shapes[0] if len(shapes) == 1 else shapes

    @property
    def output_shape(self):
        shapes = [t.shape for t in self._output_tensors]
        return shapes[0] if len(shapes) == 1 else shapes

    def _flatten_inputs(self, inputs):
        """The input values in the order of the model's input tensors."""
        names = self._input_names
        if isinstance(inputs, dict):
            missing = [n for n in names if n not in inputs]
            if missing:
                raise ValueError(f"Model {self.name!r} expects inputs named {names}; the dict "
                                 f"given lacks {missing} (it has {sorted(inputs)})")
            return [inputs[n] for n in names]
        flat = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
        if len(flat) != len(names):
            raise ValueError(f'Layer "{self.name}" expects {len(names)} input(s), but it '
                             f"received {len(flat)} input tensors. Inputs received: "
                             f"{[getattr(v, 'shape', v) for v in flat]}")
        return flat

    def _build_from(self, inputs):
        self.built = True

    def call(self, inputs, training=None, mask=None):
        values = self._flatten_inputs(inputs)
        self.input_spec = self._input_specs
        try:
            check_input_spec(self, values)
        finally:
            self.input_spec = None
        computed = {id(t): v for t, v in zip(self._input_tensors, values)}

        def value_of(x):
            return computed[id(x)] if isinstance(x, KerasTensor) else x

        for node in self._nodes:
            args = structure.map_structure(value_of, list(node.call_args))
            kwargs = {k: structure.map_structure(value_of, v)
                      for k, v in node.call_kwargs.items()}
            out = node.layer(*args, **kwargs)
            for t, v in zip(node.output_tensors, structure.flatten(out)):
                computed[id(t)] = v
        return structure.map_structure(lambda t: computed[id(t)], self._outputs_struct)

    def compute_output_shape(self, input_shape):
        return structure.map_structure(lambda t: t.shape, self._outputs_struct)

    def compute_output_spec(self, *args, **kwargs):
        return Layer.compute_output_spec(self, *args, **kwargs)

    # -- config --------------------------------------------------------------------------

    def _relevant_nodes(self):
        """{id(node): its index among its layer's nodes that belong to this model}."""
        members = {id(n) for n in self._nodes}
        members.update(id(t._keras_history[0]._inbound_nodes[t._keras_history[1]])
                       for t in self._input_tensors)
        index = {}
        for layer in self._functional_layers:
            k = 0
            for node in layer._inbound_nodes:
                if id(node) in members:
                    index[id(node)] = k
                    k += 1
        return index

    def get_config(self):
        """Keras 3's functional config: layers with their inbound nodes, input_layers and
        output_layers as [layer name, node index, tensor index]."""
        relevant = self._relevant_nodes()

        def history(t):
            layer, node_index, tensor_index = t._keras_history
            node = layer._inbound_nodes[node_index]
            return [layer.name, relevant.get(id(node), node_index), tensor_index]

        def arg(x):
            if isinstance(x, KerasTensor):
                return {"class_name": "__keras_tensor__",
                        "config": {"shape": x.shape, "dtype": x.dtype,
                                   "keras_history": history(x)}}
            return x

        layers = []
        for layer in self._functional_layers:
            config = serialize_keras_object(layer)
            config["name"] = layer.name
            nodes = []
            for node in layer._inbound_nodes:
                if id(node) in relevant and not node.is_input:
                    nodes.append({"args": structure.map_structure(arg, list(node.call_args)),
                                  "kwargs": {k: structure.map_structure(arg, v)
                                             for k, v in node.call_kwargs.items()}})
            config["inbound_nodes"] = nodes
            layers.append(config)
        pack = (lambda s, f: {k: f(v) for k, v in s.items()} if isinstance(s, dict) else
                [f(v) for v in structure.flatten(s)])
        return {"name": self.name, "trainable": self.trainable, "layers": layers,
                "input_layers": pack(self._inputs_struct, history),
                "output_layers": pack(self._outputs_struct, history)}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        layers, pending = {}, []
        for layer_config in config["layers"]:
            layer = deserialize_keras_object(layer_config, custom_objects, what="layer")
            layers[layer_config.get("name", layer.name)] = layer
            pending.extend((layer, node) for node in layer_config.get("inbound_nodes", []))
        produced = {}  # (layer name, node index) -> outputs
        for name, layer in layers.items():
            if getattr(layer, "_is_input_layer", False):
                produced[(name, 0)] = [layer.output]
        counts = {}
        while pending:
            progress = False
            for item in list(pending):
                layer, node = item
                try:
                    args = _resolve(node.get("args", []), produced)
                    kwargs = {k: _resolve(v, produced) for k, v in node.get("kwargs", {}).items()}
                except KeyError:
                    continue
                out = layer(*args, **kwargs)
                k = counts.get(layer.name, 0)
                counts[layer.name] = k + 1
                produced[(layer.name, k)] = structure.flatten(out)
                pending.remove(item)
                progress = True
            if not progress:
                raise ValueError(f"could not rebuild functional model {config.get('name')!r}: "
                                 "some layers' inputs are never produced")

        def tensor(ref):
            return produced[(ref[0], ref[1])][ref[2]]

        ins, outs = config["input_layers"], config["output_layers"]
        inputs = {k: tensor(v) for k, v in ins.items()} if isinstance(ins, dict) else \
            [tensor(r) for r in ins]
        outputs = {k: tensor(v) for k, v in outs.items()} if isinstance(outs, dict) else \
            [tensor(r) for r in outs]
        if isinstance(inputs, list) and len(inputs) == 1:
            inputs = inputs[0]
        if isinstance(outputs, list) and len(outputs) == 1:
            outputs = outputs[0]
        return cls(inputs, outputs, name=config.get("name"),
                   trainable=config.get("trainable", True))


def _resolve(value, produced):
    if isinstance(value, dict) and value.get("class_name") == "__keras_tensor__":
        name, node_index, tensor_index = value["config"]["keras_history"]
        return produced[(name, node_index)][tensor_index]
    if isinstance(value, dict):
        return {k: _resolve(v, produced) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_resolve(v, produced) for v in value)
    return value


def _unique(prefix):
    from .. import backend
    return backend.unique_name(prefix)
