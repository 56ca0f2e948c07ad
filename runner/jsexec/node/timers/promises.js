// Node's timers/promises: setTimeout and setImmediate as promises, and
// setInterval as an async iterator.
"use strict";
const timers = require("timers");

function abortError(signal) {
  const e = new Error("The operation was aborted", { cause: signal && signal.reason });
  e.name = "AbortError";
  e.code = "ABORT_ERR";
  return e;
}
function later(start, stop, value, options) {
  const signal = options && options.signal;
  return new Promise((resolve, reject) => {
    if (signal && signal.aborted) return reject(abortError(signal));
    const t = start(() => resolve(value));
    if (options && options.ref === false) t.unref();
    if (signal) signal.addEventListener("abort", () => { stop(t); reject(abortError(signal)); }, { once: true });
  });
}
module.exports = {
  setTimeout: (delay, value, options) => later((f) => timers.setTimeout(f, delay), timers.clearTimeout, value, options),
  setImmediate: (value, options) => later((f) => timers.setImmediate(f), timers.clearImmediate, value, options),
  async *setInterval(delay, value) {
    for (;;) {
      await new Promise((resolve) => timers.setTimeout(resolve, delay));
      yield value;
    }
  },
  scheduler: {
    wait: (delay, options) => later((f) => timers.setTimeout(f, delay), timers.clearTimeout, undefined, options),
    yield: () => later((f) => timers.setImmediate(f), timers.clearImmediate),
  },
};
