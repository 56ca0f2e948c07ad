// Node's buffer module: Buffer as a Uint8Array subclass with Node's
// encodings (utf8, hex, base64, base64url, latin1/binary, ascii, utf16le),
// its read/write helpers and errors; atob and btoa.
"use strict";
const { utf8Decode, utf8Write, utf8Length, latin1Decode } = require("internal/encoding");

const kMaxLength = 2 ** 32;
const INSPECT_MAX_BYTES = 50;

const { invalidArgType: argType, outOfRange, withCode } = require("internal/errors");
const codeError = (Ctor, code, msg) => withCode(new Ctor(msg), code);

// ---- encodings ----

const encodings = {
  utf8: "utf8", "utf-8": "utf8", hex: "hex", base64: "base64", base64url: "base64url", latin1: "latin1",
  binary: "latin1", ascii: "ascii", utf16le: "utf16le", "utf-16le": "utf16le", ucs2: "utf16le", "ucs-2": "utf16le",
};
function normEncoding(enc) {
  if (enc === undefined || enc === null || enc === "") return "utf8";
  const e = encodings[String(enc).toLowerCase()];
  if (e === undefined) throw codeError(TypeError, "ERR_UNKNOWN_ENCODING", `Unknown encoding: ${enc}`);
  return e;
}

const b64chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const b64index = new Int16Array(256).fill(-1);
for (let i = 0; i < 64; i++) b64index[b64chars.charCodeAt(i)] = i;
b64index[45] = 62; // '-' of base64url
b64index[95] = 63; // '_'

function base64Encode(bytes, url) {
  const chars = url ? b64chars.slice(0, 62) + "-_" : b64chars;
  let s = "";
  const parts = [];
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
    s += chars[n >> 18] + chars[(n >> 12) & 63] + chars[(n >> 6) & 63] + chars[n & 63];
    if (s.length >= 8192) { parts.push(s); s = ""; }
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = bytes[i] << 16;
    s += chars[n >> 18] + chars[(n >> 12) & 63] + (url ? "" : "==");
  } else if (rest === 2) {
    const n = (bytes[i] << 16) | (bytes[i + 1] << 8);
    s += chars[n >> 18] + chars[(n >> 12) & 63] + chars[(n >> 6) & 63] + (url ? "" : "=");
  }
  parts.push(s);
  return parts.join("");
}
// Node decodes both alphabets, skips characters outside them and stops at '='.
function base64Decode(str) {
  const out = new Uint8Array(Math.ceil(str.length * 3 / 4));
  let n = 0, bits = 0, o = 0;
  for (let i = 0; i < str.length; i++) {
    const c = str.charCodeAt(i);
    if (c === 61) break;
    const v = c < 256 ? b64index[c] : -1;
    if (v < 0) continue;
    n = (n << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (n >> bits) & 0xff;
    }
  }
  return out.subarray(0, o);
}
function base64Length(str) {
  let n = str.length;
  while (n > 0 && str.charCodeAt(n - 1) === 61) n--;
  return (n * 3) >>> 2;
}

const hexDigits = [];
for (let i = 0; i < 256; i++) hexDigits.push(i.toString(16).padStart(2, "0"));
function hexDecode(str) {
  const out = new Uint8Array(str.length >>> 1);
  let i = 0;
  for (; i < out.length; i++) {
    const h = parseInt(str.substr(i * 2, 2), 16);
    if (Number.isNaN(h) || !/^[0-9a-fA-F]{2}$/.test(str.substr(i * 2, 2))) break;
    out[i] = h;
  }
  return out.subarray(0, i);
}

function encode(str, enc) {
  switch (enc) {
    case "utf8": {
      const out = new Uint8Array(utf8Length(str));
      utf8Write(str, out);
      return out;
    }
    case "hex": return hexDecode(str);
    case "base64": case "base64url": return base64Decode(str);
    case "latin1": case "ascii": {
      const out = new Uint8Array(str.length);
      for (let i = 0; i < str.length; i++) out[i] = str.charCodeAt(i);
      return out;
    }
    case "utf16le": {
      const out = new Uint8Array(str.length * 2);
      for (let i = 0; i < str.length; i++) {
        const c = str.charCodeAt(i);
        out[2 * i] = c & 0xff;
        out[2 * i + 1] = c >> 8;
      }
      return out;
    }
  }
}

