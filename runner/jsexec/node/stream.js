// Node's stream module, the parts scripts use: Readable (flowing and
// paused modes, pipe, async iteration, Readable.from), Writable (buffering,
// backpressure and 'drain', final), Duplex, Transform and PassThrough on
// EventEmitter, with pipeline and finished. Events are emitted on
// process.nextTick as Node does, so their order matches Node's for the
// usual cases.
"use strict";
const EE = require("events");
const { Buffer } = require("buffer");
const { invalidArgType, withCode } = require("internal/errors");

const nextTick = (fn, ...args) => {
  const p = globalThis.process;
  if (p && typeof p.nextTick === "function") p.nextTick(fn, ...args);
  else queueMicrotask(() => fn(...args));
};
const codeError = (Ctor, code, msg) => withCode(new Ctor(msg), code);
const kUnpipers = Symbol("unpipers");
const kPendingCallback = Symbol("pendingCallback");
const notImplemented = (name) => codeError(Error, "ERR_METHOD_NOT_IMPLEMENTED", `The ${name} method is not implemented`);

function Stream(opts) {
  EE.call(this, opts);
}
Object.setPrototypeOf(Stream.prototype, EE.prototype);
Object.setPrototypeOf(Stream, EE);
// Legacy Stream.prototype.pipe: the bare data/end plumbing.
Stream.prototype.pipe = function pipe(dest, options) {
  const source = this;
  source.on("data", (chunk) => { if (dest.write(chunk) === false && source.pause) source.pause(); });
  dest.on("drain", () => { if (source.resume) source.resume(); });
  if (!options || options.end !== false) source.on("end", () => dest.end());
  dest.emit("pipe", source);
  return dest;
};

// adoptMethods makes the functions options gives (read, write, ...) the
// stream's _read, _write, ...
function adoptMethods(stream, options, names) {
  if (!options) return;
  for (const n of names) if (typeof options[n] === "function") stream["_" + n] = options[n];
}

function hwm(options, objectMode, key) {
  const v = options && (options[key] !== undefined ? options[key] : options.highWaterMark);
  if (v === undefined || v === null) return objectMode ? 16 : 16384;
  if (!Number.isInteger(v) || v < 0) throw codeError(TypeError, "ERR_INVALID_ARG_VALUE", `The property 'options.${key}' is invalid. Received ${v}`);
  return v;
}

function destroyImpl(stream, err, cb) {
  const r = stream._readableState, w = stream._writableState;
  const s = r || w;
  if (s.destroyed) {
    if (typeof cb === "function") cb(err);
    return stream;
  }
  if (err) {
    err.stack; // eslint-disable-line no-unused-expressions
    if (r && !r.errored) r.errored = err;
    if (w && !w.errored) w.errored = err;
  }
  if (r) r.destroyed = true;
  if (w) w.destroyed = true;
  stream._destroy(err || null, (er) => {
    if (er && r && !r.errored) r.errored = er;
    if (er && w && !w.errored) w.errored = er;
    if (typeof cb === "function") cb(er);
    nextTick(() => {
      if (er && !s.errorEmitted && (!w || w.emitError !== false)) {
        s.errorEmitted = true;
        stream.emit("error", er);
      }
      if (r) r.closed = true;
      if (w) w.closed = true;
      if (s.emitClose) stream.emit("close");
    });
  });
  return stream;
}

// lifecycle sets the fields of a stream state that both sides share.
function lifecycle(state, options) {
  state.destroyed = false;
  state.closed = false;
  state.errored = null;
  state.errorEmitted = false;
  state.emitClose = !options || options.emitClose !== false;
  state.autoDestroy = !options || options.autoDestroy !== false;
}

// ---- Readable ----

class ReadableState {
  constructor(options, stream, isDuplex) {
    this.objectMode = !!(options && (options.objectMode || (isDuplex && options.readableObjectMode)));
    this.highWaterMark = hwm(options, this.objectMode, "readableHighWaterMark");
    this.buffer = [];
    this.length = 0;
    this.pipes = [];
    this.flowing = null;
    this.ended = false;
    this.endEmitted = false;
    this.reading = false;
    this.sync = true;
    this.needReadable = false;
    this.emittedReadable = false;
    this.readableListening = false;
    this.resumeScheduled = false;
    lifecycle(this, options);
    this.defaultEncoding = (options && options.defaultEncoding) || "utf8";
    this.decoder = null;
    this.encoding = null;
    this.dataEmitted = false;
    this.readingMore = false;
    if (options && options.encoding) {
      const { StringDecoder } = require("string_decoder");
      this.decoder = new StringDecoder(options.encoding);
      this.encoding = options.encoding;
    }
  }
}

