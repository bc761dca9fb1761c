// The MNIST page: controls, live Chart.js charts, the drawing pad. Python trains and
// predicts in worker.js; this file only draws what the worker reports.
// URL parameters fill the controls: ?backend=webgl&epochs=1&steps=20&autostart=1, and
// test=250 tests on the first 250 test images only (quick mode).
(function () {
  "use strict";
  const $ = (id) => document.getElementById(id);
  const params = new URLSearchParams(location.search);
  const controls = { backend: $("backend"), epochs: $("epochs"), steps: $("steps") };
  const startButton = $("start");
  const stopButton = $("stop");
  const status = $("status");
  let worker = null;
  let canStop = true;
  let modelReady = false;

  function setState(state, text) {
    document.body.dataset.state = state;
    if (text !== undefined) status.textContent = text;
  }

  // -- charts (Chart.js, served from /texflow/vendor/) ---------------------------------

  function lineChart(canvas, xTitle, pointRadius, extra) {
    const dataset = (label, color, axis) => ({
      label, data: [], borderColor: color, backgroundColor: color, yAxisID: axis,
      pointRadius, borderWidth: 1.5, tension: 0,
    });
    return new Chart(canvas, {
      type: "line",
      data: { datasets: [
        dataset("loss", "#d9534f", "loss"),
        dataset("accuracy", "#3b7dd8", "accuracy"),
      ].concat(extra || []) },
      options: {
        animation: false, parsing: false, normalized: true, maintainAspectRatio: false,
        interaction: { mode: "nearest", intersect: false },
        scales: {
          x: { type: "linear", title: { display: true, text: xTitle }, ticks: { precision: 0 } },
          loss: { type: "linear", position: "left", beginAtZero: true,
                  title: { display: true, text: "loss" } },
          accuracy: { type: "linear", position: "right", min: 0, max: 1,
                      grid: { drawOnChartArea: false }, title: { display: true, text: "accuracy" } },
        },
      },
    });
  }
  const batchChart = lineChart($("batch-chart"), "batch (logs are running means over the epoch)",
                               0);
  const epochChart = lineChart($("epoch-chart"), "epoch", 4, [{
    label: "test accuracy", data: [], yAxisID: "accuracy", borderColor: "#2e7d32",
    backgroundColor: "#2e7d32", pointRadius: 6, pointStyle: "rectRot", showLine: false }]);
  let redraw = 0;
  function scheduleRedraw() {  // at most one chart update per frame, however fast batches come
    if (redraw) return;
    redraw = requestAnimationFrame(() => { redraw = 0; batchChart.update("none"); });
  }

  function resetCharts() {
    for (const chart of [batchChart, epochChart]) {
      for (const d of chart.data.datasets) d.data = [];
      chart.update("none");
    }
  }

  // -- training in the worker ------------------------------------------------------------

  const formatBytes = (n) => n >= 1 << 20 ? `${(n / (1 << 20)).toFixed(1)} MB`
    : `${(n / 1024).toFixed(0)} kB`;

  function showMemory(m) {
    $("shown-memory").textContent = `${m.num_arrays} arrays, ${formatBytes(m.num_bytes)}` +
      (m.num_gpu_objects ? `, ${m.num_gpu_objects} GPU objects in use ` +
       `(${m.num_pooled_gpu_objects} pooled, ${formatBytes(m.pooled_bytes)})` : "");
  }

  function onMessage(event) {
    const msg = event.data;
    switch (msg.type) {
      case "status":
        status.textContent = msg.text;
        if (msg.backend) $("shown-backend").textContent = msg.backend;
        break;
      case "log":
        $("log").textContent += msg.text;
        break;
      case "batch": {
        if (document.body.dataset.state !== "stopping") setState("training");
        canStop = msg.canStop;
        batchChart.data.datasets[0].data.push({ x: msg.step, y: msg.loss });
        batchChart.data.datasets[1].data.push({ x: msg.step, y: msg.accuracy });
        scheduleRedraw();
        $("shown-epoch").textContent = `${msg.epoch + 1} of ${msg.epochs}`;
        $("shown-batch").textContent = `${msg.batch + 1} of ${msg.steps} ` +
          `(loss ${msg.loss.toFixed(4)}, accuracy ${msg.accuracy.toFixed(4)})`;
        $("shown-step").textContent = `${msg.stepMs.toFixed(0)} ms (median of the last 10)`;
        showMemory(msg.memory);
        if (document.body.dataset.state === "training") {
          status.textContent = `training: epoch ${msg.epoch + 1}, batch ${msg.batch + 1}`;
        }
        break;
      }
      case "epoch":
        epochChart.data.datasets[0].data.push({ x: msg.epoch + 1, y: msg.loss });
        epochChart.data.datasets[1].data.push({ x: msg.epoch + 1, y: msg.accuracy });
        epochChart.update("none");
        break;
      case "done": {
        const epochs = epochChart.data.datasets[0].data.length;
        epochChart.data.datasets[2].data.push({ x: Math.max(epochs, 1), y: msg.testAccuracy });
        epochChart.update("none");
        batchChart.update("none");
        $("test-accuracy").textContent = `${msg.testAccuracy.toFixed(4)} ` +
          `(loss ${msg.testLoss.toFixed(4)}, ${msg.tested.toLocaleString("en")} images)`;
        showMemory(msg.memory);
        modelReady = true;
        finish("done", `${msg.stopped ? "stopped" : "trained"} in ${msg.seconds.toFixed(1)} s; ` +
               `test accuracy ${msg.testAccuracy.toFixed(4)}. Draw a digit.`);
        predictNow();
        break;
      }
      case "prediction":
        showPrediction(msg);
        break;
      case "error":
        finish("error", "error: " + msg.text);
        status.classList.add("error");
        break;
    }
  }

  function finish(state, text) {
    setState(state, text);
    startButton.disabled = false;
    stopButton.disabled = true;
  }

  function start() {
    const epochs = Number(controls.epochs.value);
    const steps = controls.steps.value ? Number(controls.steps.value) : null;
    if (!Number.isInteger(epochs) || epochs < 1 || (steps !== null &&
        (!Number.isInteger(steps) || steps < 1))) {
      status.textContent = "Epochs and batches per epoch must be positive whole numbers.";
      return;
    }
    if (worker) worker.terminate();  // a fresh worker per run: a clean backend choice
    status.classList.remove("error");
    modelReady = false;
    resetCharts();
    $("log").textContent = "";
    for (const id of ["shown-epoch", "shown-batch", "shown-step", "test-accuracy"]) {
      $(id).textContent = "–";
    }
    worker = new Worker("worker.js");
    worker.onmessage = onMessage;
    worker.onerror = (e) => finish("error", "worker error: " + (e.message || e));
    setState("booting", "booting Pyodide and texflow in a worker…");
    startButton.disabled = true;
    stopButton.disabled = false;
    const testImages = Number(params.get("test")) || null;  // quick mode: fewer test images
    worker.postMessage({ type: "train", backend: controls.backend.value, epochs, steps,
                         testImages });
  }

  function stop() {
    if (!worker) return;
    if (!canStop || document.body.dataset.state === "booting") {
      // without JSPI the worker cannot hear "stop" mid-training: end it instead
      worker.terminate();
      worker = null;
      finish("idle", "stopped (the worker was ended, so there is no trained model)");
      return;
    }
    worker.postMessage({ type: "stop" });
    stopButton.disabled = true;
    setState("stopping", "stopping after this batch…");
  }

  startButton.addEventListener("click", start);
  stopButton.addEventListener("click", stop);

  // -- the drawing pad ---------------------------------------------------------------------

  const pad = $("pad");
  const ctx = pad.getContext("2d", { willReadFrequently: true });
  let drawing = false;
  let inked = false;
  let last = null;

  function clearPad() {
    ctx.fillStyle = "#fff";
    ctx.fillRect(0, 0, pad.width, pad.height);
    inked = false;
    $("prediction").textContent = "–";
    $("seen").getContext("2d").clearRect(0, 0, 28, 28);
    renderProbabilities(null);
  }

  function point(event) {
    const box = pad.getBoundingClientRect();
    return [(event.clientX - box.left) * pad.width / box.width,
            (event.clientY - box.top) * pad.height / box.height];
  }

  function stroke(to) {
    ctx.strokeStyle = "#000";
    ctx.fillStyle = "#000";
    ctx.lineWidth = pad.width / 13;  // MNIST strokes are about 2 px of a 20 px digit
    ctx.lineCap = ctx.lineJoin = "round";
    ctx.beginPath();
    if (last) {
      ctx.moveTo(last[0], last[1]);
      ctx.lineTo(to[0], to[1]);
      ctx.stroke();
    } else {
      ctx.arc(to[0], to[1], ctx.lineWidth / 2, 0, 2 * Math.PI);
      ctx.fill();
    }
    last = to;
    inked = true;
  }

  pad.addEventListener("pointerdown", (event) => {
    event.preventDefault();
    pad.setPointerCapture(event.pointerId);
    drawing = true;
    last = null;
    stroke(point(event));
  });
  pad.addEventListener("pointermove", (event) => {
    if (!drawing) return;
    for (const e of event.getCoalescedEvents ? event.getCoalescedEvents() : [event]) {
      stroke(point(e));
    }
    predictSoon();
  });
  const endStroke = () => {
    if (!drawing) return;
    drawing = false;
    last = null;
    predictNow();
  };
  pad.addEventListener("pointerup", endStroke);
  pad.addEventListener("pointercancel", endStroke);
  $("clear").addEventListener("click", clearPad);

  // -- predictions -----------------------------------------------------------------------

  let requestId = 0;
  let inFlight = false;
  let pending = false;

  function predictSoon() {  // while drawing: one request in flight at a time
    if (inFlight) pending = true;
    else predictNow();
  }

  function predictNow() {
    if (!inked) return;
    if (!modelReady || !worker) {
      $("prediction").textContent = "train the model first";
      return;
    }
    const pixels = ctx.getImageData(0, 0, pad.width, pad.height).data;
    const ink = new Float32Array(pad.width * pad.height);
    for (let i = 0; i < ink.length; i++) ink[i] = 1 - pixels[4 * i] / 255;
    inFlight = true;
    pending = false;
    pad.dataset.requested = ++requestId;
    worker.postMessage({ type: "predict", id: requestId, ink, height: pad.height,
                         width: pad.width }, [ink.buffer]);
  }

  function showPrediction(msg) {
    inFlight = false;
    if (pending) predictNow();
    if (msg.id !== requestId) return;  // a newer drawing is on its way
    pad.dataset.answered = msg.id;
    if (msg.empty) {
      renderProbabilities(null);
      return;
    }
    $("prediction").textContent = String(msg.digit);
    renderProbabilities(msg.probabilities, msg.digit);
    const seen = $("seen").getContext("2d");
    const image = seen.createImageData(28, 28);
    msg.image.forEach((v, i) => {
      const c = 255 - Math.round(255 * v);
      image.data.set([c, c, c, 255], 4 * i);
    });
    seen.putImageData(image, 0, 0);
  }

  const list = $("probabilities");
  for (let digit = 0; digit < 10; digit++) {
    const item = document.createElement("li");
    item.innerHTML = `<span>${digit}</span><span class="bar" role="meter" aria-valuemin="0" ` +
      `aria-valuemax="100" aria-label="probability of ${digit}"><span></span></span>` +
      `<span class="p">–</span>`;
    list.appendChild(item);
  }

  function renderProbabilities(probabilities, digit) {
    [...list.children].forEach((item, i) => {
      const p = probabilities ? probabilities[i] : null;
      item.dataset.p = p === null ? "" : String(p);
      item.classList.toggle("best", i === digit);
      const bar = item.querySelector(".bar");
      bar.firstChild.style.width = p === null ? "0" : `${(100 * p).toFixed(1)}%`;
      bar.setAttribute("aria-valuenow", p === null ? "0" : (100 * p).toFixed(1));
      item.querySelector(".p").textContent = p === null ? "–" : `${(100 * p).toFixed(1)}%`;
    });
  }

  clearPad();

  // -- URL parameters ------------------------------------------------------------------------

  for (const name of ["backend", "epochs", "steps"]) {
    if (params.has(name)) controls[name].value = params.get(name);
  }
  if (params.get("autostart") === "1") start();
})();
