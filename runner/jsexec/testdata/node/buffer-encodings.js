const { Buffer: B } = require('buffer');
const { format: f } = require('util');
const b = B.from('héllo wörld €😀');
console.log(f(b, b.length, b.toString(), b.toString('hex'), b.toString('base64'), b.toString('base64url'), b.toString('latin1').length, b.toString('ascii').length));
console.log(f(B.from('68656c6c6f', 'hex').toString(), B.from('aGVsbG8=', 'base64').toString(), B.from('aGVsbG8', 'base64url').toString(), B.from('héllo', 'latin1'), B.from('hi', 'utf16le'), B.from('abc', 'ucs2').toString('utf16le'), B.from('6x', 'hex')));
console.log(f(B.from([1, 2, 300, -1]), B.from(new Uint8Array([5, 6]).buffer), B.from(B.from('x')), B.alloc(4, 'ab'), B.alloc(3), B.alloc(3, 7), B.from('aGVsbG8gd29ybGQ', 'base64').toString()));
console.log(f(B.from([0xff, 0xfe, 0x41, 0xe2, 0x82]).toString(), B.from('\ud800x').toString('hex'), B === Buffer, B.from('abc').toString('utf8', 1, 2)));
console.log(f(btoa('hello'), atob(' aGVs bG8= '), B.alloc(60), [B.from('x')], { b: B.from('yz') }, B.isEncoding('UTF-8'), B.isEncoding('nope')));