function decode(bytes, enc, start, end) {
  switch (enc) {
    case "utf8": return utf8Decode(bytes, start, end);
    case "latin1": return latin1Decode(bytes, start, end);
    case "ascii": {
      let s = "";
      for (let i = start; i < end; i++) s += String.fromCharCode(bytes[i] & 0x7f);
      return s;
    }
    case "hex": {
      let s = "";
      for (let i = start; i < end; i++) s += hexDigits[bytes[i]];
      return s;
    }
    case "base64": case "base64url": return base64Encode(bytes.subarray(start, end), enc === "base64url");
    case "utf16le": {
      let s = "";
      for (let i = start; i + 1 < end; i += 2) s += String.fromCharCode(bytes[i] | (bytes[i + 1] << 8));
      return s;
    }
  }
}

function byteLengthOf(str, enc) {
  switch (enc) {
    case "utf8": return utf8Length(str);
    case "hex": return str.length >>> 1;
    case "base64": case "base64url": return base64Length(str);
    case "utf16le": return str.length * 2;
    default: return str.length;
  }
}

// ---- Buffer ----

function isAnyArrayBuffer(v) {
  return v instanceof ArrayBuffer || (typeof SharedArrayBuffer === "function" && v instanceof SharedArrayBuffer) ||
    Object.prototype.toString.call(v) === "[object ArrayBuffer]";
}

class Buffer extends Uint8Array {
  // new Buffer(...) is deprecated in Node but still works; typed array
  // methods (subarray, map, filter) also construct through here.
  constructor(arg, encodingOrOffset, length) {
    if (typeof arg === "number" || isAnyArrayBuffer(arg)) {
      super(arg, encodingOrOffset, length);
    } else {
      return Buffer.from(arg, encodingOrOffset, length);
    }
  }

