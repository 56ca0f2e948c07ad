// Node's util/types: util.types.
"use strict";
module.exports = require("util").types;
