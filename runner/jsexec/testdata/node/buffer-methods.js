const { format: f } = require('node:util');
console.log(f(Buffer.concat([Buffer.from('a'), Buffer.from('bc')]).toString(), Buffer.concat([Buffer.from('abc')], 2).toString(), Buffer.byteLength('€'), Buffer.byteLength('aGVsbG8=', 'base64'), Buffer.isBuffer(Buffer.alloc(1)), Buffer.isBuffer(new Uint8Array(1)), Buffer.alloc(1) instanceof Uint8Array));
console.log(f(Buffer.compare(Buffer.from('a'), Buffer.from('b')), Buffer.from('abc').equals(Buffer.from('abc')), Buffer.from('abcdef').indexOf('cd'), Buffer.from('abcabc').lastIndexOf('b'), Buffer.from('abc').includes(98), Buffer.from('abc').indexOf(Buffer.from('c')), Buffer.from('abc').indexOf('z')));
const s = Buffer.from('hello'); const sl = s.slice(1, 3); sl[0] = 69;
console.log(f(s.toString(), sl.toString(), s.subarray(-2).toString(), s.toString('utf8', 1, 4), s.toString('hex', 10)));
const w = Buffer.alloc(10); console.log(f(w.write('héllo'), w.write('zz', 8), w.write('abc', 1, 1), w, w.write('ffee', 2, 'hex'), w));
const c = Buffer.from('xxxxxx');
console.log(f(Buffer.from('abc').copy(c, 2), c.toString(), Buffer.from('abcd').fill('z', 1, 3).toString(), Buffer.from('abcd').swap16().toString(), Buffer.from('abc').reverse().toString()));
console.log(JSON.stringify(Buffer.from('ab')), f(Buffer.from({ type: 'Buffer', data: [1, 2] }), Buffer.from('abc').toJSON(), new Buffer('abc').toString(), Buffer.from('abc').map((x) => x + 1)));
