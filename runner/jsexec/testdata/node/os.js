// not-node: os reports the sandbox's fixed host, user and machine
const os = require('node:os');
console.log(os.hostname(), os.userInfo().username, os.homedir(), os.tmpdir(), os.platform(), os.type(), os.arch(), os.endianness(), JSON.stringify(os.EOL));
console.log(os.cpus().length, os.availableParallelism(), os.totalmem() > os.freemem(), os.loadavg().length, os.constants.signals.SIGTERM, os.constants.errno.ENOENT, os.devNull);
console.log(Object.keys(os.networkInterfaces()), typeof os.release(), os.machine());