  static from(value, encodingOrOffset, length) {
    if (typeof value === "string") return fromString(value, encodingOrOffset);
    if (typeof value === "object" && value !== null) {
      if (isAnyArrayBuffer(value)) {
        const off = encodingOrOffset === undefined ? 0 : +encodingOrOffset || 0;
        if (off > value.byteLength) throw codeError(RangeError, "ERR_BUFFER_OUT_OF_BOUNDS", '"offset" is outside of buffer bounds');
        const len = length === undefined ? value.byteLength - off : +length || 0;
        if (off + len > value.byteLength) throw codeError(RangeError, "ERR_BUFFER_OUT_OF_BOUNDS", '"length" is outside of buffer bounds');
        return new Buffer(value, off, len);
      }
      if (ArrayBuffer.isView(value)) {
        const b = new Buffer(value.length);
        if (value instanceof Uint8Array) b.set(value);
        else for (let i = 0; i < value.length; i++) b[i] = value[i];
        return b;
      }
      const prim = value.valueOf && value.valueOf();
      if (prim != null && prim !== value && (typeof prim === "string" || typeof prim === "object")) {
        return Buffer.from(prim, encodingOrOffset, length);
      }
      if (typeof value.length === "number" || Array.isArray(value)) return fromArrayLike(value);
      if (value.type === "Buffer" && Array.isArray(value.data)) return fromArrayLike(value.data);
      if (typeof value[Symbol.toPrimitive] === "function") {
        const p = value[Symbol.toPrimitive]("string");
        if (typeof p === "string") return fromString(p, encodingOrOffset);
      }
    }
    throw argType("first argument", "of type string or an instance of Buffer, ArrayBuffer, or Array or an Array-like Object", value);
  }
  static alloc(size, fill, encoding) {
    checkSize(size);
    const b = new Buffer(size);
    if (fill !== undefined && fill !== 0 && size > 0) b.fill(fill, encoding);
    return b;
  }
  static allocUnsafe(size) { checkSize(size); return new Buffer(size); }
  static allocUnsafeSlow(size) { checkSize(size); return new Buffer(size); }
  static isBuffer(b) { return b instanceof Buffer; }
  static isEncoding(enc) { return typeof enc === "string" && enc !== "" && encodings[enc.toLowerCase()] !== undefined; }
  static byteLength(v, enc) {
    if (typeof v === "string") return byteLengthOf(v, normEncodingLoose(enc));
    if (ArrayBuffer.isView(v) || isAnyArrayBuffer(v)) return v.byteLength;
    throw argType("string", "of type string or an instance of Buffer or ArrayBuffer", v);
  }
  static compare(a, b) {
    if (!(a instanceof Uint8Array)) throw argType("buf1", "an instance of Buffer or Uint8Array", a);
    if (!(b instanceof Uint8Array)) throw argType("buf2", "an instance of Buffer or Uint8Array", b);
    return compareBytes(a, 0, a.length, b, 0, b.length);
  }
  static concat(list, totalLength) {
    if (!Array.isArray(list)) throw argType("list", "an instance of Array", list);
    if (totalLength === undefined) totalLength = list.reduce((n, b) => n + b.length, 0);
    const out = Buffer.alloc(totalLength);
    let o = 0;
    for (let i = 0; i < list.length; i++) {
      const b = list[i];
      if (!(b instanceof Uint8Array)) throw argType(`list[${i}]`, "an instance of Buffer or Uint8Array", b);
      if (o >= totalLength) break;
      const n = Math.min(b.length, totalLength - o);
      out.set(n === b.length ? b : b.subarray(0, n), o);
      o += n;
    }
    return out;
  }
  static copyBytesFrom(view, offset = 0, length = view.length - offset) {
    const bytes = new Uint8Array(view.buffer, view.byteOffset + offset * view.BYTES_PER_ELEMENT,
      Math.max(0, Math.min(length, view.length - offset)) * view.BYTES_PER_ELEMENT);
    return Buffer.from(bytes);
  }

  get parent() { return this.buffer; }
  get offset() { return this.byteOffset; }

