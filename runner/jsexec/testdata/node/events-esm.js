import EventEmitter, { EventEmitter as EE, once } from 'node:events';
import * as events from 'events';
console.log(EventEmitter === EE, typeof once, typeof events.default, events.EventEmitter === EE);
const e = new EE();
setTimeout(() => e.emit('go', 'value'), 1);
once(e, 'go').then(([v]) => console.log('resolved', v));
