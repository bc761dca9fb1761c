// The browser side of texflow's collective client: one WebSocket, nothing more.
// Python (texflow/distribute/_pyodide.py) decides what to send and parses what comes back;
// this only moves frames and counts bytes (the worker page shows the rates).
(function () {
  "use strict";
  const traffic = { sent: 0, received: 0, sockets: 0 };

  // onMessage(data: string | ArrayBuffer), onClose(code, reason)
  function texflowSocket(url, onMessage, onClose) {
    const ws = new WebSocket(url);
    ws.binaryType = "arraybuffer";
    let opened = false;
    let scratch = new Uint8Array(0);
    const ready = new Promise((resolve, reject) => {
      ws.onopen = () => { opened = true; traffic.sockets += 1; resolve(true); };
      ws.onerror = () => { if (!opened) reject(new Error("cannot connect to " + url)); };
    });
    ws.onmessage = (event) => {
      const data = event.data;
      traffic.received += typeof data === "string" ? data.length : data.byteLength;
      onMessage(data);
    };
    ws.onclose = (event) => {
      if (opened) traffic.sockets -= 1;
      onClose(event.code, event.reason || "");
    };
    return {
      ready,
      sendText(text) { traffic.sent += text.length; ws.send(text); },
      // `bytes` is a Uint8Array; send() copies it before returning
      sendBytes(bytes) { traffic.sent += bytes.byteLength; ws.send(bytes); },
      // One message of two Python buffers (PyProxies, borrowed for this call; `data` may be
      // null), read in place in the WebAssembly heap: one copy into the message, none
      // through JS arrays of Python objects. The message is assembled in one reused
      // ArrayBuffer (send() copies what it is given before returning), not a fresh,
      // zero-filled one per chunk.
      sendParts(head, data) {
        const buffers = [head.getBuffer("u8")];
        if (data) buffers.push(data.getBuffer("u8"));
        try {
          let size = 0;
          for (const b of buffers) size += b.data.byteLength;
          if (scratch.byteLength < size) scratch = new Uint8Array(size);
          const message = scratch.subarray(0, size);
          let at = 0;
          for (const b of buffers) { message.set(b.data, at); at += b.data.byteLength; }
          traffic.sent += size;
          ws.send(message);
        } finally {
          for (const b of buffers) b.release();
        }
      },
      bufferedAmount() { return ws.bufferedAmount; },
      close(code, reason) { ws.close(code || 1000, reason || ""); },
    };
  }

  globalThis.texflowSocket = texflowSocket;
  globalThis.texflowTraffic = traffic;
})();
