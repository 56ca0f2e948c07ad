const { format: f } = require('util');
const n = Buffer.alloc(16); n.writeUInt8(255, 0); n.writeUInt16LE(0x1234, 1); n.writeUInt16BE(0x1234, 3); n.writeUInt32LE(0xdeadbeef, 5); n.writeInt32BE(-2, 9); n.writeInt8(-5, 13);
console.log(f(n, n.readUInt8(0), n.readUInt16LE(1), n.readUInt16BE(3), n.readUInt32LE(5).toString(16), n.readInt32BE(9), n.readInt8(13), n.readUint32BE(5)));
const d = Buffer.alloc(12); d.writeFloatLE(1.5, 0); d.writeDoubleBE(-2.25, 4); console.log(f(d, d.readFloatLE(0), d.readDoubleBE(4)));
const big = Buffer.alloc(8); big.writeBigUInt64LE(2n ** 63n + 5n); console.log(f(big, big.readBigUInt64LE(), big.readBigInt64LE()));
console.log(f(Buffer.from('abc').readUIntBE(0, 3), Buffer.from('abc').readIntLE(0, 2), Buffer.alloc(6).writeUIntBE(0x123456, 1, 3)));
for (const fn of [() => n.readUInt32LE(20), () => Buffer.alloc(2).writeUInt8(300), () => Buffer.from('x', 'bogus'), () => Buffer.alloc(-1),
  () => Buffer.from(5), () => atob('*'), () => atob('abcde'), () => btoa('€'), () => Buffer.alloc(4).writeUInt32LE(2 ** 32 + 5), () => n.readUInt8(1.5)]) {
  try { fn(); console.log('no error'); } catch (e) { console.log(e.name, e.code, e.message); }
}
