const { Readable, Writable, Transform } = require('node:stream');
const log = (...a) => console.log(...a);
// read(n) in paused mode, unshift, readableLength
const r = new Readable({ read() {} });
r.push('abcdef'); r.push('gh');
r.once('readable', () => {
  log('read 3', String(r.read(3)), 'left', r.readableLength);
  r.unshift(Buffer.from('XY'));
  log('read all', String(r.read()), r.read());
  r.push(null);
});
r.on('end', () => log('r end'));
// writev, cork, final
const w = new Writable({
  writev(chunks, cb) { log('writev', chunks.map((c) => String(c.chunk)).join(',')); cb(); },
  final(cb) { log('final'); cb(); },
});
w.cork(); w.write('1'); w.write('2'); w.write('3'); process.nextTick(() => w.uncork());
w.end('4'); w.on('finish', () => log('w finish')); w.on('close', () => log('w close'));
// objectMode transform with flush, and pause/resume
const t = new Transform({
  objectMode: true,
  transform(o, e, cb) { this.push({ n: o.n * 2 }); cb(); },
  flush(cb) { this.push({ n: 'flushed' }); cb(); },
});
const seen = [];
t.on('data', (o) => { seen.push(o.n); if (o.n === 2) { t.pause(); setTimeout(() => t.resume(), 2); } });
t.on('end', () => log('t end', seen.join(',')));
t.write({ n: 1 }); t.write({ n: 2 }); t.end({ n: 3 });
// destroy with an error
const d = new Readable({ read() {} });
d.on('error', (e) => log('d error', e.message, d.destroyed));
d.on('close', () => log('d close', d.readableAborted));
d.destroy(new Error('gone'));
// setEncoding with split multibyte characters
const e = new Readable({ read() {} }); e.setEncoding('utf8');
const euro = Buffer.from('€€');
e.on('data', (s) => log('enc data', JSON.stringify(s)));
e.push(euro.subarray(0, 2)); e.push(euro.subarray(2, 5)); e.push(euro.subarray(5)); e.push(null);
// Writable errors for bad chunks
const bad = new Writable({ write(c, enc, cb) { cb(); } });
try { bad.write(5); } catch (err) { log(err.code, err.message); }
try { bad.write(null); } catch (err) { log(err.code, err.message); }
log('sync end', typeof Readable.from, w.writableLength, w.writableCorked);
