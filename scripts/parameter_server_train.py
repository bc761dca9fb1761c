"""Parameter-server training as TensorFlow's "Parameter server training with
ParameterServerStrategy" tutorial runs it, with texflow: one script for every task of
the cluster, TF_CONFIG says which (README "Parameter-server training" has the
commands). The "ps" and "worker" tasks serve; the chief builds a small classifier in
`strategy.scope()`, schedules its steps on the workers and prints the losses.

    python scripts/parameter_server_train.py [--steps N] [--fit]
"""

import argparse

import numpy as np

import texflow as tf

resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
if resolver.task_type in ("worker", "ps"):
    server = tf.distribute.Server(resolver.cluster_spec(), job_name=resolver.task_type,
                                  task_index=resolver.task_id, protocol="grpc", start=True)
    server.join()

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--steps", type=int, default=200, help="scheduled steps")
parser.add_argument("--fit", action="store_true", help="train with Keras fit instead")
args = parser.parse_args()

strategy = tf.distribute.ParameterServerStrategy(resolver)
coordinator = tf.distribute.coordinator.ClusterCoordinator(strategy)

# the data: points in 4 dimensions, labelled by which side of a plane they lie on
rng = np.random.RandomState(0)
features = rng.randn(1024, 4).astype(np.float32)
labels = (features @ np.array([1.0, -2.0, 0.5, 1.5], np.float32) > 0.2).astype(np.float32)
global_batch = 64

with strategy.scope():
    model = tf.keras.Sequential([tf.keras.layers.Dense(16, activation="relu"),
                                 tf.keras.layers.Dense(1)])
    model.build((None, 4))
    optimizer = tf.keras.optimizers.Adam(0.01)
    accuracy = tf.keras.metrics.BinaryAccuracy(threshold=0.0)


def dataset_fn(input_context):
    batch = input_context.get_per_replica_batch_size(global_batch)
    dataset = tf.data.Dataset.from_tensor_slices((features, labels[:, None]))
    return dataset.shard(input_context.num_input_pipelines,
                         input_context.input_pipeline_id).shuffle(256, seed=1).batch(batch) \
        .repeat()


if args.fit:
    with strategy.scope():
        model.compile(optimizer=optimizer, metrics=["accuracy"],
                      loss=tf.keras.losses.BinaryCrossentropy(from_logits=True))
    dataset = tf.data.Dataset.from_tensor_slices((features, labels[:, None])).batch(
        global_batch).repeat()
    history = model.fit(dataset, epochs=4, steps_per_epoch=args.steps // 4, verbose=2)
    print("final loss", history.history["loss"][-1])
    raise SystemExit(0)

loss_fn = tf.keras.losses.BinaryCrossentropy(from_logits=True, reduction="none")


@tf.function
def step_fn(iterator):
    def replica_fn(batch_data, batch_labels):
        with tf.GradientTape() as tape:
            logits = model(batch_data, training=True)
            per_example_loss = loss_fn(batch_labels, logits)
            loss = tf.nn.compute_average_loss(per_example_loss)
        gradients = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(gradients, model.trainable_variables))
        accuracy.update_state(batch_labels, logits)
        return loss

    batch_data, batch_labels = next(iterator)
    losses = strategy.run(replica_fn, args=(batch_data, batch_labels))
    return strategy.reduce(tf.distribute.ReduceOp.SUM, losses, axis=None)


per_worker_dataset = coordinator.create_per_worker_dataset(dataset_fn)
per_worker_iterator = iter(per_worker_dataset)
losses = [coordinator.schedule(step_fn, args=(per_worker_iterator,))
          for _ in range(args.steps)]
coordinator.join()
print(f"first loss {losses[0].fetch():.4f}, final loss {losses[-1].fetch():.4f}, "
      f"accuracy {accuracy.result().numpy():.3f}, optimizer steps "
      f"{int(optimizer.iterations.numpy())}, calls per worker {getattr(coordinator, 'runs', None)}")
