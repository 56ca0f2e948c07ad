const { URL: U, URLSearchParams: P, fileURLToPath, pathToFileURL, parse, format, resolve, domainToASCII, domainToUnicode } = require('url');
console.log(U === URL, P === URLSearchParams);
for (const [i, b] of [['https://user:pa ss@Example.COM:443/a/./b/../c d?q=1 2&x=ä#frag ment'], ['HTTP://example.com:8080'], ['../x/y?z#w', 'http://h/a/b/c'], ['//other/p', 'https://h/'], ['?q', 'http://h/p?old#f'], ['#h', 'http://h/p?q'], ['', 'http://h/p?q#f'],
  ['file:///tmp/a b/c.txt'], ['file:relative', 'file:///dir/x'], ['mailto:someone@example.com'], ['data:text/plain,hi there'], ['http://[::1]:3000/x'], ['http://[2001:db8:0:0:0:0:2:1]/'], ['http://0x7f.1/'], ['http://192.168.0.257/'], ['http://münchen.de/straße'], ['http://a/b/%2e%2E/c'], ['http:\\\\host\\path'], ['ws://h:80/'], ['blob:https://a.b/uuid'], ['not a url'], ['http://'], ['http://h:99999/'], ['foo://host/path?x#y'], ['foo:/p/../q'], ['javascript:alert(1)']]) {
  try { const u = new URL(i, b); console.log(u.href, '|', u.origin, u.protocol, u.username, u.password, u.host, u.hostname, u.port, u.pathname, u.search, u.hash); }
  catch (e) { console.log(e.code, e.message, e.input); }
}
const u = new URL('http://h/p?a=1&b=2&a=3');
console.log(u.searchParams.get('a'), u.searchParams.getAll('a'), u.searchParams.has('b'), u.searchParams.size);
u.searchParams.append('c', 'x y&z'); u.searchParams.delete('b'); console.log(u.href);
u.searchParams.set('a', '9'); u.searchParams.sort(); console.log(u.search, [...u.searchParams.keys()]);
u.search = '?k=v'; console.log(u.searchParams.get('k'), u.href);
u.hash = 'top'; u.pathname = '/new path'; u.port = '8080'; u.hostname = 'Other.ORG'; u.username = 'me'; u.protocol = 'https'; console.log(u.href);
u.href = 'http://reset/'; console.log(u.toString(), JSON.stringify({ u }));
const p = new URLSearchParams({ a: '1', b: 'two words' }); console.log(p.toString(), new URLSearchParams([['x', '1'], ['y', '2']]).toString(), new URLSearchParams('?a=%20b+c&d').get('a'), new URLSearchParams('a=1&a=2').getAll('a'));
const it = []; p.forEach((v, k) => it.push(k + '=' + v)); console.log(it, [...p.entries()], [...p]);
console.log(require('util').inspect(new URL('https://example.com/a?b=1#c')), require('util').inspect(p), require('util').inspect({ nested: new URL('http://x/') }));
console.log(fileURLToPath('file:///tmp/a%20b.txt'), pathToFileURL('/tmp/a b#c?d%e').href);
for (const bad of ['http://x/', 'file://host/x', 'file:///a%2Fb']) try { fileURLToPath(bad); } catch (e) { console.log(e.code, e.message); }
console.log(parse('http://user:pass@Host.com:8080/p/a/t/h?query=string#hash'));
console.log(parse('/just/a/path?x=1&y=2', true).query, parse('//h/p', false, true).host, parse('mailto:a@b.c').href);
console.log(format({ protocol: 'https', hostname: 'example.com', pathname: '/some/path', query: { page: 1, format: 'json' } }), format(new URL('http://u:p@h/p?q#f'), { auth: false, fragment: false }));
console.log(resolve('/one/two/three', 'four'), resolve('http://example.com/', '/one'), resolve('http://example.com/one', '/two'), resolve('http://example.com/a/b', '../c'));
console.log(domainToASCII('español.com'), domainToASCII('xn--iñvalid.com'), domainToUnicode('xn--espaol-zwa.com'), URL.canParse('x'), URL.canParse('x:y'));
