// UTF-8 and UTF-16 coding as the WHATWG Encoding standard defines it
// (TextEncoder, TextDecoder with fatal, ignoreBOM and streaming), shared by
// Buffer and string_decoder.
"use strict";

function encodingError(enc) {
  const e = new TypeError(`The encoded data was not valid for encoding ${enc}`);
  e.code = "ERR_ENCODING_INVALID_ENCODED_DATA";
  return e;
}

// Builds strings from code units in slices (apply has an argument limit).
class StringSink {
  constructor() { this.parts = []; this.units = []; }
  push(cp) {
    if (cp > 0xffff) {
      cp -= 0x10000;
      this.units.push(0xd800 | (cp >> 10), 0xdc00 | (cp & 0x3ff));
    } else this.units.push(cp);
    if (this.units.length >= 8192) this.flush();
  }
  flush() {
    if (this.units.length) this.parts.push(String.fromCharCode.apply(null, this.units));
    this.units = [];
  }
  done() { this.flush(); return this.parts.join(""); }
}

// Utf8Decoder keeps the state of an incomplete sequence between chunks.
class Utf8Decoder {
  constructor(fatal) { this.fatal = fatal; this.reset(); }
  reset() { this.need = 0; this.seen = 0; this.cp = 0; this.lower = 0x80; this.upper = 0xbf; }
  // pending is the number of bytes of an incomplete sequence held back.
  get pending() { return this.need ? this.seen + 1 : 0; }
  decode(bytes, start, end, flush) {
    const out = new StringSink();
    const bad = () => {
      if (this.fatal) { this.reset(); throw encodingError("utf-8"); }
      out.push(0xfffd);
    };
    for (let i = start; i < end; i++) {
      const b = bytes[i];
      if (this.need === 0) {
        if (b < 0x80) { out.push(b); continue; }
        if (b >= 0xc2 && b <= 0xdf) { this.need = 1; this.cp = b & 0x1f; }
        else if (b >= 0xe0 && b <= 0xef) {
          if (b === 0xe0) this.lower = 0xa0;
          if (b === 0xed) this.upper = 0x9f;
          this.need = 2; this.cp = b & 0xf;
        } else if (b >= 0xf0 && b <= 0xf4) {
          if (b === 0xf0) this.lower = 0x90;
          if (b === 0xf4) this.upper = 0x8f;
          this.need = 3; this.cp = b & 0x7;
        } else bad();
        continue;
      }
      if (b < this.lower || b > this.upper) {
        this.reset();
        bad();
        i--; // the byte starts afresh
        continue;
      }
      this.lower = 0x80; this.upper = 0xbf;
      this.cp = (this.cp << 6) | (b & 0x3f);
      if (++this.seen === this.need) {
        out.push(this.cp);
        this.reset();
      }
    }
    if (flush && this.need) {
      this.reset();
      bad();
    }
    return out.done();
  }
}

function utf8Decode(bytes, start = 0, end = bytes.length) {
  // ASCII is the common case and needs no state machine.
  let i = start;
  while (i < end && bytes[i] < 0x80) i++;
  if (i === end) return latin1Decode(bytes, start, end);
  return latin1Decode(bytes, start, i) + new Utf8Decoder(false).decode(bytes, i, end, true);
}

function latin1Decode(bytes, start = 0, end = bytes.length) {
  let s = "";
  for (let i = start; i < end; i += 8192) s += String.fromCharCode.apply(null, bytes.subarray(i, Math.min(end, i + 8192)));
  return s;
}

function utf8Length(str) {
  let n = 0;
  for (let i = 0; i < str.length; i++) {
    const c = str.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < str.length && (str.charCodeAt(i + 1) & 0xfc00) === 0xdc00) { n += 4; i++; }
    else n += 3;
  }
  return n;
}

// utf8Encode writes str into dst from offset (at most max bytes, whole
// characters only) and returns [bytes written, UTF-16 units read].
function utf8Write(str, dst, offset = 0, max = dst.length - offset) {
  let o = offset;
  const end = offset + max;
  let i = 0;
  for (; i < str.length; i++) {
    let c = str.charCodeAt(i);
    if (c < 0x80) {
      if (o >= end) break;
      dst[o++] = c;
      continue;
    }
    let units = 1;
    if (c >= 0xd800 && c <= 0xdfff) {
      const d = str.charCodeAt(i + 1);
      if (c <= 0xdbff && (d & 0xfc00) === 0xdc00) {
        c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        units = 2;
      } else c = 0xfffd;
    }
    if (c < 0x800) {
      if (o + 2 > end) break;
      dst[o++] = 0xc0 | (c >> 6);
    } else if (c < 0x10000) {
      if (o + 3 > end) break;
      dst[o++] = 0xe0 | (c >> 12);
      dst[o++] = 0x80 | ((c >> 6) & 0x3f);
    } else {
      if (o + 4 > end) break;
      dst[o++] = 0xf0 | (c >> 18);
      dst[o++] = 0x80 | ((c >> 12) & 0x3f);
      dst[o++] = 0x80 | ((c >> 6) & 0x3f);
    }
    dst[o++] = 0x80 | (c & 0x3f);
    i += units - 1;
  }
  return [o - offset, i];
}