function Readable(options) {
  if (!(this instanceof Readable)) return new Readable(options);
  const isDuplex = this instanceof Duplex;
  this._readableState = new ReadableState(options, this, isDuplex);
  adoptMethods(this, options, ["read", "destroy", "construct"]);
  Stream.call(this, options);
}
Object.setPrototypeOf(Readable.prototype, Stream.prototype);
Object.setPrototypeOf(Readable, Stream);

function chunkLength(state, chunk) {
  return state.objectMode ? 1 : chunk.length;
}

function readableAddChunk(stream, chunk, encoding, addToFront) {
  const state = stream._readableState;
  if (chunk === null) {
    state.reading = false;
    if (!state.ended) {
      if (state.decoder) {
        const rest = state.decoder.end();
        if (rest.length) { state.buffer.push(rest); state.length += rest.length; }
      }
      state.ended = true;
      if (state.sync) emitReadable(stream);
      else {
        state.needReadable = false;
        state.emittedReadable = true;
        emitReadable_(stream);
      }
    }
    return false;
  }
  if (!state.objectMode) {
    if (typeof chunk === "string") {
      encoding = encoding || state.defaultEncoding;
      if (state.encoding !== encoding) {
        chunk = addToFront && state.encoding ? Buffer.from(chunk, encoding).toString(state.encoding) : Buffer.from(chunk, encoding);
      }
    } else if (chunk instanceof Uint8Array && !(chunk instanceof Buffer)) {
      chunk = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    } else if (!(chunk instanceof Buffer)) {
      const err = invalidArgType("chunk", "of type string or an instance of Buffer or Uint8Array", chunk);
      destroyImpl(stream, err);
      return false;
    }
  }
  if (state.ended && !addToFront) {
    destroyImpl(stream, codeError(Error, "ERR_STREAM_PUSH_AFTER_EOF", "stream.push() after EOF"));
    return false;
  }
  if (state.destroyed || state.errored) return false;
  state.reading = false;
  if (state.decoder && !addToFront && typeof chunk !== "string") {
    chunk = state.decoder.write(chunk);
    if (chunk.length === 0 && !state.objectMode) return state.length < state.highWaterMark;
  }
  if (state.flowing && state.length === 0 && !state.sync && stream.listenerCount("data") > 0) {
    state.dataEmitted = true;
    stream.emit("data", chunk);
  } else {
    state.length += chunkLength(state, chunk);
    if (addToFront) state.buffer.unshift(chunk);
    else state.buffer.push(chunk);
    if (state.needReadable) emitReadable(stream);
  }
  maybeReadMore(stream, state);
  return state.length < state.highWaterMark || state.length === 0;
}

function emitReadable(stream) {
  const state = stream._readableState;
  state.needReadable = false;
  if (!state.emittedReadable) {
    state.emittedReadable = true;
    nextTick(emitReadable_, stream);
  }
}
function emitReadable_(stream) {
  const state = stream._readableState;
  if (!state.destroyed && !state.errored && (state.length || state.ended)) {
    stream.emit("readable");
    state.emittedReadable = false;
  }
  state.needReadable = !state.flowing && !state.ended && state.length <= state.highWaterMark;
  flow(stream);
}

function maybeReadMore(stream, state) {
  if (state.readingMore) return;
  state.readingMore = true;
  nextTick(() => {
    while (!state.reading && !state.ended && (state.length < state.highWaterMark || (state.flowing && state.length === 0))) {
      const len = state.length;
      stream.read(0);
      if (len === state.length) break;
    }
    state.readingMore = false;
  });
}

// howMuchToRead: all of the buffer for read(), one chunk at a time while
// flowing, n when that much is there (or the rest at the end).
function howMuchToRead(n, state) {
  if (n <= 0 || (state.length === 0 && state.ended)) return 0;
  if (state.objectMode) return 1;
  if (Number.isNaN(n)) return state.flowing && state.length ? state.buffer[0].length : state.length;
  if (n <= state.length) return n;
  return state.ended ? state.length : 0;
}

function takeChunks(state, n) {
  if (state.length === 0) return null;
  if (state.objectMode) {
    state.length--;
    return state.buffer.shift();
  }
  if (n === state.buffer[0].length) {
    state.length -= n;
    return state.buffer.shift();
  }
  if (n >= state.length) {
    const all = state.decoder ? state.buffer.join("") : state.buffer.length === 1 ? state.buffer[0] : Buffer.concat(state.buffer, state.length);
    state.buffer = [];
    state.length = 0;
    return all;
  }
  // Part of the buffer: n bytes (or characters with a decoder).
  let out = state.decoder ? "" : Buffer.allocUnsafe(n);
  let got = 0;
  while (got < n) {
    const head = state.buffer[0];
    const take = Math.min(head.length, n - got);
    if (state.decoder) out += head.slice(0, take);
    else out.set(head.subarray(0, take), got);
    if (take === head.length) state.buffer.shift();
    else state.buffer[0] = state.decoder ? head.slice(take) : head.subarray(take);
    got += take;
  }
  state.length -= n;
  return out;
}

