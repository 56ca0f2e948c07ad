const { inspect } = require('util');
const p = (...a) => console.log(a.map((x) => (typeof x === 'string' ? x : inspect(x))).join(' '));
// structuredClone
const src = { n: 1, s: 'x', d: new Date(0), r: /a+/gi, m: new Map([[1, { deep: [1, 2] }]]), set: new Set(['a']), u8: new Uint8Array([1, 2]), big: 10n, nested: { arr: [1, , 3] } };
src.self = src;
const c = structuredClone(src);
p(c.self === c, c !== src, c.d instanceof Date, c.d.getTime(), c.r.source, c.r.flags, c.m.get(1).deep, c.set.has('a'), c.u8, c.big, c.nested.arr);
const e = structuredClone(new RangeError('bad', { cause: 'why' }));
p(e instanceof RangeError, e.message, e.cause);
p(structuredClone(Buffer.from('hi')), structuredClone(new (class Foo { constructor() { this.a = 1; } })()));
for (const bad of [() => {}, Symbol('s'), Promise.resolve(), new WeakMap()]) {
  try { structuredClone(bad); } catch (err) { p(err.name, err.code, err instanceof DOMException); }
}
// TextEncoder / TextDecoder
const enc = new TextEncoder();
p(enc.encoding, enc.encode('€a'), enc.encodeInto('héllo', new Uint8Array(3)));
const dec = new TextDecoder();
p(dec.encoding, dec.fatal, dec.decode(new Uint8Array([0xe2, 0x82, 0xac, 0xff])), new TextDecoder('utf-16le').decode(new Uint8Array([104, 0, 105, 0])), new TextDecoder('latin1').encoding);
p(dec.decode(new Uint8Array([0xef, 0xbb, 0xbf, 0x41])), new TextDecoder('utf-8', { ignoreBOM: true }).decode(new Uint8Array([0xef, 0xbb, 0xbf, 0x41])).length);
const sd = new TextDecoder(); p(JSON.stringify(sd.decode(new Uint8Array([0xe2, 0x82]), { stream: true }) + sd.decode(new Uint8Array([0xac]))));
try { new TextDecoder('utf-8', { fatal: true }).decode(new Uint8Array([0xff])); } catch (err) { p(err.name, err.code); }
try { new TextDecoder('nope'); } catch (err) { p(err.name, err.code); }
// atob / btoa, global, queueMicrotask, performance
p(btoa('hi!'), atob('aGkh'), global === globalThis, typeof performance.now(), performance.now() >= 0, typeof queueMicrotask);
queueMicrotask(() => p('microtask'));
setTimeout(() => p('timeout'), 0);
Promise.resolve().then(() => p('promise'));
p('sync');
