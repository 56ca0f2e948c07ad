// Node's string_decoder: bytes to text across chunk boundaries, holding an
// incomplete character (utf8, utf16le) or base64 group until the next write.
"use strict";
const { Buffer } = require("buffer");
const { Utf8Decoder } = require("internal/encoding");
const { invalidArgType, withCode } = require("internal/errors");

const names = {
  utf8: "utf8", "utf-8": "utf8", utf16le: "utf16le", "utf-16le": "utf16le", ucs2: "utf16le", "ucs-2": "utf16le",
  base64: "base64", base64url: "base64url", hex: "hex", latin1: "latin1", binary: "latin1", ascii: "ascii",
};

function bytesOf(buf) {
  if (typeof buf === "string") return null;
  if (ArrayBuffer.isView(buf)) return Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  throw invalidArgType("buf", "an instance of Buffer, TypedArray, or DataView", buf);
}

class StringDecoder {
  constructor(encoding) {
    const enc = names[String(encoding === undefined || encoding === null ? "utf8" : encoding).toLowerCase()];
    if (!enc) throw withCode(new TypeError(`Unknown encoding: ${encoding}`), "ERR_UNKNOWN_ENCODING");
    this.encoding = enc;
    this._utf8 = enc === "utf8" ? new Utf8Decoder(false) : null;
    this._held = Buffer.alloc(0);
  }
  write(buf) {
    const bytes = bytesOf(buf);
    if (bytes === null) return buf;
    switch (this.encoding) {
      case "utf8": return this._utf8.decode(bytes, 0, bytes.length, false);
      case "utf16le": return this._hold(bytes, (b) => {
        let n = b.length & ~1;
        // A lead surrogate at the end waits for its pair.
        if (n >= 2 && (b[n - 1] & 0xfc) === 0xd8) n -= 2;
        return n;
      });
      case "base64": case "base64url": return this._hold(bytes, (b) => b.length - (b.length % 3));
      default: return bytes.toString(this.encoding);
    }
  }
  end(buf) {
    let s = buf === undefined ? "" : this.write(buf);
    if (this._utf8) {
      s += this._utf8.decode(new Uint8Array(0), 0, 0, true);
    } else if (this._held.length) {
      s += this._held.toString(this.encoding);
      this._held = Buffer.alloc(0);
    }
    return s;
  }
  text(buf, offset) {
    this._held = Buffer.alloc(0);
    if (this._utf8) this._utf8.reset();
    return this.write(buf.subarray(offset));
  }
  // _hold decodes the complete part (cut returns its length) and keeps the rest.
  _hold(bytes, cut) {
    const all = this._held.length ? Buffer.concat([this._held, bytes]) : bytes;
    const n = cut(all);
    this._held = Buffer.from(all.subarray(n));
    return all.subarray(0, n).toString(this.encoding);
  }
  get lastNeed() { return this._utf8 ? (this._utf8.need - this._utf8.seen) : 0; }
  get lastTotal() { return this._utf8 ? (this._utf8.need ? this._utf8.need + 1 : 0) : this._held.length; }
}

module.exports = { StringDecoder };
