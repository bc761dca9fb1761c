# The `mnist.py` of seed 004 (the page lost this cell; what it must hold is in
# SEEDS.md): a CNN with 10 logits, and this input pipeline's batches of MNIST.
import numpy as np
import texflow as tf


def mnist_dataset():
  (x_train, y_train), _ = tf.keras.datasets.mnist.load_data()
  # The pixel values are 0..255; scale them to [0, 1].
  x_train = x_train / np.float32(255)
  y_train = y_train.astype(np.int64)
  return tf.data.Dataset.from_tensor_slices((x_train, y_train)).shuffle(60000)


def dataset_fn(global_batch_size, input_context):
  batch_size = input_context.get_per_replica_batch_size(global_batch_size)
  dataset = mnist_dataset()
  dataset = dataset.shard(input_context.num_input_pipelines,
                          input_context.input_pipeline_id)
  dataset = dataset.batch(batch_size)
  return dataset.repeat()


def build_cnn_model():
  return tf.keras.Sequential([
      tf.keras.Input(shape=(28, 28)),
      tf.keras.layers.Reshape(target_shape=(28, 28, 1)),
      tf.keras.layers.Conv2D(32, 3, activation='relu'),
      tf.keras.layers.Flatten(),
      tf.keras.layers.Dense(128, activation='relu'),
      tf.keras.layers.Dense(10)
  ])
