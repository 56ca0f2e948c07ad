// Node's url module: the WHATWG URL and URLSearchParams (QuickJS has
// neither), fileURLToPath and pathToFileURL, and the legacy url.parse,
// url.format and url.resolve.
"use strict";
const { invalidArgType, withCode } = require("internal/errors");

const specialPorts = { "ftp": 21, "file": null, "http": 80, "https": 443, "ws": 80, "wss": 443 };
const isSpecial = (scheme) => Object.prototype.hasOwnProperty.call(specialPorts, scheme);

function invalidURL(input, base) {
  const e = withCode(new TypeError("Invalid URL"), "ERR_INVALID_URL");
  e.input = input;
  if (base !== undefined) e.base = base;
  return e;
}

// ---- percent-encoding ----

const hex = (b) => "%" + (b < 16 ? "0" : "") + b.toString(16).toUpperCase();
function utf8Bytes(cp) {
  if (cp < 0x80) return [cp];
  if (cp < 0x800) return [0xc0 | (cp >> 6), 0x80 | (cp & 63)];
  if (cp < 0x10000) return [0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63)];
  return [0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 63), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63)];
}
const c0 = (c) => c < 0x20 || c > 0x7e;
const fragmentSet = (c) => c0(c) || c === 0x20 || c === 0x22 || c === 0x3c || c === 0x3e || c === 0x60;
const querySet = (c) => c0(c) || c === 0x20 || c === 0x22 || c === 0x23 || c === 0x3c || c === 0x3e;
const specialQuerySet = (c) => querySet(c) || c === 0x27;
const pathSet = (c) => querySet(c) || c === 0x3f || c === 0x60 || c === 0x7b || c === 0x7d;
const userinfoSet = (c) => pathSet(c) || c === 0x2f || c === 0x3a || c === 0x3b || c === 0x3d || c === 0x40 ||
  (c >= 0x5b && c <= 0x5e) || c === 0x7c;

function encodeSet(s, inSet) {
  let out = "";
  for (const ch of s) {
    let cp = ch.codePointAt(0);
    if (cp >= 0xd800 && cp <= 0xdfff) cp = 0xfffd;
    if (inSet(cp)) for (const b of utf8Bytes(cp)) out += hex(b);
    else out += ch;
  }
  return out;
}

function percentDecodeBytes(s) {
  const bytes = [];
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 37 && /^[0-9a-fA-F]{2}$/.test(s.substr(i + 1, 2))) {
      bytes.push(parseInt(s.substr(i + 1, 2), 16));
      i += 2;
    } else if (c < 0x80) {
      bytes.push(c);
    } else {
      const cp = s.codePointAt(i);
      if (cp > 0xffff) i++;
      bytes.push(...utf8Bytes(cp >= 0xd800 && cp <= 0xdfff ? 0xfffd : cp));
    }
  }
  return new Uint8Array(bytes);
}
const percentDecode = (s) => require("internal/encoding").utf8Decode(percentDecodeBytes(s));

// ---- hosts ----

// RFC 3492's bias adaptation, shared by the encoder and the decoder.
function adapt(d, num, first) {
  d = first ? Math.floor(d / 700) : d >> 1;
  d += Math.floor(d / num);
  let k = 0;
  for (; d > 455; k += 36) d = Math.floor(d / 35);
  return k + Math.floor((36 * d) / (d + 38));
}

function punycodeEncode(label) {
  const cps = Array.from(label, (c) => c.codePointAt(0));
  let out = cps.filter((c) => c < 0x80).map((c) => String.fromCharCode(c)).join("");
  const basic = out.length;
  let h = basic;
  if (basic) out += "-";
  let n = 128, delta = 0, bias = 72;
  const digit = (d) => String.fromCharCode(d < 26 ? d + 97 : d + 22);
  while (h < cps.length) {
    const m = Math.min(...cps.filter((c) => c >= n));
    delta += (m - n) * (h + 1);
    n = m;
    for (const c of cps) {
      if (c < n) delta++;
      if (c === n) {
        let q = delta;
        for (let k = 36; ; k += 36) {
          const t = k <= bias ? 1 : k >= bias + 26 ? 26 : k - bias;
          if (q < t) break;
          out += digit(t + ((q - t) % (36 - t)));
          q = Math.floor((q - t) / (36 - t));
        }
        out += digit(q);
        bias = adapt(delta, h + 1, h === basic);
        delta = 0;
        h++;
      }
    }
    delta++;
    n++;
  }
  return out;
}

