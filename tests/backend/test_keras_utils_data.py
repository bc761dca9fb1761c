"""tf.keras.utils' data helpers against Keras 3 (values printed by Keras 3 in TensorFlow
2.21 for the same calls): pad_sequences, timeseries_dataset_from_array, and PyDataset
as fit/evaluate/predict input with its epoch hooks."""

import numpy as np

import texflow as tf
from harness import each_backend, raises


def test_pad_sequences_as_keras():
    pad = tf.keras.utils.pad_sequences
    assert pad([[1, 2, 3], [4], []], maxlen=2).tolist() == [[2, 3], [0, 4], [0, 0]]
    assert pad([[1, 2, 3], [4]], padding="post", truncating="post", maxlen=2,
               value=-1).tolist() == [[1, 2], [4, -1]]
    assert pad([[1, 2, 3], [4, 5]]).tolist() == [[1, 2, 3], [0, 4, 5]]
    steps = pad([[[1, 2], [3, 4]], [[5, 6]]], dtype="float32")
    assert steps.dtype == np.float32 and steps.tolist() == [[[1, 2], [3, 4]], [[0, 0], [5, 6]]]
    with raises(ValueError, match='Padding type "mid" not understood'):
        pad([[1]], padding="mid")
    with raises(ValueError, match='Truncating type "x" not understood'):
        pad([[1]], truncating="x")
    with raises(ValueError, match="different from expected shape"):
        pad([[[1, 2]], [[1, 2, 3]]])


def test_timeseries_windows_as_keras():
    ds = tf.keras.utils.timeseries_dataset_from_array(
        np.arange(20), np.arange(20) * 10, 4, sequence_stride=3, sampling_rate=2,
        batch_size=2, start_index=1, end_index=18)
    got = [(x.tolist(), y.tolist()) for x, y in ds.as_numpy_iterator()]
    assert got == [([[1, 3, 5, 7], [4, 6, 8, 10]], [10, 40]),
                   ([[7, 9, 11, 13], [10, 12, 14, 16]], [70, 100])], got
    single = tf.keras.utils.timeseries_dataset_from_array(np.arange(10), None, 3,
                                                          batch_size=None)
    assert [w.tolist() for w in single.take(2).as_numpy_iterator()] == [[0, 1, 2], [1, 2, 3]]
    shuffled = tf.keras.utils.timeseries_dataset_from_array(np.arange(30), None, 3,
                                                            batch_size=None, shuffle=True, seed=3)
    firsts = [w.tolist()[0] for w in shuffled.as_numpy_iterator()]
    assert sorted(firsts) == list(range(28)) and firsts != sorted(firsts)
    with raises(ValueError, match="`sampling_rate` must be higher than 0"):
        tf.keras.utils.timeseries_dataset_from_array(np.arange(10), None, 3, sampling_rate=0)


class _Batches(tf.keras.utils.PyDataset):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.log = []

    def __len__(self):
        return 3

    def __getitem__(self, i):
        self.log.append(i)
        x = np.full((4, 2), float(i + 1), np.float32)
        return x, x.sum(1, keepdims=True)

    def on_epoch_begin(self):
        self.log.append("B")

    def on_epoch_end(self):
        self.log.append("E")


@each_backend
def test_py_dataset_feeds_fit_evaluate_and_predict():
    tf.keras.utils.set_random_seed(1)
    model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(
        1, kernel_initializer="ones")])
    model.compile(optimizer=tf.keras.optimizers.SGD(0.01), loss="mse")
    data = _Batches()
    history = model.fit(data, epochs=2, verbose=0, shuffle=False)
    assert history.history["loss"] == [0.0, 0.0]  # the kernel of ones fits x.sum exactly
    assert data.log == ["B", 0, 1, 2, "E", "B", 0, 1, 2, "E"], data.log
    shuffled = _Batches()
    model.fit(shuffled, epochs=3, verbose=0)  # fit's default shuffle: the batches' order
    orders = [shuffled.log[i + 1:i + 4] for i in (0, 5, 10)]
    assert all(sorted(o) == [0, 1, 2] for o in orders) and len({tuple(o) for o in orders}) > 1
    assert float(model.evaluate(_Batches(), verbose=0)) == 0.0
    predicted = model.predict(_Batches(), verbose=0)
    assert predicted.shape == (12, 1) and predicted[:4, 0].tolist() == [2.0] * 4
    with raises(ValueError, match="not supported when the input is a PyDataset"):
        model.fit(_Batches(), np.zeros((12, 1)), verbose=0)
    assert tf.keras.utils.Sequence is tf.keras.utils.PyDataset
