import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../test-support/test-server.js';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe('SQLite WAL checkpoints off the event loop', () => {
  it('the serving connection never checkpoints; the worker copies the WAL into the database file', async () => {
    const sqlite = server.ctx.db.sqlite!;
    expect(sqlite.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    const file = server.ctx.config.sqlitePath;
    const before = fs.statSync(file).size;
    const insert = sqlite.prepare("INSERT INTO logs (content, other) VALUES (?, '{}')");
    const text = 'x'.repeat(4000);
    sqlite.transaction(() => {
      for (let i = 0; i < 2000; i++) insert.run(text);
    })();
    // ~8 MB sit in the WAL until the worker's next checkpoint moves them into the file.
    for (let i = 0; i < 100 && fs.statSync(file).size < before + 4_000_000; i++) await new Promise((r) => setTimeout(r, 50));
    expect(fs.statSync(file).size).toBeGreaterThan(before + 4_000_000);
  });
});
