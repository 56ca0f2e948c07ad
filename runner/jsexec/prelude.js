// The Node-like environment of js-exec. It runs before user code, captures
// the host functions that Go installed as __wsfs_* globals, and removes
// them together with QuickJS's std/os/bjson so that user code reaches files
// only through the Go side (the runner's confined FS).
(function (g) {
  "use strict";
  const out = g.__wsfs_out, read = g.__wsfs_read, write = g.__wsfs_write,
    op = g.__wsfs_op, exit = g.__wsfs_exit, load = g.__wsfs_load, info = JSON.parse(g.__wsfs_info),
    builtin = g.__wsfs_builtin;
  for (const k of ["__wsfs_out", "__wsfs_read", "__wsfs_write", "__wsfs_op", "__wsfs_exit", "__wsfs_load", "__wsfs_info",
    "__wsfs_builtin",
    "std", "os", "bjson", "scriptArgs", "print", "gc"]) delete g[k];

  // Go errors arrive as "CODE\x1fmessage\x1fsyscall\x1fpath"; rethrow them as Node does.
  function host(fn) {
    return function (...args) {
      try { return fn(...args); } catch (e) {
        const parts = String(e && e.message).split("\x1f");
        if (parts.length !== 4) throw e;
        const err = new Error(parts[1]);
        err.code = parts[0]; err.syscall = parts[2]; err.path = parts[3];
        throw err;
      }
    };
  }
  const hread = host(read), hwrite = host(write), hop = host(op), hload = host(load);

  function inspect(v, depth) {
    if (typeof v === "string") return depth ? JSON.stringify(v) : v;
    if (v === undefined) return "undefined";
    if (typeof v === "function") return "[Function: " + (v.name || "anonymous") + "]";
    if (typeof v === "bigint") return v + "n";
    if (v instanceof Error) return v.stack ? v.name + ": " + v.message + "\n" + v.stack.replace(/\n$/, "") : String(v);
    if (v === null || typeof v !== "object") return String(v);
    if ((depth || 0) > 2) return Array.isArray(v) ? "[Array]" : "[Object]";
    if (Array.isArray(v)) return "[ " + v.map((x) => inspect(x, (depth || 0) + 1)).join(", ") + " ]";
    if (v instanceof Map) return "Map(" + v.size + ") {}";
    if (v instanceof Set) return "Set(" + v.size + ") {}";
    const keys = Object.keys(v);
    if (keys.length === 0) return "{}";
    return "{ " + keys.map((k) => (/^[A-Za-z_$][\w$]*$/.test(k) ? k : JSON.stringify(k)) + ": " + inspect(v[k], (depth || 0) + 1)).join(", ") + " }";
  }
  function format(args) {
    if (typeof args[0] === "string" && /%[sdifjoO%]/.test(args[0])) {
      let i = 1;
      const s = args[0].replace(/%([sdifjoO%])/g, (m, c) => {
        if (c === "%") return "%";
        if (i >= args.length) return m;
        const a = args[i++];
        switch (c) {
          case "s": return typeof a === "string" ? a : inspect(a, 1);
          case "d": case "i": return String(c === "i" ? parseInt(a) : Number(a));
          case "f": return String(parseFloat(a));
          case "j": return JSON.stringify(a);
          default: return inspect(a, 1);
        }
      });
      return [s].concat(args.slice(i).map((a) => inspect(a))).join(" ");
    }
    return args.map((a) => inspect(a)).join(" ");
  }
  const console = {
    log: (...a) => out(1, format(a) + "\n"),
    info: (...a) => out(1, format(a) + "\n"),
    debug: (...a) => out(1, format(a) + "\n"),
    error: (...a) => out(2, format(a) + "\n"),
    warn: (...a) => out(2, format(a) + "\n"),
  };
  g.console = console;

  const process = {
    argv: info.argv, env: info.env, platform: "linux", version: "v20.0.0", versions: {},
    exitCode: undefined,
    cwd: () => info.cwd,
    exit(code) { exit(code === undefined ? (process.exitCode || 0) : Number(code) | 0); },
    stdout: { write(s) { out(1, String(s)); return true; } },
    stderr: { write(s) { out(2, String(s)); return true; } },
  };
  g.process = process;

  function fail() { throw new Error("js-exec: no network access in this sandbox"); }
  g.fetch = fail;

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
  };
  path.posix = path;

  const enc = (o) => (typeof o === "string" ? o : o && o.encoding);
  function toBuffer(ab) {
    const u = new Uint8Array(ab);
    u.toString = function (e) { return e === undefined || /^utf-?8$/i.test(e) ? utf8(this) : Array.prototype.join.call(this, ","); };
    return u;
  }
  function utf8(u) {
    let s = "";
    for (let i = 0; i < u.length; i++) s += String.fromCharCode(u[i]);
    try { return decodeURIComponent(escape(s)); } catch (e) { return s; }
  }
  function data(d) {
    if (typeof d === "string") return d;
    if (d instanceof ArrayBuffer) return d;
    if (ArrayBuffer.isView(d)) return d.buffer.slice(d.byteOffset, d.byteOffset + d.byteLength);
    return String(d);
  }
  function stats(j) {
    const s = JSON.parse(j);
    s.mtime = new Date(s.mtimeMs);
    s.isFile = () => s.type === "file";
    s.isDirectory = () => s.type === "dir";
    s.isSymbolicLink = () => s.type === "symlink";
    return s;
  }
  const fs = {
    readFileSync(p, o) { const e = enc(o); return e ? hread(String(p), true) : toBuffer(hread(String(p), false)); },
    writeFileSync(p, d) { hwrite(String(p), data(d), false); },
    appendFileSync(p, d) { hwrite(String(p), data(d), true); },
    existsSync(p) { return op("exists", String(p), "", false) === "true"; },
    statSync(p) { return stats(hop("stat", String(p), "", false)); },
    lstatSync(p) { return stats(hop("lstat", String(p), "", false)); },
    readdirSync(p) { return JSON.parse(hop("readdir", String(p), "", false)); },
    mkdirSync(p, o) { hop("mkdir", String(p), "", !!(o && o.recursive)); },
    rmSync(p, o) { hop("rm", String(p), o && o.force ? "force" : "", !!(o && o.recursive)); },
    rmdirSync(p) { hop("rmdir", String(p), "", false); },
    renameSync(a, b) { hop("rename", String(a), String(b), false); },
    unlinkSync(p) { hop("unlink", String(p), "", false); },
  };
  const modules = { fs, path };
  // Workspace modules: CommonJS (ES modules and TypeScript arrive converted
  // by the Go side), resolved as Node does for explicit relative paths.
  const cache = {};
  function loadFile(p) {
    let f = null;
    for (const c of [p, p + ".js", p + ".ts", p + ".mjs", p + ".cjs", p + ".json", p + "/index.js", p + "/index.ts"]) {
      if (op("isfile", c, "", false) === "true") { f = c; break; }
    }
    if (!f) {
      const e = new Error("Cannot find module '" + p + "'");
      e.code = "MODULE_NOT_FOUND";
      throw e;
    }
    if (cache[f]) return cache[f].exports;
    const module = { exports: {} };
    cache[f] = module;
    if (f.endsWith(".json")) {
      module.exports = JSON.parse(hread(f, true));
      return module.exports;
    }
    const fn = (0, eval)("(function (exports, require, module, __filename, __dirname) {" + hload(f) + "\n})");
    fn.call(module.exports, module.exports, makeRequire(path.dirname(f)), module, f, path.dirname(f));
    return module.exports;
  }
  // Node's modules written in JavaScript (node/*.js, served by node.go),
  // compiled on their first require.
  function loadBuiltin(name) {
    const src = builtin(name);
    if (src === undefined) return undefined;
    const module = { exports: {} };
    modules[name] = module.exports;
    try {
      (0, eval)("(function (exports, require, module) {" + src + "\n})").call(module.exports, module.exports, builtinRequire, module);
    } catch (e) {
      delete modules[name];
      throw e;
    }
    return (modules[name] = module.exports);
  }
  function makeRequire(dir) {
    return function require(name) {
      name = String(name);
      if (name.startsWith("./") || name.startsWith("../") || name.startsWith("/")) return loadFile(path.resolve(dir, name));
      const key = name.replace(/^node:/, "");
      const m = Object.hasOwn(modules, key) ? modules[key] : loadBuiltin(key);
      if (!m) {
        const e = new Error("js-exec: cannot find module '" + name + "' (available: Node's built-in modules and workspace files by relative path)");
        e.code = "MODULE_NOT_FOUND";
        throw e;
      }
      return m;
    };
  }
  const builtinRequire = makeRequire("/");
  loadBuiltin("internal/globals");
  g.require = makeRequire(info.dir);
})(globalThis);
