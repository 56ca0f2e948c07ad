const { Readable, Writable, Transform, PassThrough, Duplex, pipeline, finished } = require('stream');
const { pipeline: pp } = require('stream/promises');
const log = (...a) => console.log(...a);
// 1: flowing readable into a writable via pipe
const chunks = [];
const r = new Readable({ read() {} });
const w = new Writable({ write(c, enc, cb) { chunks.push(c.toString()); cb(); } });
w.on('finish', () => log('1 finish', chunks.join('|')));
r.pipe(w);
r.push('a'); r.push('b'); r.push(null);
// 2: Readable.from + async iteration
(async () => {
  const out = [];
  for await (const x of Readable.from(['x', 'y', 'z'])) out.push(x);
  log('2 iter', out.join(','));
})();
// 3: Transform upper + pipeline callback
const upper = new Transform({ transform(c, e, cb) { cb(null, c.toString().toUpperCase()); } });
const got = [];
pipeline(Readable.from(['hello', ' ', 'world']), upper, new Writable({ write(c, e, cb) { got.push(c.toString()); cb(); } }), (err) => log('3 pipeline', err, got.join('')));
// 4: events order on a paused stream with read()
const r4 = new Readable({ read() {} });
r4.on('readable', () => { let c; while ((c = r4.read()) !== null) log('4 read', c.toString()); });
r4.on('end', () => log('4 end'));
r4.push('one'); r4.push('two'); r4.push(null);
// 5: backpressure and drain
const w5 = new Writable({ highWaterMark: 3, write(c, e, cb) { setTimeout(cb, 1); } });
log('5 write returns', w5.write('ab'), w5.write('cd'), w5.writableLength, w5.writableNeedDrain);
w5.on('drain', () => log('5 drain'));
// 6: objectMode, setEncoding, and error propagation
const r6 = new Readable({ objectMode: true, read() {} }); r6.push({ a: 1 }); r6.push(null);
r6.on('data', (d) => log('6 obj', JSON.stringify(d)));
const r6b = new Readable({ read() {} }); r6b.setEncoding('utf8'); r6b.push(Buffer.from('€')); r6b.push(null);
r6b.on('data', (d) => log('6 enc', typeof d, d));
const w6 = new Writable({ write(c, e, cb) { cb(new Error('write failed')); } });
w6.on('error', (e) => log('6 error', e.message));
w6.write('x');
// 7: promises pipeline with async generator transform, and toArray
(async () => {
  const out = [];
  await pp(Readable.from([1, 2, 3]), async function* (src) { for await (const n of src) yield n * 10; }, new Writable({ objectMode: true, write(c, e, cb) { out.push(c); cb(); } }));
  log('7 promises', out);
  log('7 toArray', await Readable.from(['p', 'q']).toArray());
})();
// 8: PassThrough, end with callback, writableFinished
const pt = new PassThrough(); const parts = [];
pt.on('data', (d) => parts.push(d.toString()));
pt.on('end', () => log('8 end', parts.join('+')));
pt.write('m'); pt.end('n', () => log('8 end cb', pt.writableFinished));
// 9: write after end error, finished()
const w9 = new Writable({ write(c, e, cb) { cb(); } });
w9.on('error', (e) => log('9 error', e.code));
w9.end(); w9.write('late', (err) => log('9 cb', err && err.code));
finished(w9, (err) => log('9 finished', err ? err.code : err));
// 10: Duplex
const d = new Duplex({ read() { this.push('from duplex'); this.push(null); }, write(c, e, cb) { log('10 duplex got', c.toString()); cb(); } });
d.on('data', (c) => log('10 data', c.toString())); d.write('to duplex'); d.end();
log('sync done', r.readableFlowing, w.writable, typeof Readable.prototype.pipe);
