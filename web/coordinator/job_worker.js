// A browser worker of a texflow coordinator, in a dedicated Web Worker: boots Pyodide and
// texflow, fetches the coordinator's job (its script and folder) and runs it with
// TEXFLOW_COORDINATOR / TEXFLOW_TOKEN set, so `collective.connect()` joins the group.
// Messages in:  {type: "run", wsURL, token, backend, clientId}
// Messages out: {type: "stdout" | "stderr", text}, {type: "phase", text},
//               {type: "status", status: {...}} (rank, step, loss ... from Python),
//               {type: "traffic", sent, received} (every 500 ms), {type: "exit", code}
importScripts("/texflow/web/boot.js", "/texflow/web/collective.js");

let trafficTimer = null;

globalThis.texflowJobStatus = (json) => postMessage({ type: "status", status: JSON.parse(json) });

async function run(msg) {
  postMessage({ type: "phase", text: "booting Pyodide and texflow" });
  const py = await texflowBoot({
    stdout: (text) => postMessage({ type: "stdout", text }),
    stderr: (text) => postMessage({ type: "stderr", text }),
  });
  postMessage({ type: "phase", text: `booted in ${Math.round(globalThis.texflowBootMs)} ms` });
  const auth = { headers: { Authorization: "Bearer " + msg.token } };
  const response = await fetch("/job/manifest.json", auth);
  if (!response.ok) throw new Error(`the job is not available: HTTP ${response.status} ` +
                                    (await response.text()));
  const manifest = await response.json();
  const bundle = await (await fetch(manifest.bundle, auth)).arrayBuffer();
  const workdir = "/home/pyodide/job";
  py.FS.mkdirTree(workdir);
  py.unpackArchive(bundle, "zip", { extractDir: workdir });
  const os = py.pyimport("os");
  os.environ.__setitem__("TEXFLOW_COORDINATOR", msg.wsURL);
  os.environ.__setitem__("TEXFLOW_TOKEN", msg.token);
  os.environ.__setitem__("TEXFLOW_CLIENT_ID", msg.clientId);
  // The tutorials read TF_CONFIG before making their strategy: give them one.
  py.pyimport("texflow.distribute.cluster_resolver").set_job_tf_config(
      manifest.num_workers ?? null);
  const source = py.FS.readFile(workdir + "/" + manifest.script, { encoding: "utf8" });
  trafficTimer = setInterval(() => postMessage({
    type: "traffic", sent: texflowTraffic.sent, received: texflowTraffic.received }), 500);
  postMessage({ type: "phase", text: "running " + manifest.script });
  const runSource = py.pyimport("texflow._browser").run_source;
  return await runSource(source, manifest.script, py.toPy(manifest.argv),
                         msg.backend || null, workdir);
}

self.onmessage = async (event) => {
  if (event.data.type !== "run") return;
  let code = 1;
  try {
    code = await run(event.data);
  } catch (e) {
    postMessage({ type: "stderr", text: String(e) + "\n" });
  } finally {
    if (trafficTimer) clearInterval(trafficTimer);
    postMessage({ type: "traffic", sent: texflowTraffic.sent, received: texflowTraffic.received });
    postMessage({ type: "exit", code });
  }
};
