const util = require('util');
const v = { s: 'str', n: -0, b: true, u: undefined, nl: null, sym: Symbol('x'), big: 5n, d: new Date(0), r: /x/g, f() {}, arr: [1, , 'a'],
  nested: { deep: { deeper: { deepest: 1 } } }, m: new Map([['k', 1]]), 'quoted-key': 1, [Symbol('k')]: 2, get g() { return 1; } };
v.self = v;
console.log(JSON.stringify(util.inspect(v, { colors: true })));
console.log(JSON.stringify(util.inspect(Array.from({ length: 30 }, (_, i) => i * 7), { colors: true })));
console.log(JSON.stringify(util.inspect(['aa', 'b', 'cccc', 'd', 'eeeee', 'f', 'gg', 'h'], { colors: true })));
console.log(JSON.stringify(util.inspect(new Uint8Array([1, 2]), { colors: true })), JSON.stringify(util.inspect(new Number(3), { colors: true })));
console.log(util.inspect.styles.string, util.inspect.colors.green);
