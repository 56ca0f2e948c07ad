const { parseArgs, inspect } = require('node:util');
const options = { verbose: { type: 'boolean', short: 'v' }, file: { type: 'string', short: 'f' }, tag: { type: 'string', multiple: true }, level: { type: 'string', default: 'info' } };
const show = (args, extra = {}) => {
  try { console.log(inspect(parseArgs({ args, options, ...extra }), { depth: 3, breakLength: Infinity })); }
  catch (e) { console.log(e.code, e.message); }
};
show(['-v', '--file', 'a.txt', '--tag=x', '--tag', 'y']);
show(['-vf', 'b.txt']);
show(['-fc.txt', '--', '--not-an-option'], { allowPositionals: true });
show(['--file']);
show(['--verbose=yes']);
show(['--unknown']);
show(['pos']);
show(['pos', '--loose', '-x'], { strict: false });
show(['-v', 'p'], { allowPositionals: true, tokens: true });
show(['--unknown'], { allowPositionals: true });
