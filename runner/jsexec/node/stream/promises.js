// Node's stream/promises: pipeline and finished as promises.
"use strict";
module.exports = require("stream").promises;
