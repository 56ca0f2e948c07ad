// Node's events module: EventEmitter (listeners in registration order,
// once wrappers, 'newListener'/'removeListener', an unhandled 'error'
// throws, the max-listeners warning) and the static once/on helpers.
"use strict";
const { checkFunction, emitWarning, invalidArgType, outOfRange, abortError, withCode } = require("internal/errors");

const kCapture = Symbol("kCapture");
const kShapeMode = Symbol("shapeMode");
const errorMonitor = Symbol("events.errorMonitor");
const captureRejectionSymbol = Symbol.for("nodejs.rejection");
let defaultMaxListeners = 10;

// The emitter's fields are Node's (_events: a null-prototype object of
// type → listener or array of listeners, _eventsCount, _maxListeners),
// which some code reads and util.inspect shows. A plain function, not a
// class, so that EventEmitter.call(this) in old-style subclasses works.
function EventEmitter(opts) {
  EventEmitter.init.call(this, opts);
}
EventEmitter.prototype._events = undefined;
EventEmitter.prototype._eventsCount = 0;
EventEmitter.prototype._maxListeners = undefined;
EventEmitter.prototype[kCapture] = false;

EventEmitter.init = function init() {
  if (this._events === undefined || this._events === Object.getPrototypeOf(this)._events) {
    this._events = Object.create(null);
    this._eventsCount = 0;
    this[kShapeMode] = false;
  } else {
    this[kShapeMode] = true;
  }
  this._maxListeners = this._maxListeners || undefined;
  this[kCapture] = false;
};

Object.defineProperty(EventEmitter, "defaultMaxListeners", {
  enumerable: true,
  get: () => defaultMaxListeners,
  set(n) {
    if (typeof n !== "number" || n < 0 || Number.isNaN(n)) throw outOfRange("defaultMaxListeners", "a non-negative number", n);
    defaultMaxListeners = n;
  },
});

function addListener(target, type, listener, prepend) {
  checkFunction(listener, "listener");
  let events = target._events, existing;
  if (events === undefined) {
    events = target._events = Object.create(null);
    target._eventsCount = 0;
  } else {
    if (events.newListener !== undefined) {
      target.emit("newListener", type, listener.listener ? listener.listener : listener);
      events = target._events;
    }
    existing = events[type];
  }
  if (existing === undefined) {
    events[type] = listener;
    ++target._eventsCount;
  } else {
    if (typeof existing === "function") existing = events[type] = prepend ? [listener, existing] : [existing, listener];
    else if (prepend) existing.unshift(listener);
    else existing.push(listener);
    const m = target.getMaxListeners();
    if (m > 0 && existing.length > m && !existing.warned) {
      existing.warned = true;
      const name = typeof type === "symbol" ? type.toString() : type;
      emitWarning(`Possible EventEmitter memory leak detected. ${existing.length} ${name} listeners added to ` +
        `[${target.constructor.name}]. MaxListeners is ${m}. Use emitter.setMaxListeners() to increase limit`,
      "MaxListenersExceededWarning");
    }
  }
  return target;
}

function onceWrapper(...args) {
  if (this.fired) return undefined;
  this.target.removeListener(this.type, this.wrapFn);
  this.fired = true;
  return this.listener.apply(this.target, args);
}
function onceWrap(target, type, listener) {
  const state = { fired: false, wrapFn: undefined, target, type, listener };
  const wrapped = onceWrapper.bind(state);
  wrapped.listener = listener;
  state.wrapFn = wrapped;
  return wrapped;
}