  toString(encoding, start, end) {
    if (arguments.length === 0) return utf8Decode(this, 0, this.length);
    const len = this.length;
    start = start === undefined || start <= 0 ? 0 : Math.floor(start) || 0;
    end = end === undefined || end > len ? len : Math.floor(end) || 0;
    if (start >= len || end <= start) return "";
    return decode(this, normEncoding(encoding), start, end);
  }
  toLocaleString(encoding, start, end) { return this.toString(encoding, start, end); }
  toJSON() { return { type: "Buffer", data: Array.from(this) }; }
  equals(other) {
    if (!(other instanceof Uint8Array)) throw argType("otherBuffer", "an instance of Buffer or Uint8Array", other);
    return compareBytes(this, 0, this.length, other, 0, other.length) === 0;
  }
  compare(target, targetStart = 0, targetEnd = target.length, sourceStart = 0, sourceEnd = this.length) {
    if (!(target instanceof Uint8Array)) throw argType("target", "an instance of Buffer or Uint8Array", target);
    checkBound("targetStart", targetStart, target.length);
    checkBound("targetEnd", targetEnd, target.length);
    checkBound("sourceStart", sourceStart, this.length);
    checkBound("sourceEnd", sourceEnd, this.length);
    if (sourceStart >= sourceEnd) return targetStart >= targetEnd ? 0 : -1;
    if (targetStart >= targetEnd) return 1;
    return compareBytes(this, sourceStart, sourceEnd, target, targetStart, targetEnd);
  }
  copy(target, targetStart = 0, sourceStart = 0, sourceEnd = this.length) {
    if (!(target instanceof Uint8Array)) throw argType("target", "an instance of Buffer or Uint8Array", target);
    targetStart = toInt(targetStart); sourceStart = toInt(sourceStart); sourceEnd = Math.min(toInt(sourceEnd), this.length);
    if (targetStart < 0) throw outOfRange("targetStart", ">= 0", targetStart);
    if (sourceStart < 0 || sourceStart > this.length) throw outOfRange("sourceStart", `>= 0 && <= ${this.length}`, sourceStart);
    if (targetStart >= target.length || sourceStart >= sourceEnd) return 0;
    const n = Math.min(sourceEnd - sourceStart, target.length - targetStart);
    target.set(this.subarray(sourceStart, sourceStart + n), targetStart);
    return n;
  }
  fill(value, offset, end, encoding) {
    if (typeof offset === "string") { encoding = offset; offset = 0; end = this.length; }
    else if (typeof end === "string") { encoding = end; end = this.length; }
    offset = offset === undefined ? 0 : toInt(offset);
    end = end === undefined ? this.length : toInt(end);
    if (offset < 0 || offset > this.length) throw outOfRange("offset", `>= 0 && <= ${this.length}`, offset);
    if (end < 0 || end > this.length) throw outOfRange("end", `>= 0 && <= ${this.length}`, end);
    if (end <= offset) return this;
    if (typeof value === "number") return Uint8Array.prototype.fill.call(this, value & 255, offset, end);
    if (typeof value === "boolean") return Uint8Array.prototype.fill.call(this, +value, offset, end);
    let bytes;
    if (typeof value === "string") {
      const enc = normEncoding(encoding);
      if (value.length === 1 && enc === "utf8" && value.charCodeAt(0) < 128) {
        return Uint8Array.prototype.fill.call(this, value.charCodeAt(0), offset, end);
      }
      bytes = encode(value, enc);
      if (bytes.length === 0) {
        if (value === "") return Uint8Array.prototype.fill.call(this, 0, offset, end);
        throw codeError(TypeError, "ERR_INVALID_ARG_VALUE", `The argument 'value' is invalid. Received '${value}'`);
      }
    } else if (value instanceof Uint8Array) {
      bytes = value;
    } else {
      return Uint8Array.prototype.fill.call(this, Number(value) & 255, offset, end);
    }
    for (let i = offset, j = 0; i < end; i++, j = (j + 1) % bytes.length) this[i] = bytes[j];
    return this;
  }
  write(string, offset, length, encoding) {
    if (typeof string !== "string") throw argType("argument", "of type string", string);
    if (typeof offset === "string") { encoding = offset; offset = 0; length = this.length; }
    else if (typeof length === "string") { encoding = length; length = undefined; }
    offset = offset === undefined ? 0 : toInt(offset);
    if (offset < 0 || offset > this.length) throw outOfRange("offset", `>= 0 && <= ${this.length}`, offset);
    const room = this.length - offset;
    length = length === undefined ? room : Math.min(room, toInt(length));
    if (length < 0) throw outOfRange("length", `>= 0 && <= ${room}`, length);
    const enc = normEncoding(encoding);
    if (enc === "utf8") return utf8Write(string, this, offset, length)[0];
    let bytes = encode(string, enc);
    if (enc === "utf16le") bytes = bytes.subarray(0, length & ~1);
    const n = Math.min(bytes.length, length);
    this.set(bytes.subarray(0, n), offset);
    return n;
  }
  slice(start, end) { return this.subarray(start, end); }
  indexOf(value, byteOffset, encoding) { return search(this, value, byteOffset, encoding, true); }
  lastIndexOf(value, byteOffset, encoding) { return search(this, value, byteOffset, encoding, false); }
  includes(value, byteOffset, encoding) { return this.indexOf(value, byteOffset, encoding) !== -1; }
  swap16() { return swap(this, 2); }
  swap32() { return swap(this, 4); }
  swap64() { return swap(this, 8); }
  [Symbol.for("nodejs.util.inspect.custom")](depth, options) {
    const max = Math.min(INSPECT_MAX_BYTES, this.length);
    let s = "";
    for (let i = 0; i < max; i++) s += (i ? " " : "") + hexDigits[this[i]];
    if (this.length > max) s += ` ... ${this.length - max} more byte${this.length - max > 1 ? "s" : ""}`;
    const extra = Object.keys(this).filter((k) => !/^\d+$/.test(k));
    if (extra.length) {
      const inspect = require("util").inspect;
      if (this.length !== 0) s += ", ";
      s += extra.map((k) => `${k}: ${inspect(this[k], { ...options, breakLength: Infinity, compact: true })}`).join(", ");
    }
    return `<${this.constructor.name} ${s}>`;
  }
}
Buffer.poolSize = 8192;

