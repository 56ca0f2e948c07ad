console.log({ a: 1, b: 'two', c: [1, 2, 3], d: new Map([['k', { deep: { deeper: { deepest: 1 } } }]]) });
console.log('%s is %d years and %i days; %j %o %%', 'Bob', 42.5, 3.9, { x: 1 }, [1]);
console.log('plain', 1, -0, 2.5, null, undefined, true, 10n, Symbol('s'));
console.log([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26]);
console.info(new Set(['x']), [undefined, null], 'str');
console.dir({ a: { b: { c: { d: 1 } } } }, { depth: 0 });
console.log(Buffer.from('buf'), new Uint8Array(2), new URL('http://example.com/a?b=1'));
class Point { constructor() { this.x = 1; this.y = 2; } }
console.log(new Point(), [new Point()], { p: new Point() });
console.log('%c styled', 'color: red', 'after');
console.log(Object.assign(Object.create(null), { k: 'v' }), function named() {}, class K {});
