"""What `compile` turns its `loss`, `loss_weights` and `metrics` into.

CompileLoss matches losses to the model's outputs (one for all, a list in
output order, or a dict by output name) and sums them with their weights;
CompileMetrics does the same for metrics. Both resolve lazily, on the first
batch, because Keras picks 'accuracy' (and 'crossentropy') by the shapes of
the labels and predictions.
"""

from ...data import structure
from ...ops import elementwise as ew
from .. import backend
from .. import losses as losses_module
from .. import metrics as metrics_module


def _is_binary_or_sparse(y_true, y_pred):
    is_binary = y_pred.shape[-1] == 1 if y_pred.shape else False
    is_sparse = (len(y_true.shape) < len(y_pred.shape) or
                 (y_true.shape and y_true.shape[-1] == 1 and y_pred.shape[-1] > 1))
    return is_binary, is_sparse


def _resolve_loss(identifier, y_true, y_pred):
    if identifier is None:
        return None
    if isinstance(identifier, str) and identifier.lower() in ("crossentropy", "ce"):
        binary, sparse = _is_binary_or_sparse(y_true, y_pred)
        fn = (losses_module.binary_crossentropy if binary else
              losses_module.sparse_categorical_crossentropy if sparse else
              losses_module.categorical_crossentropy)
    else:
        fn = losses_module.get(identifier)
    if isinstance(fn, losses_module.Loss):
        return fn
    name = identifier if isinstance(identifier, str) else getattr(fn, "__name__", "loss")
    return losses_module.LossFunctionWrapper(fn, name=name)


def _resolve_metric(identifier, y_true, y_pred):
    if isinstance(identifier, str) and identifier.lower() in ("accuracy", "acc"):
        binary, sparse = _is_binary_or_sparse(y_true, y_pred)
        cls = (metrics_module.BinaryAccuracy if binary else
               metrics_module.SparseCategoricalAccuracy if sparse else
               metrics_module.CategoricalAccuracy)
        metric = cls(name=identifier)
    else:
        metric = metrics_module.get(identifier)
        if not isinstance(metric, metrics_module.Metric):
            name = identifier if isinstance(identifier, str) else getattr(metric, "__name__",
                                                                          "metric")
            metric = metrics_module.MeanMetricWrapper(metric, name=name)
        elif isinstance(identifier, str):
            metric.name = identifier
    return metric


def validate_names(loss, metrics):
    """Raises at compile time for loss and metric names that do not exist."""
    for ident in structure.flatten(loss) if isinstance(loss, (list, tuple, dict)) else [loss]:
        if isinstance(ident, str) and ident.lower() not in ("crossentropy", "ce"):
            losses_module.get(ident)
    flat = metrics.values() if isinstance(metrics, dict) else (metrics or [])
    for entry in flat:
        for ident in entry if isinstance(entry, (list, tuple)) else [entry]:
            if isinstance(ident, str) and ident.lower() not in ("accuracy", "acc"):
                metrics_module.get(ident)
            elif ident is None:
                raise ValueError("Expected metric, received `None`")


def flatten_outputs(y_pred, output_names):
    """[(name, prediction)] for the model's outputs, in the model's output order."""
    if isinstance(y_pred, dict):
        names = [n for n in output_names if n in y_pred] or list(y_pred)
        return [(n, y_pred[n]) for n in names]
    flat = list(y_pred) if isinstance(y_pred, (list, tuple)) else [y_pred]
    names = list(output_names) if len(output_names) == len(flat) else \
        [f"output_{i + 1}" for i in range(len(flat))]
    return list(zip(names, flat))


