// The browser side of texflow's collective client: one WebSocket and the per-message work.
// Python (texflow/distribute/_pyodide.py) decides what to send and parses what comes back;
// this moves frames, counts bytes (the worker page shows the rates) and, so that a collective
// costs one call between Python and JS each way rather than one per message, sends a
// contribution's chunks in one call (sendChunks) and writes the results Python asked for
// (expectResults) straight into its result buffer, telling Python once they are all in.
(function () {
  "use strict";
  const traffic = { sent: 0, received: 0, sockets: 0 };
  // The wire format of texflow/coordinator/wire.py: a 40-byte little-endian header.
  const HEADER = 40, MAGIC = 0x54, RESULT = 2;

  // onMessage(data: string | ArrayBuffer), onClose(code, reason),
  // onPlaced(op, generation, seq, start, bytes): results that expectResults placed (payload
  // bytes [start, start + bytes) of that collective)
  function texflowSocket(url, onMessage, onClose, onPlaced) {
    const ws = new WebSocket(url);
    ws.binaryType = "arraybuffer";
    let opened = false;
    let scratch = new Uint8Array(0);
    let expect = null;  // {op, generation, seq, hi, base, from, next, dest}: results to place
    const ready = new Promise((resolve, reject) => {
      ws.onopen = () => { opened = true; traffic.sockets += 1; resolve(true); };
      ws.onerror = () => { if (!opened) reject(new Error("cannot connect to " + url)); };
    });

    // Hands Python what was placed so far and stops placing: Python sees every message in
    // the order it came, the placed results as one message, before anything that follows.
    function disarm() {
      const e = expect;
      if (e === null) return;
      expect = null;
      e.dest.destroy();
      if (e.next > e.from) onPlaced(e.op, e.generation, e.seq, e.from, e.next - e.from);
    }

    // The next result of the expected collective, in order and within its slice, goes
    // straight into the result buffer (one copy); anything else is Python's to judge.
    function place(buffer) {
      const e = expect;
      const n = buffer.byteLength - HEADER;
      if (n <= 0) return false;
      const head = new DataView(buffer, 0, HEADER);
      if (head.getUint8(0) !== MAGIC || head.getUint8(1) !== RESULT ||
          head.getUint8(2) !== e.op || head.getUint8(3) !== 0 || head.getUint32(8, true) !== 0 ||
          head.getUint32(12, true) !== e.generation || head.getUint32(16, true) !== e.seq ||
          head.getUint32(20, true) !== 0) return false;
      const offset = head.getUint32(24, true) + head.getUint32(28, true) * 4294967296;
      if (offset !== e.next || offset + n > e.hi) return false;
      const view = e.dest.getBuffer("u8");  // the heap's current buffer (it may have grown)
      try {
        view.data.set(new Uint8Array(buffer, HEADER, n), offset - e.base);
      } finally {
        view.release();
      }
      e.next += n;
      if (e.next === e.hi) disarm();
      return true;
    }

    ws.onmessage = (event) => {
      const data = event.data;
      const binary = typeof data !== "string";
      traffic.received += binary ? data.byteLength : data.length;
      if (expect !== null) {
        if (binary && place(data)) return;
        disarm();
      }
      onMessage(data);
    };
    ws.onclose = (event) => {
      if (opened) traffic.sockets -= 1;
      disarm();
      onClose(event.code, event.reason || "");
    };

    // One message of `head` and `data` (Uint8Arrays; data may be null), joined in one
    // reused ArrayBuffer, not a fresh, zero-filled one per message (send() copies what it
    // is given before returning); `offset`, unless null, replaces the header's byte offset
    // (at 24) in the copy.
    function sendJoined(head, data, offset) {
      const size = head.byteLength + (data ? data.byteLength : 0);
      if (scratch.byteLength < size) scratch = new Uint8Array(size);
      const message = scratch.subarray(0, size);
      message.set(head, 0);
      if (data) message.set(data, head.byteLength);
      if (offset !== null) {
        const view = new DataView(message.buffer, message.byteOffset, HEADER);
        view.setUint32(24, offset % 4294967296, true);
        view.setUint32(28, Math.floor(offset / 4294967296), true);
      }
      traffic.sent += size;
      ws.send(message);
    }

    return {
      ready,
      sendText(text) { traffic.sent += text.length; ws.send(text); },
      // `bytes` is a Uint8Array; send() copies it before returning
      sendBytes(bytes) { traffic.sent += bytes.byteLength; ws.send(bytes); },
      // A contribution's messages in one call: `data` (a Python buffer, or null) cut into
      // messages of at most `chunk` bytes; the first has header `first` (with the table),
      // the others `next` (no table) with the byte offset (at 24) moved on for each, from
      // `start`, the payload offset of data's first byte. Python runs nothing between the
      // messages either way (its send loop never yields), so this sends the same.
      sendChunks(first, next, data, start, chunk) {
        const f = first.getBuffer("u8"), t = next.getBuffer("u8");
        const d = data ? data.getBuffer("u8") : null;
        try {
          const bytes = d ? d.data.byteLength : 0;
          let at = 0, head = f.data;
          do {
            const n = Math.min(chunk, bytes - at);
            sendJoined(head, n ? d.data.subarray(at, at + n) : null, at ? start + at : null);
            at += n;
            head = t.data;
          } while (at < bytes);
        } finally {
          f.release();
          t.release();
          if (d) d.release();
        }
      },
      // Results of reduction `op` of collective (generation, seq) from payload offset `from`
      // up to `hi` go into `dest` (a writable Python buffer holding the payload from byte
      // `base`) as they come, in order, until any other message comes; onPlaced reports
      // them. A new call replaces the old (reporting it first).
      expectResults(op, generation, seq, from, hi, base, dest) {
        disarm();
        if (from < hi) {
          expect = { op, generation, seq, hi, base, from, next: from, dest: dest.copy() };
        }
      },
      bufferedAmount() { return ws.bufferedAmount; },
      close(code, reason) { ws.close(code || 1000, reason || ""); },
    };
  }

  globalThis.texflowSocket = texflowSocket;
  globalThis.texflowTraffic = traffic;
})();
