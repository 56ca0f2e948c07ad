// Node's querystring module: parse and stringify of
// application/x-www-form-urlencoded text, Node's escape and unescape.
"use strict";

function escape(str) {
  if (typeof str !== "string") str = typeof str === "object" ? String(str) : str + "";
  try {
    return encodeURIComponent(str);
  } catch (e) {
    const err = new URIError("URI malformed");
    err.code = "ERR_INVALID_URI";
    throw err;
  }
}

// unescapeBuffer decodes the %XX that are valid and keeps the rest as is.
function unescapeBuffer(s, decodeSpaces) {
  const { Buffer } = require("buffer");
  const out = Buffer.alloc(Buffer.byteLength(s));
  let o = 0;
  const bytes = Buffer.from(s);
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i];
    if (c === 43 && decodeSpaces) { out[o++] = 32; continue; }
    if (c === 37 && i + 2 < bytes.length && isHex(bytes[i + 1]) && isHex(bytes[i + 2])) {
      out[o++] = parseInt(String.fromCharCode(bytes[i + 1], bytes[i + 2]), 16);
      i += 2;
      continue;
    }
    out[o++] = c;
  }
  return out.subarray(0, o);
}
const isHex = (c) => (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);

function unescape(s, decodeSpaces) {
  try {
    return decodeURIComponent(s);
  } catch (e) {
    return unescapeBuffer(s, decodeSpaces).toString();
  }
}

function primitive(v) {
  if (typeof v === "string") return v;
  if (typeof v === "number" && Number.isFinite(v)) return "" + v;
  if (typeof v === "bigint") return "" + v;
  if (typeof v === "boolean") return v ? "true" : "false";
  return "";
}

function stringify(obj, sep = "&", eq = "=", options) {
  sep = sep || "&";
  eq = eq || "=";
  const encode = options && typeof options.encodeURIComponent === "function" ? options.encodeURIComponent : module.exports.escape;
  if (obj === null || typeof obj !== "object") return "";
  const parts = [];
  for (const k of Object.keys(obj)) {
    const v = obj[k];
    const ks = encode(primitive(k)) + eq;
    if (Array.isArray(v)) {
      for (const item of v) parts.push(ks + encode(primitive(item)));
    } else {
      parts.push(ks + encode(primitive(v)));
    }
  }
  return parts.join(sep);
}

function parse(qs, sep = "&", eq = "=", options) {
  const obj = Object.create(null);
  if (typeof qs !== "string" || qs.length === 0) return obj;
  sep = sep || "&";
  eq = eq || "=";
  let maxKeys = 1000;
  if (options && typeof options.maxKeys === "number") maxKeys = options.maxKeys;
  const custom = options && typeof options.decodeURIComponent === "function" && options.decodeURIComponent !== unescape;
  const decode = (s) => {
    s = s.replace(/\+/g, " ");
    if (custom) return options.decodeURIComponent(s);
    return s.includes("%") ? module.exports.unescape(s, true) : s;
  };
  let pieces = qs.split(sep);
  if (maxKeys > 0) pieces = pieces.slice(0, maxKeys);
  for (const piece of pieces) {
    if (piece.length === 0) continue;
    const i = piece.indexOf(eq);
    const k = decode(i >= 0 ? piece.slice(0, i) : piece);
    const v = i >= 0 ? decode(piece.slice(i + eq.length)) : "";
    if (!(k in obj)) obj[k] = v;
    else if (Array.isArray(obj[k])) obj[k].push(v);
    else obj[k] = [obj[k], v];
  }
  return obj;
}

module.exports = { parse, stringify, escape, unescape, unescapeBuffer, decode: parse, encode: stringify };