def match_targets(y_true, outputs, what="y"):
    """The targets in the order of `outputs` (a list, a dict by name, or one array)."""
    names = [n for n, _ in outputs]
    if y_true is None:
        return [None] * len(outputs)
    if len(outputs) == 1:
        if isinstance(y_true, dict):
            if len(y_true) != 1 or (names[0] not in y_true and len(y_true) > 1):
                raise ValueError(f"The model has one output ({names[0]!r}) but `{what}` is a "
                                 f"dict with keys {sorted(y_true)}")
            return [y_true.get(names[0], next(iter(y_true.values())))]
        if isinstance(y_true, (list, tuple)) and len(y_true) == 1:
            return [y_true[0]]
        return [y_true]
    if isinstance(y_true, dict):
        unknown = sorted(set(y_true) - set(names))
        if unknown:
            raise ValueError(f"`{what}` has keys {unknown} that are not outputs of the model; "
                             f"its outputs are {names}")
        return [y_true.get(n) for n in names]
    if isinstance(y_true, (list, tuple)) and len(y_true) == len(outputs):
        return list(y_true)
    raise ValueError(f"The model has {len(outputs)} outputs {names}, so `{what}` must be a "
                     f"list of {len(outputs)} arrays or a dict by output name; received "
                     f"{type(y_true).__name__}"
                     + (f" of length {len(y_true)}" if isinstance(y_true, (list, tuple)) else ""))


def per_output(y_true, y_pred, sample_weight, output_names):
    """[(name, prediction)], targets and sample weights, all in the outputs' order."""
    outputs = flatten_outputs(y_pred, output_names)
    targets = match_targets(y_true, outputs)
    weights = match_targets(sample_weight, outputs, "sample_weight") \
        if isinstance(sample_weight, (dict, list, tuple)) else [sample_weight] * len(outputs)
    return outputs, targets, weights


class CompileLoss:
    """The model's total loss: the weighted sum of a loss per output."""

    def __init__(self, loss, loss_weights=None, output_names=()):
        if loss_weights is not None and not isinstance(loss_weights, (list, tuple, dict, float,
                                                                      int)):
            raise ValueError(f"Expected `loss_weights` argument to be a float (single output "
                             f"case) or a list or dict (multiple output case). Received "
                             f"instead: loss_weights={loss_weights!r} of type "
                             f"{type(loss_weights).__name__}")
        self.loss, self.loss_weights = loss, loss_weights
        self.output_names = list(output_names)
        self.entries = None   # [(output index, Loss, weight, name)]
        self.trackers = []    # per-output loss metrics when there are several outputs

    def _per_output(self, value, names, what):
        if isinstance(value, dict):
            unknown = sorted(set(value) - set(names))
            if unknown:
                raise ValueError(f"`{what}` has keys {unknown} that are not outputs of the "
                                 f"model; its outputs are {names}")
            return [value.get(n) for n in names]
        if isinstance(value, (list, tuple)):
            if len(value) != len(names):
                raise ValueError(f"When passing a list as `{what}`, it should have one entry "
                                 f"per model output. The model has {len(names)} outputs "
                                 f"{names}, but you passed {what}={value!r}")
            return list(value)
        return [value] * len(names)

    def build(self, y_true, outputs):
        names = [n for n, _ in outputs]
        identifiers = self._per_output(self.loss, names, "loss")
        weights = self._per_output(self.loss_weights, names, "loss_weights") \
            if self.loss_weights is not None else [None] * len(names)
        self.entries = []
        for i, ((name, y_p), ident, w) in enumerate(zip(outputs, identifiers, weights)):
            if ident is None:
                continue
            y_t = y_true[i]
            if y_t is None:
                raise ValueError(f"The model's loss for output {name!r} needs targets, but no "
                                 f"`y` was given for it")
            self.entries.append((i, _resolve_loss(ident, y_t, y_p), w, name))
        if len(outputs) > 1:
            self.trackers = [metrics_module.Mean(name=f"{name}_loss")
                             for _, _, _, name in self.entries]

    def __call__(self, y_true, y_pred, sample_weight=None):
        outputs, targets, weights = per_output(y_true, y_pred, sample_weight,
                                               self.output_names)
        if self.entries is None:
            self.build(targets, outputs)
        total = None
        for k, (i, loss_fn, weight, name) in enumerate(self.entries):
            value = loss_fn(targets[i], outputs[i][1], weights[i])
            if self.trackers:
                batch = outputs[i][1].shape[0] if outputs[i][1].shape else 1
                self.trackers[k].update_state(backend.unscale_loss_for_distribution(value),
                                              sample_weight=float(batch))
            if weight is not None:
                value = ew.mul(value, float(weight))
            total = value if total is None else ew.add(total, value)
        return total


