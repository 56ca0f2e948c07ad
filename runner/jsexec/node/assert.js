// Node's assert module and its AssertionError, with Node's messages
// (including the +/- line diff of strict comparisons); assert.strict is
// the variant whose equal and deepEqual are the strict ones.
"use strict";
const { isDeepEqual } = require("internal/comparisons");
const { invalidArgType, withCode, kNodeError } = require("internal/errors");
const { inspect } = require("util");

const readable = {
  deepStrictEqual: "Expected values to be strictly deep-equal:",
  strictEqual: "Expected values to be strictly equal:",
  strictEqualObject: 'Expected "actual" to be reference-equal to "expected":',
  deepEqual: "Expected values to be loosely deep-equal:",
  notDeepStrictEqual: 'Expected "actual" not to be strictly deep-equal to:',
  notStrictEqual: 'Expected "actual" to be strictly unequal to:',
  notStrictEqualObject: 'Expected "actual" not to be reference-equal to "expected":',
  notDeepEqual: 'Expected "actual" not to be loosely deep-equal to:',
  notIdentical: "Values have same structure but are not reference-equal:",
  notDeepEqualUnequal: "Expected values not to be loosely deep-equal:",
};

function inspectValue(v) {
  return inspect(v, {
    compact: false, customInspect: false, depth: 1000, maxArrayLength: Infinity, showHidden: false,
    sorted: true, getters: true,
  });
}

const isObjectish = (v) => (typeof v === "object" && v !== null) || typeof v === "function";

// diffMessage shows where actual and expected differ, line by line:
// "+" lines are actual's, "-" lines expected's, unchanged lines as context.
// A custom message replaces the header line (strictEqual and
// deepStrictEqual keep their diff under it).
function diffMessage(actual, expected, operator, header) {
  const a = inspectValue(actual).split("\n"), b = inspectValue(expected).split("\n");
  if (operator === "strictEqual" && isObjectish(actual) && isObjectish(expected)) operator = "strictEqualObject";
  let indicator = "";
  if (a.length === 1 && b.length === 1 && a[0] !== b[0]) {
    const len = a[0].length + b[0].length;
    if (len <= 12) {
      if (!isObjectish(actual) && !isObjectish(expected) && (actual !== 0 || expected !== 0)) {
        return `${header || readable[operator]}\n\n${a[0]} !== ${b[0]}\n`;
      }
    } else if (operator !== "strictEqualObject" && len < 80) {
      let i = 0;
      while (a[0][i] === b[0][i]) i++;
      if (i > 2) indicator = `\n  ${" ".repeat(i)}^`;
    }
  }
  // Trailing lines both share are shown once, at most three of them.
  let tail = [];
  while (a.length && b.length && a[a.length - 1] === b[b.length - 1]) {
    tail.unshift(a.pop());
    b.pop();
  }
  if (a.length === 0 && b.length === 0) {
    return `${readable.notIdentical}\n\n${inspectValue(actual)}\n`;
  }
  let skipped = false;
  if (tail.length > 3) {
    skipped = tail.length >= 5;
    tail = (skipped ? ["..."] : [tail[0]]).concat(tail.slice(-3));
  }
  let out = "", plus = "", minus = "", same = [];
  const flushSame = () => {
    if (same.length > 2) {
      if (same.length > 5) { out += "\n..."; skipped = true; same = same.slice(-2); }
      else same = same.slice(2);
      for (const l of same) out += `\n  ${l}`;
    }
    same = [];
  };
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a[i];
    const y = b[i];
    let differ = x !== y && (x === undefined || y === undefined || !x.endsWith(",") || x.slice(0, -1) !== y);
    if (differ && x !== undefined && y !== undefined && y.endsWith(",") && y.slice(0, -1) === x) { differ = false; x += ","; }
    if (differ) {
      flushSame();
      if (x !== undefined) plus += `\n+ ${x}`;
      if (y !== undefined) minus += `\n- ${y}`;
    } else {
      out += plus + minus;
      plus = minus = "";
      if (same.length < 2) out += `\n  ${x}`;
      same.push(x);
    }
  }
  out += plus + minus;
  const end = tail.map((l) => (l === "..." ? "\n..." : `\n  ${l}`)).join("");
  return `${header || readable[operator]}\n+ actual - expected${skipped ? " ... Lines skipped" : ""}\n${out}${end}${indicator}`;
}

