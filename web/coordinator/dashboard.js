// The coordinator's dashboard: a read-only WebSocket ("viewer") gets a snapshot of every
// worker twice a second and each join or loss as it happens; Chart.js (served by the
// coordinator, never a CDN) plots loss per worker and bytes per second through it.
(function () {
  "use strict";
  const $ = (id) => document.getElementById(id);
  const token = new URLSearchParams(location.hash.slice(1)).get("token") ||
                sessionStorage.getItem("texflowToken") || "";
  const dashboard = { snapshots: 0, events: [], workers: [] };
  globalThis.texflowDashboard = dashboard;  // read by tests
  const colors = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
                  "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"];
  const chart = (id, title, yTitle) => new Chart($(id), {
    type: "line",
    data: { datasets: [] },
    options: { animation: false, parsing: false, responsive: true,
               plugins: { title: { display: true, text: title } },
               scales: { x: { type: "linear", title: { display: true, text: "seconds" } },
                         y: { title: { display: true, text: yTitle } } } },
  });
  const lossChart = chart("loss-chart", "loss per worker", "loss");
  const rateChart = chart("rate-chart", "traffic through the coordinator", "MB/s");
  const t0 = Date.now() / 1000;

  function series(c, label, index) {
    let set = c.data.datasets.find((d) => d.label === label);
    if (!set) {
      set = { label, data: [], borderColor: colors[index % colors.length], pointRadius: 0,
              borderWidth: 1.5 };
      c.data.datasets.push(set);
    }
    return set;
  }

  const fmt = (v, digits) => (typeof v === "number" ? v.toFixed(digits) : "–");
  const bytes = (v) => (v > 1e6 ? (v / 1e6).toFixed(1) + " M" : v > 1e3 ?
                        (v / 1e3).toFixed(1) + " k" : Math.round(v || 0) + " ");

  function render(s) {
    dashboard.snapshots += 1;
    dashboard.workers = s.workers;
    $("summary").textContent = `generation ${s.generation}: ${s.size} of ${s.num_workers} ` +
      `workers${s.elastic ? " (elastic)" : ""}, ${s.shards.length} shard(s)`;
    const body = $("workers").tBodies[0];
    body.textContent = "";
    const sorted = [...s.workers].sort((a, b) => (a.rank ?? 1e9) - (b.rank ?? 1e9));
    const now = s.time - t0;
    let totalIn = 0, totalOut = 0;
    for (const w of sorted) {
      const r = w.report || {};
      const row = body.insertRow();
      row.className = w.state;
      const cells = [w.rank ?? "–", w.kind, w.backend || "–", w.state, r.step ?? "–",
                     fmt(r.loss, 4), r.step_ms ? fmt(r.step_ms, 1) + " ms" : "–",
                     r.allreduce_ms ? fmt(r.allreduce_ms, 1) + " ms" : "–",
                     bytes(w.rates[0]), bytes(w.rates[1]), w.peer || ""];
      cells.forEach((text, i) => {
        const cell = row.insertCell();
        cell.textContent = text;
        if ([1, 2, 3, 10].includes(i)) cell.className = "l";
      });
      totalIn += w.rates[0];
      totalOut += w.rates[1];
      if (typeof r.loss === "number" && w.rank !== null) {
        const set = series(lossChart, "rank " + w.rank, w.rank);
        const last = set.data[set.data.length - 1];
        if (!last || last.step !== r.step) set.data.push({ x: now, y: r.loss, step: r.step });
      }
    }
    series(rateChart, "in", 0).data.push({ x: now, y: totalIn / 1e6 });
    series(rateChart, "out", 1).data.push({ x: now, y: totalOut / 1e6 });
    for (const c of [lossChart, rateChart]) {
      for (const set of c.data.datasets) set.data.splice(0, Math.max(0, set.data.length - 600));
      c.update("none");
    }
  }

  function log(events) {
    const box = $("events");
    for (const e of events) {
      dashboard.events.push(e);
      const when = new Date(e.time * 1000).toLocaleTimeString();
      const who = e.rank !== undefined && e.rank !== null ? ` rank ${e.rank}` : "";
      const detail = e.event === "generation" ? ` ${e.generation}: ${e.size} workers, new ` +
        `${JSON.stringify(e.new)}, lost ${JSON.stringify(e.lost)}` : e.reason ? ` (${e.reason})` : "";
      box.textContent += `${when}  ${e.event}${who}${e.kind ? " " + e.kind : ""}${detail}\n`;
    }
    box.scrollTop = box.scrollHeight;
  }

  function connect(delay) {
    const scheme = location.protocol === "https:" ? "wss://" : "ws://";
    const ws = new WebSocket(scheme + location.host + "/ws");
    ws.onopen = () => ws.send(JSON.stringify({ type: "hello", token, role: "viewer" }));
    ws.onmessage = (event) => {
      const msg = JSON.parse(event.data);
      if (msg.type === "stats") render(msg);
      else if (msg.type === "events") log(msg.events);
    };
    ws.onclose = (event) => {
      if (event.code === 1008) {  // refused (a wrong token): trying again cannot help
        dashboard.refused = event.reason;
        $("summary").textContent = `the coordinator refused this dashboard: ${event.reason}` +
          " (open the dashboard URL it printed, …/dashboard#token=TOKEN)";
        return;
      }
      $("summary").textContent = `disconnected (${event.code} ${event.reason}); retrying…`;
      setTimeout(() => connect(Math.min(delay * 2, 5000)), delay);
    };
  }
  if (!token) $("summary").textContent = "no token: open …/dashboard#token=TOKEN";
  else connect(250);
})();
