// Node's globals that QuickJS lacks or has with other behaviour, set up by
// the prelude before user code runs. Anything bigger than a few lines is a
// getter that loads its module on first use, so start-up stays short.
"use strict";
const g = globalThis;

// lazy defines global name as property prop of module mod, loaded on
// first use.
function lazy(name, mod, prop) {
  const define = (value) => Object.defineProperty(g, name, { value, writable: true, configurable: true, enumerable: false });
  Object.defineProperty(g, name, {
    configurable: true, enumerable: false,
    get() { const v = require(mod)[prop]; define(v); return v; },
    set: define,
  });
}
lazy("Buffer", "buffer", "Buffer");
lazy("atob", "buffer", "atob");
lazy("btoa", "buffer", "btoa");
lazy("TextEncoder", "internal/encoding", "TextEncoder");
lazy("TextDecoder", "internal/encoding", "TextDecoder");
lazy("URL", "url", "URL");
lazy("URLSearchParams", "url", "URLSearchParams");
lazy("structuredClone", "internal/clone", "structuredClone");
for (const name of ["Event", "CustomEvent", "EventTarget", "AbortController", "AbortSignal"]) {
  lazy(name, "internal/event_target", name);
}
g.global = g;

// setImmediate, where the prelude's timers lack it: a zero-delay timer.
if (typeof g.setImmediate !== "function") {
  g.setImmediate = function setImmediate(fn, ...args) { return g.setTimeout(fn, 0, ...args); };
  g.clearImmediate = function clearImmediate(t) { g.clearTimeout(t); };
}