class CompileMetrics:
    """The compiled metrics of each output, updated on the device every step."""

    def __init__(self, metrics, weighted_metrics, output_names=()):
        if metrics is not None and not isinstance(metrics, (list, tuple, dict)):
            raise ValueError(f"Expected `metrics` argument to be a list, tuple, or dict. "
                             f"Received instead: metrics={metrics!r} of type "
                             f"{type(metrics).__name__}")
        self.metrics_arg, self.weighted_arg = metrics, weighted_metrics
        self.output_names = list(output_names)
        self.entries = None  # [(output index, Metric, weighted)]
        self.name = "compile_metrics"  # Keras 3's name, seen in `model.metrics` until built

    def result(self):
        """{name: result} of every compiled metric (nested in a train_step's logs, which
        fit flattens, as Keras 3's CompileMetrics)."""
        return {m.name: m.result() for m in self.metrics}

    def reset_state(self):
        for m in self.metrics:
            m.reset_state()

    @property
    def variables(self):
        return [v for m in self.metrics for v in m.variables]

    def _per_output(self, value, names):
        if value is None:
            return [[] for _ in names]
        if isinstance(value, dict):
            unknown = sorted(set(value) - set(names))
            if unknown:
                raise ValueError(f"`metrics` has keys {unknown} that are not outputs of the "
                                 f"model; its outputs are {names}")
            out = [value.get(n) or [] for n in names]
            return [m if isinstance(m, (list, tuple)) else [m] for m in out]
        if len(names) > 1 and value and all(isinstance(m, (list, tuple)) or m is None
                                            for m in value):
            if len(value) != len(names):
                raise ValueError(f"`metrics` has {len(value)} lists, but the model has "
                                 f"{len(names)} outputs {names}")
            return [list(m or []) for m in value]
        return [list(value) for _ in names]

    def build(self, y_true, outputs):
        names = [n for n, _ in outputs]
        self.entries = []
        for weighted, arg in ((False, self.metrics_arg), (True, self.weighted_arg)):
            for i, idents in enumerate(self._per_output(arg, names)):
                for ident in idents:
                    if y_true[i] is None:
                        continue
                    metric = _resolve_metric(ident, y_true[i], outputs[i][1])
                    if len(outputs) > 1:
                        metric.name = f"{names[i]}_{metric.name}"
                    if weighted and any(m.name == metric.name for _, m, _ in self.entries):
                        metric.name = f"weighted_{metric.name}"
                    self.entries.append((i, metric, weighted))

    def update_state(self, y_true, y_pred, sample_weight=None):
        outputs, targets, weights = per_output(y_true, y_pred, sample_weight,
                                               self.output_names)
        if self.entries is None:
            self.build(targets, outputs)
        for i, metric, weighted in self.entries:
            metric.update_state(targets[i], outputs[i][1],
                                sample_weight=weights[i] if weighted else None)

    @property
    def metrics(self):
        return [m for _, m, _ in self.entries or ()]


def flat_logs(logs):
    """A step's logs with nested dicts (a CompileMetrics result) flattened, as Keras does."""
    if not isinstance(logs, dict) or not any(isinstance(v, dict) for v in logs.values()):
        return logs
    out = {}
    for key, value in logs.items():
        out.update(flat_logs(value) if isinstance(value, dict) else {key: value})
    return out


def step_logs(logs):
    """A step's logs as fit and evaluate hand them on: flat, and in sorted key order, as
    TensorFlow's Keras gives them (its compiled step returns them through tf.nest, which
    sorts dict keys), so History, callbacks and `return_dict` see `accuracy, loss, ...`."""
    logs = flat_logs(logs)
    return dict(sorted(logs.items())) if isinstance(logs, dict) else logs


def logs_in_order(model, logs):
    """evaluate's list (or lone value): the metrics in `model.metrics` order (the loss
    first), then any other logs by name, as Keras orders them. A model of several outputs
    lists its compiled metrics by name too: Keras looks them up by their unprefixed names
    (`mae`, not `reg_mae`), finds none, and sorts them with the rest."""
    compiled = getattr(model, "_compile_metrics", None)
    prefixed = compiled is not None and len(compiled.output_names) > 1
    skip = {id(m) for m in compiled.metrics} if prefixed else set()
    names = [m.name for m in model.metrics if id(m) not in skip]
    values = [logs[n] for n in names if n in logs]
    values += [logs[k] for k in sorted(logs) if k not in names]
    return values[0] if len(values) == 1 else values
