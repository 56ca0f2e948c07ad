// Node's timers module: the global timer functions.
"use strict";
const g = globalThis;
module.exports = {
  setTimeout: g.setTimeout, clearTimeout: g.clearTimeout,
  setInterval: g.setInterval, clearInterval: g.clearInterval,
  setImmediate: g.setImmediate, clearImmediate: g.clearImmediate,
  get promises() { return require("timers/promises"); },
};