const methods = {
  setMaxListeners(n) {
    if (typeof n !== "number" || n < 0 || Number.isNaN(n)) throw outOfRange("n", "a non-negative number", n);
    this._maxListeners = n;
    return this;
  },
  getMaxListeners() {
    return this._maxListeners === undefined ? defaultMaxListeners : this._maxListeners;
  },
  emit(type, ...args) {
    let doError = type === "error";
    const events = this._events;
    if (events !== undefined) {
      if (doError && events[errorMonitor] !== undefined) this.emit(errorMonitor, ...args);
      doError = doError && events.error === undefined;
    } else if (!doError) return false;
    if (doError) {
      const er = args[0];
      if (er instanceof Error) throw er;
      let shown;
      try { shown = require("util").inspect(er); } catch (e) { shown = String(er); }
      const err = withCode(new Error(`Unhandled error. (${shown})`), "ERR_UNHANDLED_ERROR");
      err.context = er;
      throw err;
    }
    const handler = events[type];
    if (handler === undefined) return false;
    if (typeof handler === "function") handler.apply(this, args);
    else for (const l of handler.slice()) l.apply(this, args);
    return true;
  },
  addListener(type, listener) { return addListener(this, type, listener, false); },
  on(type, listener) { return addListener(this, type, listener, false); },
  prependListener(type, listener) { return addListener(this, type, listener, true); },
  once(type, listener) {
    checkFunction(listener, "listener");
    return this.on(type, onceWrap(this, type, listener));
  },
  prependOnceListener(type, listener) {
    checkFunction(listener, "listener");
    return this.prependListener(type, onceWrap(this, type, listener));
  },
  removeListener(type, listener) {
    checkFunction(listener, "listener");
    const events = this._events;
    if (events === undefined) return this;
    const list = events[type];
    if (list === undefined) return this;
    if (list === listener || list.listener === listener) {
      this._eventsCount -= 1;
      if (this[kShapeMode]) events[type] = undefined;
      else if (this._eventsCount === 0) this._events = Object.create(null);
      else {
        delete events[type];
        if (events.removeListener) this.emit("removeListener", type, list.listener || listener);
      }
    } else if (typeof list !== "function") {
      let position = -1;
      for (let i = list.length - 1; i >= 0; i--) {
        if (list[i] === listener || list[i].listener === listener) { position = i; break; }
      }
      if (position < 0) return this;
      list.splice(position, 1);
      if (list.length === 1) events[type] = list[0];
      if (events.removeListener !== undefined) this.emit("removeListener", type, listener);
    }
    return this;
  },
  off(type, listener) { return this.removeListener(type, listener); },
  removeAllListeners(type) {
    const events = this._events;
    if (events === undefined) return this;
    if (events.removeListener === undefined) {
      if (arguments.length === 0) {
        this._events = Object.create(null);
        this._eventsCount = 0;
      } else if (events[type] !== undefined) {
        if (--this._eventsCount === 0) this._events = Object.create(null);
        else delete events[type];
      }
      return this;
    }
    if (arguments.length === 0) {
      for (const key of Reflect.ownKeys(events)) if (key !== "removeListener") this.removeAllListeners(key);
      this.removeAllListeners("removeListener");
      this._events = Object.create(null);
      this._eventsCount = 0;
      return this;
    }
    const listeners = events[type];
    if (typeof listeners === "function") this.removeListener(type, listeners);
    else if (listeners !== undefined) for (let i = listeners.length - 1; i >= 0; i--) this.removeListener(type, listeners[i]);
    return this;
  },
  listeners(type) {
    const l = this._events === undefined ? undefined : this._events[type];
    if (l === undefined) return [];
    if (typeof l === "function") return [l.listener || l];
    return l.map((x) => x.listener || x);
  },
  rawListeners(type) {
    const l = this._events === undefined ? undefined : this._events[type];
    if (l === undefined) return [];
    return typeof l === "function" ? [l] : l.slice();
  },
  listenerCount(type, listener) {
    const l = this._events === undefined ? undefined : this._events[type];
    if (l === undefined) return 0;
    const list = typeof l === "function" ? [l] : l;
    if (listener == null) return list.length;
    return list.filter((x) => x === listener || x.listener === listener).length;
  },
  eventNames() {
    return this._eventsCount > 0 ? Reflect.ownKeys(this._events) : [];
  },
};
for (const [k, v] of Object.entries(methods)) {
  Object.defineProperty(EventEmitter.prototype, k, { value: v, writable: true, configurable: true, enumerable: true });
}