function normEncodingLoose(enc) {
  return encodings[String(enc).toLowerCase()] || "utf8";
}
function fromString(str, enc) {
  const bytes = encode(str, normEncoding(enc));
  return new Buffer(bytes.buffer, bytes.byteOffset, bytes.length);
}
function fromArrayLike(a) {
  const n = a.length > 0 ? a.length >>> 0 : 0;
  const b = new Buffer(n);
  for (let i = 0; i < n; i++) b[i] = a[i];
  return b;
}
function checkSize(size) {
  if (typeof size !== "number") throw argType("size", "of type number", size);
  if (!(size >= 0 && size <= kMaxLength)) throw outOfRange("size", `>= 0 && <= ${kMaxLength}`, size);
}
function toInt(v) {
  const n = Math.trunc(Number(v));
  return Number.isNaN(n) ? 0 : n;
}
function checkBound(name, v, max) {
  if (typeof v !== "number") throw argType(name, "of type number", v);
  if (!Number.isInteger(v)) throw outOfRange(name, "an integer", v);
  if (v < 0 || v > max) throw outOfRange(name, `>= 0 and <= ${max}`, v);
}
function compareBytes(a, as, ae, b, bs, be) {
  const n = Math.min(ae - as, be - bs);
  for (let i = 0; i < n; i++) {
    if (a[as + i] !== b[bs + i]) return a[as + i] < b[bs + i] ? -1 : 1;
  }
  const la = ae - as, lb = be - bs;
  return la < lb ? -1 : la > lb ? 1 : 0;
}
function swap(b, size) {
  if (b.length % size !== 0) throw codeError(RangeError, "ERR_INVALID_BUFFER_SIZE", `Buffer size must be a multiple of ${size * 8}-bits`);
  for (let i = 0; i < b.length; i += size) {
    for (let j = 0; j < size / 2; j++) {
      const t = b[i + j];
      b[i + j] = b[i + size - 1 - j];
      b[i + size - 1 - j] = t;
    }
  }
  return b;
}
function search(buf, value, byteOffset, encoding, forward) {
  if (typeof byteOffset === "string") { encoding = byteOffset; byteOffset = undefined; }
  let off = byteOffset === undefined ? (forward ? 0 : buf.length) : Number(byteOffset);
  if (Number.isNaN(off)) off = forward ? 0 : buf.length;
  off = Math.trunc(off);
  if (off < 0) off += buf.length;
  let needle;
  if (typeof value === "number") needle = [value & 255];
  else if (typeof value === "string") needle = encode(value, normEncoding(encoding));
  else if (value instanceof Uint8Array) needle = value;
  else throw argType("value", "one of type number or string or an instance of Buffer or Uint8Array", value);
  const n = needle.length;
  if (n === 0) return forward ? Math.min(Math.max(off, 0), buf.length) : Math.min(off, buf.length);
  if (forward) {
    for (let i = Math.max(off, 0); i <= buf.length - n; i++) if (matchAt(buf, needle, i)) return i;
  } else {
    for (let i = Math.min(off, buf.length - n); i >= 0; i--) if (matchAt(buf, needle, i)) return i;
  }
  return -1;
}
function matchAt(buf, needle, i) {
  for (let j = 0; j < needle.length; j++) if (buf[i + j] !== needle[j]) return false;
  return true;
}

// ---- numbers ----

