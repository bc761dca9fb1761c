"""MirroredStrategy in a page: one replica per device of the page (numpy and the GPU
backends the headless Chromium has: WebGPU, WebGL), matching one replica's training."""

CODE = """
import numpy as np
import texflow as tf

devices = [d.name for d in tf.config.list_logical_devices()]
strategy = tf.distribute.MirroredStrategy(devices)

def model():
    return tf.keras.Sequential([tf.keras.layers.Dense(4, activation="relu", input_shape=(3,)),
                                tf.keras.layers.Dense(1)])

tf.keras.utils.set_random_seed(5)
with strategy.scope():
    mirrored = model()
    mirrored.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse")
plain = model()
plain.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse")
plain.set_weights(mirrored.get_weights())
x = np.random.RandomState(0).rand(24, 3).astype(np.float32)
y = x.sum(1, keepdims=True)
mirrored.fit(x, y, batch_size=12, epochs=2, shuffle=False, verbose=0)
plain.fit(x, y, batch_size=12, epochs=2, shuffle=False, verbose=0)
ids = strategy.experimental_local_results(
    strategy.run(lambda: tf.distribute.get_replica_context().replica_id_in_sync_group))
diff = max(float(np.abs(a - b).max()) for a, b in zip(mirrored.get_weights(),
                                                      plain.get_weights()))
[devices, strategy.num_replicas_in_sync, list(ids), diff]
"""


def test_mirrored_over_the_devices_of_a_page(browser_session):
    devices, n, ids, diff = browser_session.page.evaluate(
        "(code) => pyodide.runPythonAsync(code).then(r => r.toJs())", CODE)
    assert devices[0] == "/device:CPU:0" and any("GPU" in d for d in devices), devices
    assert n == len(devices) >= 2 and ids == list(range(n))
    assert diff < 1e-4, diff
    print("page devices", devices, "replicas", n, "max weight difference", diff)