function punycodeDecode(input) {
  const out = [];
  let basic = input.lastIndexOf("-");
  if (basic < 0) basic = 0;
  for (let j = 0; j < basic; j++) out.push(input.charCodeAt(j));
  let n = 128, bias = 72, i = 0;
  for (let idx = basic > 0 ? basic + 1 : 0; idx < input.length;) {
    const oldi = i;
    for (let w = 1, k = 36; ; k += 36) {
      if (idx >= input.length) throw new RangeError("invalid punycode");
      const c = input.charCodeAt(idx++);
      const d = c - 48 < 10 ? c - 22 : c - 65 < 26 ? c - 65 : c - 97 < 26 ? c - 97 : 36;
      if (d >= 36) throw new RangeError("invalid punycode");
      i += d * w;
      const t = k <= bias ? 1 : k >= bias + 26 ? 26 : k - bias;
      if (d < t) break;
      w *= 36 - t;
    }
    bias = adapt(i - oldi, out.length + 1, oldi === 0);
    n += Math.floor(i / (out.length + 1));
    i %= out.length + 1;
    out.splice(i++, 0, n);
  }
  return String.fromCodePoint(...out);
}

function domainToASCII(domain) {
  return String(domain).toLowerCase().normalize("NFC").split(/[.\u3002\uff0e\uff61]/)
    .map((l) => {
      if (/^[\x00-\x7f]*$/.test(l)) return l;
      if (l.startsWith("xn--")) throw new RangeError("invalid label");
      return "xn--" + punycodeEncode(l);
    }).join(".");
}

