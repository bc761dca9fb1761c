// The worker page: starts job_worker.js and shows what it reports. The token comes in the
// URL's fragment (#token=...), which the browser never sends to any server; the client id
// lives in sessionStorage, so a reloaded tab rejoins under its old rank.
(function () {
  "use strict";
  const $ = (id) => document.getElementById(id);
  const params = new URLSearchParams(location.hash.slice(1));
  const token = params.get("token") || sessionStorage.getItem("texflowToken") || "";
  if (token) sessionStorage.setItem("texflowToken", token);
  let clientId = sessionStorage.getItem("texflowClientId");
  if (!clientId) {
    clientId = Array.from(crypto.getRandomValues(new Uint8Array(8)),
                          (b) => b.toString(16).padStart(2, "0")).join("");
    sessionStorage.setItem("texflowClientId", clientId);
  }
  const search = new URLSearchParams(location.search);
  const backend = search.get("backend") || "";
  $("backend").value = backend;
  $("backend").onchange = () => {
    search.set("backend", $("backend").value);
    location.search = search.toString();  // a fresh worker with the new backend
  };
  $("dashboard").href = "/dashboard#token=" + encodeURIComponent(token);
  const state = { lastTraffic: null, done: false };
  const page = { status: {}, exitCode: null };
  globalThis.texflowWorkerPage = page;  // read by tests

  function rate(bytes) {
    if (bytes > 1e6) return (bytes / 1e6).toFixed(1) + " MB/s";
    if (bytes > 1e3) return (bytes / 1e3).toFixed(1) + " kB/s";
    return Math.round(bytes) + " B/s";
  }

  function show(status) {
    Object.assign(page.status, status);
    const s = page.status;
    if (s.rank !== undefined && s.rank !== null) $("rank").textContent = s.rank;
    if (s.size !== undefined) $("size").textContent = s.size;
    if (s.generation !== undefined) $("generation").textContent = s.generation;
    if (s.backend) $("backend-used").textContent = s.backend;
    if (s.step !== undefined && s.step !== null) $("step").textContent = s.step;
    if (typeof s.loss === "number") $("loss").textContent = s.loss.toPrecision(5);
    if (typeof s.allreduce_ms === "number") $("allreduce").textContent = s.allreduce_ms.toFixed(1) + " ms";
    if (s.event === "lost") $("state").textContent = "worker " + s.ranks + " lost";
    if (s.event === "generation") $("state").textContent = "joined";
  }

  if (!token) {
    $("phase").textContent = "no token: open the join URL the coordinator printed (…/#token=…)";
    return;
  }
  const worker = new Worker("/texflow/web/coordinator/job_worker.js");
  const out = $("out");
  worker.onmessage = (event) => {
    const msg = event.data;
    if (msg.type === "stdout" || msg.type === "stderr") {
      out.textContent += msg.text;
      out.scrollTop = out.scrollHeight;
    } else if (msg.type === "phase") {
      $("phase").textContent = msg.text;
    } else if (msg.type === "status") {
      show(msg.status);
    } else if (msg.type === "traffic") {
      const now = performance.now();
      if (state.lastTraffic) {
        const dt = (now - state.lastTraffic.t) / 1000;
        $("sent").textContent = rate((msg.sent - state.lastTraffic.sent) / dt);
        $("received").textContent = rate((msg.received - state.lastTraffic.received) / dt);
      }
      state.lastTraffic = { t: now, sent: msg.sent, received: msg.received };
      page.traffic = { sent: msg.sent, received: msg.received };
    } else if (msg.type === "exit") {
      page.exitCode = msg.code;
      $("phase").textContent = "done";
      $("state").textContent = msg.code === 0 ? "finished" : `failed (exit code ${msg.code})`;
      document.body.dataset.exitCode = msg.code;
    }
  };
  const scheme = location.protocol === "https:" ? "wss://" : "ws://";
  worker.postMessage({ type: "run", wsURL: scheme + location.host + "/ws", token, backend,
                       clientId });
})();
