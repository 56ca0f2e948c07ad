const assert = require('node:assert');
const { inspect } = require('node:util');
function show(fn) {
  try { fn(); console.log('passed'); } catch (e) {
    console.log(e.name, e.code, e.constructor.name, JSON.stringify(e.message), e.generatedMessage, e.operator, e.actual instanceof Error ? e.actual.message : inspect(e.actual), inspect(e.expected));
  }
}
show(() => assert.ok(true));
show(() => assert(1, 'unused'));
show(() => assert.ok(0, 'zero is falsy'));
show(() => assert.ok());
show(() => assert.equal(1, '1'));
show(() => assert.equal(1, 2));
show(() => assert.notEqual(1, '1'));
show(() => assert.equal(NaN, NaN));
show(() => assert.strictEqual(1, 2));
show(() => assert.strictEqual('hello world', 'hello there'));
show(() => assert.strictEqual(1, 1));
show(() => assert.notStrictEqual(1, 1));
show(() => assert.strictEqual({ a: 1 }, { a: 1 }));
show(() => assert.deepEqual({ a: 1, b: [1, 2] }, { a: '1', b: ['1', 2] }));
show(() => assert.deepEqual({ a: 1 }, { a: 2 }));
show(() => assert.deepStrictEqual({ a: 1, b: [1, 2] }, { a: 1, b: [1, 2] }));
show(() => assert.deepStrictEqual({ a: 1, b: [1, 2, 3] }, { a: 1, b: [1, 2, 4] }));
show(() => assert.deepStrictEqual([1, 2, 3, 4, 5, 6, 7, 8], [1, 2, 3, 4, 5, 6, 7, 9]));
show(() => assert.deepStrictEqual({ a: 1 }, { a: '1' }));
show(() => assert.deepStrictEqual(new Map([[1, { x: 1 }]]), new Map([[1, { x: 1 }]])));
show(() => assert.deepStrictEqual(new Set([1, 2]), new Set([2, 3])));
show(() => assert.notDeepStrictEqual({ a: 1 }, { a: 1 }));
show(() => assert.notDeepStrictEqual({ a: 1 }, { a: 2 }));
show(() => assert.deepStrictEqual(new Date(0), new Date(0)));
show(() => assert.deepStrictEqual([1, [2, [3]]], [1, [2, [3]]]));
show(() => assert.fail('custom failure'));
show(() => assert.fail());
show(() => assert.match('abc', /b/));
show(() => assert.match('abc', /x/));
show(() => assert.doesNotMatch('abc', /b/));
show(() => assert.ifError(null));
show(() => assert.ifError(new Error('oops')));
show(() => assert.strictEqual(1, 2, 'my message'));
show(() => assert.strictEqual(1, 2, new TypeError('own error')));
const e = new assert.AssertionError({ actual: 1, expected: 2, operator: 'strictEqual' });
console.log(e instanceof Error, String(e), Object.keys(e));
