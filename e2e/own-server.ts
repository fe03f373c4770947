import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from '@playwright/test';
import { expect, useLanguage, type Lang } from './fixtures';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/**
 * A console of its own, with the rate limits an operator gets by default (the suite's shared server
 * switches them off) plus `env`, so a test can reach them without slowing other specs.
 */
export async function ownServer(env: Record<string, string>): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), 'modelgate-limits-'));
  const child = spawn(process.execPath, ['packages/server/dist/main.js'], {
    cwd: root,
    stdio: 'ignore',
    env: { ...process.env, PORT: String(port), SQLITE_PATH: path.join(dir, 'db.sqlite'), SESSION_SECRET: 'e2e-limits', CRITICAL_RATE_LIMIT_ENABLE: 'false', WORKERS: '1', ...env },
  });
  const url = `http://127.0.0.1:${port}`;
  await expect(async () => expect((await fetch(`${url}/api/status`)).status).toBe(200)).toPass({ timeout: 30_000 });
  return { url, child };
}

/** A page in a browser context of its own on `baseURL`, in `lang`. */
export async function pageOn(browser: Browser, baseURL: string, lang: Lang): Promise<Page> {
  // The browser's own language: a page the server answers before the console loads follows it.
  const context = await browser.newContext({ baseURL, viewport: { width: 1366, height: 860 }, locale: lang === 'zh' ? 'zh-CN' : 'en-US' });
  const page = await context.newPage();
  await useLanguage(page, lang);
  return page;
}
