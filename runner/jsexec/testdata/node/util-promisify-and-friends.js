const util = require('node:util');
function legacy(a, cb) { setTimeout(() => (a < 0 ? cb(new Error('neg')) : cb(null, a * 2)), 1); }
const p = util.promisify(legacy);
function withCustom() {}
withCustom[util.promisify.custom] = () => Promise.resolve('custom');
(async () => {
  console.log(await p(21));
  try { await p(-1); } catch (e) { console.log('rejected', e.message); }
  console.log(await util.promisify(withCustom)(), util.promisify(withCustom) === withCustom[util.promisify.custom]);
  util.callbackify(async (x) => x + 1)(1, (err, v) => console.log('callbackified', err, v));
  util.callbackify(async () => { throw null; })((err) => console.log(err.code, err.reason));
})();
function A() {} function B() {} util.inherits(A, B);
console.log(new A() instanceof B, A.super_ === B);
console.log(util.isDeepStrictEqual({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] }), util.isDeepStrictEqual([1], ['1']),
  util.isDeepStrictEqual(new Set([{ a: 1 }]), new Set([{ a: 1 }])), util.isDeepStrictEqual(NaN, NaN), util.isDeepStrictEqual(0, -0));
const t = util.types;
console.log(t.isDate(new Date()), t.isPromise(Promise.resolve()), t.isUint8Array(new Uint8Array()), t.isAsyncFunction(async () => {}),
  t.isRegExp(/a/), t.isBoxedPrimitive(Object(1)), t.isMap(new Map()), t.isSet({}), t.isTypedArray(Buffer.alloc(1)), t.isNativeError(new RangeError()));
console.log(typeof util.TextEncoder, util.TextDecoder === TextDecoder, util.stripVTControlCharacters('\u001b[31mred\u001b[0m'), util.toUSVString('a\ud800'));
const dep = util.deprecate(() => 'ran', 'old api', 'DEP_X'); console.log(dep(), dep());