const forbiddenHost = /[\x00\t\n\r #/:<>?@[\\\]^|]/;
const forbiddenDomain = /[\x00-\x1f\t\n\r #%/:<>?@[\\\]^|\x7f]/;

function parseIPv4Number(s) {
  if (s === "") return NaN;
  let radix = 10;
  if (/^0[xX]/.test(s)) { s = s.slice(2); radix = 16; } else if (s.length > 1 && s[0] === "0") { s = s.slice(1); radix = 8; }
  if (s === "") return 0;
  const re = radix === 16 ? /^[0-9a-fA-F]+$/ : radix === 8 ? /^[0-7]+$/ : /^[0-9]+$/;
  return re.test(s) ? parseInt(s, radix) : NaN;
}
function endsInNumber(host) {
  const parts = host.split(".");
  if (parts[parts.length - 1] === "" && parts.length > 1) parts.pop();
  const last = parts[parts.length - 1];
  return /^[0-9]+$/.test(last) || !Number.isNaN(parseIPv4Number(last)) && /^0[xX]/.test(last) || /^0[xX]$/.test(last);
}
function parseIPv4(host) {
  const parts = host.split(".");
  if (parts[parts.length - 1] === "" && parts.length > 1) parts.pop();
  if (parts.length > 4) return null;
  const nums = parts.map(parseIPv4Number);
  if (nums.some(Number.isNaN)) return null;
  for (let i = 0; i < nums.length - 1; i++) if (nums[i] > 255) return null;
  if (nums[nums.length - 1] >= 256 ** (5 - nums.length)) return null;
  let ip = nums[nums.length - 1];
  for (let i = 0; i < nums.length - 1; i++) ip += nums[i] * 256 ** (3 - i);
  return [ip >>> 24, (ip >>> 16) & 255, (ip >>> 8) & 255, ip & 255].join(".");
}

function parseIPv6(s) {
  const pieces = [0, 0, 0, 0, 0, 0, 0, 0];
  let piece = 0, compress = null, i = 0;
  if (s[0] === ":") {
    if (s[1] !== ":") return null;
    i = 2;
    compress = ++piece;
  }
  while (i < s.length) {
    if (piece === 8) return null;
    if (s[i] === ":") {
      if (compress !== null) return null;
      i++;
      compress = ++piece;
      continue;
    }
    let value = 0, len = 0;
    while (len < 4 && i < s.length && /[0-9a-fA-F]/.test(s[i])) { value = value * 16 + parseInt(s[i], 16); i++; len++; }
    if (s[i] === ".") {
      if (len === 0 || piece > 6) return null;
      i -= len;
      const v4 = s.slice(i).split(".");
      if (v4.length !== 4 || v4.some((p) => !/^(0|[1-9][0-9]{0,2})$/.test(p) || Number(p) > 255)) return null;
      pieces[piece++] = Number(v4[0]) * 256 + Number(v4[1]);
      pieces[piece++] = Number(v4[2]) * 256 + Number(v4[3]);
      i = s.length;
      break;
    }
    if (s[i] === ":") { i++; if (i === s.length) return null; } else if (i < s.length) return null;
    pieces[piece++] = value;
  }
  if (compress !== null) {
    let swaps = piece - compress;
    piece = 7;
    while (piece !== 0 && swaps > 0) {
      const t = pieces[compress + swaps - 1];
      pieces[compress + swaps - 1] = pieces[piece];
      pieces[piece] = t;
      piece--; swaps--;
    }
  } else if (piece !== 8) return null;
  // Serialize, compressing the longest run of two or more zero pieces.
  let best = -1, bestLen = 1;
  for (let j = 0; j < 8;) {
    let k = j;
    while (k < 8 && pieces[k] === 0) k++;
    if (k - j > bestLen) { best = j; bestLen = k - j; }
    j = k === j ? j + 1 : k;
  }
  let out = "";
  for (let j = 0; j < 8; j++) {
    if (j === best) { out += j === 0 ? "::" : ":"; j += bestLen - 1; continue; }
    out += pieces[j].toString(16) + (j < 7 ? ":" : "");
  }
  return "[" + out + "]";
}

function parseHost(input, special) {
  if (input.startsWith("[")) {
    if (!input.endsWith("]")) return null;
    return parseIPv6(input.slice(1, -1));
  }
  if (!special) return forbiddenHost.test(input) ? null : encodeSet(input, c0);
  const domain = percentDecode(input);
  let ascii;
  try { ascii = domainToASCII(domain); } catch (e) { return null; }
  if (ascii === "" || forbiddenDomain.test(ascii)) return null;
  if (endsInNumber(ascii)) return parseIPv4(ascii);
  return ascii;
}

// ---- the parser ----

function shortenPath(rec) {
  if (rec.scheme === "file" && rec.path.length === 1 && /^[A-Za-z]:$/.test(rec.path[0])) return;
  rec.path.pop();
}
const singleDot = (s) => s === "." || s.toLowerCase() === "%2e";
const doubleDot = (s) => /^(\.|%2e)(\.|%2e)$/i.test(s);

// parsePath appends the segments of a path to rec.path.
function parsePath(rec, input) {
  const special = isSpecial(rec.scheme);
  const segs = input.split(special ? /[/\\]/ : /\//);
  for (let i = 0; i < segs.length; i++) {
    const seg = segs[i], last = i === segs.length - 1;
    if (doubleDot(seg)) {
      shortenPath(rec);
      if (last) rec.path.push("");
    } else if (singleDot(seg)) {
      if (last) rec.path.push("");
    } else {
      rec.path.push(encodeSet(seg, pathSet));
    }
  }
}

function splitRest(rec, rest) {
  const special = isSpecial(rec.scheme);
  let h = rest.indexOf("#");
  if (h >= 0) { rec.fragment = encodeSet(rest.slice(h + 1), fragmentSet); rest = rest.slice(0, h); }
  const q = rest.indexOf("?");
  if (q >= 0) { rec.query = encodeSet(rest.slice(q + 1), special ? specialQuerySet : querySet); rest = rest.slice(0, q); }
  return rest;
}

function parseAuthority(rec, auth) {
  const at = auth.lastIndexOf("@");
  if (at >= 0) {
    const info = auth.slice(0, at);
    const colon = info.indexOf(":");
    rec.username = encodeSet(colon >= 0 ? info.slice(0, colon) : info, userinfoSet);
    rec.password = colon >= 0 ? encodeSet(info.slice(colon + 1), userinfoSet) : "";
    auth = auth.slice(at + 1);
    if (auth === "") return false;
  }
  const m = /^(\[[^\]]*\]|[^:]*)(?::(.*))?$/.exec(auth);
  if (!m) return false;
  const special = isSpecial(rec.scheme);
  if (m[1] === "" && special && rec.scheme !== "file") return false;
  if (m[1] === "" && (rec.username || rec.password || m[2] !== undefined)) return false;
  const host = m[1] === "" ? "" : parseHost(m[1], special);
  if (host === null) return false;
  rec.host = rec.scheme === "file" && host === "localhost" ? "" : host;
  if (m[2] !== undefined && m[2] !== "") {
    if (!/^[0-9]+$/.test(m[2]) || Number(m[2]) > 65535) return false;
    const port = Number(m[2]);
    rec.port = specialPorts[rec.scheme] === port ? null : port;
  }
  return true;
}

function emptyRecord(scheme) {
  return { scheme, username: "", password: "", host: null, port: null, path: [], opaque: false, query: null, fragment: null };
}

function parseURL(input, base) {
  input = input.replace(/^[\x00-\x20]+|[\x00-\x20]+$/g, "").replace(/[\t\n\r]/g, "");
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(input);
  if (!m) {
    if (!base) return null;
    return parseRelative(input, base);
  }
  const scheme = m[1].toLowerCase();
  let rest = input.slice(m[0].length);
  const special = isSpecial(scheme);
  if (special && base && base.scheme === scheme && !/^[/\\]/.test(rest) && scheme !== "file") {
    return parseRelative(rest, base);
  }
  const rec = emptyRecord(scheme);
  if (scheme === "file") return parseFile(rec, rest, base && base.scheme === "file" ? base : null);
  if (special) {
    rest = rest.replace(/^[/\\]*/, "");
    return parseHierarchical(rec, rest, true);
  }
  if (rest.startsWith("//")) return parseHierarchical(rec, rest.slice(2), true);
  rest = splitRest(rec, rest);
  if (rest.startsWith("/")) {
    parsePath(rec, rest.slice(1));
  } else {
    rec.opaque = true;
    rec.path = encodeSet(rest, c0);
  }
  return rec;
}

// parseHierarchical parses "authority/path?query#fragment".
function parseHierarchical(rec, rest, withAuthority) {
  const special = isSpecial(rec.scheme);
  if (withAuthority) {
    const end = rest.search(special ? /[/\\?#]/ : /[/?#]/);
    const auth = end < 0 ? rest : rest.slice(0, end);
    rest = end < 0 ? "" : rest.slice(end);
    if (!parseAuthority(rec, auth)) return null;
  }
  rest = splitRest(rec, rest);
  if (special || rest !== "") parsePath(rec, rest.replace(special ? /^[/\\]/ : /^\//, ""));
  return rec;
}

function parseFile(rec, rest, base) {
  rec.host = "";
  if (/^[/\\]{2}/.test(rest)) {
    rest = rest.slice(2);
    const end = rest.search(/[/\\?#]/);
    const auth = end < 0 ? rest : rest.slice(0, end);
    rest = end < 0 ? "" : rest.slice(end);
    if (auth !== "" && !/^[A-Za-z][:|]$/.test(auth)) {
      const host = parseHost(auth, true);
      if (host === null) return null;
      rec.host = host === "localhost" ? "" : host;
    } else if (auth !== "") {
      rest = "/" + auth + rest;
    }
    rest = splitRest(rec, rest);
    parsePath(rec, rest.replace(/^[/\\]/, ""));
    return rec;
  }
  if (/^[/\\]/.test(rest) || !base) {
    rest = splitRest(rec, rest);
    parsePath(rec, rest.replace(/^[/\\]/, ""));
    return rec;
  }
  return parseRelative(rest, base);
}

function parseRelative(input, base) {
  if (base.opaque) {
    if (!input.startsWith("#")) return null;
    const rec = { ...base, fragment: encodeSet(input.slice(1), fragmentSet) };
    return rec;
  }
  const special = isSpecial(base.scheme);
  const rec = { ...emptyRecord(base.scheme) };
  const slash = special ? /^[/\\]/ : /^\//;
  if (special ? /^[/\\]{2}/.test(input) : input.startsWith("//")) {
    if (base.scheme === "file") return parseFile(rec, input, null);
    return parseHierarchical(rec, input.slice(2), true);
  }
  Object.assign(rec, { username: base.username, password: base.password, host: base.host, port: base.port });
  if (slash.test(input)) {
    const rest = splitRest(rec, input);
    parsePath(rec, rest.slice(1));
    return rec;
  }
  rec.path = base.path.slice();
  if (input === "") {
    rec.query = base.query;
    return rec;
  }
  if (input.startsWith("?")) {
    splitRest(rec, input);
    return rec;
  }
  if (input.startsWith("#")) {
    rec.query = base.query;
    splitRest(rec, input);
    return rec;
  }
  const rest = splitRest(rec, input);
  shortenPath(rec);
  parsePath(rec, rest);
  return rec;
}

function serializePath(rec) {
  if (rec.opaque) return rec.path;
  if (rec.host === null && rec.path.length > 1 && rec.path[0] === "") return "/." + "/" + rec.path.join("/");
  return rec.path.length ? "/" + rec.path.join("/") : "";
}
function serializeHost(rec) {
  return rec.host + (rec.port !== null ? ":" + rec.port : "");
}
function serialize(rec, excludeFragment) {
  let s = rec.scheme + ":";
  if (rec.host !== null) {
    s += "//";
    if (rec.username || rec.password) s += rec.username + (rec.password ? ":" + rec.password : "") + "@";
    s += serializeHost(rec);
  }
  s += serializePath(rec);
  if (rec.query !== null) s += "?" + rec.query;
  if (!excludeFragment && rec.fragment !== null) s += "#" + rec.fragment;
  return s;
}

// ---- URLSearchParams ----

function formEncode(s) {
  let out = "";
  for (const ch of toUSV(s)) {
    const cp = ch.codePointAt(0);
    if (cp === 0x20) out += "+";
    else if ((cp >= 0x30 && cp <= 0x39) || (cp >= 0x41 && cp <= 0x5a) || (cp >= 0x61 && cp <= 0x7a) ||
      cp === 0x2a || cp === 0x2d || cp === 0x2e || cp === 0x5f) out += ch;
    else for (const b of utf8Bytes(cp)) out += hex(b);
  }
  return out;
}
const toUSV = (v) => String(v).replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\ufffd");
function formParse(s) {
  const list = [];
  for (const part of s.split("&")) {
    if (part === "") continue;
    const i = part.indexOf("=");
    const name = i >= 0 ? part.slice(0, i) : part, value = i >= 0 ? part.slice(i + 1) : "";
    list.push([percentDecode(name.replace(/\+/g, " ")), percentDecode(value.replace(/\+/g, " "))]);
  }
  return list;
}

const kURL = Symbol("url");
const kParams = Symbol("searchParams");
const kList = Symbol("list");
const inspectSymbol = Symbol.for("nodejs.util.inspect.custom");

class URLSearchParams {
  constructor(init = undefined) {
    this[kList] = [];
    this[kURL] = null;
    if (init === undefined || init === null) return;
    if (typeof init === "object" || typeof init === "function") {
      if (typeof init[Symbol.iterator] === "function") {
        for (const pair of init) {
          if (pair === null || typeof pair !== "object" && typeof pair !== "function" || typeof pair[Symbol.iterator] !== "function") {
            throw withCode(new TypeError("Each query pair must be an iterable [name, value] tuple"), "ERR_INVALID_TUPLE");
          }
          const p = [...pair];
          if (p.length !== 2) throw withCode(new TypeError("Each query pair must be an iterable [name, value] tuple"), "ERR_INVALID_TUPLE");
          this[kList].push([toUSV(p[0]), toUSV(p[1])]);
        }
      } else {
        for (const k of Reflect.ownKeys(init)) {
          if (typeof k === "string" && Object.prototype.propertyIsEnumerable.call(init, k)) this[kList].push([toUSV(k), toUSV(init[k])]);
        }
      }
    } else {
      const s = toUSV(init);
      this[kList] = formParse(s.startsWith("?") ? s.slice(1) : s);
    }
  }
  get size() { return this[kList].length; }
  append(name, value) { this[kList].push([toUSV(name), toUSV(value)]); this._update(); }
  delete(name, value) {
    name = toUSV(name);
    this[kList] = this[kList].filter(([n, v]) => n !== name || (value !== undefined && v !== toUSV(value)));
    this._update();
  }
  get(name) {
    name = toUSV(name);
    const e = this[kList].find(([n]) => n === name);
    return e ? e[1] : null;
  }
  getAll(name) { name = toUSV(name); return this[kList].filter(([n]) => n === name).map(([, v]) => v); }
  has(name, value) {
    name = toUSV(name);
    return this[kList].some(([n, v]) => n === name && (value === undefined || v === toUSV(value)));
  }
  set(name, value) {
    name = toUSV(name);
    value = toUSV(value);
    const i = this[kList].findIndex(([n]) => n === name);
    if (i < 0) this[kList].push([name, value]);
    else {
      this[kList][i][1] = value;
      this[kList] = this[kList].filter(([n], j) => n !== name || j === i);
    }
    this._update();
  }
  sort() {
    // Stable, by UTF-16 code units.
    this[kList] = this[kList].map((e, i) => [e, i]).sort((a, b) => (a[0][0] < b[0][0] ? -1 : a[0][0] > b[0][0] ? 1 : a[1] - b[1])).map((x) => x[0]);
    this._update();
  }
  forEach(fn, thisArg) {
    if (typeof fn !== "function") throw invalidArgType("callback", "of type function", fn);
    for (let i = 0; i < this[kList].length; i++) {
      const [n, v] = this[kList][i];
      fn.call(thisArg, v, n, this);
    }
  }
  *entries() { for (let i = 0; i < this[kList].length; i++) yield this[kList][i].slice(); }
  *keys() { for (const [n] of this.entries()) yield n; }
  *values() { for (const [, v] of this.entries()) yield v; }
  [Symbol.iterator]() { return this.entries(); }
  toString() { return this[kList].map(([n, v]) => formEncode(n) + "=" + formEncode(v)).join("&"); }
  get [Symbol.toStringTag]() { return "URLSearchParams"; }
  _update() {
    const url = this[kURL];
    if (!url) return;
    const s = this.toString();
    url[kURL].query = s === "" ? null : s;
  }
  [inspectSymbol](depth, options, inspect) {
    const inner = { ...options, depth: depth === null ? null : depth - 1 };
    const out = this[kList].map(([n, v]) => `${inspect(n, inner)} => ${inspect(v, inner)}`);
    const length = out.reduce((n, s) => n + s.length + 2, -2);
    if (length > (options.breakLength || 80)) return `${this.constructor.name} {\n  ${out.join(",\n  ")} }`;
    if (out.length) return `${this.constructor.name} { ${out.join(", ")} }`;
    return `${this.constructor.name} {}`;
  }
}
Object.defineProperty(URLSearchParams.prototype, "_update", { enumerable: false });

class URL {
  constructor(input, base = undefined) {
    if (arguments.length === 0) throw invalidArgType("url", "of type string", undefined);
    input = toUSV(input);
    let baseRec = null;
    if (base !== undefined) {
      baseRec = parseURL(toUSV(base), null);
      if (!baseRec) throw invalidURL(input, String(base));
    }
    const rec = parseURL(input, baseRec);
    if (!rec) throw invalidURL(input, base === undefined ? undefined : String(base));
    Object.defineProperty(this, kURL, { value: rec, writable: true });
    Object.defineProperty(this, kParams, { value: null, writable: true });
  }
  static canParse(input, base = undefined) {
    try { new URL(input, base); return true; } catch (e) { return false; }
  }
  static parse(input, base = undefined) {
    try { return new URL(input, base); } catch (e) { return null; }
  }
  get href() { return serialize(this[kURL]); }
  set href(v) {
    const rec = parseURL(toUSV(v), null);
    if (!rec) throw invalidURL(String(v));
    this[kURL] = rec;
    this._syncParams();
  }
  get origin() {
    const r = this[kURL];
    if (r.scheme === "blob") {
      try { const inner = new URL(r.path); if (/^https?:$/.test(inner.protocol)) return inner.origin; } catch (e) { /* opaque */ }
      return "null";
    }
    if (isSpecial(r.scheme) && r.scheme !== "file") return `${r.scheme}://${serializeHost(r)}`;
    return "null";
  }
  get protocol() { return this[kURL].scheme + ":"; }
  set protocol(v) {
    const m = /^([a-zA-Z][a-zA-Z0-9+.-]*)/.exec(String(v));
    if (!m) return;
    const scheme = m[1].toLowerCase(), r = this[kURL];
    if (isSpecial(scheme) !== isSpecial(r.scheme)) return;
    if (scheme === "file" && (r.username || r.password || r.port !== null)) return;
    if (r.scheme === "file" && r.host === "") return;
    r.scheme = scheme;
    if (r.port === specialPorts[scheme]) r.port = null;
  }
  get username() { return this[kURL].username; }
  set username(v) { if (this._canHaveCredentials()) this[kURL].username = encodeSet(toUSV(v), userinfoSet); }
  get password() { return this[kURL].password; }
  set password(v) { if (this._canHaveCredentials()) this[kURL].password = encodeSet(toUSV(v), userinfoSet); }
  get host() { const r = this[kURL]; return r.host === null ? "" : serializeHost(r); }
  set host(v) { this._setHost(String(v), true); }
  get hostname() { return this[kURL].host === null ? "" : this[kURL].host; }
  set hostname(v) { this._setHost(String(v), false); }
  get port() { const p = this[kURL].port; return p === null ? "" : String(p); }
  set port(v) {
    const r = this[kURL];
    if (r.host === null || r.host === "" || r.scheme === "file") return;
    v = String(v);
    if (v === "") { r.port = null; return; }
    const m = /^[0-9]+/.exec(v);
    if (!m || Number(m[0]) > 65535) return;
    r.port = specialPorts[r.scheme] === Number(m[0]) ? null : Number(m[0]);
  }
  get pathname() { return serializePath(this[kURL]); }
  set pathname(v) {
    const r = this[kURL];
    if (r.opaque) return;
    r.path = [];
    v = toUSV(v);
    parsePath(r, isSpecial(r.scheme) ? v.replace(/^[/\\]/, "") : v.replace(/^\//, ""));
  }
  get search() { const q = this[kURL].query; return q === null || q === "" ? "" : "?" + q; }
  set search(v) {
    const r = this[kURL];
    v = toUSV(v);
    if (v === "") r.query = null;
    else r.query = encodeSet(v.startsWith("?") ? v.slice(1) : v, isSpecial(r.scheme) ? specialQuerySet : querySet);
    this._syncParams();
  }
  get searchParams() {
    if (!this[kParams]) {
      this[kParams] = new URLSearchParams(this[kURL].query || "");
      this[kParams][kURL] = this;
    }
    return this[kParams];
  }
  get hash() { const f = this[kURL].fragment; return f === null || f === "" ? "" : "#" + f; }
  set hash(v) {
    v = toUSV(v);
    this[kURL].fragment = v === "" ? null : encodeSet(v.startsWith("#") ? v.slice(1) : v, fragmentSet);
  }
  toString() { return this.href; }
  toJSON() { return this.href; }
  get [Symbol.toStringTag]() { return "URL"; }
  _canHaveCredentials() { const r = this[kURL]; return r.host !== null && r.host !== "" && r.scheme !== "file"; }
  _setHost(v, withPort) {
    const r = this[kURL];
    if (r.opaque) return;
    const m = /^(\[[^\]]*\]|[^:/\\?#]*)(?::([0-9]*))?/.exec(v);
    if (!m || (m[1] === "" && isSpecial(r.scheme) && r.scheme !== "file")) return;
    const host = parseHost(m[1], isSpecial(r.scheme));
    if (host === null) return;
    r.host = r.scheme === "file" && host === "localhost" ? "" : host;
    if (withPort && m[2]) {
      const p = Number(m[2]);
      if (p <= 65535) r.port = specialPorts[r.scheme] === p ? null : p;
    }
  }
  _syncParams() {
    if (this[kParams]) this[kParams][kList] = formParse(this[kURL].query || "");
  }
  [inspectSymbol](depth, options, inspect) {
    const obj = new URLShape();
    for (const k of ["href", "origin", "protocol", "username", "password", "host", "hostname", "port", "pathname", "search", "searchParams", "hash"]) {
      obj[k] = this[k];
    }
    if (depth !== null && depth < 0) return "[URL]";
    return inspect(obj, { ...options, depth });
  }
}
for (const k of ["_canHaveCredentials", "_setHost", "_syncParams"]) Object.defineProperty(URL.prototype, k, { enumerable: false });
for (const k of ["href", "origin", "protocol", "username", "password", "host", "hostname", "port", "pathname", "search", "searchParams", "hash", "toString", "toJSON"]) {
  Object.defineProperty(URL.prototype, k, { ...Object.getOwnPropertyDescriptor(URL.prototype, k), enumerable: true });
}

// URLShape is what util.inspect shows of a URL: its fields, named URL.
const URLShape = (() => class URL {})();

// ---- file URLs ----

function fileURLToPath(path) {
  if (typeof path === "string") path = new URL(path);
  else if (!(path instanceof URL)) throw invalidArgType("path", "of type string or an instance of URL", path);
  if (path.protocol !== "file:") throw withCode(new TypeError("The URL must be of scheme file"), "ERR_INVALID_URL_SCHEME");
  if (path.hostname !== "") {
    throw withCode(new TypeError('File URL host must be "localhost" or empty on linux'), "ERR_INVALID_FILE_URL_HOST");
  }
  const pathname = path.pathname;
  if (/%2f/i.test(pathname)) {
    throw withCode(new TypeError("File URL path must not include encoded / characters"), "ERR_INVALID_FILE_URL_PATH");
  }
  return decodeURIComponent(pathname);
}

function pathToFileURL(filepath) {
  if (typeof filepath !== "string") throw invalidArgType("path", "of type string", filepath);
  const p = globalThis.process;
  const cwd = p && typeof p.cwd === "function" ? p.cwd() : "/";
  const path = require("path");
  let resolved = path.resolve(cwd, filepath);
  if (filepath.endsWith("/") && !resolved.endsWith("/")) resolved += "/";
  const url = new URL("file://");
  url.pathname = resolved.replace(/%/g, "%25").replace(/\\/g, "%5C").replace(/\n/g, "%0A").replace(/\r/g, "%0D").replace(/\t/g, "%09");
  return url;
}

function urlToHttpOptions(url) {
  const options = {
    protocol: url.protocol,
    hostname: url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname,
    hash: url.hash, search: url.search, pathname: url.pathname, path: `${url.pathname || ""}${url.search || ""}`,
    href: url.href,
  };
  if (url.port !== "") options.port = Number(url.port);
  if (url.username || url.password) options.auth = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
  return options;
}

// ---- legacy API ----

function Url() {
  this.protocol = null; this.slashes = null; this.auth = null; this.host = null; this.port = null; this.hostname = null;
  this.hash = null; this.search = null; this.query = null; this.pathname = null; this.path = null; this.href = null;
}
const slashedProtocols = new Set(["http:", "https:", "ftp:", "gopher:", "file:", "ws:", "wss:"]);

function urlParse(url, parseQueryString, slashesDenoteHost) {
  if (url instanceof Url) return url;
  if (typeof url !== "string") throw invalidArgType("url", "of type string", url);
  const u = new Url();
  let rest = url.trim().replace(/\\/g, "/");
  const hashAt = rest.indexOf("#");
  if (hashAt >= 0) { u.hash = rest.slice(hashAt); rest = rest.slice(0, hashAt); }
  const qAt = rest.indexOf("?");
  if (qAt >= 0) {
    u.search = rest.slice(qAt);
    u.query = rest.slice(qAt + 1);
    rest = rest.slice(0, qAt);
  } else if (parseQueryString) {
    u.search = "";
    u.query = {};
  }
  if (parseQueryString && typeof u.query === "string") u.query = require("querystring").parse(u.query);
  const proto = /^([a-z0-9.+-]+:)/i.exec(rest);
  if (proto) {
    u.protocol = proto[1].toLowerCase();
    rest = rest.slice(proto[1].length);
  }
  if (slashesDenoteHost || proto || /^\/\/[^@/]+@[^@/]+/.test(rest)) {
    const slashes = rest.startsWith("//");
    if (slashes && !(u.protocol === "javascript:")) {
      rest = rest.slice(2);
      u.slashes = true;
    }
  }
  if (u.slashes || (u.protocol && !slashedProtocols.has(u.protocol) && false)) {
    const end = rest.search(/[/?#]/);
    let hostPart = end < 0 ? rest : rest.slice(0, end);
    rest = end < 0 ? "" : rest.slice(end);
    const at = hostPart.lastIndexOf("@");
    if (at >= 0) {
      u.auth = decodeURIComponent(hostPart.slice(0, at));
      hostPart = hostPart.slice(at + 1);
    }
    const pm = /:([0-9]*)$/.exec(hostPart);
    if (pm) {
      if (pm[1] !== "") u.port = pm[1];
      hostPart = hostPart.slice(0, pm.index);
    }
    u.hostname = hostPart.toLowerCase();
    if (u.hostname.startsWith("[") && u.hostname.endsWith("]")) u.hostname = u.hostname.slice(1, -1);
    else if (/[^\x00-\x7f]/.test(u.hostname)) u.hostname = domainToASCII(u.hostname);
    u.host = (u.hostname.includes(":") ? `[${u.hostname}]` : u.hostname) + (u.port ? ":" + u.port : "");
  }
  if (rest !== "") u.pathname = rest;
  else if (u.slashes && slashedProtocols.has(u.protocol)) u.pathname = "/";
  if (u.pathname !== null && u.protocol && slashedProtocols.has(u.protocol)) {
    u.pathname = u.pathname.replace(/[ "'<>`{}|^]/g, (c) => hex(c.charCodeAt(0)).toLowerCase().replace(/%(..)/, (m, h) => "%" + h.toUpperCase()));
  }
  if (u.hash !== null) u.hash = u.hash.replace(/[ "'<>`]/g, (c) => hex(c.charCodeAt(0)));
  if (u.search !== null && u.search !== "") u.search = u.search.replace(/[ "'<>`]/g, (c) => hex(c.charCodeAt(0)));
  if (typeof u.query === "string") u.query = u.search.slice(1);
  u.path = (u.pathname || "") + (u.search || "") || null;
  u.href = urlFormat(u);
  return u;
}

function urlFormat(obj, options) {
  if (typeof obj === "string") obj = urlParse(obj);
  else if (obj instanceof URL) {
    const o = { auth: true, fragment: true, search: true, unicode: false, ...options };
    const r = { ...obj[kURL] };
    if (!o.auth) { r.username = ""; r.password = ""; }
    if (!o.search) r.query = null;
    if (!o.fragment) r.fragment = null;
    if (o.unicode && r.host) r.host = domainToUnicode(r.host);
    return serialize(r);
  } else if (obj === null || typeof obj !== "object") {
    throw invalidArgType("urlObject", "one of type object or string", obj);
  }
  let auth = obj.auth || "";
  if (auth) auth = encodeURIComponent(auth).replace(/%3A/i, ":") + "@";
  let protocol = obj.protocol || "";
  let pathname = obj.pathname || "";
  let hash = obj.hash || "";
  let host = "";
  let query = "";
  if (obj.host) host = auth + obj.host;
  else if (obj.hostname) {
    host = auth + (obj.hostname.includes(":") && !obj.hostname.startsWith("[") ? `[${obj.hostname}]` : obj.hostname);
    if (obj.port) host += ":" + obj.port;
  }
  if (obj.query !== null && typeof obj.query === "object") query = require("querystring").stringify(obj.query);
  let search = obj.search || (query && "?" + query) || "";
  if (protocol && !protocol.endsWith(":")) protocol += ":";
  if (obj.slashes || ((!protocol || slashedProtocols.has(protocol)) && host !== "")) {
    host = "//" + host;
    if (pathname && pathname[0] !== "/") pathname = "/" + pathname;
  } else if (!host && protocol === "file:") {
    host = "//";
  }
  if (hash && hash[0] !== "#") hash = "#" + hash;
  if (search && search[0] !== "?") search = "?" + search;
  pathname = pathname.replace(/[?#]/g, encodeURIComponent);
  search = search.replace(/#/g, "%23");
  return protocol + host + pathname + search + hash;
}

function urlResolve(source, relative) {
  const fake = "resolve://";
  const resolved = new URL(relative, new URL(source, fake + "/"));
  if (resolved.protocol === "resolve:") {
    const { pathname, search, hash } = resolved;
    return pathname + search + hash;
  }
  return resolved.toString();
}

function domainToUnicode(domain) {
  return String(domain).toLowerCase().split(".").map((l) => {
    if (!l.startsWith("xn--")) return l;
    try { return punycodeDecode(l.slice(4)); } catch (e) { return ""; }
  }).join(".");
}

module.exports = {
  URL, URLSearchParams, Url, parse: urlParse, format: urlFormat, resolve: urlResolve, resolveObject: (s, r) => urlParse(urlResolve(s, r)),
  fileURLToPath, pathToFileURL, urlToHttpOptions, domainToASCII: (d) => { try { const h = parseHost(String(d), true); return h === null ? "" : h; } catch (e) { return ""; } },
  domainToUnicode,
};