class AssertionError extends Error {
  constructor(options) {
    if (options === null || typeof options !== "object") throw invalidArgType("options", "of type object", options);
    const { message, operator, stackStartFn, details, diff } = options;
    let { actual, expected } = options;
    if (message != null && diff) {
      super(diffMessage(actual, expected, operator, String(message)));
    } else if (message != null) {
      super(String(message));
    } else if (operator === "deepStrictEqual" || operator === "strictEqual") {
      super(diffMessage(actual, expected, operator));
    } else if (operator === "notDeepStrictEqual" || operator === "notStrictEqual") {
      let base = readable[operator];
      const res = inspectValue(actual).split("\n");
      if (operator === "notStrictEqual" && isObjectish(actual)) base = readable.notStrictEqualObject;
      if (res.length > 50) { res[46] = "..."; res.length = 47; }
      if (res.length === 1) super(`${base}${res[0].length > 5 ? "\n\n" : " "}${res[0]}`);
      else super(`${base}\n\n${res.join("\n")}\n`);
    } else {
      let res = inspectValue(actual), other = inspectValue(expected);
      const known = readable[operator];
      if (operator === "notDeepEqual" && res === other) {
        res = `${known}\n\n${res}`;
        if (res.length > 1024) res = `${res.slice(0, 1021)}...`;
        super(res);
      } else {
        if (res.length > 512) res = `${res.slice(0, 509)}...`;
        if (other.length > 512) other = `${other.slice(0, 509)}...`;
        if (operator === "deepEqual") res = `${known}\n\n${res}\n\nshould loosely deep-equal\n\n`;
        else if (readable[`${operator}Unequal`]) res = `${readable[`${operator}Unequal`]}\n\n${res}\n\nshould not loosely deep-equal\n\n`;
        else other = ` ${operator} ${other}`;
        super(`${res}${other}`);
      }
    }
    void stackStartFn;
    this.generatedMessage = message == null;
    Object.defineProperty(this, "name", { value: "AssertionError", enumerable: false, writable: true, configurable: true });
    this.code = "ERR_ASSERTION";
    Object.defineProperty(this, kNodeError, { value: true });
    if (details) {
      this.actual = undefined;
      this.expected = undefined;
      this.operator = undefined;
    } else {
      this.actual = actual;
      this.expected = expected;
      this.operator = operator;
    }
  }
  toString() {
    return `${this.name} [${this.code}]: ${this.message}`;
  }
}

function fail(obj) {
  if (obj.message instanceof Error) throw obj.message;
  throw new AssertionError(obj);
}

function innerOk(fn, argLen, value, message) {
  if (value) return;
  let generated = false;
  if (argLen === 0) {
    generated = true;
    message = "No value argument passed to `assert.ok()`";
  } else if (message instanceof Error) {
    throw message;
  }
  const err = new AssertionError({ actual: value, expected: true, message, operator: "==", stackStartFn: fn });
  err.generatedMessage = generated || message == null;
  throw err;
}

function checkArgs(n) {
  if (n < 2) {
    throw withCode(new TypeError('The "actual" and "expected" arguments must be specified'), "ERR_MISSING_ARGS");
  }
}