function endReadable(stream) {
  const state = stream._readableState;
  if (!state.endEmitted) {
    state.ended = true;
    nextTick(() => {
      if (!state.errored && !state.closeEmitted && !state.endEmitted && state.length === 0) {
        state.endEmitted = true;
        stream.emit("end");
        const w = stream._writableState;
        if (w && stream.allowHalfOpen === false && !w.ending && !w.ended) stream.end();
        else if (state.autoDestroy && (!w || (w.autoDestroy && (w.finished || w.writable === false)))) stream.destroy();
      }
    });
  }
}

function flow(stream) {
  const state = stream._readableState;
  while (state.flowing && stream.read() !== null);
}

const readableMethods = {
  push(chunk, encoding) { return readableAddChunk(this, chunk, encoding, false); },
  unshift(chunk, encoding) { return readableAddChunk(this, chunk, encoding, true); },
  read(n) {
    const state = this._readableState;
    n = n === undefined ? NaN : Number.parseInt(n, 10);
    const asked = n;
    if (n !== 0) state.emittedReadable = false;
    if (n === 0 && state.needReadable &&
      ((state.highWaterMark !== 0 ? state.length >= state.highWaterMark : state.length > 0) || state.ended)) {
      if (state.length === 0 && state.ended) endReadable(this);
      else emitReadable(this);
      return null;
    }
    n = howMuchToRead(n, state);
    if (n === 0 && state.ended) {
      if (state.length === 0) endReadable(this);
      return null;
    }
    let doRead = state.needReadable || state.length === 0 || state.length - n < state.highWaterMark;
    if (state.ended || state.reading || state.destroyed || state.errored) doRead = false;
    if (doRead) {
      state.reading = true;
      state.sync = true;
      if (state.length === 0) state.needReadable = true;
      try {
        this._read(state.highWaterMark);
      } catch (err) {
        destroyImpl(this, err);
      }
      state.sync = false;
      if (!state.reading) n = howMuchToRead(asked, state);
    }
    let ret = n > 0 ? takeChunks(state, n) : null;
    if (ret === null) {
      state.needReadable = state.length <= state.highWaterMark;
      n = 0;
    }
    if (state.length === 0) {
      if (!state.ended) state.needReadable = true;
      if (asked !== n && state.ended) endReadable(this);
    }
    if (ret !== null && !state.errorEmitted) {
      state.dataEmitted = true;
      this.emit("data", ret);
    }
    return ret;
  },
  _read() { throw notImplemented("_read()"); },
  setEncoding(enc) {
    const { StringDecoder } = require("string_decoder");
    const state = this._readableState;
    state.decoder = new StringDecoder(enc);
    state.encoding = state.decoder.encoding;
    const old = state.buffer;
    state.buffer = [];
    state.length = 0;
    const s = old.map((b) => (typeof b === "string" ? b : state.decoder.write(b))).join("");
    if (s) { state.buffer.push(s); state.length = s.length; }
    return this;
  },
  pause() {
    const state = this._readableState;
    if (state.flowing !== false) {
      state.flowing = false;
      this.emit("pause");
    }
    return this;
  },
  resume() {
    const state = this._readableState;
    if (!state.flowing) {
      state.flowing = !state.readableListening;
      if (!state.resumeScheduled) {
        state.resumeScheduled = true;
        nextTick(() => {
          if (!state.reading) this.read(0);
          state.resumeScheduled = false;
          this.emit("resume");
          flow(this);
          if (state.flowing && !state.reading) this.read(0);
        });
      }
    }
    return this;
  },
  isPaused() { return this._readableState.flowing === false; },
  on(ev, fn) {
    const res = EE.prototype.on.call(this, ev, fn);
    const state = this._readableState;
    if (ev === "data") {
      if (state.flowing !== false) this.resume();
    } else if (ev === "readable") {
      if (!state.endEmitted && !state.readableListening) {
        state.readableListening = state.needReadable = true;
        state.flowing = false;
        state.emittedReadable = false;
        if (state.length) emitReadable(this);
        else if (!state.reading) nextTick(() => this.read(0));
      }
    }
    return res;
  },
  pipe(dest, options) {
    const src = this, state = this._readableState;
    state.pipes.push(dest);
    const doEnd = (!options || options.end !== false) && dest !== globalThis.process?.stdout && dest !== globalThis.process?.stderr;
    const ondata = (chunk) => {
      if (dest.write(chunk) === false) {
        src.pause();
        dest.once("drain", () => { if (state.pipes.includes(dest)) src.resume(); });
      }
    };
    const onend = () => { if (doEnd) dest.end(); };
    const onerror = (er) => {
      unpipe();
      if (dest.listenerCount("error") === 0) {
        const s = dest._writableState || dest._readableState;
        if (s && !s.errorEmitted) destroyImpl(dest, er);
        else dest.emit("error", er);
      }
    };
    const unpipe = () => {
      src.removeListener("data", ondata);
      src.removeListener("end", onend);
      dest.removeListener("error", onerror);
    };
    src[kUnpipers] = src[kUnpipers] || new Map();
    src[kUnpipers].set(dest, unpipe);
    src.on("data", ondata);
    if (state.endEmitted) nextTick(onend);
    else src.once("end", onend);
    dest.prependListener("error", onerror);
    dest.emit("pipe", src);
    if (!state.flowing) src.resume();
    return dest;
  },
  unpipe(dest) {
    const state = this._readableState;
    const targets = dest === undefined ? state.pipes.slice() : [dest];
    for (const d of targets) {
      const i = state.pipes.indexOf(d);
      if (i < 0) continue;
      state.pipes.splice(i, 1);
      const fn = this[kUnpipers] && this[kUnpipers].get(d);
      if (fn) fn();
      d.emit("unpipe", this);
    }
    if (state.pipes.length === 0) this.pause();
    return this;
  },
  destroy(err, cb) { return destroyImpl(this, err, cb); },
  _destroy(err, cb) { cb(err); },
  [Symbol.asyncIterator]() { return createAsyncIterator(this); },
  iterator(options) { return createAsyncIterator(this, options); },
  wrap(stream) {
    stream.on("data", (chunk) => { if (!this.push(chunk) && stream.pause) stream.pause(); });
    stream.on("end", () => this.push(null));
    stream.on("error", (err) => destroyImpl(this, err));
    this._read = () => { if (stream.resume) stream.resume(); };
    return this;
  },
  async toArray(options) {
    const out = [];
    for await (const chunk of this) {
      if (options && options.signal && options.signal.aborted) throw require("internal/errors").abortError(options.signal);
      out.push(chunk);
    }
    return out;
  },
  async forEach(fn) {
    for await (const chunk of this) await fn(chunk);
  },
  map(fn) {
    const src = this;
    return Readable.from((async function* () { for await (const c of src) yield await fn(c); })());
  },
  filter(fn) {
    const src = this;
    return Readable.from((async function* () { for await (const c of src) if (await fn(c)) yield c; })());
  },
  async reduce(fn, initial) {
    let acc = initial, first = arguments.length < 2;
    for await (const c of this) {
      if (first) { acc = c; first = false; } else acc = await fn(acc, c);
    }
    return acc;
  },
};
defineMethods(Readable.prototype, readableMethods);
defineGetters(Readable.prototype, {
  readable() { const s = this._readableState; return !!s && !s.destroyed && !s.errored && !s.endEmitted; },
  readableEnded() { return this._readableState.endEmitted; },
  readableFlowing() { return this._readableState.flowing; },
  readableLength() { return this._readableState.length; },
  readableHighWaterMark() { return this._readableState.highWaterMark; },
  readableObjectMode() { return this._readableState.objectMode; },
  readableEncoding() { return this._readableState.encoding; },
  readableAborted() { const s = this._readableState; return s.destroyed && !s.endEmitted; },
  readableDidRead() { return this._readableState.dataEmitted; },
  destroyed() { return (this._readableState || this._writableState).destroyed; },
  closed() { return (this._readableState || this._writableState).closed; },
  errored() { const s = this._readableState || this._writableState; return s.errored; },
});

