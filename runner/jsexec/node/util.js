// Node's util module: format and inspect with Node's layout rules (single
// quotes, 80-column breaking, grouped numeric arrays, circular references,
// depth), promisify and friends, and util.types.
"use strict";

const customInspect = Symbol.for("nodejs.util.inspect.custom");
const customPromisify = Symbol.for("nodejs.util.promisify.custom");
const toStr = (v) => Object.prototype.toString.call(v);
const hasOwn = (o, k) => Object.prototype.hasOwnProperty.call(o, k);

const kNodeError = Symbol.for("wsfs.jsexec.nodeError");
const argTypeError = (name, type, value) => require("internal/errors").invalidArgType(name, "of type " + type, value);

// ---- types ----

const TypedArrayProto = Object.getPrototypeOf(Uint8Array.prototype);
const typedArrayTag = Object.getOwnPropertyDescriptor(TypedArrayProto, Symbol.toStringTag).get;
function brand(fn) {
  return (v) => {
    if (v === null || typeof v !== "object") return false;
    try { fn(v); return true; } catch (e) { return false; }
  };
}
const getter = (proto, name) => Object.getOwnPropertyDescriptor(proto, name).get;
const abLength = getter(ArrayBuffer.prototype, "byteLength");
const sabLength = typeof SharedArrayBuffer === "function" ? getter(SharedArrayBuffer.prototype, "byteLength") : null;
const dvLength = getter(DataView.prototype, "byteLength");
const boxed = {
  isNumberObject: brand((v) => Number.prototype.valueOf.call(v)),
  isStringObject: brand((v) => String.prototype.valueOf.call(v)),
  isBooleanObject: brand((v) => Boolean.prototype.valueOf.call(v)),
  isBigIntObject: brand((v) => BigInt.prototype.valueOf.call(v)),
  isSymbolObject: brand((v) => Symbol.prototype.valueOf.call(v)),
};
const types = {
  isDate: brand((v) => Date.prototype.getTime.call(v)),
  isRegExp: (v) => toStr(v) === "[object RegExp]" && v instanceof RegExp,
  isMap: brand((v) => Map.prototype.has.call(v)),
  isSet: brand((v) => Set.prototype.has.call(v)),
  isWeakMap: brand((v) => WeakMap.prototype.has.call(v)),
  isWeakSet: brand((v) => WeakSet.prototype.has.call(v)),
  isPromise: (v) => v instanceof Promise || toStr(v) === "[object Promise]",
  isArrayBuffer: brand((v) => abLength.call(v)),
  isSharedArrayBuffer: sabLength ? brand((v) => sabLength.call(v)) : () => false,
  isAnyArrayBuffer: (v) => types.isArrayBuffer(v) || types.isSharedArrayBuffer(v),
  isDataView: brand((v) => dvLength.call(v)),
  isArrayBufferView: (v) => ArrayBuffer.isView(v),
  isTypedArray: (v) => typedArrayTag.call(v) !== undefined,
  isNativeError: (v) => toStr(v) === "[object Error]" && v instanceof Error,
  isAsyncFunction: (v) => typeof v === "function" && /^Async(Generator)?Function$/.test(v[Symbol.toStringTag]),
  isGeneratorFunction: (v) => typeof v === "function" && /^(Async)?GeneratorFunction$/.test(v[Symbol.toStringTag]),
  isGeneratorObject: (v) => /^\[object (Async)?Generator\]$/.test(toStr(v)),
  isArgumentsObject: (v) => toStr(v) === "[object Arguments]",
  isMapIterator: (v) => toStr(v) === "[object Map Iterator]",
  isSetIterator: (v) => toStr(v) === "[object Set Iterator]",
  isModuleNamespaceObject: (v) => v !== null && typeof v === "object" && v[Symbol.toStringTag] === "Module",
  isBoxedPrimitive: (v) => Object.values(boxed).some((f) => f(v)),
  isProxy: () => false,
  isExternal: () => false,
  isKeyObject: () => false,
  isCryptoKey: () => false,
  ...boxed,
};
for (const name of ["Int8Array", "Uint8Array", "Uint8ClampedArray", "Int16Array", "Uint16Array", "Int32Array",
  "Uint32Array", "Float32Array", "Float64Array", "BigInt64Array", "BigUint64Array"]) {
  types["is" + name] = (v) => typedArrayTag.call(v) === name;
}

// ---- inspect ----

const inspectDefaults = {
  showHidden: false, depth: 2, colors: false, customInspect: true, showProxy: false,
  maxArrayLength: 100, maxStringLength: 10000, breakLength: 80, compact: 3, sorted: false, getters: false,
  numericSeparator: false,
};

