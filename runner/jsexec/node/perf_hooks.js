// Node's perf_hooks: the global performance object.
"use strict";
module.exports = { performance: globalThis.performance, constants: {} };
