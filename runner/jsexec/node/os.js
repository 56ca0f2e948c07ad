// Node's os module with the fixed values of the sandbox, consistent with
// the runner's hostname and whoami commands: host "wsfs", user "agent",
// home /workspace, a two-CPU Linux x64 machine with 4 GiB of memory.
"use strict";

const proc = () => globalThis.process || {};
const MiB = 1024 * 1024;
const signals = {
  SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGILL: 4, SIGTRAP: 5, SIGABRT: 6, SIGIOT: 6, SIGBUS: 7, SIGFPE: 8, SIGKILL: 9,
  SIGUSR1: 10, SIGSEGV: 11, SIGUSR2: 12, SIGPIPE: 13, SIGALRM: 14, SIGTERM: 15, SIGCHLD: 17, SIGSTKFLT: 16,
  SIGCONT: 18, SIGSTOP: 19, SIGTSTP: 20, SIGTTIN: 21, SIGTTOU: 22, SIGURG: 23, SIGXCPU: 24, SIGXFSZ: 25,
  SIGVTALRM: 26, SIGPROF: 27, SIGWINCH: 28, SIGIO: 29, SIGPOLL: 29, SIGPWR: 30, SIGSYS: 31,
};
const errno = {
  E2BIG: 7, EACCES: 13, EADDRINUSE: 98, EAGAIN: 11, EBADF: 9, EBUSY: 16, ECONNREFUSED: 111, ECONNRESET: 104,
  EDQUOT: 122, EEXIST: 17, EFBIG: 27, EINTR: 4, EINVAL: 22, EIO: 5, EISDIR: 21, ELOOP: 40, EMFILE: 24,
  ENAMETOOLONG: 36, ENOENT: 2, ENOMEM: 12, ENOSPC: 28, ENOSYS: 38, ENOTDIR: 20, ENOTEMPTY: 39, ENOTSUP: 95,
  EPERM: 1, EPIPE: 32, ERANGE: 34, EROFS: 30, ETIMEDOUT: 110, EXDEV: 18,
};
const priority = {
  PRIORITY_LOW: 19, PRIORITY_BELOW_NORMAL: 10, PRIORITY_NORMAL: 0, PRIORITY_ABOVE_NORMAL: -7, PRIORITY_HIGH: -14,
  PRIORITY_HIGHEST: -20,
};

function cpus() {
  const cpu = () => ({ model: "wsfs virtual CPU", speed: 2400, times: { user: 0, nice: 0, sys: 0, idle: 0, irq: 0 } });
  return [cpu(), cpu()];
}

module.exports = {
  EOL: "\n",
  devNull: "/dev/null",
  arch: () => proc().arch || "x64",
  machine: () => "x86_64",
  platform: () => "linux",
  type: () => "Linux",
  release: () => "6.1.0-wsfs",
  version: () => "#1 SMP wsfs",
  hostname: () => "wsfs",
  homedir: () => "/workspace",
  tmpdir: () => "/tmp",
  endianness: () => (new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? "LE" : "BE"),
  cpus,
  availableParallelism: () => cpus().length,
  totalmem: () => 4096 * MiB,
  freemem: () => 2048 * MiB,
  loadavg: () => [0, 0, 0],
  uptime: () => Math.floor(typeof proc().uptime === "function" ? proc().uptime() : 0),
  networkInterfaces: () => ({
    lo: [{ address: "127.0.0.1", netmask: "255.0.0.0", family: "IPv4", mac: "00:00:00:00:00:00", internal: true, cidr: "127.0.0.1/8" }],
  }),
  userInfo(options) {
    const p = proc();
    const uid = typeof p.getuid === "function" ? p.getuid() : 1000;
    const gid = typeof p.getgid === "function" ? p.getgid() : 1000;
    const info = { uid, gid, username: "agent", homedir: "/workspace", shell: "/bin/bash" };
    if (options && options.encoding === "buffer") {
      for (const k of ["username", "homedir", "shell"]) info[k] = require("buffer").Buffer.from(info[k]);
    }
    return info;
  },
  getPriority: () => 0,
  setPriority: () => {},
  constants: { signals, errno, priority, UV_UDP_REUSEADDR: 4, dlopen: {} },
};
