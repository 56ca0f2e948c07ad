// Node's globals that QuickJS lacks or has with other behaviour, set up by
// the prelude before user code runs. Anything bigger than a few lines is a
// getter that loads its module on first use, so start-up stays short.
"use strict";
const g = globalThis;

function lazy(name, get) {
  const define = (value) => Object.defineProperty(g, name, { value, writable: true, configurable: true, enumerable: false });
  Object.defineProperty(g, name, {
    configurable: true, enumerable: false,
    get() { const v = get(); define(v); return v; },
    set: define,
  });
}
lazy("Buffer", () => require("buffer").Buffer);
lazy("atob", () => require("buffer").atob);
lazy("btoa", () => require("buffer").btoa);
lazy("TextEncoder", () => require("internal/encoding").TextEncoder);
lazy("TextDecoder", () => require("internal/encoding").TextDecoder);
lazy("URL", () => require("url").URL);
lazy("URLSearchParams", () => require("url").URLSearchParams);
lazy("structuredClone", () => require("internal/clone").structuredClone);
g.global = g;

// setImmediate, where the prelude's timers lack it: a zero-delay timer.
if (typeof g.setImmediate !== "function") {
  g.setImmediate = function setImmediate(fn, ...args) { return g.setTimeout(fn, 0, ...args); };
  g.clearImmediate = function clearImmediate(t) { g.clearTimeout(t); };
}