function checkOffset(buf, offset, n) {
  if (offset === undefined) offset = 0;
  if (typeof offset !== "number") throw argType("offset", "of type number", offset);
  if (!Number.isInteger(offset)) throw outOfRange("offset", "an integer", offset);
  if (buf.length - n < 0) throw codeError(RangeError, "ERR_BUFFER_OUT_OF_BOUNDS", "Attempt to access memory outside buffer bounds");
  if (offset < 0 || offset > buf.length - n) throw outOfRange("offset", `>= 0 and <= ${buf.length - n}`, offset);
  return offset;
}
function checkByteLength(n) {
  if (typeof n !== "number") throw argType("byteLength", "of type number", n);
  if (!Number.isInteger(n) || n < 1 || n > 6) throw outOfRange("byteLength", ">= 1 and <= 6", n);
}
function checkValue(value, min, max, n) {
  if (typeof value !== "number") throw argType("value", "of type number", value);
  if (value < min || value > max || Number.isNaN(value)) {
    let range;
    if (n > 4) range = min === 0 ? `>= 0 and < 2 ** ${n * 8}` : `>= -(2 ** ${n * 8 - 1}) and < 2 ** ${n * 8 - 1}`;
    else range = `>= ${min} and <= ${max}`;
    throw outOfRange("value", range, value);
  }
}

function readUInt(buf, offset, n, le) {
  offset = checkOffset(buf, offset, n);
  let v = 0;
  for (let i = 0; i < n; i++) v += buf[offset + (le ? i : n - 1 - i)] * 2 ** (8 * i);
  return v;
}
function readInt(buf, offset, n, le) {
  const v = readUInt(buf, offset, n, le);
  const limit = 2 ** (8 * n - 1);
  return v >= limit ? v - 2 * limit : v;
}
function writeUInt(buf, value, offset, n, le, min, max) {
  checkValue(value, min, max, n);
  offset = checkOffset(buf, offset, n);
  let v = value < 0 ? value + 2 ** (8 * n) : value;
  v = Math.trunc(v);
  for (let i = 0; i < n; i++) {
    buf[offset + (le ? i : n - 1 - i)] = v % 256;
    v = Math.floor(v / 256);
  }
  return offset + n;
}

const scratch = new ArrayBuffer(8);
const f32 = new Float32Array(scratch), f64 = new Float64Array(scratch), u8 = new Uint8Array(scratch);
const b64 = new BigUint64Array(scratch), i64 = new BigInt64Array(scratch);
const littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
function readVia(arr, n) {
  return function (buf, offset, le) {
    offset = checkOffset(buf, offset, n);
    for (let i = 0; i < n; i++) u8[le === littleEndian ? i : n - 1 - i] = buf[offset + i];
    return arr[0];
  };
}
function writeVia(arr, n, check) {
  return function (buf, value, offset, le) {
    check(value);
    offset = checkOffset(buf, offset, n);
    arr[0] = value;
    for (let i = 0; i < n; i++) buf[offset + i] = u8[le === littleEndian ? i : n - 1 - i];
    return offset + n;
  };
}
const checkNumber = (v) => { if (typeof v !== "number") throw argType("value", "of type number", v); };
function checkBig(min, max) {
  return (v) => {
    if (typeof v !== "bigint") throw argType("value", "of type bigint", v);
    if (v < min || v > max) throw outOfRange("value", min === 0n ? ">= 0n and < 2n ** 64n" : ">= -(2n ** 63n) and < 2n ** 63n", v);
  };
}
const rw = {
  Float: [readVia(f32, 4), writeVia(f32, 4, checkNumber)],
  Double: [readVia(f64, 8), writeVia(f64, 8, checkNumber)],
  BigUInt64: [readVia(b64, 8), writeVia(b64, 8, checkBig(0n, 2n ** 64n - 1n))],
  BigInt64: [readVia(i64, 8), writeVia(i64, 8, checkBig(-(2n ** 63n), 2n ** 63n - 1n))],
};

