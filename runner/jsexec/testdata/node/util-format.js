const util = require('util');
console.log(util.format('%s %d %i %f %j %o %O %% %c|', 'str', 42.5, 42.5, '3.5', { a: 1 }, { b: 2 }, { c: 3 }, 'css'));
console.log(util.format('a', 1, 'b', { x: 'y' }), util.format('%s:%s', 'a'), util.format('%%s %s', 'a'), util.format(1, '%s', 2));
console.log(util.format('%s', [1, [2]]), util.format('%s', { toString() { return 'custom'; } }), util.format('%d', '0x10'), util.format('%i', 3n));
const c = {}; c.c = c; console.log(util.format('%j', c), util.format('%s', null), util.format('%d', {}), util.format('%s', -0));
console.log(util.formatWithOptions({ depth: 0 }, '%O', { a: { b: 1 } }));
