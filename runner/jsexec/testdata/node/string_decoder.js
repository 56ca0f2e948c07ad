const { StringDecoder } = require('string_decoder');
const euro = Buffer.from('€'), smile = Buffer.from('😀');
const d = new StringDecoder('utf8');
const parts = [d.write(euro.subarray(0, 1)), d.write(euro.subarray(1, 2)), d.write(Buffer.concat([euro.subarray(2), smile.subarray(0, 3)])), d.write(smile.subarray(3)), d.end()];
console.log(JSON.stringify(parts));
const d2 = new StringDecoder(); console.log(JSON.stringify([d2.write(Buffer.from([0xe2, 0x82])), d2.end(), d2.write(Buffer.from('ok')), d2.end(Buffer.from([0xff, 0x41]))]));
const b = new StringDecoder('base64'); console.log(JSON.stringify([b.write(Buffer.from('ab')), b.write(Buffer.from('cde')), b.end()]));
const h = new StringDecoder('hex'); console.log(h.write(Buffer.from([1, 255])), h.end(), h.encoding);
const u = new StringDecoder('utf16le'); const u16 = Buffer.from('a😀b', 'utf16le');
console.log(JSON.stringify([u.write(u16.subarray(0, 4)), u.write(u16.subarray(4, 7)), u.write(u16.subarray(7)), u.end()]));
const v = new StringDecoder('utf16le'); console.log(JSON.stringify([v.write(u16.subarray(0, 4)), v.end()]));
console.log(new StringDecoder('latin1').write(Buffer.from([0xe9])), new StringDecoder('ucs2').encoding, new StringDecoder('utf-8').encoding);
try { new StringDecoder('nope'); } catch (e) { console.log(e.code, e.message); }
try { new StringDecoder().write(5); } catch (e) { console.log(e.code, e.message); }