const P = Buffer.prototype;
for (const [bits, n] of [[8, 1], [16, 2], [32, 4]]) {
  for (const end of n === 1 ? [""] : ["LE", "BE"]) {
    const le = end !== "BE";
    const umax = 2 ** bits - 1, smax = 2 ** (bits - 1) - 1, smin = -(2 ** (bits - 1));
    P[`readUInt${bits}${end}`] = function (offset = 0) { return readUInt(this, offset, n, le); };
    P[`readInt${bits}${end}`] = function (offset = 0) { return readInt(this, offset, n, le); };
    P[`writeUInt${bits}${end}`] = function (value, offset = 0) { return writeUInt(this, value, offset, n, le, 0, umax); };
    P[`writeInt${bits}${end}`] = function (value, offset = 0) { return writeUInt(this, value, offset, n, le, smin, smax); };
  }
}
for (const end of ["LE", "BE"]) {
  const le = end === "LE";
  P[`readUInt${end}`] = function (offset, byteLength) { checkByteLength(byteLength); return readUInt(this, offset, byteLength, le); };
  P[`readInt${end}`] = function (offset, byteLength) { checkByteLength(byteLength); return readInt(this, offset, byteLength, le); };
  P[`writeUInt${end}`] = function (value, offset, byteLength) {
    checkByteLength(byteLength);
    return writeUInt(this, value, offset, byteLength, le, 0, 2 ** (8 * byteLength) - 1);
  };
  P[`writeInt${end}`] = function (value, offset, byteLength) {
    checkByteLength(byteLength);
    return writeUInt(this, value, offset, byteLength, le, -(2 ** (8 * byteLength - 1)), 2 ** (8 * byteLength - 1) - 1);
  };
  for (const [name, [read, write]] of Object.entries(rw)) {
    P[`read${name}${end}`] = function (offset = 0) { return read(this, offset, le); };
    P[`write${name}${end}`] = function (value, offset = 0) { return write(this, value, offset, le); };
  }
}
// Node's lower-case aliases: readUint8, writeBigUint64LE, ...
for (const k of Object.getOwnPropertyNames(P)) {
  if (/UInt/.test(k)) P[k.replace("UInt", "Uint")] = P[k];
}

// ---- atob/btoa ----

function invalidChar(msg) {
  return new DOMException(msg, "InvalidCharacterError");
}
function btoa(input) {
  if (arguments.length === 0) throw argType("input", "specified", undefined);
  const s = String(input);
  const bytes = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c > 0xff) throw invalidChar("Invalid character");
    bytes[i] = c;
  }
  return base64Encode(bytes, false);
}
// atob follows the WHATWG forgiving-base64 decode, with Node's messages.
function atob(input) {
  if (arguments.length === 0) throw argType("input", "specified", undefined);
  const s = String(input);
  let count = 0, equals = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === " " || c === "\t" || c === "\n" || c === "\f" || c === "\r") continue;
    count++;
    if (c === "=") {
      if (++equals > 2) throw invalidChar("Invalid character");
    } else if (equals || !/[A-Za-z0-9+/]/.test(c)) throw invalidChar("Invalid character");
  }
  let rest = count % 4;
  if (!rest) rest = (count - equals) % 4;
  else if (equals) throw invalidChar("Invalid character");
  if (rest === 1) throw invalidChar("The string to be decoded is not correctly encoded.");
  return latin1Decode(base64Decode(s));
}

function isUtf8(input) {
  const bytes = isAnyArrayBuffer(input) ? new Uint8Array(input) : new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
  try {
    new (require("internal/encoding").TextDecoder)("utf-8", { fatal: true }).decode(bytes);
    return true;
  } catch (e) {
    return false;
  }
}
function isAscii(input) {
  const bytes = isAnyArrayBuffer(input) ? new Uint8Array(input) : new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
  return bytes.every((b) => b < 0x80);
}

function SlowBuffer(size) { return Buffer.allocUnsafeSlow(size); }

module.exports = {
  Buffer, SlowBuffer, atob, btoa, isUtf8, isAscii, kMaxLength, kStringMaxLength: 2 ** 29 - 24,
  constants: { MAX_LENGTH: kMaxLength, MAX_STRING_LENGTH: 2 ** 29 - 24 },
  INSPECT_MAX_BYTES,
};