function createAsyncIterator(stream, options) {
  const state = stream._readableState;
  let wake = null, error = null, done = false;
  const signal = () => { if (wake) { const w = wake; wake = null; w(); } };
  stream.on("readable", signal);
  const onEnd = () => { done = true; signal(); };
  const onError = (err) => { error = err; signal(); };
  stream.on("end", onEnd);
  stream.on("error", onError);
  stream.on("close", onEnd);
  const cleanup = () => {
    stream.removeListener("readable", signal);
    stream.removeListener("end", onEnd);
    stream.removeListener("error", onError);
    stream.removeListener("close", onEnd);
  };
  const destroyOnReturn = !options || options.destroyOnReturn !== false;
  return (async function* () {
    try {
      for (;;) {
        const chunk = state.destroyed ? null : stream.read();
        if (chunk !== null) yield chunk;
        else if (error) throw error;
        else if (done || state.endEmitted) return;
        else await new Promise((resolve) => { wake = resolve; });
      }
    } finally {
      cleanup();
      if (!state.endEmitted && destroyOnReturn && !error) stream.destroy();
    }
  })();
}

Readable.from = function from(iterable, opts) {
  if (typeof iterable === "string" || iterable instanceof Buffer) {
    return new Readable({ objectMode: true, ...opts, read() { this.push(iterable); this.push(null); } });
  }
  let it;
  if (iterable && typeof iterable[Symbol.asyncIterator] === "function") it = iterable[Symbol.asyncIterator]();
  else if (iterable && typeof iterable[Symbol.iterator] === "function") it = iterable[Symbol.iterator]();
  else throw invalidArgType("iterable", "an instance of Iterable", iterable);
  let reading = false;
  const readable = new Readable({
    objectMode: true, highWaterMark: 1, ...opts,
    read() {
      if (reading) return;
      reading = true;
      (async () => {
        try {
          for (;;) {
            const { value, done } = await it.next();
            if (done) { this.push(null); break; }
            const v = await value;
            if (v === null) throw codeError(TypeError, "ERR_STREAM_NULL_VALUES", "May not write null values to stream");
            if (!this.push(v)) break;
          }
        } catch (err) {
          this.destroy(err);
        }
        reading = false;
      })();
    },
    destroy(err, cb) {
      if (typeof it.return === "function" && !this.readableEnded) {
        Promise.resolve(it.return()).then(() => cb(err), cb);
      } else cb(err);
    },
  });
  return readable;
};

