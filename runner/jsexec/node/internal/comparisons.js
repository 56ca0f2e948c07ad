// Deep equality as Node's assert.deepStrictEqual (strict) and
// assert.deepEqual (loose) define it; util.isDeepStrictEqual is the strict one.
"use strict";
const toStr = (v) => Object.prototype.toString.call(v);
const isObj = (v) => v !== null && typeof v === "object";

function isDeepEqual(a, b, strict) {
  return inner(a, b, strict, new Map());
}

function inner(a, b, strict, memo) {
  if (a === b) return a !== 0 || !strict || Object.is(a, b);
  if (strict) {
    if (typeof a !== "object") return typeof a === "number" && Number.isNaN(a) && Number.isNaN(b);
    if (typeof b !== "object" || a === null || b === null) return false;
    if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  } else {
    if (!isObj(a)) return !isObj(b) && (a == b || (Number.isNaN(a) && Number.isNaN(b))); // eslint-disable-line eqeqeq
    if (!isObj(b)) return false;
  }
  const tag = toStr(a);
  if (tag !== toStr(b)) return false;
  // Pairs under comparison count as equal, which ends cycles.
  let seen = memo.get(a);
  if (seen && seen.has(b)) return true;
  if (!seen) memo.set(a, (seen = new Set()));
  seen.add(b);
  const equal = compareObjects(a, b, tag, strict, memo);
  if (!equal) seen.delete(b);
  return equal;
}

function compareObjects(a, b, tag, strict, memo) {
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
  } else if (tag === "[object Date]") {
    if (a.getTime() !== b.getTime()) return false;
  } else if (a instanceof RegExp) {
    if (!(b instanceof RegExp) || a.source !== b.source || a.flags !== b.flags || a.lastIndex !== b.lastIndex) return false;
  } else if (a instanceof Error) {
    if (a.message !== b.message || a.name !== b.name) return false;
  } else if (ArrayBuffer.isView(a)) {
    if (!ArrayBuffer.isView(b)) return false;
    const x = new Uint8Array(a.buffer, a.byteOffset, a.byteLength), y = new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
    if (!strict && (tag === "[object Float32Array]" || tag === "[object Float64Array]")) {
      if (a.length !== b.length) return false;
      for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
    } else if (!bytesEqual(x, y)) return false;
    return keysEqual(a, b, strict, memo, (k) => !/^\d+$/.test(k));
  } else if (tag === "[object ArrayBuffer]" || tag === "[object SharedArrayBuffer]") {
    if (!bytesEqual(new Uint8Array(a), new Uint8Array(b))) return false;
  } else if (tag === "[object Number]" || tag === "[object String]" || tag === "[object Boolean]" ||
    tag === "[object BigInt]" || tag === "[object Symbol]") {
    if (!Object.is(a.valueOf(), b.valueOf())) return false;
  }
  if (a instanceof Set) {
    if (!(b instanceof Set) || a.size !== b.size || !setEqual(a, b, strict, memo)) return false;
  } else if (a instanceof Map) {
    if (!(b instanceof Map) || a.size !== b.size || !mapEqual(a, b, strict, memo)) return false;
  }
  return keysEqual(a, b, strict, memo, () => true);
}

function bytesEqual(x, y) {
  if (x.length !== y.length) return false;
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
  return true;
}

function ownKeys(o, strict, keep) {
  const keys = Object.keys(o).filter(keep);
  if (strict) for (const s of Object.getOwnPropertySymbols(o)) if (Object.prototype.propertyIsEnumerable.call(o, s)) keys.push(s);
  return keys;
}

function keysEqual(a, b, strict, memo, keep) {
  const ka = ownKeys(a, strict, keep), kb = ownKeys(b, strict, keep);
  if (ka.length !== kb.length) return false;
  for (const k of ka) if (!Object.prototype.propertyIsEnumerable.call(b, k)) return false;
  for (const k of ka) if (!inner(a[k], b[k], strict, memo)) return false;
  return true;
}

function setEqual(a, b, strict, memo) {
  let rest = null;
  for (const v of a) {
    if (isObj(v) || (!strict && !b.has(v))) (rest || (rest = [])).push(v);
    else if (!b.has(v)) return false;
  }
  if (!rest) return true;
  const candidates = [...b].filter((v) => isObj(v) || !strict);
  for (const v of rest) {
    const i = candidates.findIndex((w) => inner(v, w, strict, memo));
    if (i < 0) return false;
    candidates.splice(i, 1);
  }
  return true;
}

function mapEqual(a, b, strict, memo) {
  let rest = null;
  for (const [k, v] of a) {
    if (!isObj(k) && b.has(k)) {
      if (!inner(v, b.get(k), strict, memo)) return false;
    } else if (isObj(k) || !strict) (rest || (rest = [])).push([k, v]);
    else return false;
  }
  if (!rest) return true;
  const candidates = [...b].filter(([k]) => isObj(k) || !strict);
  for (const [k, v] of rest) {
    const i = candidates.findIndex(([k2, v2]) => inner(k, k2, strict, memo) && inner(v, v2, strict, memo));
    if (i < 0) return false;
    candidates.splice(i, 1);
  }
  return true;
}

module.exports = { isDeepEqual };
