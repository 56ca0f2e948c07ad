// structuredClone: the HTML structured clone of plain data (objects,
// arrays, Date, RegExp, Map, Set, errors, boxed primitives, ArrayBuffers
// and their views), keeping shared and circular references; functions,
// symbols, promises and weak collections throw a DataCloneError.
"use strict";

const toStr = (v) => Object.prototype.toString.call(v);
const errorTypes = { Error, EvalError, RangeError, ReferenceError, SyntaxError, TypeError, URIError };

function cannotClone(what) {
  return new DOMException(`${what} could not be cloned.`, "DataCloneError");
}

function structuredClone(value, options) {
  if (arguments.length === 0) {
    const e = new TypeError("The \"value\" argument must be specified");
    e.code = "ERR_MISSING_ARGS";
    throw e;
  }
  if (options !== undefined && options !== null && typeof options !== "object") {
    throw new TypeError("The \"options\" argument must be of type object.");
  }
  return clone(value, new Map());
}

function clone(v, memo) {
  if (typeof v === "symbol") throw cannotClone(String(v));
  if (typeof v === "function") throw cannotClone(Function.prototype.toString.call(v));
  if (v === null || typeof v !== "object") return v;
  if (memo.has(v)) return memo.get(v);
  const tag = toStr(v).slice(8, -1);
  let out;
  switch (tag) {
    case "Date": out = new Date(v.getTime()); break;
    case "RegExp": out = new RegExp(v.source, v.flags); break;
    case "Boolean": out = Object(Boolean.prototype.valueOf.call(v)); break;
    case "Number": out = Object(Number.prototype.valueOf.call(v)); break;
    case "String": out = Object(String.prototype.valueOf.call(v)); break;
    case "BigInt": out = Object(BigInt.prototype.valueOf.call(v)); break;
    case "ArrayBuffer": out = v.slice(0); break;
    case "SharedArrayBuffer": out = v; break;
    case "DataView": {
      const buf = clone(v.buffer, memo);
      out = new DataView(buf, v.byteOffset, v.byteLength);
      break;
    }
    case "Map": {
      out = new Map();
      memo.set(v, out);
      for (const [k, x] of v) out.set(clone(k, memo), clone(x, memo));
      return out;
    }
    case "Set": {
      out = new Set();
      memo.set(v, out);
      for (const x of v) out.add(clone(x, memo));
      return out;
    }
    case "Error": {
      const name = String(v.name);
      const Ctor = Object.prototype.hasOwnProperty.call(errorTypes, name) ? errorTypes[name] : Error;
      out = Object.create(Ctor.prototype);
      memo.set(v, out);
      const define = (k, x) => Object.defineProperty(out, k, { value: x, writable: true, configurable: true, enumerable: false });
      if (v.message !== undefined) define("message", String(v.message));
      if (typeof v.stack === "string") define("stack", v.stack);
      if ("cause" in v) define("cause", clone(v.cause, memo));
      return out;
    }
    case "Array": {
      out = new Array(v.length);
      memo.set(v, out);
      for (const k of Object.keys(v)) out[k] = clone(v[k], memo);
      return out;
    }
    case "Object":
    case "Arguments":
      break;
    default:
      if (ArrayBuffer.isView(v)) {
        const buf = clone(v.buffer, memo);
        const Ctor = globalThis[tag];
        out = new Ctor(buf, v.byteOffset, v.length);
        break;
      }
      if (typeof v.then === "function" || tag === "Promise" || tag === "WeakMap" || tag === "WeakSet" || tag === "WeakRef") {
        throw cannotClone(`#<${tag}>`);
      }
  }
  if (out !== undefined) {
    memo.set(v, out);
    return out;
  }
  out = {};
  memo.set(v, out);
  for (const k of Object.keys(v)) out[k] = clone(v[k], memo);
  return out;
}

module.exports = { structuredClone };