function once(emitter, name, options = {}) {
  const signal = options && options.signal;
  return new Promise((resolve, reject) => {
    if (signal && signal.aborted) return reject(abortError(signal));
    const cleanup = () => {
      remove(emitter, name, onEvent);
      if (name !== "error") remove(emitter, "error", onError);
      if (signal) signal.removeEventListener("abort", onAbort);
    };
    const onEvent = (...args) => { cleanup(); resolve(args); };
    const onError = (err) => { cleanup(); reject(err); };
    const onAbort = () => { cleanup(); reject(abortError(signal)); };
    add(emitter, name, onEvent);
    if (name !== "error") add(emitter, "error", onError);
    if (signal) signal.addEventListener("abort", onAbort, { once: true });
  });
}
function add(target, name, fn) {
  if (typeof target.on === "function") target.on(name, fn);
  else if (typeof target.addEventListener === "function") target.addEventListener(name, fn);
  else throw invalidArgType("emitter", "an instance of EventEmitter or EventTarget", target);
}
function remove(target, name, fn) {
  if (typeof target.removeListener === "function") target.removeListener(name, fn);
  else if (typeof target.removeEventListener === "function") target.removeEventListener(name, fn);
}

// on returns an async iterator of the argument arrays of each event.
function on(emitter, name, options = {}) {
  const signal = options && options.signal;
  const queue = [], waiting = [];
  let error = null, done = false;
  const onEvent = (...args) => {
    if (waiting.length) waiting.shift().resolve({ value: args, done: false });
    else queue.push(args);
  };
  const onError = (err) => {
    done = true;
    if (waiting.length) waiting.shift().reject(err);
    else error = err;
    stop();
  };
  const stop = () => {
    remove(emitter, name, onEvent);
    remove(emitter, "error", onError);
    done = true;
    while (waiting.length) waiting.shift().resolve({ value: undefined, done: true });
  };
  add(emitter, name, onEvent);
  if (name !== "error") add(emitter, "error", onError);
  if (signal) signal.addEventListener("abort", () => onError(abortError(signal)), { once: true });
  return {
    next() {
      if (queue.length) return Promise.resolve({ value: queue.shift(), done: false });
      if (error) { const e = error; error = null; return Promise.reject(e); }
      if (done) return Promise.resolve({ value: undefined, done: true });
      return new Promise((resolve, reject) => waiting.push({ resolve, reject }));
    },
    return() { stop(); return Promise.resolve({ value: undefined, done: true }); },
    throw(err) { onError(err); return Promise.reject(err); },
    [Symbol.asyncIterator]() { return this; },
  };
}

function getEventListeners(target, name) {
  if (typeof target.listeners === "function") return target.listeners(name);
  return [];
}
function setMaxListeners(n = defaultMaxListeners, ...targets) {
  if (targets.length === 0) EventEmitter.defaultMaxListeners = n;
  for (const t of targets) if (typeof t.setMaxListeners === "function") t.setMaxListeners(n);
}

function addAbortListener(signal, listener) {
  signal.addEventListener("abort", listener, { once: true });
  return { [Symbol.dispose || Symbol.for("nodejs.dispose")]() { signal.removeEventListener("abort", listener); } };
}

Object.assign(EventEmitter, {
  EventEmitter, once, on, getEventListeners, setMaxListeners, errorMonitor, captureRejectionSymbol, addAbortListener,
  captureRejections: false, usingDomains: false,
  getMaxListeners: (em) => em.getMaxListeners(),
  listenerCount: (em, type) => em.listenerCount(type),
});
module.exports = EventEmitter;