const assertFunctions = {
  fail(message = "Failed") {
    if (arguments.length >= 2) {
      // The deprecated fail(actual, expected, message, operator) form.
      const [actual, expected, msg, operator = "!="] = arguments;
      fail({ actual, expected, message: msg, operator, stackStartFn: assertFunctions.fail });
    }
    if (message instanceof Error) throw message;
    const err = new AssertionError({ message, operator: "fail", stackStartFn: assertFunctions.fail });
    err.generatedMessage = arguments.length === 0;
    throw err;
  },
  equal(actual, expected, message) {
    checkArgs(arguments.length);
    // eslint-disable-next-line eqeqeq
    if (actual != expected && (!Number.isNaN(actual) || !Number.isNaN(expected))) {
      fail({ actual, expected, message, operator: "==", stackStartFn: assertFunctions.equal });
    }
  },
  notEqual(actual, expected, message) {
    checkArgs(arguments.length);
    // eslint-disable-next-line eqeqeq
    if (actual == expected || (Number.isNaN(actual) && Number.isNaN(expected))) {
      fail({ actual, expected, message, operator: "!=", stackStartFn: assertFunctions.notEqual });
    }
  },
  strictEqual(actual, expected, message) {
    checkArgs(arguments.length);
    if (!Object.is(actual, expected)) fail({ actual, expected, message, operator: "strictEqual", stackStartFn: assertFunctions.strictEqual, diff: true });
  },
  notStrictEqual(actual, expected, message) {
    checkArgs(arguments.length);
    if (Object.is(actual, expected)) fail({ actual, expected, message, operator: "notStrictEqual", stackStartFn: assertFunctions.notStrictEqual });
  },
  deepEqual(actual, expected, message) {
    checkArgs(arguments.length);
    if (!isDeepEqual(actual, expected, false)) fail({ actual, expected, message, operator: "deepEqual", stackStartFn: assertFunctions.deepEqual });
  },
  notDeepEqual(actual, expected, message) {
    checkArgs(arguments.length);
    if (isDeepEqual(actual, expected, false)) fail({ actual, expected, message, operator: "notDeepEqual", stackStartFn: assertFunctions.notDeepEqual });
  },
  deepStrictEqual(actual, expected, message) {
    checkArgs(arguments.length);
    if (!isDeepEqual(actual, expected, true)) fail({ actual, expected, message, operator: "deepStrictEqual", stackStartFn: assertFunctions.deepStrictEqual, diff: true });
  },
  notDeepStrictEqual(actual, expected, message) {
    checkArgs(arguments.length);
    if (isDeepEqual(actual, expected, true)) fail({ actual, expected, message, operator: "notDeepStrictEqual", stackStartFn: assertFunctions.notDeepStrictEqual });
  },
  throws(fn, ...args) {
    if (typeof fn !== "function") throw invalidArgType("fn", "of type function", fn);
    expectsError(assertFunctions.throws, getActual(fn), ...args);
  },
  async rejects(promiseFn, ...args) {
    expectsError(assertFunctions.rejects, await waitForActual(promiseFn), ...args);
  },
  doesNotThrow(fn, ...args) {
    if (typeof fn !== "function") throw invalidArgType("fn", "of type function", fn);
    expectsNoError(assertFunctions.doesNotThrow, getActual(fn), ...args);
  },
  async doesNotReject(fn, ...args) {
    expectsNoError(assertFunctions.doesNotReject, await waitForActual(fn), ...args);
  },
  ifError(err) {
    if (err === null || err === undefined) return;
    let message = "ifError got unwanted exception: ";
    if (typeof err === "object" && typeof err.message === "string") {
      message += err.message.length === 0 && err.constructor ? err.constructor.name : err.message;
    } else {
      message += inspect(err);
    }
    throw new AssertionError({ actual: err, expected: null, operator: "ifError", message, stackStartFn: assertFunctions.ifError });
  },
  match(string, regexp, message) { internalMatch(string, regexp, message, assertFunctions.match, true); },
  doesNotMatch(string, regexp, message) { internalMatch(string, regexp, message, assertFunctions.doesNotMatch, false); },
};

const NO_EXCEPTION = Symbol("no exception");
function getActual(fn) {
  try {
    fn();
  } catch (e) {
    return e;
  }
  return NO_EXCEPTION;
}
async function waitForActual(promiseFn) {
  let p;
  if (typeof promiseFn === "function") {
    p = promiseFn();
    if (!p || typeof p.then !== "function") {
      throw invalidArgType("promiseFn", "of type function or an instance of Promise", p);
    }
  } else if (promiseFn && typeof promiseFn.then === "function") {
    p = promiseFn;
  } else {
    throw invalidArgType("promiseFn", "of type function or an instance of Promise", promiseFn);
  }
  try {
    await p;
  } catch (e) {
    return e;
  }
  return NO_EXCEPTION;
}

function expectsError(stackStartFn, actual, error, message) {
  if (typeof error === "string") {
    if (arguments.length === 4) throw invalidArgType("error", "of type function or an instance of Error, RegExp, or Object", error);
    message = error;
    error = undefined;
  }
  if (actual === NO_EXCEPTION) {
    let details = "";
    if (error && error.name) details += ` (${error.name})`;
    details += message ? `: ${message}` : ".";
    const fnType = stackStartFn === assertFunctions.rejects ? "rejection" : "exception";
    const e = new AssertionError({ actual: undefined, expected: error, operator: stackStartFn.name, message: `Missing expected ${fnType}${details}` });
    e.generatedMessage = !message;
    throw e;
  }
  if (error !== undefined && !expectedException(actual, error, message, stackStartFn)) throw actual;
}

function expectsNoError(stackStartFn, actual, error, message) {
  if (actual === NO_EXCEPTION) return;
  if (typeof error === "string") {
    message = error;
    error = undefined;
  }
  if (!error || expectedException(actual, error)) {
    const details = message ? `: ${message}` : ".";
    const fnType = stackStartFn === assertFunctions.doesNotReject ? "rejection" : "exception";
    const e = new AssertionError({
      actual, expected: error, operator: stackStartFn.name,
      message: `Got unwanted ${fnType}${details}\nActual message: "${actual && actual.message}"`,
    });
    e.generatedMessage = !message;
    throw e;
  }
  throw actual;
}

