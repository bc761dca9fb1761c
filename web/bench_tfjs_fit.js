// TensorFlow.js side of `texflow bench`'s Keras cases: tfjs-layers `model.fit` of seed
// 000's MNIST CNN, timed as texflow/bench/fit.py times texflow's (same model, optimizer,
// batch, data and warm-up). `yieldEvery: "never"`: texflow's fit does not yield to the
// event loop either, so neither side waits for animation frames between batches.
(function () {
  "use strict";
  const BATCH = 64;
  const WARM_UP = 2 * BATCH + 40;
  let state = null;

  function seedCnn() {
    const model = tf.sequential();
    model.add(tf.layers.conv2d({ filters: 32, kernelSize: 3, activation: "relu",
                                 inputShape: [28, 28, 1] }));
    model.add(tf.layers.maxPooling2d({ poolSize: 2 }));
    model.add(tf.layers.flatten());
    model.add(tf.layers.dense({ units: 64, activation: "relu" }));
    model.add(tf.layers.dense({ units: 10, activation: "softmax" }));
    model.compile({ optimizer: tf.train.adam(1e-3), loss: "sparseCategoricalCrossentropy",
                    metrics: ["accuracy"] });
    return model;
  }

  async function fit(n, shuffle) {
    const x = n === state.n ? state.x : state.x.slice(0, n);
    const y = n === state.n ? state.y : state.y.slice(0, n);
    const t0 = performance.now();
    await state.model.fit(x, y, { batchSize: BATCH, epochs: 1, verbose: 0, shuffle,
                                  yieldEvery: "never" });
    const ms = performance.now() - t0;
    if (x !== state.x) { x.dispose(); y.dispose(); }
    return ms;
  }

  globalThis.texflowFitTfjs = {
    // images: Float32Array (n * 784) in [0, 1]; labels: Float32Array (n) of classes
    async setup(backend, images, labels) {
      if (!(await tf.setBackend(backend))) throw new Error("tfjs backend unavailable: " + backend);
      await tf.ready();
      if (state) {
        state.model.dispose();
        state.x.dispose();
        state.y.dispose();
      }
      const n = labels.length;
      state = { n, model: seedCnn(), x: tf.tensor4d(images, [n, 28, 28, 1]),
                y: tf.tensor1d(labels) };
      await fit(WARM_UP, false);
      return tf.getBackend();
    },
    async steps(n) {
      return (await fit(BATCH * n, false)) / n;
    },
    async epoch() {
      return await fit(state.n, true);
    },
  };
})();