// ---- Writable ----

class WritableState {
  constructor(options, stream, isDuplex) {
    this.objectMode = !!(options && (options.objectMode || (isDuplex && options.writableObjectMode)));
    this.highWaterMark = hwm(options, this.objectMode, "writableHighWaterMark");
    this.decodeStrings = !(options && options.decodeStrings === false);
    this.defaultEncoding = (options && options.defaultEncoding) || "utf8";
    this.buffered = [];
    this.length = 0;
    this.writing = false;
    this.corked = 0;
    this.sync = true;
    this.needDrain = false;
    this.ending = false;
    this.ended = false;
    this.finished = false;
    this.finalCalled = false;
    this.prefinished = false;
    this.pendingcb = 0;
    lifecycle(this, options);
    this.afterWriteTickInfo = null;
  }
}

function Writable(options) {
  const isDuplex = this instanceof Duplex;
  if (!isDuplex && !(this instanceof Writable)) return new Writable(options);
  this._writableState = new WritableState(options, this, isDuplex);
  adoptMethods(this, options, ["write", "writev", "destroy", "final"]);
  Stream.call(this, options);
}
Object.setPrototypeOf(Writable.prototype, Stream.prototype);
Object.setPrototypeOf(Writable, Stream);
Object.defineProperty(Writable, Symbol.hasInstance, {
  value(obj) {
    if (Function.prototype[Symbol.hasInstance].call(this, obj)) return true;
    if (this !== Writable) return false;
    return !!(obj && obj._writableState instanceof WritableState);
  },
});

function errorOrDestroy(stream, err, sync) {
  const w = stream._writableState;
  if (w.autoDestroy) destroyImpl(stream, err);
  else if (!w.errorEmitted) {
    w.errorEmitted = true;
    if (sync) nextTick(() => stream.emit("error", err));
    else stream.emit("error", err);
  }
}

function writeOrBuffer(stream, state, chunk, encoding, cb) {
  const len = state.objectMode ? 1 : chunk.length;
  state.length += len;
  const ret = state.length < state.highWaterMark;
  if (!ret) state.needDrain = true;
  if (state.writing || state.corked || state.errored) {
    state.buffered.push({ chunk, encoding, callback: cb });
  } else {
    doWrite(stream, state, false, len, chunk, encoding, cb);
  }
  return ret && !state.errored && !state.destroyed;
}

function doWrite(stream, state, writev, len, chunk, encoding, cb) {
  state.writelen = len;
  state.writecb = cb;
  state.writing = true;
  state.sync = true;
  if (state.destroyed) onwrite(stream, codeError(Error, "ERR_STREAM_DESTROYED", "Cannot call write after a stream was destroyed"));
  else if (writev) stream._writev(chunk, (er) => onwrite(stream, er));
  else stream._write(chunk, encoding, (er) => onwrite(stream, er));
  state.sync = false;
}

function onwrite(stream, er) {
  const state = stream._writableState;
  const sync = state.sync, cb = state.writecb;
  if (typeof cb !== "function") {
    errorOrDestroy(stream, codeError(Error, "ERR_MULTIPLE_CALLBACK", "Callback called multiple times"));
    return;
  }
  state.writing = false;
  state.writecb = null;
  state.length -= state.writelen;
  state.writelen = 0;
  if (er) {
    er.stack; // eslint-disable-line no-unused-expressions
    if (!state.errored) state.errored = er;
    const fail = () => { cb(er); errorOrDestroy(stream, er); };
    if (sync) nextTick(fail);
    else fail();
    return;
  }
  if (state.buffered.length) clearBuffer(stream, state);
  if (sync) nextTick(afterWrite, stream, state, cb);
  else afterWrite(stream, state, cb);
}

function afterWrite(stream, state, cb) {
  if (state.needDrain && state.length === 0 && !state.ending && !state.destroyed) {
    state.needDrain = false;
    stream.emit("drain");
  }
  cb(null);
  if (state.destroyed) return;
  finishMaybe(stream, state);
}

