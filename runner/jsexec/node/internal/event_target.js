// The web's EventTarget, Event, CustomEvent, AbortController and
// AbortSignal, which Node has as globals.
"use strict";
const { invalidArgType } = require("internal/errors");
const inspectSymbol = Symbol.for("nodejs.util.inspect.custom");

const kListeners = Symbol("listeners");
const kStop = Symbol("stopImmediate");

class Event {
  #type; #cancelable; #bubbles; #composed; #defaultPrevented = false; #timeStamp;
  constructor(type, options = undefined) {
    if (arguments.length === 0) throw invalidArgType("type", "specified", undefined);
    this.#type = String(type);
    this.#cancelable = !!(options && options.cancelable);
    this.#bubbles = !!(options && options.bubbles);
    this.#composed = !!(options && options.composed);
    this.#timeStamp = typeof performance === "object" ? performance.now() : Date.now();
    this[kStop] = false;
    Object.defineProperty(this, "isTrusted", { get: () => false, enumerable: true });
    this.target = null;
    this.currentTarget = null;
  }
  get type() { return this.#type; }
  get cancelable() { return this.#cancelable; }
  get bubbles() { return this.#bubbles; }
  get composed() { return this.#composed; }
  get defaultPrevented() { return this.#cancelable && this.#defaultPrevented; }
  get returnValue() { return !this.defaultPrevented; }
  get timeStamp() { return this.#timeStamp; }
  get eventPhase() { return this.currentTarget ? 2 : 0; }
  get srcElement() { return this.target; }
  get cancelBubble() { return this[kStop]; }
  set cancelBubble(v) { if (v) this[kStop] = true; }
  composedPath() { return this.currentTarget ? [this.currentTarget] : []; }
  preventDefault() { this.#defaultPrevented = true; }
  stopPropagation() {}
  stopImmediatePropagation() { this[kStop] = true; }
  [inspectSymbol](depth, options, inspect) {
    const shown = { type: this.#type, defaultPrevented: this.defaultPrevented, cancelable: this.#cancelable, timeStamp: this.#timeStamp };
    return `${this.constructor.name} ${inspect(shown, options)}`;
  }
}
Object.defineProperties(Event, {
  NONE: { value: 0, enumerable: true }, CAPTURING_PHASE: { value: 1, enumerable: true },
  AT_TARGET: { value: 2, enumerable: true }, BUBBLING_PHASE: { value: 3, enumerable: true },
});

class CustomEvent extends Event {
  #detail;
  constructor(type, options = undefined) {
    super(type, options);
    this.#detail = options && options.detail !== undefined ? options.detail : null;
  }
  get detail() { return this.#detail; }
}

class EventTarget {
  constructor() {
    Object.defineProperty(this, kListeners, { value: new Map() });
  }
  addEventListener(type, listener, options = undefined) {
    if (listener == null) return;
    if (typeof listener !== "function" && (typeof listener !== "object" || typeof listener.handleEvent !== "function")) {
      throw invalidArgType("listener", "an instance of EventListener", listener);
    }
    const opts = typeof options === "boolean" ? { capture: options } : options || {};
    const capture = !!opts.capture;
    const signal = opts.signal;
    if (signal && signal.aborted) return;
    type = String(type);
    let list = this[kListeners].get(type);
    if (!list) this[kListeners].set(type, (list = []));
    if (list.some((l) => l.listener === listener && l.capture === capture)) return;
    const entry = { listener, capture, once: !!opts.once, removed: false };
    list.push(entry);
    if (signal) signal.addEventListener("abort", () => this.removeEventListener(type, listener, { capture }), { once: true });
  }
  removeEventListener(type, listener, options = undefined) {
    const capture = typeof options === "boolean" ? options : !!(options && options.capture);
    const list = this[kListeners].get(String(type));
    if (!list) return;
    const i = list.findIndex((l) => l.listener === listener && l.capture === capture);
    if (i >= 0) { list[i].removed = true; list.splice(i, 1); }
  }
  dispatchEvent(event) {
    if (!(event instanceof Event)) throw invalidArgType("event", "an instance of Event", event);
    event.target = this;
    event.currentTarget = this;
    const list = (this[kListeners].get(event.type) || []).slice();
    for (const l of list) {
      if (l.removed) continue;
      if (l.once) this.removeEventListener(event.type, l.listener, { capture: l.capture });
      try {
        if (typeof l.listener === "function") l.listener.call(this, event);
        else l.listener.handleEvent(event);
      } catch (err) {
        // As in Node, a listener's exception does not stop the dispatch; it
        // surfaces as an uncaught exception afterwards.
        queueMicrotask(() => { throw err; });
      }
      if (event[kStop]) break;
    }
    event.currentTarget = null;
    return !event.defaultPrevented;
  }
}

const kReason = Symbol("reason");
const kAborted = Symbol("aborted");
const kOnAbort = Symbol("onabort");
const kOnAbortSet = Symbol("onabortSet");

class AbortSignal extends EventTarget {
  constructor(key) {
    if (key !== kAborted) throw new TypeError("Illegal constructor");
    super();
    this[kAborted] = false;
    this[kReason] = undefined;
    this[kOnAbort] = null;
  }
  // onabort is an event handler attribute: it runs in the order it was
  // first set among the listeners.
  get onabort() { return this[kOnAbort]; }
  set onabort(fn) {
    if (this[kOnAbort] === null && !this[kOnAbortSet]) {
      this[kOnAbortSet] = true;
      this.addEventListener("abort", (e) => { if (typeof this[kOnAbort] === "function") this[kOnAbort].call(this, e); });
    }
    this[kOnAbort] = typeof fn === "function" ? fn : null;
  }
  get aborted() { return this[kAborted]; }
  get reason() { return this[kReason]; }
  throwIfAborted() { if (this[kAborted]) throw this[kReason]; }
  static abort(reason = new DOMException("This operation was aborted", "AbortError")) {
    const s = new AbortSignal(kAborted);
    s[kAborted] = true;
    s[kReason] = reason;
    return s;
  }
  static timeout(ms) {
    const s = new AbortSignal(kAborted);
    setTimeout(() => abortSignal(s, new DOMException("The operation was aborted due to timeout", "TimeoutError")), ms).unref?.();
    return s;
  }
  static any(signals) {
    const s = new AbortSignal(kAborted);
    for (const sig of signals) {
      if (sig.aborted) { s[kAborted] = true; s[kReason] = sig.reason; return s; }
    }
    for (const sig of signals) sig.addEventListener("abort", () => abortSignal(s, sig.reason), { once: true });
    return s;
  }
  [inspectSymbol](depth, options, inspect) {
    return `AbortSignal ${inspect({ aborted: this[kAborted] }, options)}`;
  }
}

function abortSignal(signal, reason) {
  if (signal[kAborted]) return;
  signal[kAborted] = true;
  signal[kReason] = reason;
  signal.dispatchEvent(new Event("abort"));
}

class AbortController {
  #signal = new AbortSignal(kAborted);
  get signal() { return this.#signal; }
  abort(reason = new DOMException("This operation was aborted", "AbortError")) { abortSignal(this.#signal, reason); }
  [inspectSymbol](depth, options, inspect) {
    return `AbortController ${inspect({ signal: this.#signal }, options)}`;
  }
}

module.exports = { Event, CustomEvent, EventTarget, AbortController, AbortSignal };
