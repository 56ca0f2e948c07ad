console.table([{ a: 1, b: 'x' }, { a: 2, c: [1, 2, 3, 4] }]);
console.table({ r1: { n: 1 }, r2: 5 });
console.table([[1, 2], [3, 4]]);
console.table([{ a: 1, b: 2 }], ['a']);
console.table(new Map([['k', { v: 1 }], ['k2', 'z']]));
console.table(new Set(['s', 10]));
console.table('not tabular');
console.table([{ name: '日本', emoji: '😀' }, { name: { deep: { x: 1 }, a: 1, b: 2 } }]);
