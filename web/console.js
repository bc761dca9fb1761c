// A demo page's output panel: stdout as text, stderr marked, and in a Python traceback
// the error line ("ValueError: ...") and the failing source lines highlighted.
// Usage: const out = texflowConsole(document.getElementById("out"));
//        out.stdout(text); out.stderr(text); out.clear();
(function () {
  const ERROR_LINE = /^([A-Za-z_][\w.]*(Error|Exception|Exit|Interrupt|Warning)|AssertionError|KeyError|StopIteration)\b/;
  const FRAME = /^  File "/;
  const MARK = "texflow-console-style";

  function style() {
    if (document.getElementById(MARK)) return;
    const css = document.createElement("style");
    css.id = MARK;
    css.textContent = ".tf-stderr { color: #8a1c1c; }" +
      ".tf-error-line { color: #fff; background: #b3261e; font-weight: bold; }" +
      ".tf-source-line { background: #fde7e7; }" +
      ".tf-hidden-frames { color: #777; font-style: italic; }";
    document.head.appendChild(css);
  }

  function texflowConsole(pre) {
    style();
    let partial = "";        // stderr text after its last newline
    let afterFrame = false;  // the previous stderr line was '  File "...", line N'

    function span(text, cls) {
      const el = document.createElement("span");
      el.className = cls;
      el.textContent = text;
      pre.appendChild(el);
    }

    function line(text) {
      let cls = "tf-stderr";
      if (afterFrame && /^    \S/.test(text)) cls += " tf-source-line";
      else if (/^  \[\d+ frames? inside texflow hidden\]/.test(text)) cls += " tf-hidden-frames";
      else if (ERROR_LINE.test(text)) cls += " tf-error-line";
      afterFrame = FRAME.test(text);
      span(text, cls);
    }

    return {
      stdout(text) { pre.appendChild(document.createTextNode(text)); },
      stderr(text) {
        const lines = (partial + text).split(/(?<=\n)/);
        partial = lines[lines.length - 1].endsWith("\n") ? "" : lines.pop();
        lines.forEach(line);
      },
      flush() { if (partial) { line(partial); partial = ""; } },
      clear() { pre.textContent = ""; partial = ""; afterFrame = false; },
    };
  }

  globalThis.texflowConsole = texflowConsole;
})();