function clearBuffer(stream, state) {
  if (state.corked || state.writing || state.destroyed) return;
  const buffered = state.buffered;
  if (buffered.length > 1 && stream._writev) {
    state.buffered = [];
    const callbacks = buffered.map((b) => b.callback);
    const chunks = buffered.map((b) => ({ chunk: b.chunk, encoding: b.encoding }));
    const len = state.objectMode ? chunks.length : chunks.reduce((n, c) => n + c.chunk.length, 0);
    doWrite(stream, state, true, len, chunks, "", (err) => { for (const c of callbacks) c(err); });
  } else if (buffered.length) {
    const { chunk, encoding, callback } = buffered.shift();
    doWrite(stream, state, false, state.objectMode ? 1 : chunk.length, chunk, encoding, callback);
  }
}

function needFinish(state) {
  return state.ending && !state.destroyed && state.length === 0 && !state.errored && state.buffered.length === 0 &&
    !state.finished && !state.writing;
}

function finishMaybe(stream, state, sync) {
  if (!needFinish(state)) return;
  if (!state.prefinished && !state.finalCalled) {
    if (typeof stream._final === "function" && !state.destroyed) {
      state.finalCalled = true;
      state.pendingcb++;
      let called = false;
      const onFinal = (err) => {
        if (called) return;
        called = true;
        state.pendingcb--;
        if (err) {
          if (!state.errored) state.errored = err;
          errorOrDestroy(stream, err);
          return;
        }
        state.prefinished = true;
        stream.emit("prefinish");
        if (needFinish(state)) nextTick(finish, stream, state);
      };
      try {
        const p = stream._final(onFinal);
        if (p && typeof p.then === "function") p.then(() => onFinal(), onFinal);
      } catch (err) {
        onFinal(err);
      }
      return;
    }
    state.prefinished = true;
    stream.emit("prefinish");
  }
  if (state.pendingcb === 0 && state.prefinished) {
    state.pendingcb++;
    const go = () => { state.pendingcb--; finish(stream, state); };
    if (sync) nextTick(go);
    else nextTick(go);
  }
}

function finish(stream, state) {
  if (state.finished || state.errored || state.destroyed) return;
  state.finished = true;
  if (state.endCallbacks) for (const cb of state.endCallbacks) cb(null);
  state.endCallbacks = null;
  stream.emit("finish");
  if (state.autoDestroy) {
    const r = stream._readableState;
    if (!r || (r.autoDestroy && (r.endEmitted || r.readable === false))) stream.destroy();
  }
}

const writableMethods = {
  write(chunk, encoding, cb) {
    const state = this._writableState;
    if (typeof encoding === "function") { cb = encoding; encoding = null; }
    if (!encoding) encoding = state.defaultEncoding;
    else if (encoding !== "buffer" && !Buffer.isEncoding(encoding)) throw codeError(TypeError, "ERR_UNKNOWN_ENCODING", `Unknown encoding: ${encoding}`);
    if (typeof cb !== "function") cb = () => {};
    if (chunk === null) throw codeError(TypeError, "ERR_STREAM_NULL_VALUES", "May not write null values to stream");
    if (!state.objectMode) {
      if (typeof chunk === "string") {
        if (state.decodeStrings !== false) { chunk = Buffer.from(chunk, encoding); encoding = "buffer"; }
      } else if (chunk instanceof Buffer) encoding = "buffer";
      else if (chunk instanceof Uint8Array) { chunk = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength); encoding = "buffer"; }
      else throw invalidArgType("chunk", "of type string or an instance of Buffer, TypedArray, or DataView", chunk);
    }
    let err;
    if (state.ending) err = codeError(Error, "ERR_STREAM_WRITE_AFTER_END", "write after end");
    else if (state.destroyed) err = codeError(Error, "ERR_STREAM_DESTROYED", "Cannot call write after a stream was destroyed");
    if (err) {
      nextTick(cb, err);
      errorOrDestroy(this, err, true);
      return false;
    }
    state.pendingcb++;
    return writeOrBuffer(this, state, chunk, encoding, (e) => { state.pendingcb--; cb(e); });
  },
  end(chunk, encoding, cb) {
    const state = this._writableState;
    if (typeof chunk === "function") { cb = chunk; chunk = null; encoding = null; }
    else if (typeof encoding === "function") { cb = encoding; encoding = null; }
    if (chunk !== null && chunk !== undefined) this.write(chunk, encoding);
    if (state.corked) { state.corked = 1; this.uncork(); }
    let err;
    if (!state.errored && !state.ending) {
      state.ending = true;
      finishMaybe(this, state, true);
      state.ended = true;
    } else if (state.finished) err = codeError(Error, "ERR_STREAM_ALREADY_FINISHED", "Cannot call end after a stream was finished");
    else if (state.destroyed) err = codeError(Error, "ERR_STREAM_DESTROYED", "Cannot call end after a stream was destroyed");
    if (typeof cb === "function") {
      if (err || state.finished) nextTick(cb, err);
      else (state.endCallbacks = state.endCallbacks || []).push(cb);
    }
    return this;
  },
  cork() { this._writableState.corked++; },
  uncork() {
    const state = this._writableState;
    if (state.corked) {
      state.corked--;
      if (!state.writing) clearBuffer(this, state);
    }
  },
  setDefaultEncoding(enc) {
    if (typeof enc === "string") enc = enc.toLowerCase();
    if (!Buffer.isEncoding(enc)) throw codeError(TypeError, "ERR_UNKNOWN_ENCODING", `Unknown encoding: ${enc}`);
    this._writableState.defaultEncoding = enc;
    return this;
  },
  _write(chunk, encoding, cb) {
    if (this._writev) this._writev([{ chunk, encoding }], cb);
    else throw notImplemented("_write()");
  },
  destroy(err, cb) { return destroyImpl(this, err, cb); },
  _destroy(err, cb) { cb(err); },
};
defineMethods(Writable.prototype, writableMethods);
const writableGetters = {
  writable() { const w = this._writableState; return !!w && w.writable !== false && !w.destroyed && !w.errored && !w.ending && !w.ended; },
  writableEnded() { return this._writableState.ending; },
  writableFinished() { return this._writableState.finished; },
  writableLength() { return this._writableState.length; },
  writableHighWaterMark() { return this._writableState.highWaterMark; },
  writableObjectMode() { return this._writableState.objectMode; },
  writableCorked() { return this._writableState.corked; },
  writableNeedDrain() { const w = this._writableState; return !w.destroyed && !w.ending && w.needDrain; },
  destroyed() { return this._writableState.destroyed; },
  closed() { return this._writableState.closed; },
  errored() { return this._writableState.errored; },
};
defineGetters(Writable.prototype, writableGetters);

