const timers = require('node:timers');
const { setTimeout: sleep } = require('timers/promises');
timers.setTimeout(() => console.log('module'), 1);
sleep(5, 'v').then((v) => console.log('promise', v));
console.log(global === globalThis, typeof setImmediate, typeof timers.promises.setImmediate);