function expectedException(actual, expected, message, fn) {
  let generated = false, throwError = false;
  if (typeof expected !== "function") {
    if (expected instanceof RegExp) {
      const str = String(actual);
      if (RegExp.prototype.exec.call(expected, str) !== null) return true;
      if (!message) {
        generated = true;
        message = `The input did not match the regular expression ${inspect(expected)}. Input:\n\n${inspect(str)}\n`;
      }
      throwError = true;
    } else if (typeof actual !== "object" || actual === null) {
      const e = new AssertionError({ actual, expected, message, operator: "deepStrictEqual", stackStartFn: fn });
      e.operator = fn.name;
      throw e;
    } else {
      const keys = Object.keys(expected);
      if (expected instanceof Error) keys.push("name", "message");
      else if (keys.length === 0) throw withCode(new TypeError(`The argument 'error' may not be an empty object. Received {}`), "ERR_INVALID_ARG_VALUE");
      for (const key of keys) {
        const want = expected[key], got = actual[key];
        const ok = typeof got === "string" && want instanceof RegExp ? want.test(got) : key in actual && isDeepEqual(got, want, true);
        if (!ok) compareExceptionKey(actual, expected, keys, message, fn);
      }
      return true;
    }
  } else if (expected.prototype !== undefined && actual instanceof expected) {
    return true;
  } else if (Error.isPrototypeOf(expected) || expected === Error) {
    if (!message) {
      generated = true;
      message = "The error is expected to be an instance of " +
        `"${expected.name}". Received "${(actual && actual.constructor && actual.constructor.name) || inspect(actual)}"`;
      if (actual instanceof Error) message += `\n\nError message:\n\n${actual.message}`;
    }
    throwError = true;
  } else {
    const res = expected.call({}, actual);
    if (res !== true) {
      if (!message) {
        generated = true;
        const name = expected.name ? `"${expected.name}" ` : "";
        message = `The ${name}validation function is expected to return "true". Received ${inspect(res)}`;
        if (actual instanceof Error) message += `\n\nCaught error:\n\n${actual}`;
      }
      throwError = true;
    }
  }
  if (throwError) {
    const e = new AssertionError({ actual, expected, message, operator: fn.name, stackStartFn: fn });
    e.generatedMessage = generated;
    throw e;
  }
  return true;
}

// Comparison holds the compared keys of an error, named as Node names it
// in the diff.
class Comparison {}
function compareExceptionKey(actual, expected, keys, message, fn) {
  const a = new Comparison(), b = new Comparison();
  for (const k of keys) {
    if (k in actual) a[k] = actual[k];
    b[k] = expected[k];
  }
  const e = new AssertionError({ actual: a, expected: b, operator: "deepStrictEqual", stackStartFn: fn, message });
  e.actual = actual;
  e.expected = expected;
  e.operator = fn.name;
  throw e;
}

function internalMatch(string, regexp, message, fn, wantMatch) {
  if (!(regexp instanceof RegExp)) throw invalidArgType("regexp", "an instance of RegExp", regexp);
  const name = wantMatch ? "match" : "doesNotMatch";
  if (typeof string !== "string" || (RegExp.prototype.exec.call(regexp, string) !== null) !== wantMatch) {
    if (message instanceof Error) throw message;
    const generated = !message;
    message = message || (typeof string !== "string"
      ? `The "string" argument must be of type string. Received type ${typeof string} (${inspect(string)})`
      : (wantMatch ? "The input did not match the regular expression " : "The input was expected to not match the regular expression ") +
        `${inspect(regexp)}. Input:\n\n${inspect(string)}\n`);
    const e = new AssertionError({ actual: string, expected: regexp, message, operator: name, stackStartFn: fn });
    e.generatedMessage = generated;
    throw e;
  }
}

function makeAssert(strict) {
  const assert = function ok(...args) { innerOk(ok, args.length, ...args); };
  Object.assign(assert, assertFunctions);
  assert.ok = function ok(...args) { innerOk(ok, args.length, ...args); };
  assert.AssertionError = AssertionError;
  if (strict) {
    assert.equal = assertFunctions.strictEqual;
    assert.notEqual = assertFunctions.notStrictEqual;
    assert.deepEqual = assertFunctions.deepStrictEqual;
    assert.notDeepEqual = assertFunctions.notDeepStrictEqual;
  }
  return assert;
}
// Each function's name is what Node reports as an error's operator.
for (const [name, fn] of Object.entries(assertFunctions)) Object.defineProperty(fn, "name", { value: name });

const assert = makeAssert(false);
const strict = makeAssert(true);
assert.strict = strict;
strict.strict = strict;
module.exports = assert;
