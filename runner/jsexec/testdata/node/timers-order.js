setTimeout(() => console.log('timeout 1ms'), 1);
setTimeout(() => console.log('timeout 0ms'), 0);
setTimeout((a, b) => console.log('args', a, b), 2, 'x', 'y');
const iv = setInterval(function () { console.log('interval', this === iv); clearInterval(iv); }, 3);
setTimeout(() => console.log('never'), 1000).unref();
Promise.resolve().then(() => console.log('promise'));
const { performance } = require('perf_hooks');
console.log('sync', typeof performance.now(), typeof iv.ref, typeof +iv);
