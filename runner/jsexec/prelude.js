// The Node-like environment of js-exec. It runs before user code, captures
// the host functions that Go installed as __wsfs_* globals and removes them,
// so that user code reaches files, commands and time only through the Go
// side (the runner's confined FS and command table). QuickJS's own std, os
// and bjson modules are cut out of the engine (wasmcap.go).
(function (g) {
  "use strict";
  const H = {};
  for (const k of Object.getOwnPropertyNames(g)) {
    if (k.startsWith("__wsfs_")) { H[k.slice(7)] = g[k]; delete g[k]; }
  }
  for (const k of ["scriptArgs", "print", "gc", "navigator"]) delete g[k];
  const info = JSON.parse(H.info), builtin = H.builtin, compiled = H.compiled;

  // Go's fs errors arrive as "\x1fnode-error" + JSON; rethrow them as Node's.
  function nodeError(e) {
    const m = String(e && e.message);
    const i = m.indexOf("\x1fnode-error");
    if (i < 0) return e;
    const d = JSON.parse(m.slice(i + 11));
    const err = new Error(d.message);
    for (const k of ["errno", "code", "syscall", "path", "dest"]) if (d[k] !== undefined) err[k] = d[k];
    return err;
  }
  function host(fn) {
    return function (...args) {
      try { return fn(...args); } catch (e) { throw nodeError(e); }
    };
  }
  const hread = host(H.read), hwrite = host(H.write), hop = host(H.op), hload = host(H.load);
  const op = (what, a, b, n) => JSON.parse(hop(what, a, b === undefined ? "" : String(b), n || 0));

  function inspect(v, depth) {
    if (typeof v === "string") return depth ? "'" + v.replace(/\\/g, "\\\\").replace(/'/g, "\\'").replace(/\n/g, "\\n") + "'" : v;
    if (v === undefined) return "undefined";
    if (typeof v === "function") return "[Function: " + (v.name || "(anonymous)") + "]";
    if (typeof v === "bigint") return v + "n";
    if (typeof v === "symbol") return v.toString();
    if (v instanceof Error) return describe(v);
    if (v === null || typeof v !== "object") return String(v);
    if ((depth || 0) > 2) return Array.isArray(v) ? "[Array]" : "[Object]";
    if (Array.isArray(v)) return v.length ? "[ " + v.map((x) => inspect(x, (depth || 0) + 1)).join(", ") + " ]" : "[]";
    if (v instanceof Map) return "Map(" + v.size + ") {" + (v.size ? " " + [...v].map(([k, x]) => inspect(k, 1) + " => " + inspect(x, (depth || 0) + 1)).join(", ") + " " : "") + "}";
    if (v instanceof Set) return "Set(" + v.size + ") {" + (v.size ? " " + [...v].map((x) => inspect(x, (depth || 0) + 1)).join(", ") + " " : "") + "}";
    if (v instanceof Date) return isNaN(v) ? "Invalid Date" : v.toISOString();
    if (ArrayBuffer.isView(v) && !(v instanceof DataView)) {
      const name = v.constructor && v.constructor.name || "TypedArray";
      if (name === "Buffer") return "<Buffer" + Array.from(v.subarray(0, 50), (b) => " " + b.toString(16).padStart(2, "0")).join("") + (v.length > 50 ? " ... " + (v.length - 50) + " more bytes" : "") + ">";
      return name + "(" + v.length + ") [" + (v.length ? " " + Array.from(v).join(", ") + " " : "") + "]";
    }
    if (typeof v.then === "function" && v instanceof Promise) return "Promise { <pending> }";
    const keys = Object.keys(v);
    const proto = Object.getPrototypeOf(v);
    const cls = proto && proto !== Object.prototype && proto.constructor && proto.constructor.name ? proto.constructor.name + " " : proto === null ? "[Object: null prototype] " : "";
    if (keys.length === 0) return cls + "{}";
    return cls + "{ " + keys.map((k) => (/^[A-Za-z_$][\w$]*$/.test(k) ? k : "'" + k + "'") + ": " + inspect(v[k], (depth || 0) + 1)).join(", ") + " }";
  }
  function describe(e) {
    try {
      if (e instanceof Error) {
        const head = (e.name || "Error") + ": " + e.message;
        const stack = typeof e.stack === "string" ? e.stack.replace(/\n$/, "") : "";
        let extra = "";
        const keys = Object.keys(e).filter((k) => k !== "stack" && k !== "message");
        if (keys.length) extra = " {\n" + keys.map((k) => "  " + k + ": " + inspect(e[k], 1)).join(",\n") + "\n}";
        return head + (stack ? "\n" + stack : "") + extra;
      }
      return inspect(e, 1);
    } catch (_) {
      try { return String(e && e.message || e); } catch (__) { return "exception"; }
    }
  }
  // console formats as Node's util.format (node/util.js), loaded on the
  // first call with more than plain strings and numbers.
  function format(args) {
    const plain = (a, i) => (typeof a === "string" && (i > 0 || !a.includes("%"))) || (typeof a === "number" && !Object.is(a, -0));
    if (args.every(plain)) return args.join(" ");
    return builtinRequire("util").format(...args);
  }
  const out = H.out;
  let indent = "";
  const line = (fd) => (...a) => out(fd, (indent ? format(a).replace(/^/gm, indent) : format(a)) + "\n");
  const counts = new Map(), clocks = new Map();
  const console = {
    log: line(1), info: line(1), debug: line(1), error: line(2), warn: line(2), trace: line(2),
    dir: (v, o) => out(1, builtinRequire("util").inspect(v, { customInspect: false, ...o }) + "\n"),
    table: (...a) => console.log(...builtinRequire("internal/console_table")(...a)),
    assert(ok, ...a) { if (!ok) out(2, "Assertion failed" + (a.length ? ": " + format(a) : "") + "\n"); },
    group(...a) { if (a.length) console.log(...a); indent += "  "; },
    groupEnd() { indent = indent.slice(2); },
    count(l = "default") { counts.set(l, (counts.get(l) || 0) + 1); console.log(l + ": " + counts.get(l)); },
    countReset(l = "default") { counts.delete(l); },
    time(l = "default") { clocks.set(l, H.clock()); },
    timeEnd(l = "default") { if (clocks.has(l)) { console.log(l + ": " + (H.clock() - clocks.get(l)).toFixed(3) + "ms"); clocks.delete(l); } },
    timeLog(l = "default", ...a) { if (clocks.has(l)) console.log(l + ": " + (H.clock() - clocks.get(l)).toFixed(3) + "ms", ...a); },
  };
  console.groupCollapsed = console.group;
  g.console = console;

  // Timers: Go keeps when each is due and runs the loop between QuickJS's
  // job queues (jsexec.go); an unref'd timer does not keep the run alive.
  const timerFns = new Map();
  let lastTimer = 0;
  class Timeout {
    constructor(fn, delay, args, repeat, min) {
      if (typeof fn !== "function") {
        const e = new TypeError('The "callback" argument must be of type function. Received ' + (fn === null ? "null" : typeof fn));
        e.code = "ERR_INVALID_ARG_TYPE";
        throw e;
      }
      delay = Number(delay);
      if (!(delay >= min && delay <= 2147483647)) delay = min;
      this._id = ++lastTimer; this._fn = fn; this._args = args; this._repeat = repeat; this._delay = delay; this._ref = true;
      timerFns.set(this._id, this);
      H.timer(this._id, delay, true);
    }
    _fire() {
      if (this._repeat) H.timer(this._id, this._delay, this._ref);
      else timerFns.delete(this._id);
      this._fn.apply(this, this._args);
    }
    close() { if (timerFns.delete(this._id)) H.timer(this._id, -1); return this; }
    ref() { this._ref = true; if (timerFns.has(this._id)) H.timer(this._id, -2, true); return this; }
    unref() { this._ref = false; if (timerFns.has(this._id)) H.timer(this._id, -2, false); return this; }
    hasRef() { return this._ref; }
    refresh() { if (timerFns.has(this._id)) H.timer(this._id, this._delay, this._ref); return this; }
    [Symbol.toPrimitive]() { return this._id; }
  }
  function clearTimer(t) {
    if (t == null) return;
    const timer = typeof t === "object" ? t : timerFns.get(Number(t));
    if (timer instanceof Timeout) timer.close();
  }
  Object.assign(g, {
    setTimeout: (fn, delay, ...args) => new Timeout(fn, delay, args, false, 1),
    setInterval: (fn, delay, ...args) => new Timeout(fn, delay, args, true, 1),
    setImmediate: (fn, ...args) => new Timeout(fn, 0, args, false, 0),
    clearTimeout: clearTimer, clearInterval: clearTimer, clearImmediate: clearTimer,
  });

  function network() {
    const e = new Error("js-exec: no network access in the sandbox");
    e.code = "ERR_NETWORK_DISABLED";
    throw e;
  }
  for (const k of ["fetch", "XMLHttpRequest", "WebSocket", "EventSource"]) g[k] = network;

  // process
  const exitListeners = [], rejectionListeners = [];
  const listenersOf = (ev) => (ev === "exit" ? exitListeners : ev === "unhandledRejection" ? rejectionListeners : null);

  // process.nextTick's queue runs as Node's processTicksAndRejections runs
  // it: after the macrotask (the script, a timer callback), before the
  // promise jobs it queued; ticks queued by a tick run in the same pass,
  // ticks queued by a promise job once QuickJS has drained its job queue
  // (Go calls settle then: jsexec.go).
  const ticks = [];
  let tickHead = 0;
  const pending = () => H.timer(0, -3);
  function nextTick(fn, ...args) {
    if (typeof fn !== "function") {
      const e = new TypeError('The "callback" argument must be of type function. Received ' + (fn === null ? "null" : typeof fn));
      e.code = "ERR_INVALID_ARG_TYPE";
      throw e;
    }
    if (tickHead === ticks.length) pending();
    ticks.push(args.length ? () => fn(...args) : fn);
  }
  function runTicks() {
    while (tickHead < ticks.length) {
      const fn = ticks[tickHead];
      ticks[tickHead++] = undefined;
      fn();
    }
    ticks.length = tickHead = 0;
  }
  const start = H.clock();
  function writer(fd) {
    return {
      fd, isTTY: false, columns: 80, writable: true,
      write(s, enc, cb) {
        if (typeof enc === "function") cb = enc;
        out(fd, typeof s === "string" ? s : ArrayBuffer.isView(s) ? utf8(s) : String(s));
        if (typeof cb === "function") queueMicrotask(cb);
        return true;
      },
      end(s, cb) { if (s != null && typeof s !== "function") this.write(s); if (typeof (cb || s) === "function") queueMicrotask(cb || s); },
      on() { return this; }, once() { return this; }, off() { return this; }, emit() { return false; },
    };
  }
  function hrtime(prev) {
    const ns = Math.round((H.clock() - start) * 1e6) + 1e9;
    let s = Math.floor(ns / 1e9), n = ns % 1e9;
    if (prev) { s -= prev[0]; n -= prev[1]; if (n < 0) { s--; n += 1e9; } }
    return [s, n];
  }
  hrtime.bigint = () => BigInt(Math.round((H.clock() - start) * 1e6)) + 1000000000n;
  const process = {
    argv: info.argv, argv0: "node", execArgv: [], execPath: "/usr/bin/node", title: "js-exec",
    env: info.env, platform: "linux", arch: "x64", pid: 1, ppid: 0,
    version: "v20.0.0-wsfs", versions: { node: "20.0.0-wsfs", quickjs: "ng" },
    release: { name: "node" }, config: {}, features: {},
    exitCode: undefined,
    cwd: () => info.cwd,
    chdir() { const e = new Error("js-exec: process.chdir is not supported (the working directory is fixed for a run)"); e.code = "ERR_FEATURE_UNAVAILABLE_ON_PLATFORM"; throw e; },
    exit(code) {
      if (code !== undefined) process.exitCode = code;
      const status = Number(process.exitCode || 0) | 0;
      runExit(status);
      H.exit(status);
    },
    abort() { H.exit(134); },
    kill() { return true; },
    stdout: writer(1), stderr: writer(2),
    hrtime, uptime: () => (H.clock() - start) / 1000,
    nextTick,
    memoryUsage: Object.assign(() => ({ rss: 0, heapTotal: 0, heapUsed: 0, external: 0, arrayBuffers: 0 }), { rss: () => 0 }),
    cpuUsage: () => ({ user: 0, system: 0 }),
    umask: () => 0o022,
    getuid: () => 0, getgid: () => 0, geteuid: () => 0, getegid: () => 0,
    emitWarning(w) { out(2, "(node) Warning: " + (w && w.message || w) + "\n"); },
    on(ev, fn) { const l = listenersOf(ev); if (l) l.push(fn); return process; },
    once(ev, fn) { const once = function (...a) { process.off(ev, once); return fn.apply(this, a); }; once.listener = fn; return process.on(ev, once); },
    off(ev, fn) { const l = listenersOf(ev) || [], i = l.findIndex((f) => f === fn || f.listener === fn); if (i >= 0) l.splice(i, 1); return process; },
    emit(ev, ...a) {
      const l = listenersOf(ev);
      if (!l || !l.length) return false;
      for (const fn of l.slice()) fn.apply(process, a);
      return true;
    },
    listenerCount: (ev) => (listenersOf(ev) || []).length,
  };
  // process.stdin: a Readable of the command's whole standard input,
  // read on first use.
  let stdinStream;
  Object.defineProperty(process, "stdin", {
    enumerable: true, configurable: true,
    get() {
      if (stdinStream) return stdinStream;
      let done = false;
      stdinStream = new (builtinRequire("stream").Readable)({
        read() {
          if (done) return;
          done = true;
          let b;
          try { b = hread("/dev/stdin", false); } catch (e) { this.destroy(e); return; }
          if (b.byteLength) this.push(Buf() ? Buf().from(b) : new Uint8Array(b));
          this.push(null);
        },
      });
      return Object.assign(stdinStream, { fd: 0, isTTY: false });
    },
  });
  process.addListener = process.on;
  process.removeListener = process.off;
  process.removeAllListeners = (ev) => {
    for (const l of ev === undefined ? [exitListeners, rejectionListeners] : [listenersOf(ev) || []]) l.length = 0;
    return process;
  };
  let exiting = false;
  function runExit(status) {
    if (exiting) return;
    exiting = true;
    for (const fn of exitListeners.splice(0)) fn.call(process, status);
  }
  g.process = process;

  // path: POSIX rules, as Node's path.posix.
  function normalizeArray(parts, absolute) {
    const res = [];
    for (const p of parts) {
      if (!p || p === ".") continue;
      if (p === "..") { if (res.length && res[res.length - 1] !== "..") res.pop(); else if (!absolute) res.push(".."); }
      else res.push(p);
    }
    return res;
  }
  const path = {
    sep: "/", delimiter: ":",
    normalize(p) {
      const abs = p.startsWith("/"), trail = p.endsWith("/");
      let s = normalizeArray(p.split("/"), abs).join("/");
      if (!s && !abs) s = ".";
      if (s && trail) s += "/";
      return (abs ? "/" : "") + s;
    },
    join(...parts) { const s = parts.filter((x) => x !== "").join("/"); return s ? path.normalize(s) : "."; },
    resolve(...parts) {
      let r = "";
      for (let i = parts.length - 1; i >= 0 && !r.startsWith("/"); i--) if (parts[i]) r = parts[i] + (r ? "/" + r : "");
      if (!r.startsWith("/")) r = info.cwd + (r ? "/" + r : "");
      return "/" + normalizeArray(r.split("/"), true).join("/");
    },
    isAbsolute: (p) => p.startsWith("/"),
    dirname(p) {
      if (!p) return ".";
      const s = p.replace(/\/+$/, "");
      if (!s) return "/";
      const i = s.lastIndexOf("/");
      if (i < 0) return ".";
      return s.slice(0, i).replace(/\/+$/, "") || "/";
    },
    basename(p, ext) {
      const s = p.replace(/\/+$/, "");
      let b = s.slice(s.lastIndexOf("/") + 1);
      if (ext && b.endsWith(ext) && b !== ext) b = b.slice(0, -ext.length);
      return b;
    },
    extname(p) {
      const b = path.basename(p), i = b.lastIndexOf(".");
      return i <= 0 ? "" : b.slice(i);
    },
    relative(from, to) {
      const f = path.resolve(from).split("/").filter(Boolean), t = path.resolve(to).split("/").filter(Boolean);
      let i = 0;
      while (i < f.length && i < t.length && f[i] === t[i]) i++;
      return f.slice(i).map(() => "..").concat(t.slice(i)).join("/");
    },
    parse(p) {
      const root = p.startsWith("/") ? "/" : "", base = path.basename(p), ext = path.extname(p);
      let dir = path.dirname(p);
      if (dir === "." && !p.startsWith(".")) dir = "";
      return { root, dir, base, ext, name: ext ? base.slice(0, -ext.length) : base };
    },
    format(o) {
      const dir = o.dir || o.root || "", base = o.base || (o.name || "") + (o.ext || "");
      return dir ? (dir === o.root ? dir + base : dir + "/" + base) : base;
    },
    toNamespacedPath: (p) => p,
  };
  path.posix = path;

  // Buffer and TextDecoder are the node/ modules' (lazy globals); plain
  // bytes and a slower decoder without them.
  function optional(name) {
    try { return typeof g[name] === "function" ? g[name] : null; } catch (e) { return null; }
  }
  const Buf = () => optional("Buffer");
  function utf8(u) {
    const TD = optional("TextDecoder");
    if (TD) return new TD().decode(u);
    let s = "";
    for (let i = 0; i < u.length; i++) s += String.fromCharCode(u[i]);
    try { return decodeURIComponent(escape(s)); } catch (e) { return s; }
  }

  // Modules the host provides, built on first require; the rest are
  // node/*.js (loadBuiltin) or workspace files.
  const modules = {};
  const hostModules = {
    fs: () => makeFs(),
    "fs/promises": () => require("fs").promises,
    path: () => path, "path/posix": () => path,
    process: () => process, console: () => console,
    child_process: () => makeChildProcess(),
    readline: () => makeReadline(false), "readline/promises": () => makeReadline(true),
    module: () => ({ createRequire: (f) => makeRequire(path.dirname(String(f).replace(/^file:\/\//, ""))), builtinModules: [] }),
  };
  for (const n of ["net", "http", "https", "http2", "dns", "dns/promises", "tls", "dgram", "undici"]) hostModules[n] = network;

  // fs: sync calls go straight to Go; the callback and promise forms wrap
  // them (the work is synchronous, the answer arrives as Node's would).
  function makeFs() {
    const constants = { F_OK: 0, R_OK: 4, W_OK: 2, X_OK: 1, COPYFILE_EXCL: 1, COPYFILE_FICLONE: 2, COPYFILE_FICLONE_FORCE: 4,
      O_RDONLY: 0, O_WRONLY: 1, O_RDWR: 2, O_CREAT: 64, O_EXCL: 128, O_TRUNC: 512, O_APPEND: 1024,
      S_IFMT: 0o170000, S_IFREG: 0o100000, S_IFDIR: 0o40000, S_IFLNK: 0o120000 };
    function p(x) {
      if (typeof x === "string") return x;
      if (x === 0) return "/dev/stdin";
      if (x && typeof x === "object" && typeof x.href === "string" && x.protocol === "file:") return decodeURIComponent(x.pathname);
      if (ArrayBuffer.isView(x)) return utf8(x);
      const e = new TypeError('The "path" argument must be of type string or an instance of Buffer or URL. Received ' + (x === null ? "null" : typeof x));
      e.code = "ERR_INVALID_ARG_TYPE";
      throw e;
    }
    const encOf = (o) => (typeof o === "string" ? o : o && o.encoding);
    function bytes(ab, enc) {
      if (enc && enc !== "buffer") {
        if (/^utf-?8$/i.test(enc)) return utf8(new Uint8Array(ab));
        return g.Buffer.from(ab).toString(enc);
      }
      if (Buf()) return Buf().from(ab);
      const u = new Uint8Array(ab);
      u.toString = function (e) { return e === undefined || /^utf-?8$/i.test(e) ? utf8(this) : Array.prototype.join.call(this, ","); };
      return u;
    }
    function data(d, enc) {
      if (typeof d === "string") return enc && !/^utf-?8$/i.test(enc) ? data(g.Buffer.from(d, enc)) : d;
      if (d instanceof ArrayBuffer) return d;
      if (ArrayBuffer.isView(d)) return d.buffer.slice(d.byteOffset, d.byteOffset + d.byteLength);
      const e = new TypeError('The "data" argument must be of type string or an instance of Buffer, TypedArray, or DataView. Received ' + (d === null ? "null" : typeof d));
      e.code = "ERR_INVALID_ARG_TYPE";
      throw e;
    }
    class Stats {
      constructor(s) {
        Object.assign(this, { dev: s.dev, mode: s.mode, nlink: s.nlink, uid: 0, gid: 0, rdev: 0, blksize: 4096, ino: s.ino,
          size: s.size, blocks: s.blocks, atimeMs: s.atimeMs, mtimeMs: s.mtimeMs, ctimeMs: s.ctimeMs, birthtimeMs: s.mtimeMs });
        this.atime = new Date(s.atimeMs); this.mtime = new Date(s.mtimeMs); this.ctime = new Date(s.ctimeMs); this.birthtime = new Date(s.mtimeMs);
        Object.defineProperty(this, "_type", { value: s.type });
      }
      isFile() { return this._type === "file"; }
      isDirectory() { return this._type === "dir"; }
      isSymbolicLink() { return this._type === "symlink"; }
      isFIFO() { return this._type === "fifo"; }
      isCharacterDevice() { return this._type === "chardev"; }
      isBlockDevice() { return false; }
      isSocket() { return false; }
    }
    class Dirent {
      constructor(name, type, dir) { this.name = name; this.parentPath = dir; this.path = dir; Object.defineProperty(this, "_type", { value: type }); }
    }
    for (const m of ["isFile", "isDirectory", "isSymbolicLink", "isFIFO", "isCharacterDevice", "isBlockDevice", "isSocket"]) Dirent.prototype[m] = Stats.prototype[m];

    function readdirSync(dir, o) {
      dir = p(dir);
      const types = o && o.withFileTypes, recursive = o && o.recursive, res = [];
      const walk = (d, rel) => {
        for (const e of op("readdir", d)) {
          const name = rel ? rel + "/" + e.name : e.name;
          res.push(types ? new Dirent(e.name, e.type, d) : encOf(o) === "buffer" ? bytes(data(name)) : name);
          if (recursive && e.type === "dir") walk(d + "/" + e.name, name);
        }
      };
      walk(dir, "");
      return res;
    }
    // File descriptors: a small table over whole-file calls, enough for
    // openSync/writeSync/readSync/closeSync loops.
    const fds = new Map();
    let lastFd = 2;
    function fdEntry(fd) {
      const f = fds.get(fd);
      if (!f) { const e = new Error("EBADF: bad file descriptor, fd " + fd); e.code = "EBADF"; e.errno = -9; e.syscall = "fstat"; throw e; }
      return f;
    }
    const fs = {
      constants, Stats, Dirent, ...constants,
      readFileSync(f, o) {
        if (typeof f === "number" && fds.has(f)) f = fdEntry(f).path;
        const enc = encOf(o);
        return enc && /^utf-?8$/i.test(enc) ? hread(p(f), true) : bytes(hread(p(f), false), enc);
      },
      writeFileSync(f, d, o) {
        if (typeof f === "number" && f <= 2) { out(f === 2 ? 2 : 1, typeof d === "string" ? d : utf8(new Uint8Array(data(d)))); return; }
        if (typeof f === "number") return void fs.writeSync(f, d);
        hwrite(p(f), data(d, encOf(o)), (o && o.flag) || "w", o && o.mode);
      },
      appendFileSync(f, d, o) { hwrite(p(f), data(d, encOf(o)), (o && o.flag) || "a", o && o.mode); },
      existsSync(f) { try { return op("exists", p(f)); } catch (e) { return false; } },
      accessSync(f) { op("access", p(f)); },
      statSync(f, o) {
        if (typeof f === "number") f = fdEntry(f).path;
        try { return new Stats(op("stat", p(f))); } catch (e) { if (o && o.throwIfNoEntry === false && e.code === "ENOENT") return undefined; throw e; }
      },
      lstatSync(f, o) {
        try { return new Stats(op("lstat", p(f))); } catch (e) { if (o && o.throwIfNoEntry === false && e.code === "ENOENT") return undefined; throw e; }
      },
      fstatSync(fd) { return fs.statSync(fdEntry(fd).path); },
      readdirSync,
      opendirSync(dir) {
        const ents = readdirSync(dir, { withFileTypes: true });
        let i = 0;
        const d = {
          path: p(dir),
          readSync: () => (i < ents.length ? ents[i++] : null),
          read(cb) { const e = d.readSync(); if (typeof cb === "function") return void queueMicrotask(() => cb(null, e)); return Promise.resolve(e); },
          closeSync() {},
          close(cb) { if (typeof cb === "function") return void queueMicrotask(() => cb(null)); return Promise.resolve(); },
          async *[Symbol.asyncIterator]() { for (let e; (e = d.readSync());) yield e; },
        };
        return d;
      },
      mkdirSync(f, o) {
        const mode = typeof o === "number" ? o : o && o.mode;
        const r = op("mkdir", p(f), mode === undefined ? "" : typeof mode === "string" ? parseInt(mode, 8) : mode, o && o.recursive ? 1 : 0);
        return r === null ? undefined : r;
      },
      mkdtempSync(prefix) {
        for (;;) {
          const name = p(prefix) + Math.random().toString(36).slice(2, 8);
          try { op("mkdir", name, 0o700, 0); return name; } catch (e) { if (e.code !== "EEXIST") throw e; }
        }
      },
      rmSync(f, o) { op("rm", p(f), "", (o && o.recursive ? 1 : 0) | (o && o.force ? 2 : 0)); },
      rmdirSync(f, o) { op("rmdir", p(f), "", o && o.recursive ? 1 : 0); },
      unlinkSync(f) { op("unlink", p(f)); },
      renameSync(a, b) { op("rename", p(a), p(b)); },
      copyFileSync(a, b, mode) { op("copyfile", p(a), p(b), mode & 1 ? 2 : 0); },
      cpSync(a, b, o) {
        a = p(a); b = p(b);
        const st = fs.lstatSync(a);
        if (st.isDirectory()) {
          if (!(o && o.recursive)) { const e = new Error("Recursive option is required to copy a directory: " + a); e.code = "ERR_FS_EISDIR"; throw e; }
          fs.mkdirSync(b, { recursive: true });
          for (const n of fs.readdirSync(a)) fs.cpSync(a + "/" + n, b + "/" + n, o);
        } else if (st.isSymbolicLink()) {
          fs.symlinkSync(fs.readlinkSync(a), b);
        } else {
          if (o && (o.force === false || o.errorOnExist) && fs.existsSync(b)) {
            if (o.errorOnExist) { const e = new Error("Target already exists: cp returned EEXIST (" + b + " already exists)"); e.code = "ERR_FS_CP_EEXIST"; throw e; }
            return;
          }
          fs.copyFileSync(a, b);
        }
      },
      symlinkSync(target, f) { op("symlink", p(target), p(f)); },
      linkSync(a, b) { op("link", p(a), p(b)); },
      readlinkSync(f, o) { const t = op("readlink", p(f)); return encOf(o) === "buffer" ? bytes(data(t)) : t; },
      realpathSync(f) { return op("realpath", p(f)); },
      truncateSync(f, len) { op("truncate", p(f), "", len || 0); },
      ftruncateSync(fd, len) { op("truncate", fdEntry(fd).path, "", len || 0); },
      chmodSync(f, mode) { op("chmod", p(f), "", typeof mode === "string" ? parseInt(mode, 8) : mode); },
      lchmodSync() {},
      chownSync() {}, lchownSync() {}, fchownSync() {},
      fchmodSync(fd, mode) { fs.chmodSync(fdEntry(fd).path, mode); },
      utimesSync(f, at, mt) { op("utimes", p(f), "", mt instanceof Date ? mt.getTime() : Number(mt) * 1000); },
      lutimesSync(f, at, mt) { fs.utimesSync(f, at, mt); },
      fsyncSync() {}, fdatasyncSync() {},
      openSync(f, flags, mode) {
        f = p(f);
        flags = flags === undefined ? "r" : String(flags);
        if (/^r/.test(flags)) op("access", f);
        else if (/^w/.test(flags)) hwrite(f, "", flags.includes("x") ? "wx" : "w", mode);
        else hwrite(f, "", flags.includes("x") ? "ax" : "a", mode);
        fds.set(++lastFd, { path: f, pos: 0 });
        return lastFd;
      },
      closeSync(fd) { fdEntry(fd); fds.delete(fd); },
      writeSync(fd, d, a, b) {
        let s = d;
        if (ArrayBuffer.isView(d) && typeof a === "number") s = d.subarray(a, b === undefined ? undefined : a + b);
        if (fd === 1 || fd === 2) { out(fd, typeof s === "string" ? s : utf8(s)); return typeof s === "string" ? s.length : s.byteLength; }
        hwrite(fdEntry(fd).path, data(s), "a");
        return typeof s === "string" ? data(s).byteLength : s.byteLength;
      },
      readSync(fd, buf, off, len, pos) {
        if (typeof off === "object" && off) ({ offset: off, length: len, position: pos } = off);
        off = off || 0; len = len === undefined ? buf.byteLength - off : len;
        const f = fdEntry(fd), all = new Uint8Array(hread(f.path, false));
        const at = typeof pos === "number" && pos >= 0 ? pos : f.pos, chunk = all.subarray(at, at + len);
        new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength).set(chunk, off);
        if (!(typeof pos === "number" && pos >= 0)) f.pos += chunk.length;
        return chunk.length;
      },
      watch() { const e = new Error("js-exec: fs.watch is not available in the sandbox"); e.code = "ERR_FEATURE_UNAVAILABLE_ON_PLATFORM"; throw e; },
    };
    fs.realpathSync.native = fs.realpathSync;
    fs.exists = (f, cb) => { const r = fs.existsSync(f); queueMicrotask(() => cb(r)); };

    // Callback and promise forms of every xxxSync.
    const promises = { constants };
    for (const name of Object.keys(fs)) {
      if (!name.endsWith("Sync") || name === "existsSync") continue;
      const base = name.slice(0, -4), sync = fs[name];
      fs[base] = function (...args) {
        const cb = args.pop();
        if (typeof cb !== "function") {
          const e = new TypeError('The "cb" argument must be of type function. Received ' + typeof cb);
          e.code = "ERR_INVALID_ARG_TYPE";
          throw e;
        }
        let r, err = null;
        try { r = sync(...args); } catch (e) { err = e; }
        queueMicrotask(() => (err ? cb(err) : cb(null, r)));
      };
      promises[base] = async (...args) => sync(...args);
    }
    fs.realpath.native = fs.realpath;
    promises.open = async (f, flags, mode) => fileHandle(fs.openSync(f, flags, mode));
    function fileHandle(fd) {
      return {
        fd,
        readFile: async (o) => fs.readFileSync(fdEntry(fd).path, o),
        writeFile: async (d, o) => fs.writeFileSync(fdEntry(fd).path, d, o),
        appendFile: async (d, o) => fs.appendFileSync(fdEntry(fd).path, d, o),
        write: async (d, ...a) => ({ bytesWritten: fs.writeSync(fd, d, ...a), buffer: d }),
        read: async (buf, off, len, pos) => ({ bytesRead: fs.readSync(fd, buf, off, len, pos), buffer: buf }),
        stat: async () => fs.fstatSync(fd),
        truncate: async (len) => fs.ftruncateSync(fd, len),
        close: async () => fs.closeSync(fd),
        [Symbol.asyncDispose]: async () => { if (fds.has(fd)) fs.closeSync(fd); },
      };
    }
    fs.promises = promises;

    // Streams, over the stream module when a script asks for one.
    fs.createReadStream = function (f, o) {
      const { Readable } = require("stream");
      const opts = typeof o === "string" ? { encoding: o } : o || {};
      const r = new Readable({ read() {} , encoding: opts.encoding });
      r.path = p(f);
      queueMicrotask(() => {
        try {
          let b = fs.readFileSync(r.path);
          if (opts.start !== undefined || opts.end !== undefined) b = b.subarray(opts.start || 0, opts.end === undefined ? undefined : opts.end + 1);
          const size = opts.highWaterMark || 65536;
          r.emit("open", 3); r.emit("ready");
          for (let i = 0; i < b.length; i += size) r.push(b.subarray(i, i + size));
          r.push(null);
        } catch (e) { r.destroy(e); }
      });
      return r;
    };
    fs.createWriteStream = function (f, o) {
      const { Writable } = require("stream");
      const opts = typeof o === "string" ? { encoding: o } : o || {};
      const target = p(f);
      let flag = opts.flags || "w";
      const w = new Writable({
        write(chunk, enc, cb) {
          try { hwrite(target, data(chunk, typeof chunk === "string" ? enc : undefined), flag); flag = "a"; cb(); } catch (e) { cb(e); }
        },
      });
      w.path = target;
      w.bytesWritten = 0;
      try { hwrite(target, "", flag); flag = "a"; queueMicrotask(() => { w.emit("open", 3); w.emit("ready"); }); } catch (e) { queueMicrotask(() => w.destroy(e)); }
      return w;
    };
    return fs;
  }

  // child_process: the runner's own commands through the Go side (never a
  // host program); a command line goes through bash -c.
  function makeChildProcess() {
    function spawnArgs(file, args, o) {
      if (!Array.isArray(args)) { o = args; args = []; }
      o = o || {};
      let argv = [String(file), ...args.map(String)], line = null;
      if (o.shell) { line = argv.join(" "); argv = null; }
      return { argv, line, o };
    }
    function run({ argv, line, o }) {
      if (o.cwd !== undefined && path.resolve(String(o.cwd)) !== info.cwd) {
        const q = (s) => "'" + String(s).replace(/'/g, "'\\''") + "'";
        line = "cd " + q(path.resolve(String(o.cwd))) + " && " + (line !== null ? line : argv.map(q).join(" "));
        argv = null;
      }
      let input = o.input;
      if (input !== undefined && typeof input !== "string") input = ArrayBuffer.isView(input) ? input.buffer.slice(input.byteOffset, input.byteOffset + input.byteLength) : String(input);
      const env = o.env ? Object.entries(o.env).filter(([, v]) => v !== undefined).map(([k, v]) => k + "=" + v) : null;
      const r = H.exec(argv ? JSON.stringify(argv) : "", line === null ? "" : line, input === undefined ? "" : input,
        env ? JSON.stringify(env) : "", Number(o.timeout) || 0);
      const enc = o.encoding && o.encoding !== "buffer" ? o.encoding : null;
      const conv = (ab) => (enc ? (/^utf-?8$/i.test(enc) ? utf8(new Uint8Array(ab)) : g.Buffer.from(ab).toString(enc)) : Buf() ? Buf().from(ab) : new Uint8Array(ab));
      return { status: r.status, signal: r.signal || null, stdout: conv(r.stdout), stderr: conv(r.stderr), timedOut: r.timedOut, pid: 0 };
    }
    const shell = (cmd, o) => ({ argv: null, line: String(cmd), o: o || {} });
    function failed(cmd, r) {
      const err = new Error("Command failed: " + cmd + (r.stderr && r.stderr.length ? "\n" + String(r.stderr) : ""));
      Object.assign(err, { status: r.status, signal: r.signal, output: [null, r.stdout, r.stderr], pid: 0, stdout: r.stdout, stderr: r.stderr });
      if (r.timedOut) { err.code = "ETIMEDOUT"; err.errno = -110; }
      return err;
    }
    function syncRun(spec, label) {
      const r = run(spec);
      const inherit = spec.o.stdio === "inherit" || Array.isArray(spec.o.stdio) && spec.o.stdio[1] === "inherit";
      if (inherit) out(1, String(r.stdout));
      if (spec.o.stdio === undefined || inherit || Array.isArray(spec.o.stdio) && spec.o.stdio[2] === "inherit") out(2, String(r.stderr));
      if (r.status !== 0) throw failed(label, r);
      return inherit ? null : r.stdout;
    }
    function emitter() {
      const ls = {};
      return {
        on(ev, fn) { (ls[ev] = ls[ev] || []).push(fn); return this; },
        once(ev, fn) { const w = (...a) => { this.off(ev, w); fn(...a); }; return this.on(ev, w); },
        off(ev, fn) { ls[ev] = (ls[ev] || []).filter((f) => f !== fn); return this; },
        emit(ev, ...a) { const f = ls[ev] || []; f.slice().forEach((fn) => fn.apply(this, a)); return f.length > 0; },
      };
    }
    function child(spec, cb, label) {
      let ee;
      try { const { EventEmitter } = require("events"); ee = () => new EventEmitter(); } catch (e) { ee = emitter; }
      const cp = Object.assign(ee(), { pid: 0, exitCode: null, signalCode: null, killed: false });
      cp.stdout = ee(); cp.stderr = ee();
      const chunks = [];
      let ended = false;
      cp.stdin = Object.assign(ee(), { write(d) { chunks.push(typeof d === "string" ? d : utf8(d)); return true; }, end(d) { if (d != null) this.write(d); ended = true; } });
      for (const s of [cp.stdout, cp.stderr]) { s.setEncoding = function (e) { this._enc = e; return this; }; s.pipe = function (w) { this.on("data", (d) => w.write(d)); return w; }; }
      cp.kill = () => { cp.killed = true; return true; };
      setTimeout(() => {
        if (cp.killed) return;
        if (spec.o.input === undefined && (ended || chunks.length)) spec.o.input = chunks.join("");
        let r;
        try { r = run(spec); } catch (e) { cp.emit("error", e); if (cb) cb(e, "", ""); return; }
        cp.exitCode = r.status;
        const text = (s, b) => (s._enc ? String(b) : b);
        if (r.stdout.length) cp.stdout.emit("data", text(cp.stdout, r.stdout));
        if (r.stderr.length) cp.stderr.emit("data", text(cp.stderr, r.stderr));
        cp.stdout.emit("end"); cp.stderr.emit("end");
        cp.emit("exit", r.status, null);
        cp.emit("close", r.status, null);
        if (cb) cb(r.status === 0 ? null : Object.assign(failed(label, r), { code: r.status }), r.stdout, r.stderr);
      }, 0);
      return cp;
    }
    const textOpts = (o) => Object.assign({ encoding: "utf8" }, o);
    return {
      execSync: (cmd, o) => syncRun(shell(cmd, o), cmd),
      execFileSync(file, args, o) { const s = spawnArgs(file, args, o); return syncRun(s, s.argv ? s.argv.join(" ") : s.line); },
      spawnSync(file, args, o) {
        const s = spawnArgs(file, args, o);
        const r = run(s);
        if (s.o.stdio === "inherit") { out(1, String(r.stdout)); out(2, String(r.stderr)); }
        return Object.assign(r, { output: [null, r.stdout, r.stderr] });
      },
      exec(cmd, o, cb) { if (typeof o === "function") { cb = o; o = {}; } return child(shell(cmd, textOpts(o)), cb, cmd); },
      execFile(file, args, o, cb) {
        if (typeof args === "function") { cb = args; args = []; o = {}; } else if (typeof o === "function") { cb = o; if (!Array.isArray(args)) { o = args; args = []; } else o = {}; }
        const s = spawnArgs(file, args, textOpts(o));
        return child(s, cb, s.argv ? s.argv.join(" ") : s.line);
      },
      spawn(file, args, o) { const s = spawnArgs(file, args, o); return child(s, null, s.argv ? s.argv.join(" ") : s.line); },
      fork() { const e = new Error("js-exec: child_process.fork is not available (no Node processes in the sandbox)"); e.code = "ERR_FEATURE_UNAVAILABLE_ON_PLATFORM"; throw e; },
    };
  }

  // readline: lines of a readable stream (process.stdin, a file stream),
  // as events, an async iterator, or answers to question().
  function makeReadline(promises) {
    function createInterface(opts, output) {
      const input = opts && typeof opts.on === "function" ? opts : opts && opts.input;
      const { EventEmitter } = builtinRequire("events");
      const rl = new EventEmitter();
      let rest = "", closed = false, paused = false;
      const held = [];
      const emitLine = (l) => (paused ? held.push(l) : rl.emit("line", l));
      if (input) {
        input.on("data", (d) => {
          rest += typeof d === "string" ? d : utf8(d);
          for (let i; (i = rest.indexOf("\n")) >= 0;) {
            const l = rest.slice(0, i);
            rest = rest.slice(i + 1);
            emitLine(l.endsWith("\r") ? l.slice(0, -1) : l);
          }
        });
        input.on("end", () => { if (rest) emitLine(rest); rest = ""; rl.close(); });
      }
      Object.assign(rl, {
        terminal: false, line: "", input, output: output || (opts && opts.output),
        close() { if (!closed) { closed = true; rl.emit("close"); } },
        pause() { paused = true; return rl; },
        resume() { paused = false; while (held.length && !paused) rl.emit("line", held.shift()); return rl; },
        setPrompt() {}, prompt() {}, write() {}, getPrompt: () => "",
        question(q, o, cb) {
          if (typeof o === "function") cb = o;
          out(1, String(q));
          if (promises) return new Promise((resolve) => rl.once("line", resolve));
          rl.once("line", cb);
        },
        [Symbol.asyncIterator]() {
          const queue = [], waiting = [];
          let ended = closed;
          rl.on("line", (l) => (waiting.length ? waiting.shift()({ value: l, done: false }) : queue.push(l)));
          rl.on("close", () => { ended = true; while (waiting.length) waiting.shift()({ value: undefined, done: true }); });
          return {
            next: () => (queue.length ? Promise.resolve({ value: queue.shift(), done: false })
              : ended ? Promise.resolve({ value: undefined, done: true }) : new Promise((r) => waiting.push(r))),
            return: () => { ended = true; rl.close(); return Promise.resolve({ value: undefined, done: true }); },
            [Symbol.asyncIterator]() { return this; },
          };
        },
      });
      return rl;
    }
    return { createInterface, Interface: function Interface(o) { return createInterface(o); }, emitKeypressEvents() {},
      clearLine: (s, d, cb) => (cb && cb(), true), cursorTo: (s, x, y, cb) => (typeof y === "function" ? y() : cb && cb(), true),
      moveCursor: (s, x, y, cb) => (cb && cb(), true), clearScreenDown: (s, cb) => (cb && cb(), true) };
  }

  // Workspace modules: CommonJS (ES modules and TypeScript arrive converted
  // by the Go side), resolved as Node does for explicit relative paths.
  const cache = {};
  function loadFile(p) {
    let f = null;
    for (const c of [p, p + ".js", p + ".ts", p + ".mjs", p + ".cjs", p + ".mts", p + ".cts", p + ".json", p + "/index.js", p + "/index.ts"]) {
      if (op("isfile", c)) { f = c; break; }
    }
    if (!f) {
      const e = new Error("Cannot find module '" + p + "'");
      e.code = "MODULE_NOT_FOUND";
      throw e;
    }
    if (cache[f]) return cache[f].exports;
    const module = { exports: {}, id: f, filename: f, loaded: false, children: [], paths: [] };
    cache[f] = module;
    if (f.endsWith(".json")) {
      module.exports = JSON.parse(hread(f, true));
      return module.exports;
    }
    const dir = path.dirname(f);
    const fn = hload(f);
    fn.call(module.exports, module.exports, makeRequire(dir), module, f, dir, meta(f));
    module.loaded = true;
    return module.exports;
  }
  const meta = (f) => ({ url: "file://" + f, filename: f, dirname: path.dirname(f), resolve: (s) => "file://" + path.resolve(path.dirname(f), s) });
  // Node's modules written in JavaScript (node/*.js, served by node.go),
  // compiled on their first require.
  // Those the script names arrive compiled (H.compiled, from bytecode).
  function loadBuiltin(name) {
    let fn = compiled && Object.hasOwn(compiled, name) ? compiled[name] : undefined;
    if (fn === undefined) {
      const src = builtin(name);
      if (src === undefined) return undefined;
      fn = (0, eval)("(function (exports, require, module) {" + src + "\n})");
    }
    const module = { exports: {} };
    modules[name] = module.exports;
    try {
      fn.call(module.exports, module.exports, builtinRequire, module);
    } catch (e) {
      delete modules[name];
      throw e;
    }
    return (modules[name] = module.exports);
  }
  function makeRequire(dir) {
    const require = function require(name) {
      name = String(name);
      if (name.startsWith("./") || name.startsWith("../") || name.startsWith("/")) return loadFile(path.resolve(dir, name));
      const key = name.replace(/^node:/, "");
      let m = Object.hasOwn(modules, key) ? modules[key] : undefined;
      if (m === undefined && Object.hasOwn(hostModules, key)) m = modules[key] = hostModules[key]();
      if (m === undefined) m = loadBuiltin(key);
      if (!m) {
        const e = new Error("js-exec: cannot find module '" + name + "' (available: Node's built-in modules and workspace files by relative path; no npm packages)");
        e.code = "MODULE_NOT_FOUND";
        throw e;
      }
      return m;
    };
    Object.defineProperty(require, "main", { get: () => mainModule, enumerable: true });
    require.resolve = (name) => (/^\.{0,2}\//.test(name) ? path.resolve(dir, name) : name);
    require.cache = cache;
    return require;
  }
  let mainModule;
  const builtinRequire = makeRequire("/");
  const require = makeRequire(info.dir);
  loadBuiltin("internal/globals");
  g.require = require;

  // An ES module's namespace object for a CommonJS module (esbuild's
  // __toESM, for the top-level-await path of jsexec.go's transform).
  Object.defineProperty(g, "__wsfs_esm", {
    value: (m) => (m && m.__esModule ? m : Object.assign(Object.create(null), m && typeof m === "object" ? m : {}, { default: m })),
  });

  // Rejected promises with no handler yet, in the order of their
  // rejection: QuickJS's rejection tracker calls track (rejections.go).
  const unhandled = new Map();
  function track(promise, reason, handled) {
    try {
      if (handled) unhandled.delete(promise);
      else { unhandled.set(promise, reason); pending(); }
    } catch (_) { /* the tracker must not leave an exception in the engine */ }
  }
  // Node's UnhandledPromiseRejection error, for a reason that is not an
  // error: it names the reason as V8's NoSideEffectsToString does.
  function rejectionText(reason) {
    if (reason instanceof Error || (reason !== null && typeof reason === "object" && Object.hasOwn(reason, "stack"))) return describe(reason);
    let text;
    if (typeof reason === "symbol") text = reason.toString();
    else if (typeof reason === "function") text = Function.prototype.toString.call(reason);
    else if (reason === null || typeof reason !== "object") text = String(reason);
    else if (reason.toString === Object.prototype.toString) {
      const proto = Object.getPrototypeOf(reason);
      text = "#<" + (proto && proto.constructor && proto.constructor.name || "Object") + ">";
    } else text = Object.prototype.toString.call(reason);
    return "UnhandledPromiseRejection: This error originated either by throwing inside of an async function without a catch block, " +
      'or by rejecting a promise which was not handled with .catch(). The promise rejected with the reason "' + text + '".' +
      " {\n  code: 'ERR_UNHANDLED_REJECTION'\n}";
  }
  // What follows a macrotask once QuickJS has run the promise jobs (after
  // each call from Go), as in Node: the ticks those jobs queued, and once
  // none is left the rejections still unhandled: each goes to the
  // 'unhandledRejection' listeners, or ends the run. Go calls it again
  // while pending was called.
  function settle() {
    try {
      if (tickHead < ticks.length) {
        runTicks();
        if (unhandled.size) pending();
        return;
      }
      for (const [promise, reason] of unhandled) {
        unhandled.delete(promise);
        if (!process.emit("unhandledRejection", reason, promise)) H.fatal(rejectionText(reason));
      }
    } catch (e) { H.fatal(describe(e)); }
  }

  // What Go calls: the script itself, each due timer, the end of each of
  // these macrotasks, the final status.
  Object.defineProperty(g, "__wsfs", {
    value: Object.freeze({
      main(fn, file, dir, esm) {
        const module = mainModule = g.module = { exports: {}, id: ".", filename: file, loaded: false, children: [], paths: [] };
        const done = fn.call(module.exports, module.exports, module, file, dir, meta(file));
        if (unhandled.has(done)) {
          // The script threw before its first await: Node stops there,
          // before any tick.
          H.fatal(describe(unhandled.get(done)));
        }
        done.catch((e) => H.fatal(describe(e)));
        // An ES module's ticks wait for the promise jobs (settle).
        if (!esm) try { runTicks(); } catch (e) { H.fatal(describe(e)); }
      },
      tick(id) {
        const t = timerFns.get(id);
        if (!t) return;
        try { t._fire(); runTicks(); } catch (e) { H.fatal(describe(e)); }
      },
      settle,
      exitCode() {
        const status = Number(process.exitCode || 0) | 0;
        runExit(status);
        return Number(process.exitCode || 0) | 0;
      },
    }),
  });
  return track;
})(globalThis);