// ---- Duplex, Transform, PassThrough ----

function Duplex(options) {
  if (!(this instanceof Duplex)) return new Duplex(options);
  Readable.call(this, options);
  Writable.call(this, options);
  this.allowHalfOpen = !(options && options.allowHalfOpen === false);
  if (options) {
    if (options.readable === false) { this._readableState.readable = false; this._readableState.ended = true; this._readableState.endEmitted = true; }
    if (options.writable === false) { this._writableState.writable = false; this._writableState.ending = true; this._writableState.ended = true; this._writableState.finished = true; }
  }
}
Object.setPrototypeOf(Duplex.prototype, Readable.prototype);
Object.setPrototypeOf(Duplex, Readable);
defineMethods(Duplex.prototype, {
  write: writableMethods.write, end: writableMethods.end, cork: writableMethods.cork, uncork: writableMethods.uncork,
  setDefaultEncoding: writableMethods.setDefaultEncoding, _write: writableMethods._write,
});
const { destroyed: _d, closed: _c, errored: _e, ...duplexWritableGetters } = writableGetters;
defineGetters(Duplex.prototype, duplexWritableGetters);

function Transform(options) {
  if (!(this instanceof Transform)) return new Transform(options);
  Duplex.call(this, options);
  this._readableState.sync = false;
  adoptMethods(this, options, ["transform", "flush"]);
}
Object.setPrototypeOf(Transform.prototype, Duplex.prototype);
Object.setPrototypeOf(Transform, Duplex);
defineMethods(Transform.prototype, {
  _transform() { throw notImplemented("_transform()"); },
  _write(chunk, encoding, callback) {
    const r = this._readableState;
    const length = r.length;
    this._transform(chunk, encoding, (err, val) => {
      if (err) { callback(err); return; }
      if (val != null) this.push(val);
      if (r.ended || length === r.length || r.length < r.highWaterMark) callback();
      else this[kPendingCallback] = callback;
    });
  },
  _final(cb) {
    const done = (err, data) => {
      if (err) { cb(err); return; }
      if (data != null) this.push(data);
      this.push(null);
      cb();
    };
    if (typeof this._flush === "function" && !this.destroyed) this._flush(done);
    else done();
  },
  _read() {
    if (this[kPendingCallback]) {
      const cb = this[kPendingCallback];
      this[kPendingCallback] = null;
      cb();
    }
  },
});

function PassThrough(options) {
  if (!(this instanceof PassThrough)) return new PassThrough(options);
  Transform.call(this, options);
}
Object.setPrototypeOf(PassThrough.prototype, Transform.prototype);
Object.setPrototypeOf(PassThrough, Transform);
PassThrough.prototype._transform = function (chunk, encoding, cb) { cb(null, chunk); };