function inspect(value, opts) {
  const ctx = { ...inspectDefaults, seen: [], indentationLvl: 0, currentDepth: 0, circular: undefined };
  if (arguments.length > 1 && (opts === null || typeof opts !== "object")) {
    // Legacy signature: inspect(value, showHidden, depth, colors).
    if (opts !== undefined) ctx.showHidden = !!opts;
    if (arguments.length > 2 && arguments[2] !== undefined) ctx.depth = arguments[2];
  } else if (opts) {
    for (const k of Object.keys(opts)) if (hasOwn(inspectDefaults, k) || k === "stylize") ctx[k] = opts[k];
  }
  if (ctx.depth === Infinity) ctx.depth = null;
  if (typeof ctx.stylize !== "function") ctx.stylize = ctx.colors ? stylizeWithColor : stylizeNoColor;
  if (ctx.maxArrayLength === null) ctx.maxArrayLength = Infinity;
  if (ctx.maxStringLength === null) ctx.maxStringLength = Infinity;
  return formatValue(ctx, value, 0);
}
inspect.custom = customInspect;
inspect.colors = Object.assign(Object.create(null), {
  reset: [0, 0], bold: [1, 22], dim: [2, 22], italic: [3, 23], underline: [4, 24], blink: [5, 25], inverse: [7, 27],
  hidden: [8, 28], strikethrough: [9, 29], doubleunderline: [21, 24], black: [30, 39], red: [31, 39], green: [32, 39],
  yellow: [33, 39], blue: [34, 39], magenta: [35, 39], cyan: [36, 39], white: [37, 39], gray: [90, 39], grey: [90, 39],
  redBright: [91, 39], greenBright: [92, 39], yellowBright: [93, 39], blueBright: [94, 39], magentaBright: [95, 39],
  cyanBright: [96, 39], whiteBright: [97, 39],
});
inspect.styles = Object.assign(Object.create(null), {
  special: "cyan", number: "yellow", bigint: "yellow", boolean: "yellow", undefined: "grey", null: "bold",
  string: "green", symbol: "green", date: "magenta", regexp: "red", module: "underline",
});
function stylizeWithColor(str, styleType) {
  const style = inspect.styles[styleType];
  const color = style !== undefined ? inspect.colors[style] : undefined;
  return color ? `\u001b[${color[0]}m${str}\u001b[${color[1]}m` : str;
}
function stylizeNoColor(str) {
  return str;
}
// eslint-disable-next-line no-control-regex
const colorCodes = /\u001b\[\d\d?m/g;
const visibleLength = (ctx, s) => (ctx.colors ? s.replace(colorCodes, "").length : s.length);
Object.defineProperty(inspect, "defaultOptions", {
  get: () => inspectDefaults,
  set: (o) => { Object.assign(inspectDefaults, o); },
});

// Strings are quoted with single quotes, or the first of " and ` that the
// string lacks; control characters are escaped as Node does.
const escapes = ["\\x00", "\\x01", "\\x02", "\\x03", "\\x04", "\\x05", "\\x06", "\\x07", "\\b", "\\t", "\\n", "\\x0B",
  "\\f", "\\r"];
for (let i = 14; i < 32; i++) escapes.push("\\x" + i.toString(16).toUpperCase().padStart(2, "0"));
function strEscape(s) {
  let quote = "'";
  if (s.includes("'")) {
    if (!s.includes('"')) quote = '"';
    else if (!s.includes("`") && !s.includes("${")) quote = "`";
  }
  let out = "";
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 32) out += escapes[c];
    else if (c === 0x7f) out += "\\x7F";
    else if (s[i] === quote || s[i] === "\\") out += "\\" + s[i];
    else if (c >= 0xd800 && c <= 0xdfff) {
      const next = s.charCodeAt(i + 1);
      if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) { out += s[i] + s[i + 1]; i++; }
      else out += "\\u" + c.toString(16).toUpperCase();
    } else out += s[i];
  }
  return quote + out + quote;
}

function formatNumber(n) {
  return Object.is(n, -0) ? "-0" : String(n);
}

function formatPrimitive(ctx, v) {
  switch (typeof v) {
    case "string": {
      let trailer = "";
      if (v.length > ctx.maxStringLength) {
        const rest = v.length - ctx.maxStringLength;
        v = v.slice(0, ctx.maxStringLength);
        trailer = `... ${rest} more character${rest > 1 ? "s" : ""}`;
      }
      if (ctx.compact !== true && v.length > 16 && v.length > ctx.breakLength - ctx.indentationLvl - 4) {
        return v.split(/(?<=\n)/).map((l) => ctx.stylize(strEscape(l), "string")).join(" +\n" + " ".repeat(ctx.indentationLvl + 2)) + trailer;
      }
      return ctx.stylize(strEscape(v), "string") + trailer;
    }
    case "number": return ctx.stylize(formatNumber(v), "number");
    case "bigint": return ctx.stylize(v + "n", "bigint");
    case "boolean": return ctx.stylize(String(v), "boolean");
    case "undefined": return ctx.stylize("undefined", "undefined");
    case "symbol": return ctx.stylize(symbolString(v), "symbol");
    default: return ctx.stylize(String(v), "null");
  }
}
function symbolString(s) {
  const d = s.description;
  return d === undefined ? "Symbol()" : "Symbol(" + d + ")";
}

