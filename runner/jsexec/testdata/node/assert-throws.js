const assert = require('assert');
const strict = require('node:assert/strict');
function show(fn) {
  try { fn(); console.log('passed'); } catch (e) { console.log(e.name, e.code || '-', JSON.stringify(e.message)); }
}
const boom = () => { throw new TypeError('boom'); };
show(() => assert.throws(boom));
show(() => assert.throws(boom, TypeError));
show(() => assert.throws(boom, RangeError));
show(() => assert.throws(boom, /boom/));
show(() => assert.throws(boom, /bang/));
show(() => assert.throws(boom, { name: 'TypeError', message: 'boom' }));
show(() => assert.throws(boom, { message: /bo+m/ }));
show(() => assert.throws(boom, { message: 'bang' }));
show(() => assert.throws(boom, (err) => err instanceof TypeError));
show(() => assert.throws(() => {}));
show(() => assert.throws(() => {}, TypeError, 'should throw'));
show(() => assert.throws('not a function'));
show(() => assert.doesNotThrow(() => {}));
show(() => assert.doesNotThrow(boom));
show(() => assert.doesNotThrow(boom, 'with message'));
show(() => strict.equal(1, '1'));
show(() => strict.deepEqual([1], ['1']));
console.log(strict.strict === strict, assert.strict === strict, typeof strict.AssertionError);
(async () => {
  await assert.rejects(Promise.reject(new Error('rejected')), /rejected/).then(() => console.log('rejects ok'));
  await assert.rejects(async () => {}).catch((e) => console.log(e.code, e.message));
  await assert.doesNotReject(Promise.resolve(1)).then(() => console.log('doesNotReject ok'));
  await assert.rejects(() => Promise.reject(new TypeError('t')), TypeError).then(() => console.log('class ok'));
})();
