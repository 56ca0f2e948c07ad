// Node's assert/strict: assert.strict.
"use strict";
module.exports = require("assert").strict;