function formatValue(ctx, value, recurseTimes, typedArray) {
  if (value === null || (typeof value !== "object" && typeof value !== "function")) return formatPrimitive(ctx, value);
  if (ctx.customInspect) {
    let fn;
    try { fn = value[customInspect]; } catch (e) { fn = undefined; }
    if (typeof fn === "function" && fn !== inspect) {
      const depth = ctx.depth === null ? null : ctx.depth - recurseTimes;
      const opts = { ...ctx, depth };
      delete opts.seen; delete opts.circular; delete opts.indentationLvl; delete opts.currentDepth;
      const ret = fn.call(value, depth, opts, inspect);
      if (ret !== value) {
        if (typeof ret !== "string") return formatValue(ctx, ret, recurseTimes);
        return ret.replaceAll("\n", "\n" + " ".repeat(ctx.indentationLvl));
      }
    }
  }
  if (ctx.seen.includes(value)) {
    if (ctx.circular === undefined) ctx.circular = new Map();
    let index = ctx.circular.get(value);
    if (index === undefined) {
      index = ctx.circular.size + 1;
      ctx.circular.set(value, index);
    }
    return ctx.stylize(`[Circular *${index}]`, "special");
  }
  return formatRaw(ctx, value, recurseTimes, typedArray);
}

function constructorName(obj) {
  for (let o = obj; o !== null && o !== undefined; o = Object.getPrototypeOf(o)) {
    const d = Object.getOwnPropertyDescriptor(o, "constructor");
    if (d && typeof d.value === "function" && d.value.name !== "") {
      try { if (obj instanceof d.value) return String(d.value.name); } catch (e) { /* not a constructor */ }
    }
  }
  return Object.getPrototypeOf(obj) === null ? null : "Object";
}

function prefix(constructor, tag, fallback, size = "") {
  if (constructor === null) {
    if (tag !== "" && fallback !== tag) return `[${fallback}${size}: null prototype] [${tag}] `;
    return `[${fallback}${size}: null prototype] `;
  }
  if (tag !== "" && constructor !== tag) return `${constructor}${size} [${tag}] `;
  return `${constructor}${size} `;
}

function ownKeys(ctx, value) {
  const symbols = Object.getOwnPropertySymbols(value);
  if (ctx.showHidden) return [...Object.getOwnPropertyNames(value), ...symbols];
  const keys = Object.keys(value);
  for (const s of symbols) if (Object.prototype.propertyIsEnumerable.call(value, s)) keys.push(s);
  return keys;
}
const isIndex = (k) => typeof k === "string" && /^(0|[1-9][0-9]*)$/.test(k) && Number(k) < 2 ** 32 - 1;

function functionBase(value, constructor, tag) {
  let src = "";
  try { src = Function.prototype.toString.call(value); } catch (e) { /* revoked proxy */ }
  if (src.startsWith("class") && src.endsWith("}")) {
    let base = `[class ${value.name || "(anonymous)"}`;
    const m = /^class\s+(?:[\w$]+\s*)?extends\b/.test(src);
    if (m) {
      const parent = Object.getPrototypeOf(value);
      base += ` extends ${(parent && parent.name) || "(anonymous)"}`;
    }
    if (constructor !== "Function" && constructor !== null) base += ` [${constructor}]`;
    return base + "]";
  }
  let type = "Function";
  if (types.isGeneratorFunction(value)) type = "Generator" + type;
  if (types.isAsyncFunction(value)) type = "Async" + type;
  let base = `[${type}`;
  if (constructor === null) base += " (null prototype)";
  base += value.name === "" ? " (anonymous)" : `: ${value.name}`;
  base += "]";
  if (constructor !== type && constructor !== null && constructor !== "Function") base += ` ${constructor}`;
  // A tag naming the kind already shown (an async function whose
  // constructor is Function, as esbuild's lowering makes it) adds nothing.
  if (tag !== "" && constructor !== tag && tag !== type) base += ` [${tag}]`;
  return base;
}

function errorBase(err, keys, showHidden) {
  const name = err.name === undefined ? "Error" : String(err.name);
  const message = err.message === undefined ? "" : String(err.message);
  const code = err[kNodeError] && typeof err.code === "string" ? ` [${err.code}]` : "";
  const head = message ? `${name}${code}: ${message}` : name + code;
  let stack = typeof err.stack === "string" ? err.stack.replace(/\n+$/, "") : "";
  // QuickJS's stacks hold only the frames; V8's start with the message.
  if (stack && !stack.startsWith(head)) stack = stack.startsWith("    at") ? head + "\n" + stack : stack;
  if (!stack) stack = `[${head}]`;
  else if (!stack.includes("\n    at")) stack = `[${stack}]`;
  for (const k of ["name", "message", "stack"]) {
    const i = keys.indexOf(k);
    if (i >= 0 && !showHidden && stack.includes(err[k])) keys.splice(i, 1);
  }
  if (err.cause !== undefined && !keys.includes("cause") && hasOwn(err, "cause")) keys.push("cause");
  return stack;
}

