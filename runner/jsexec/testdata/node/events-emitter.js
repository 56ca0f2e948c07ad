const EventEmitter = require('node:events');
const { format: f, inspect } = require('util');
const e = new EventEmitter();
console.log(inspect(e));
const log = [];
e.on('newListener', (t) => log.push('new ' + String(t)));
e.on('x', (a, b) => log.push('x1 ' + a + b));
e.prependListener('x', () => log.push('x0'));
e.once('x', function () { log.push('once ' + (this === e)); });
console.log(e.emit('x', 1, 2), e.emit('x', 3, 4), e.emit('nothing'), e.listenerCount('x'), e.eventNames());
console.log(log.join(', '));
function h() {}
e.on('y', h); e.on('y', h); e.off('y', h); console.log(e.listenerCount('y'), e.listeners('y').length);
e.once('z', h); console.log(e.listeners('z')[0] === h, e.rawListeners('z')[0] === h, e.rawListeners('z')[0].listener === h);
e.on('removeListener', (t) => console.log('removed', t));
e.removeAllListeners('z'); e.removeAllListeners();
console.log(e.eventNames(), inspect(e));
try { e.emit('error', new Error('boom')); } catch (err) { console.log('thrown', err.message); }
try { e.emit('error', 'text'); } catch (err) { console.log(err.code, err.message, err.context); }
try { e.emit('error'); } catch (err) { console.log(err.message); }
e.on(EventEmitter.errorMonitor, (err) => console.log('monitor', err.message));
e.on('error', (err) => console.log('handled', err.message));
e.emit('error', new Error('e2'));
try { e.on('x', 'nope'); } catch (err) { console.log(err.code, err.message); }
class Sub extends EventEmitter {}
const s = new Sub(); s.on('a', () => {}); console.log(inspect(s), s instanceof EventEmitter, s.getMaxListeners());
function Old() { EventEmitter.call(this); }
require('util').inherits(Old, EventEmitter);
const o = new Old(); o.on('q', (v) => console.log('old style', v)); o.emit('q', 7);
EventEmitter.once(s, 'ready').then((args) => console.log('once resolved', args));
s.emit('ready', 1, 2);
EventEmitter.once(s, 'never').catch((err) => console.log('once rejected', err.message));
s.emit('error', new Error('failed'));
(async () => {
  const it = EventEmitter.on(s, 'tick');
  setTimeout(() => { s.emit('tick', 1); s.emit('tick', 2); }, 1);
  let n = 0;
  for await (const [v] of it) { console.log('tick', v); if (++n === 2) break; }
  console.log('ticks done', s.listenerCount('tick'));
})();
