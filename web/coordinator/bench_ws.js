// The browser's own WebSocket limit, for `texflow bench --collective`: in a Web Worker (as
// browser workers run), send N bytes in frames of `chunk` bytes to a Python `websockets`
// echo server and wait for all of it to come back. No Python, no texflow: the ceiling.
// Message in: {url, sizes: [bytes...], repeats, chunk}; out: {results: {bytes: ms}} or {error}
self.onmessage = async (event) => {
  const { url, sizes, repeats, chunk } = event.data;
  try {
    const ws = new WebSocket(url);
    ws.binaryType = "arraybuffer";
    await new Promise((resolve, reject) => { ws.onopen = resolve; ws.onerror = reject; });
    let waiting = null, received = 0;
    ws.onmessage = (e) => {
      received += e.data.byteLength;
      if (waiting && received >= waiting.bytes) waiting.resolve();
    };
    const results = {};
    for (const bytes of sizes) {
      const data = new Uint8Array(bytes);
      const times = [];
      for (let i = 0; i < repeats + 2; i++) {
        received = 0;
        const done = new Promise((resolve) => { waiting = { bytes, resolve }; });
        const t0 = performance.now();
        for (let at = 0; at < bytes; at += chunk) ws.send(data.subarray(at, Math.min(bytes, at + chunk)));
        await done;
        if (i >= 2) times.push(performance.now() - t0);
      }
      times.sort((a, b) => a - b);
      results[bytes] = times[Math.floor(times.length / 2)];
    }
    ws.close();
    postMessage({ results });
  } catch (e) {
    postMessage({ error: String(e) });
  }
};
