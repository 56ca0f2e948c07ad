// Node's error helpers shared by the modules: ERR_* codes with Node's
// messages, and process warnings.
"use strict";

// Errors made here print as Node's own do: "TypeError [ERR_X]: ..." (util
// reads the mark).
const kNodeError = Symbol.for("wsfs.jsexec.nodeError");

function describeReceived(v) {
  if (v == null) return ` Received ${v}`;
  if (typeof v === "function" && v.name) return ` Received function ${v.name}`;
  if (typeof v === "object") {
    if (v.constructor && v.constructor.name) return ` Received an instance of ${v.constructor.name}`;
    return ` Received ${require("util").inspect(v, { depth: -1 })}`;
  }
  let s = require("util").inspect(v, { colors: false });
  if (s.length > 25) s = s.slice(0, 25) + "...";
  return ` Received type ${typeof v} (${s})`;
}

function withCode(e, code) {
  Object.defineProperty(e, "code", { value: code, enumerable: true, writable: true, configurable: true });
  Object.defineProperty(e, kNodeError, { value: true });
  return e;
}

// invalidArgType builds ERR_INVALID_ARG_TYPE; expected is the words after
// "must be", as in 'of type function'.
function invalidArgType(name, expected, value) {
  const what = name.endsWith(" argument") ? name : `"${name}" ${name.includes(".") ? "property" : "argument"}`;
  return withCode(new TypeError(`The ${what} must be ${expected}.${describeReceived(value)}`), "ERR_INVALID_ARG_TYPE");
}

function invalidArgValue(name, value, reason = "is invalid") {
  const what = name.includes(".") ? "property" : "argument";
  return withCode(new TypeError(`The ${what} '${name}' ${reason}. Received ${require("util").inspect(value)}`), "ERR_INVALID_ARG_VALUE");
}

function withSeparators(s) {
  let d = s.replace(/^-/, ""), out = "";
  while (d.length > 3) { out = "_" + d.slice(-3) + out; d = d.slice(0, -3); }
  return (s.startsWith("-") ? "-" : "") + d + out;
}
function outOfRange(name, range, value) {
  let r;
  if (Number.isInteger(value) && Math.abs(value) > 2 ** 32) r = withSeparators(String(value));
  else if (typeof value === "bigint") r = (value > 2n ** 32n || value < -(2n ** 32n) ? withSeparators(String(value)) : String(value)) + "n";
  else r = require("util").inspect(value);
  return withCode(new RangeError(`The value of "${name}" is out of range. It must be ${range}. Received ${r}`), "ERR_OUT_OF_RANGE");
}

function checkFunction(fn, name) {
  if (typeof fn !== "function") throw invalidArgType(name, "of type function", fn);
}

function emitWarning(message, type = "Warning", code) {
  const p = globalThis.process;
  if (p && typeof p.emitWarning === "function") return p.emitWarning(message, type, code);
  const text = `(node:${(p && p.pid) || 1}) ${code ? `[${code}] ` : ""}${type}: ${message}\n`;
  if (p && p.stderr) p.stderr.write(text);
  else console.error(text.slice(0, -1));
}

function abortError(signal) {
  const e = new Error("The operation was aborted", signal && signal.reason !== undefined ? { cause: signal.reason } : undefined);
  e.name = "AbortError";
  return withCode(e, "ABORT_ERR");
}

module.exports = { kNodeError, invalidArgType, invalidArgValue, outOfRange, checkFunction, emitWarning, abortError, withCode };