function utf8Encode(str) {
  const out = new Uint8Array(utf8Length(str));
  utf8Write(str, out);
  return out;
}

class TextEncoder {
  get encoding() { return "utf-8"; }
  encode(input = "") { return utf8Encode(String(input)); }
  encodeInto(src, dest) {
    const [written, read] = utf8Write(String(src), dest, 0, dest.length);
    return { read, written };
  }
}

const labels = {
  "utf-8": ["unicode-1-1-utf-8", "unicode11utf8", "unicode20utf8", "utf-8", "utf8", "x-unicode20utf8"],
  "utf-16le": ["csunicode", "iso-10646-ucs-2", "ucs-2", "unicode", "unicodefeff", "utf-16", "utf-16le"],
  "windows-1252": ["ansi_x3.4-1968", "ascii", "cp1252", "cp819", "csisolatin1", "ibm819", "iso-8859-1", "iso-ir-100",
    "iso8859-1", "iso88591", "iso_8859-1", "iso_8859-1:1987", "l1", "latin1", "us-ascii", "windows-1252", "x-cp1252"],
};
function encodingOf(label) {
  const l = String(label).trim().toLowerCase();
  for (const [name, list] of Object.entries(labels)) if (list.includes(l)) return name;
  const e = new RangeError(`The "${label}" encoding is not supported`);
  e.code = "ERR_ENCODING_NOT_SUPPORTED";
  throw e;
}

function bytesOf(input) {
  if (input === undefined) return new Uint8Array(0);
  if (input instanceof ArrayBuffer || (typeof SharedArrayBuffer === "function" && input instanceof SharedArrayBuffer)) return new Uint8Array(input);
  if (ArrayBuffer.isView(input)) return new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
  const e = new TypeError('The "input" argument must be an instance of ArrayBuffer or ArrayBufferView.');
  e.code = "ERR_INVALID_ARG_TYPE";
  throw e;
}

class TextDecoder {
  #encoding; #fatal; #ignoreBOM; #utf8; #held = null; #bomSeen = false;
  constructor(label = "utf-8", options = {}) {
    this.#encoding = encodingOf(label);
    this.#fatal = !!(options && options.fatal);
    this.#ignoreBOM = !!(options && options.ignoreBOM);
    this.#utf8 = new Utf8Decoder(this.#fatal);
  }
  get encoding() { return this.#encoding; }
  get fatal() { return this.#fatal; }
  get ignoreBOM() { return this.#ignoreBOM; }
  decode(input, options = {}) {
    let bytes = bytesOf(input);
    const stream = !!(options && options.stream);
    let s;
    if (this.#encoding === "utf-8") {
      s = this.#utf8.decode(bytes, 0, bytes.length, !stream);
    } else if (this.#encoding === "utf-16le") {
      if (this.#held) {
        const b = new Uint8Array(this.#held.length + bytes.length);
        b.set(this.#held);
        b.set(bytes, this.#held.length);
        bytes = b;
        this.#held = null;
      }
      let n = bytes.length & ~1;
      // An unpaired lead surrogate at a chunk's end waits for the next chunk.
      if (stream && n >= 2 && (bytes[n - 1] & 0xfc) === 0xd8) n -= 2;
      if (stream && n < bytes.length) this.#held = bytes.slice(n);
      s = utf16Decode(bytes, 0, n, this.#fatal);
      if (!stream && n < bytes.length) {
        if (this.#fatal) throw encodingError("utf-16le");
        s += "\ufffd";
      }
    } else {
      s = latin1Decode(bytes);
    }
    if (!this.#ignoreBOM && !this.#bomSeen && s.length > 0) {
      this.#bomSeen = true;
      if (s.charCodeAt(0) === 0xfeff) s = s.slice(1);
    }
    if (!stream) this.#bomSeen = false;
    return s;
  }
}

function utf16Decode(bytes, start, end, fatal) {
  const out = new StringSink();
  for (let i = start; i + 1 < end; i += 2) {
    const c = bytes[i] | (bytes[i + 1] << 8);
    if (c >= 0xd800 && c <= 0xdbff && i + 3 < end) {
      const d = bytes[i + 2] | (bytes[i + 3] << 8);
      if ((d & 0xfc00) === 0xdc00) {
        out.push(0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00));
        i += 2;
        continue;
      }
    }
    if (c >= 0xd800 && c <= 0xdfff) {
      if (fatal) throw encodingError("utf-16le");
      out.push(0xfffd);
    } else out.push(c);
  }
  return out.done();
}

module.exports = { TextEncoder, TextDecoder, Utf8Decoder, utf8Decode, utf8Encode, utf8Write, utf8Length, latin1Decode };