function formatRaw(ctx, value, recurseTimes, typedArray) {
  let keys;
  const constructor = constructorName(value);
  let tag = "";
  try { tag = value[Symbol.toStringTag]; } catch (e) { tag = ""; }
  if (typeof tag !== "string" || (tag !== "" && (ctx.showHidden ? hasOwn(value, Symbol.toStringTag)
    : Object.prototype.propertyIsEnumerable.call(value, Symbol.toStringTag)))) tag = "";
  let base = "", formatter = formatObjectEntries, braces, noEntries = false, extras = "object";
  const depthExceeded = () => ctx.depth !== null && recurseTimes > ctx.depth;

  if (Array.isArray(value)) {
    const p = constructor !== "Array" || tag !== "" ? prefix(constructor, tag, "Array", `(${value.length})`) : "";
    keys = ownKeys(ctx, value).filter((k) => !isIndex(k));
    braces = [`${p}[`, "]"];
    if (value.length === 0 && keys.length === 0) return `${braces[0]}]`;
    extras = "array";
    formatter = formatArray;
  } else if (types.isSet(value) || types.isMap(value)) {
    const isSet = types.isSet(value);
    keys = ownKeys(ctx, value);
    const p = prefix(constructor, tag, isSet ? "Set" : "Map", `(${value.size})`);
    formatter = isSet ? formatSet : formatMap;
    if (value.size === 0 && keys.length === 0) return `${p}{}`;
    braces = [`${p}{`, "}"];
  } else if (types.isTypedArray(value)) {
    const isBuffer = typeof value.constructor === "function" && value.constructor.name === "Buffer";
    keys = ownKeys(ctx, value).filter((k) => !isIndex(k));
    const fallback = typedArrayTag.call(value);
    const p = prefix(constructor, tag, fallback, `(${value.length})`);
    braces = [`${p}[`, "]"];
    if (value.length === 0 && keys.length === 0 && !ctx.showHidden) return `${braces[0]}]`;
    formatter = (c, v, rt) => formatTypedArray(c, v, rt, isBuffer);
    extras = "array";
  } else if (types.isMapIterator(value) || types.isSetIterator(value)) {
    keys = ownKeys(ctx, value);
    braces = [`[${tag || toStr(value).slice(8, -1)}] {`, "}"];
    formatter = (c, v, rt) => formatIteratorEntries(c, v, rt);
  } else {
    noEntries = true;
    keys = ownKeys(ctx, value);
    if (constructor === "Object" && !types.isNativeError(value)) {
      if (types.isArgumentsObject(value)) {
        braces = ["[Arguments] [", "]"];
        keys = keys.filter((k) => !isIndex(k));
        formatter = formatArray;
        extras = "array";
        noEntries = false;
      } else if (tag !== "") {
        braces = [`${prefix(constructor, tag, "Object")}{`, "}"];
      } else {
        braces = ["{", "}"];
      }
      if (noEntries && keys.length === 0) return `${braces[0]}}`;
    } else if (typeof value === "function") {
      base = functionBase(value, constructor, tag);
      keys = keys.filter((k) => !(ctx.showHidden && (k === "arguments" || k === "caller")));
      if (keys.length === 0) return ctx.stylize(base, "special");
      braces = ["{", "}"];
    } else if (types.isRegExp(value)) {
      base = RegExp.prototype.toString.call(value);
      const p = prefix(constructor, tag, "RegExp");
      if (p !== "RegExp ") base = `${p}${base}`;
      keys = keys.filter((k) => k !== "lastIndex");
      if (keys.length === 0 || depthExceeded()) return ctx.stylize(base, "regexp");
      braces = ["{", "}"];
    } else if (types.isDate(value)) {
      base = Number.isNaN(Date.prototype.getTime.call(value)) ? "Invalid Date" : Date.prototype.toISOString.call(value);
      const p = prefix(constructor, tag, "Date");
      if (p !== "Date ") base = `${p}${base}`;
      if (keys.length === 0) return ctx.stylize(base, "date");
      braces = ["{", "}"];
    } else if (types.isNativeError(value) || value instanceof Error) {
      base = errorBase(value, keys, ctx.showHidden);
      if (ctx.indentationLvl !== 0) base = base.replaceAll("\n", "\n" + " ".repeat(ctx.indentationLvl));
      if (keys.length === 0) return base;
      braces = ["{", "}"];
    } else if (types.isAnyArrayBuffer(value)) {
      const name = types.isArrayBuffer(value) ? "ArrayBuffer" : "SharedArrayBuffer";
      const p = prefix(constructor, tag, name);
      if (typedArray === undefined) formatter = formatArrayBuffer;
      else if (keys.length === 0) return p + `{ byteLength: ${formatNumber(value.byteLength)} }`;
      braces = [`${p}{`, "}"];
      keys.unshift("byteLength");
      noEntries = false;
    } else if (types.isDataView(value)) {
      braces = [`${prefix(constructor, tag, "DataView")}{`, "}"];
      keys.unshift("byteLength", "byteOffset", "buffer");
    } else if (types.isPromise(value)) {
      braces = [`${prefix(constructor, tag, "Promise")}{`, "}"];
      formatter = () => [ctx.stylize("<unknown>", "special")];
      noEntries = false;
    } else if (types.isWeakSet(value) || types.isWeakMap(value)) {
      braces = [`${prefix(constructor, tag, types.isWeakSet(value) ? "WeakSet" : "WeakMap")}{`, "}"];
      formatter = () => [ctx.stylize("<items unknown>", "special")];
      noEntries = false;
    } else if (types.isBoxedPrimitive(value)) {
      let type, prim;
      for (const [name, t] of [["Number", Number], ["String", String], ["Boolean", Boolean], ["BigInt", BigInt], ["Symbol", Symbol]]) {
        if (boxed["is" + name + "Object"](value)) { type = name; prim = t.prototype.valueOf.call(value); break; }
      }
      base = `[${type}`;
      if (type !== constructor) base += constructor === null ? " (null prototype)" : ` (${constructor})`;
      base += `: ${formatPrimitive({ ...ctx, compact: true, stylize: stylizeNoColor }, prim)}]`;
      if (tag !== "" && tag !== constructor) base += ` [${tag}]`;
      if (type === "String") keys = keys.filter((k) => !isIndex(k) && k !== "length");
      if (keys.length === 0) return ctx.stylize(base, type.toLowerCase());
      braces = ["{", "}"];
    } else {
      if (types.isModuleNamespaceObject(value)) braces = ["[Module: null prototype] {", "}"];
      else braces = [`${prefix(constructor, tag, "Object")}{`, "}"];
      if (keys.length === 0) return `${braces[0]}}`;
    }
  }

  if (depthExceeded()) {
    let name = constructor === null ? "Object: null prototype" : constructor;
    if (tag !== "" && tag !== constructor) name += ` [${tag}]`;
    return ctx.stylize(`[${Array.isArray(value) && constructor === "Array" ? "Array" : name}]`, "special");
  }
  recurseTimes += 1;
  ctx.seen.push(value);
  ctx.currentDepth = recurseTimes;
  let output;
  try {
    output = noEntries ? [] : formatter(ctx, value, recurseTimes);
    for (const k of keys) output.push(formatProperty(ctx, value, recurseTimes, k, "object"));
  } finally {
    ctx.seen.pop();
  }
  if (ctx.circular !== undefined) {
    const index = ctx.circular.get(value);
    if (index !== undefined) {
      const ref = ctx.stylize(`<ref *${index}>`, "special");
      if (ctx.compact !== true) base = base === "" ? ref : `${ref} ${base}`;
      else braces[0] = `${ref} ${braces[0]}`;
    }
  }
  if (ctx.sorted) {
    const cmp = typeof ctx.sorted === "function" ? ctx.sorted : undefined;
    if (extras === "object") output.sort(cmp);
    else if (keys.length > 1) {
      const sorted = output.slice(output.length - keys.length).sort(cmp);
      output.splice(output.length - keys.length, keys.length, ...sorted);
    }
  }
  return reduceToSingleString(ctx, output, base, braces, extras, recurseTimes, value);
}