function defineMethods(proto, methods) {
  for (const k of Reflect.ownKeys(methods)) {
    Object.defineProperty(proto, k, { value: methods[k], writable: true, configurable: true, enumerable: false });
  }
}
function defineGetters(proto, getters) {
  for (const k of Object.keys(getters)) {
    Object.defineProperty(proto, k, { get: getters[k], configurable: true, enumerable: false });
  }
}

// ---- finished and pipeline ----

function eos(stream, options, callback) {
  if (typeof options === "function") { callback = options; options = {}; }
  options = options || {};
  let called = false;
  const done = (err) => {
    if (called) return;
    called = true;
    cleanup();
    callback.call(stream, err);
  };
  const r = stream._readableState, w = stream._writableState;
  const readable = options.readable !== false && !!r && r.readable !== false;
  const writable = options.writable !== false && !!w && w.writable !== false;
  let ended = !readable || r.endEmitted, finished = !writable || w.finished;
  const onend = () => { ended = true; if (finished) done(); };
  const onfinish = () => { finished = true; if (ended) done(); };
  const onerror = (err) => done(err);
  const onclose = () => {
    if ((readable && !ended) || (writable && !finished)) done(codeError(Error, "ERR_STREAM_PREMATURE_CLOSE", "Premature close"));
    else done();
  };
  stream.on("end", onend);
  stream.on("finish", onfinish);
  if (options.error !== false) stream.on("error", onerror);
  stream.on("close", onclose);
  const cleanup = () => {
    stream.removeListener("end", onend);
    stream.removeListener("finish", onfinish);
    stream.removeListener("error", onerror);
    stream.removeListener("close", onclose);
  };
  const s = r || w;
  if (s && s.errored) nextTick(done, s.errored);
  else if (ended && finished) nextTick(done);
  return cleanup;
}

function pipeline(...streams) {
  const callback = typeof streams[streams.length - 1] === "function" && streams.length > 2 && !isStreamLike(streams[streams.length - 1])
    ? streams.pop() : null;
  if (Array.isArray(streams[0]) && streams.length === 1) streams = streams[0];
  if (!callback) throw invalidArgType("streams[stream.length - 1]", "of type function", undefined);
  if (streams.length < 2) throw codeError(TypeError, "ERR_MISSING_ARGS", 'The "streams" argument must be specified');
  let error = null, finishedCount = 0, done = false;
  const destroys = [];
  const finish = (err) => {
    if (err && !error) error = err;
    if (err) for (const d of destroys) d(err);
    if (done) return;
    if (err || ++finishedCount === total) {
      done = true;
      nextTick(callback, error || undefined, lastValue);
    }
  };
  let total = 0, lastValue;
  let prev = null;
  for (let i = 0; i < streams.length; i++) {
    let s = streams[i];
    const last = i === streams.length - 1;
    let consumesPrev = false; // a function stage reads prev itself
    if (typeof s === "function") {
      consumesPrev = true;
      const out = i === 0 ? s({ signal: undefined }) : s(prev, { signal: undefined });
      if (last) {
        total++;
        Promise.resolve(out).then((v) => { lastValue = v; finish(); }, finish);
        break;
      }
      s = Readable.from(out);
    } else if (i === 0 && !isStreamLike(s) && s && (s[Symbol.asyncIterator] || s[Symbol.iterator])) {
      s = Readable.from(s);
    }
    if (isStreamLike(s)) {
      const stream = s;
      total++;
      const needsWrite = i > 0, needsRead = !last;
      eos(stream, { readable: needsRead, writable: needsWrite }, (err) => finish(err));
      destroys.push((err) => { if (!stream.destroyed) stream.destroy(err); });
      if (prev && !consumesPrev) prev.pipe(stream);
    }
    prev = s;
  }
  return prev;
}
function isStreamLike(s) {
  return !!s && typeof s === "object" && typeof s.on === "function" && (typeof s.pipe === "function" || typeof s.write === "function");
}

const promises = {
  pipeline: (...streams) => new Promise((resolve, reject) => {
    pipeline(...streams, (err, value) => (err ? reject(err) : resolve(value)));
  }),
  finished: (stream, opts) => new Promise((resolve, reject) => {
    eos(stream, opts, (err) => (err ? reject(err) : resolve()));
  }),
};

Object.assign(Stream, {
  Stream, Readable, Writable, Duplex, Transform, PassThrough, pipeline, finished: eos, promises,
  isReadable: (s) => !!(s && s.readable),
  isWritable: (s) => !!(s && s.writable),
  isErrored: (s) => !!(s && (s._readableState || s._writableState || {}).errored),
  getDefaultHighWaterMark: (objectMode) => (objectMode ? 16 : 16384),
  setDefaultHighWaterMark: () => {},
});
Object.defineProperty(eos, Symbol.for("nodejs.util.promisify.custom"), { value: promises.finished });
Object.defineProperty(pipeline, Symbol.for("nodejs.util.promisify.custom"), { value: promises.pipeline });
module.exports = Stream;
