"""The multi-worker Keras tutorial (TensorFlow 2.0, "Multi-worker training with Keras") as a
texflow job: MNIST's CNN trained by Keras `fit` inside MultiWorkerMirroredStrategy.scope(),
with workers that are native processes, browser tabs, or both. See README.md here.

    texflow coordinator --num-workers 2 --script demos/multiworker/train.py
    # open the join URL it prints in browser tabs, and/or run native workers:
    texflow worker --coordinator ws://127.0.0.1:8470 --token TOKEN

    train.py [EPOCHS] [STEPS_PER_EPOCH]    (default 3 epochs over the whole training set)

Changes from the tutorial: `import texflow as tf`; MNIST comes from tf.keras.datasets
(9,000 training digits, no tensorflow_datasets); NUM_WORKERS is the group's size; every
worker seeds its shuffle alike (each takes its part of every global batch); the
checkpoint path ends in .keras (Keras 3); the learning rate is 0.01, not 0.001 (9,000
digits make 70 steps an epoch, not the tutorial's 469). Kill a worker and start it
again (or reload its tab): the others wait, and it comes back at the step the job is at.
"""

import sys
import time

import texflow as tf

EPOCHS = int(sys.argv[1]) if len(sys.argv) > 1 else 3
STEPS_PER_EPOCH = int(sys.argv[2]) if len(sys.argv) > 2 else None
BUFFER_SIZE = 10000
BATCH_SIZE = 64


def make_datasets_unbatched():
    # Scaling MNIST data from (0, 255] to (0., 1.]
    def scale(image, label):
        image = tf.cast(image, tf.float32)
        image /= 255
        return image, label

    (x_train, y_train), _ = tf.keras.datasets.mnist.load_data()
    datasets = tf.data.Dataset.from_tensor_slices((x_train[..., None], y_train))
    return datasets.map(scale).cache().shuffle(BUFFER_SIZE, seed=1)


def build_and_compile_cnn_model():
    model = tf.keras.Sequential([
        tf.keras.layers.Conv2D(32, 3, activation='relu', input_shape=(28, 28, 1)),
        tf.keras.layers.MaxPooling2D(),
        tf.keras.layers.Flatten(),
        tf.keras.layers.Dense(64, activation='relu'),
        tf.keras.layers.Dense(10, activation='softmax')
    ])
    model.compile(
        loss=tf.keras.losses.sparse_categorical_crossentropy,
        optimizer=tf.keras.optimizers.SGD(learning_rate=0.01),
        metrics=['accuracy'])
    return model


strategy = tf.distribute.MultiWorkerMirroredStrategy()
NUM_WORKERS = strategy.num_replicas_in_sync
print(f"worker {strategy.cluster_resolver.task_id} of {NUM_WORKERS} "
      f"({tf.get_backend()})", flush=True)

# The batch size scales up by the number of workers, since `tf.data.Dataset.batch`
# expects the global batch size.
GLOBAL_BATCH_SIZE = BATCH_SIZE * NUM_WORKERS
with strategy.scope():
    train_datasets = make_datasets_unbatched().batch(GLOBAL_BATCH_SIZE)
    multi_worker_model = build_and_compile_cnn_model()

callbacks = [tf.keras.callbacks.ModelCheckpoint(filepath='/tmp/keras-ckpt.keras')]
start = time.perf_counter()
history = multi_worker_model.fit(x=train_datasets, epochs=EPOCHS,
                                 steps_per_epoch=STEPS_PER_EPOCH, callbacks=callbacks)

(_, _), (x_test, y_test) = tf.keras.datasets.mnist.load_data()
loss, accuracy = multi_worker_model.evaluate(x_test[..., None] / 255.0, y_test, verbose=0)
print(f"test accuracy {accuracy:.4f} (loss {loss:.4f}) after {len(history.history['loss'])} "
      f"epoch(s) here, {time.perf_counter() - start:.0f} s", flush=True)