function formatProperty(ctx, value, recurseTimes, key, type) {
  let str;
  const desc = Object.getOwnPropertyDescriptor(value, key) || { value: value[key], enumerable: true };
  if (desc.value !== undefined) {
    const diff = ctx.compact !== true || type !== "object" ? 2 : 3;
    ctx.indentationLvl += diff;
    str = formatValue(ctx, desc.value, recurseTimes);
    ctx.indentationLvl -= diff;
  } else if (desc.get !== undefined) {
    const label = desc.set !== undefined ? "Getter/Setter" : "Getter";
    if (ctx.getters && (ctx.getters === true || (ctx.getters === "get" && desc.set === undefined) ||
      (ctx.getters === "set" && desc.set !== undefined))) {
      try {
        const v = desc.get.call(value);
        ctx.indentationLvl += 2;
        str = `${ctx.stylize(`[${label}:`, "special")} ${v !== null && typeof v === "object" ? formatValue(ctx, v, recurseTimes) : formatPrimitive(ctx, v)}${ctx.stylize("]", "special")}`;
        ctx.indentationLvl -= 2;
      } catch (e) {
        str = ctx.stylize(`[${label}: <Inspection threw (${e.message})>]`, "special");
      }
    } else str = ctx.stylize(`[${label}]`, "special");
  } else if (desc.set !== undefined) str = ctx.stylize("[Setter]", "special");
  else str = ctx.stylize("undefined", "undefined");
  if (type === "array") return str;
  let name;
  if (typeof key === "symbol") name = `[${ctx.stylize(symbolString(key), "symbol")}]`;
  else if (key === "__proto__") name = "['__proto__']";
  else if (desc.enumerable === false) name = `[${key}]`;
  else if (/^[a-zA-Z_][a-zA-Z_0-9]*$/.test(key)) name = key;
  else name = ctx.stylize(strEscape(key), "string");
  return `${name}: ${str}`;
}

function formatArray(ctx, value, recurseTimes) {
  const len = value.length;
  const max = Math.min(ctx.maxArrayLength, len);
  const output = [];
  let holes = 0;
  const flushHoles = () => {
    if (holes > 0) output.push(ctx.stylize(`<${holes} empty item${holes > 1 ? "s" : ""}>`, "undefined"));
    holes = 0;
  };
  let i = 0;
  for (; i < len && output.length < max; i++) {
    if (!hasOwn(value, i)) { holes++; continue; }
    flushHoles();
    if (output.length >= max) break;
    output.push(formatProperty(ctx, value, recurseTimes, String(i), "array"));
  }
  if (output.length < max) flushHoles();
  const remaining = len - i + holes;
  if (remaining > 0 && i < len) output.push(`... ${remaining} more item${remaining > 1 ? "s" : ""}`);
  return output;
}

function formatTypedArray(ctx, value, recurseTimes, isBuffer) {
  const len = value.length;
  const max = Math.min(ctx.maxArrayLength, len);
  const output = new Array(max);
  for (let i = 0; i < max; i++) output[i] = formatPrimitive(ctx, value[i]);
  if (len > max) output.push(`... ${len - max} more item${len - max > 1 ? "s" : ""}`);
  if (ctx.showHidden && !isBuffer) {
    ctx.indentationLvl += 2;
    for (const key of ["BYTES_PER_ELEMENT", "length", "byteLength", "byteOffset", "buffer"]) {
      output.push(`[${key}]: ${formatValue(ctx, value[key], recurseTimes, true)}`);
    }
    ctx.indentationLvl -= 2;
  }
  return output;
}

function hexBytes(ctx, bytes) {
  const max = Math.min(ctx.maxArrayLength, bytes.length);
  let s = "";
  for (let i = 0; i < max; i++) s += (i ? " " : "") + bytes[i].toString(16).padStart(2, "0");
  const rest = bytes.length - max;
  if (rest > 0) s += ` ... ${rest} more byte${rest > 1 ? "s" : ""}`;
  return s;
}
function formatArrayBuffer(ctx, value) {
  return [`${ctx.stylize("[Uint8Contents]", "special")}: <${hexBytes(ctx, new Uint8Array(value))}>`];
}

function formatSet(ctx, value, recurseTimes) {
  const output = [];
  ctx.indentationLvl += 2;
  for (const v of value) {
    if (output.length >= ctx.maxArrayLength) break;
    output.push(formatValue(ctx, v, recurseTimes));
  }
  ctx.indentationLvl -= 2;
  const rest = value.size - output.length;
  if (rest > 0) output.push(`... ${rest} more item${rest > 1 ? "s" : ""}`);
  return output;
}

function formatMap(ctx, value, recurseTimes) {
  const output = [];
  ctx.indentationLvl += 2;
  for (const [k, v] of value) {
    if (output.length >= ctx.maxArrayLength) break;
    output.push(`${formatValue(ctx, k, recurseTimes)} => ${formatValue(ctx, v, recurseTimes)}`);
  }
  ctx.indentationLvl -= 2;
  const rest = value.size - output.length;
  if (rest > 0) output.push(`... ${rest} more item${rest > 1 ? "s" : ""}`);
  return output;
}

function formatIteratorEntries() {
  return [ctx.stylize("<items unknown>", "special")];
}

function formatObjectEntries() {
  return [];
}

function isBelowBreakLength(ctx, output, start, base) {
  let total = output.length + start;
  if (total + output.length > ctx.breakLength) return false;
  for (const s of output) {
    total += visibleLength(ctx, s);
    if (total > ctx.breakLength) return false;
  }
  return base === "" || !base.includes("\n");
}

function reduceToSingleString(ctx, output, base, braces, extras, recurseTimes, value) {
  if (ctx.compact !== true) {
    if (typeof ctx.compact === "number" && ctx.compact >= 1) {
      const entries = output.length;
      if (extras === "array" && entries > 6) output = groupArrayElements(ctx, output, value);
      if (ctx.currentDepth - recurseTimes < ctx.compact && entries === output.length) {
        const start = output.length + ctx.indentationLvl + braces[0].length + base.length + 10;
        if (isBelowBreakLength(ctx, output, start, base)) {
          const joined = output.join(", ");
          if (!joined.includes("\n")) return `${base ? `${base} ` : ""}${braces[0]} ${joined} ${braces[1]}`;
        }
      }
    }
    const ind = "\n" + " ".repeat(ctx.indentationLvl);
    return `${base ? `${base} ` : ""}${braces[0]}${ind}  ${output.join(`,${ind}  `)}${ind}${braces[1]}`;
  }
  if (isBelowBreakLength(ctx, output, 0, base)) {
    return `${braces[0]}${base ? ` ${base}` : ""} ${output.join(", ")} ${braces[1]}`;
  }
  const ind = " ".repeat(ctx.indentationLvl);
  const ln = base === "" && braces[0].length === 1 ? " " : `${base ? ` ${base}` : ""}\n${ind}  `;
  return `${braces[0]}${ln}${output.join(`,\n${ind}  `)} ${braces[1]}`;
}

// Long arrays of short entries go in aligned columns, numbers right-aligned.
function groupArrayElements(ctx, output, value) {
  let total = 0, maxLength = 0;
  let outputLength = output.length;
  if (ctx.maxArrayLength < output.length) outputLength--;
  const sep = 2;
  const dataLen = new Array(outputLength);
  for (let i = 0; i < outputLength; i++) {
    const len = visibleLength(ctx, output[i]);
    dataLen[i] = len;
    total += len + sep;
    if (maxLength < len) maxLength = len;
  }
  const actualMax = maxLength + sep;
  if (actualMax * 3 + ctx.indentationLvl < ctx.breakLength && (total / actualMax > 5 || maxLength <= 6)) {
    const averageBias = Math.sqrt(actualMax - total / output.length);
    const biasedMax = Math.max(actualMax - 3 - averageBias, 1);
    const columns = Math.min(
      Math.round(Math.sqrt(2.5 * biasedMax * outputLength) / biasedMax),
      Math.floor((ctx.breakLength - ctx.indentationLvl) / actualMax),
      ctx.compact * 4,
      15,
    );
    if (columns <= 1) return output;
    const tmp = [], maxLineLength = [];
    for (let i = 0; i < columns; i++) {
      let lineLength = 0;
      for (let j = i; j < output.length; j += columns) if (dataLen[j] > lineLength) lineLength = dataLen[j];
      maxLineLength.push(lineLength + sep);
    }
    let padStart = true;
    if (value !== undefined) {
      for (let i = 0; i < output.length; i++) {
        if (typeof value[i] !== "number" && typeof value[i] !== "bigint") { padStart = false; break; }
      }
    }
    for (let i = 0; i < outputLength; i += columns) {
      const max = Math.min(i + columns, outputLength);
      let str = "";
      let j = i;
      for (; j < max - 1; j++) {
        const cell = `${output[j]}, `;
        const width = maxLineLength[j - i] + output[j].length - dataLen[j];
        str += padStart ? cell.padStart(width) : cell.padEnd(width);
      }
      str += padStart ? output[j].padStart(maxLineLength[j - i] + output[j].length - dataLen[j] - sep) : output[j];
      tmp.push(str);
    }
    if (ctx.maxArrayLength < output.length) tmp.push(output[outputLength]);
    output = tmp;
  }
  return output;
}

// ---- format ----

const builtinConstructors = new Set(Object.getOwnPropertyNames(globalThis).filter((n) => {
  if (!/^[A-Z]/.test(n)) return false;
  const d = Object.getOwnPropertyDescriptor(globalThis, n);
  return d && "value" in d && typeof d.value === "function";
}));
function hasBuiltInToString(v) {
  if (typeof v.toString !== "function") return true;
  if (hasOwn(v, "toString")) return false;
  let p = v;
  do { p = Object.getPrototypeOf(p); } while (p !== null && !hasOwn(p, "toString"));
  if (p === null) return true;
  const d = Object.getOwnPropertyDescriptor(p, "constructor");
  return d !== undefined && typeof d.value === "function" && builtinConstructors.has(d.value.name);
}

function formatWithOptions(opts, ...args) {
  if (opts === null || typeof opts !== "object") throw argTypeError("inspectOptions", "object", opts);
  const first = args[0];
  let a = 0, str = "", join = "";
  if (typeof first === "string") {
    if (args.length === 1) return first;
    let last = 0, tmp;
    for (let i = 0; i < first.length - 1; i++) {
      if (first.charCodeAt(i) !== 37) continue; // '%'
      const c = first[++i];
      if (a + 1 !== args.length) {
        const arg = args[a + 1];
        switch (c) {
          case "s":
            if (typeof arg === "number") tmp = formatNumber(arg);
            else if (typeof arg === "bigint") tmp = arg + "n";
            else if (arg === null || typeof arg !== "object" || !hasBuiltInToString(arg)) tmp = String(arg);
            else tmp = inspect(arg, { ...opts, depth: 0, colors: false, compact: 3 });
            break;
          case "j":
            try { tmp = JSON.stringify(arg); } catch (e) {
              if (!/circular/i.test(e.message)) throw e;
              tmp = "[Circular]";
            }
            break;
          case "d":
            tmp = typeof arg === "bigint" ? arg + "n" : typeof arg === "symbol" ? "NaN" : formatNumber(Number(arg));
            break;
          case "O": tmp = inspect(arg, opts); break;
          case "o": tmp = inspect(arg, { ...opts, showHidden: true, showProxy: true, depth: 4 }); break;
          case "i":
            tmp = typeof arg === "bigint" ? arg + "n" : typeof arg === "symbol" ? "NaN" : formatNumber(parseInt(arg));
            break;
          case "f": tmp = typeof arg === "symbol" ? "NaN" : formatNumber(parseFloat(arg)); break;
          case "c": tmp = ""; break;
          case "%":
            str += first.slice(last, i);
            last = i + 1;
            continue;
          default: continue;
        }
        if (last !== i - 1) str += first.slice(last, i - 1);
        str += tmp;
        last = i + 1;
        a++;
      } else if (c === "%") {
        str += first.slice(last, i);
        last = i + 1;
      }
    }
    if (last !== 0) {
      a++;
      join = " ";
      if (last < first.length) str += first.slice(last);
    }
  }
  while (a < args.length) {
    const v = args[a];
    str += join;
    str += typeof v !== "string" ? inspect(v, opts) : v;
    join = " ";
    a++;
  }
  return str;
}
function format(...args) {
  return formatWithOptions({}, ...args);
}

// ---- the rest ----

function promisify(original) {
  if (typeof original !== "function") throw argTypeError("original", "function", original);
  if (original[customPromisify]) {
    const fn = original[customPromisify];
    if (typeof fn !== "function") throw argTypeError("util.promisify.custom", "function", fn);
    return Object.defineProperty(fn, customPromisify, { value: fn, enumerable: false, writable: false, configurable: true });
  }
  function fn(...args) {
    return new Promise((resolve, reject) => {
      Reflect.apply(original, this, [...args, (err, ...values) => (err ? reject(err) : resolve(values[0]))]);
    });
  }
  Object.setPrototypeOf(fn, Object.getPrototypeOf(original));
  Object.defineProperty(fn, customPromisify, { value: fn, enumerable: false, writable: false, configurable: true });
  const descs = Object.getOwnPropertyDescriptors(original);
  delete descs.length; delete descs.name; delete descs.prototype;
  return Object.defineProperties(fn, descs);
}
promisify.custom = customPromisify;

function nextTick(fn, ...args) {
  const p = globalThis.process;
  if (p && typeof p.nextTick === "function") p.nextTick(fn, ...args);
  else queueMicrotask(() => fn(...args));
}

function callbackify(original) {
  if (typeof original !== "function") throw argTypeError("original", "function", original);
  function callbackified(...args) {
    const cb = args.pop();
    if (typeof cb !== "function") throw argTypeError("last argument", "function", cb);
    Reflect.apply(original, this, args).then(
      (v) => nextTick(cb, null, v),
      (err) => {
        if (!err) {
          const e = new Error("Promise was rejected with a falsy value");
          e.code = "ERR_FALSY_VALUE_REJECTION";
          e.reason = err;
          err = e;
        }
        nextTick(cb, err);
      });
  }
  const descs = Object.getOwnPropertyDescriptors(original);
  if (typeof descs.length.value === "number") descs.length.value++;
  if (typeof descs.name.value === "string") descs.name.value += "Callbackified";
  delete descs.prototype;
  Object.defineProperties(callbackified, descs);
  return callbackified;
}

function inherits(ctor, superCtor) {
  if (typeof ctor !== "function") throw argTypeError("ctor", "function", ctor);
  if (typeof superCtor !== "function") throw argTypeError("superCtor", "function", superCtor);
  if (superCtor.prototype === undefined) throw argTypeError("superCtor.prototype", "object", superCtor.prototype);
  Object.defineProperty(ctor, "super_", { value: superCtor, writable: true, configurable: true });
  Object.setPrototypeOf(ctor.prototype, superCtor.prototype);
}

const warnedCodes = new Set();
function deprecate(fn, msg, code) {
  if (typeof fn !== "function") throw argTypeError("fn", "function", fn);
  let warned = false;
  function deprecated(...args) {
    if (!warned && !(code && warnedCodes.has(code))) {
      warned = true;
      if (code) warnedCodes.add(code);
      const p = globalThis.process;
      if (!(p && p.noDeprecation)) require("internal/errors").emitWarning(msg, "DeprecationWarning", code);
    }
    return new.target ? Reflect.construct(fn, args, new.target) : Reflect.apply(fn, this, args);
  }
  Object.setPrototypeOf(deprecated, fn);
  if (fn.prototype) deprecated.prototype = fn.prototype;
  return deprecated;
}

function debuglog(section, cb) {
  const re = new RegExp("^(" + String((globalThis.process && globalThis.process.env && globalThis.process.env.NODE_DEBUG) || "")
    .replace(/[|\\{}()[\]^$+?.]/g, "\\$&").replace(/\*/g, ".*").replace(/,/g, "$|^") + ")$", "i");
  const enabled = re.test(section) && re.source !== "^()$";
  const log = (...args) => {
    if (!enabled) return;
    const p = globalThis.process;
    const line = `${section.toUpperCase()} ${(p && p.pid) || 1}: ${format(...args)}\n`;
    if (p && p.stderr) p.stderr.write(line);
    else console.error(line.slice(0, -1));
  };
  log.enabled = enabled;
  if (typeof cb === "function") cb(log);
  return log;
}

function stripVTControlCharacters(s) {
  if (typeof s !== "string") throw argTypeError("str", "string", s);
  // eslint-disable-next-line no-control-regex
  return s.replace(/[\u001B\u009B][[\]()#;?]*(?:(?:(?:(?:;[-a-zA-Z\d/#&.:=?%@~_]+)*|[a-zA-Z\d]+(?:;[-a-zA-Z\d/#&.:=?%@~_]*)*)?\u0007)|(?:(?:\d{1,4}(?:;\d{0,4})*)?[\dA-PR-TZcf-ntqry=><~]))/g, "");
}

function toUSVString(s) {
  return String(s).replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD");
}

const encoding = require("internal/encoding");
const comparisons = require("internal/comparisons");

module.exports = {
  format, formatWithOptions, inspect, promisify, callbackify, inherits, deprecate, debuglog, debug: debuglog,
  isDeepStrictEqual: (a, b) => comparisons.isDeepEqual(a, b, true),
  stripVTControlCharacters, toUSVString, types,
  parseArgs: (config) => require("internal/parse_args").parseArgs(config),
  TextEncoder: encoding.TextEncoder, TextDecoder: encoding.TextDecoder,
  isArray: Array.isArray,
  isBoolean: (v) => typeof v === "boolean",
  isBuffer: (v) => globalThis.Buffer.isBuffer(v),
  isDate: types.isDate,
  isError: (v) => types.isNativeError(v) || v instanceof Error,
  isFunction: (v) => typeof v === "function",
  isNull: (v) => v === null,
  isNullOrUndefined: (v) => v == null,
  isNumber: (v) => typeof v === "number",
  isObject: (v) => v !== null && typeof v === "object",
  isPrimitive: (v) => v === null || (typeof v !== "object" && typeof v !== "function"),
  isRegExp: types.isRegExp,
  isString: (v) => typeof v === "string",
  isSymbol: (v) => typeof v === "symbol",
  isUndefined: (v) => v === undefined,
};
