// The MNIST page's Web Worker: boots Pyodide and texflow, then runs page.py's train and
// predict. One worker per training run (a clean backend choice); the trained model stays
// in it for predictions until the next run.
// In:  {type: "train", backend, epochs, steps, testImages}, {type: "stop"}, {type: "predict", id, ink,
//       height, width}
// Out: {type: "status" | "batch" | "epoch" | "done" | "prediction" | "log" | "error", ...}
importScripts("/texflow/web/boot.js");

const FOLDER = "/home/pyodide/mnist";
let page = null;
let busy = Promise.resolve();

globalThis.texflowStopRequested = false;
// A macrotask boundary: Python awaits it through JSPI between batches, so "stop" arrives.
globalThis.texflowYield = () => new Promise((resolve) => {
  const channel = new MessageChannel();
  channel.port1.onmessage = () => resolve();
  channel.port2.postMessage(null);
});

async function start(msg) {
  postMessage({ type: "status", text: "booting Pyodide and texflow in a worker…" });
  const log = (text) => postMessage({ type: "log", text });
  const py = await texflowBoot({ stdout: log, stderr: log, backend: msg.backend || null });
  py.FS.mkdirTree(FOLDER);
  for (const name of ["train.py", "page.py"]) {
    const source = await (await fetch(new URL(name, self.location.href))).text();
    py.FS.writeFile(`${FOLDER}/${name}`, source);
  }
  py.runPython(`import sys; sys.path.insert(0, "${FOLDER}")`);
  page = py.pyimport("page");
  postMessage({ type: "status", text: `booted in ${(globalThis.texflowBootMs / 1000).toFixed(1)} s`,
                backend: py.pyimport("texflow").get_backend() });
  await page.train(msg.epochs, msg.steps || null, msg.testImages || null);
}

self.onmessage = (event) => {
  const msg = event.data;
  if (msg.type === "stop") {
    globalThis.texflowStopRequested = true;
    return;
  }
  const job = msg.type === "train" ? () => start(msg) : () => predict(msg);
  // One Python call at a time: a prediction waits for training to end.
  busy = busy.then(job).catch((e) => postMessage({ type: "error", text: String(e) }));
};

async function predict(msg) {
  if (!page) throw new Error("train the model first");
  const result = await page.predict(msg.ink, msg.height, msg.width);
  postMessage(Object.assign({ type: "prediction", id: msg.id }, result));
}
