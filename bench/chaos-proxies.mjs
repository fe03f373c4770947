// The chaos soak's fault proxies (testkit startFaultProxy), in a process of their own so the bytes
// of two nodes' database, Redis and upstream traffic are not copied on the load generator's event
// loop. argv[2]: JSON { name: target URL }. Sends { urls: { name: proxy URL } } once listening;
// then each IPC message { id, name, op, args } calls proxy[op](...args) and is answered { id, ok }.
import { startFaultProxy } from '../packages/testkit/dist/index.js';

const targets = JSON.parse(process.argv[2]);
const proxies = {};
const urls = {};
for (const [name, target] of Object.entries(targets)) {
  proxies[name] = await startFaultProxy(target);
  urls[name] = proxies[name].url();
}
process.send({ urls });
process.on('message', (m) => {
  try {
    const p = proxies[m.name];
    if (!p || typeof p[m.op] !== 'function') throw new Error(`no proxy operation ${m.name}.${m.op}`);
    p[m.op](...(m.args ?? []));
    process.send({ id: m.id, ok: true, connections: p.connections });
  } catch (err) {
    process.send({ id: m.id, ok: false, error: err.message });
  }
});
process.on('disconnect', () => {
  void Promise.all(Object.values(proxies).map((p) => p.close())).then(() => process.exit(0));
});
