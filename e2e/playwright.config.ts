import { defineConfig } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Asks the OS for a free port; a child process keeps this synchronous at config load. */
function freePort(): string {
  return execFileSync(process.execPath, [
    '-e',
    "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{process.stdout.write(String(s.address().port));s.close()})",
  ])
    .toString()
    .trim();
}

// Workers re-load this file; the env (inherited from the runner) keeps them on the same server.
process.env.E2E_PORT ??= freePort();
process.env.E2E_DATA_DIR ??= mkdtempSync(path.join(tmpdir(), 'modelgate-e2e-'));
// The testkit's fake OpenAI upstream, which the channel and log tests point channels at.
process.env.E2E_FAKE_PORT ??= freePort();
const port = process.env.E2E_PORT;
const fakePort = process.env.E2E_FAKE_PORT;
process.env.E2E_SMTP_PORT ??= freePort();
process.env.E2E_SMTP_HTTP_PORT ??= freePort();
// The testkit's fake Epay gateway, which the wallet's online top-up pays through.
process.env.E2E_EPAY_PORT ??= freePort();
const baseURL = `http://127.0.0.1:${port}`;

export default defineConfig({
  testDir: '.',
  testMatch: '**/*.spec.ts',
  // On CI's 2-CPU machine a plain two-login flow takes 40–70 s (wallet.spec's zh run once passed 60 s).
  timeout: 120_000,
  // A hang fails the run in time instead of eating CI's 90 minutes (the whole suite took 32 min there).
  globalTimeout: 50 * 60_000,
  // On a 2-CPU machine with two browsers drawing, a step (a sign-in redirect, a reload) took 10–13 s.
  expect: { timeout: 30_000 },
  fullyParallel: false,
  workers: 2,
  retries: 0,
  reporter: process.env.CI ? [['list'], ['html', { open: 'never', outputFolder: '../playwright-report' }]] : 'list',
  outputDir: '../test-results',
  // Specs that write options other specs rely on run after the rest, one project at a time
  // (`--no-deps` runs one of them alone).
  projects: [
    { name: 'console', testIgnore: /(xss|pricing|oauth-screenshots)\.spec\.ts$/ },
    // oauth-screenshots.spec (E2E_SHOTS only) points the LinuxDO sign-in at its own OAuth fake, which
    // would send oauth-methods.spec's LinuxDO visitors to the wrong identity provider meanwhile.
    { name: 'oauth-shots', testMatch: /oauth-screenshots\.spec\.ts$/, dependencies: ['console'] },
    // xss.spec stores payloads in the site content (notice, home page, about, footer) that home.spec
    // and settings.spec also set and check.
    { name: 'stored-content', testMatch: /xss\.spec\.ts$/, dependencies: ['console'] },
    // pricing.spec saves the whole price tables from the visual editor, which would drop the
    // entries other specs add for their own models meanwhile (logs, playground, xss).
    { name: 'price-tables', testMatch: /pricing\.spec\.ts$/, dependencies: ['stored-content'] },
  ],
  use: {
    baseURL,
    browserName: 'chromium',
    viewport: { width: 1366, height: 860 },
    permissions: ['clipboard-read', 'clipboard-write'],
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: {
      // Debian's Chromium, never a downloaded one (docs/architecture.md#testing).
      executablePath: '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
  webServer: [
    {
      // Captures password-reset mail; the HTTP side door lets a test read it.
      command: `node packages/testkit/dist/smtp-cli.js --port ${process.env.E2E_SMTP_PORT} --http-port ${process.env.E2E_SMTP_HTTP_PORT}`,
      cwd: root,
      url: `http://127.0.0.1:${process.env.E2E_SMTP_HTTP_PORT}/messages`,
      reuseExistingServer: false,
      timeout: 30_000,
      stdout: 'ignore',
      stderr: 'pipe',
    },
    {
      command: `node packages/testkit/dist/cli.js --port ${fakePort} --key sk-e2e-upstream`,
      cwd: root,
      // Needs the key, so it answers 401: Playwright counts that as "listening".
      url: `http://127.0.0.1:${fakePort}/v1/models`,
      reuseExistingServer: false,
      timeout: 30_000,
      stdout: 'ignore',
      stderr: 'pipe',
    },
    {
      command: `node packages/testkit/dist/epay-cli.js --port ${process.env.E2E_EPAY_PORT} --pid 1001 --key e2e-epay-key`,
      cwd: root,
      url: `http://127.0.0.1:${process.env.E2E_EPAY_PORT}/__fake/orders`,
      reuseExistingServer: false,
      timeout: 30_000,
      stdout: 'ignore',
      stderr: 'pipe',
    },
    {
      command: 'node packages/server/dist/main.js',
      cwd: root,
      url: `${baseURL}/api/status`,
      reuseExistingServer: false,
      timeout: 60_000,
      stdout: 'ignore',
      stderr: 'pipe',
      env: {
        PORT: port,
        SQLITE_PATH: path.join(process.env.E2E_DATA_DIR, 'e2e.db'),
        SESSION_SECRET: 'e2e',
        GLOBAL_API_RATE_LIMIT_ENABLE: 'false',
        CRITICAL_RATE_LIMIT_ENABLE: 'false',
        // Specs sign up with simple passwords (password123); newcomer-console.spec checks the refusal on its own server.
        REJECT_COMMON_PASSWORDS: 'false',
        // The suite loads hundreds of pages from one IP; the 60-per-3-min web limit is not under test.
        GLOBAL_WEB_RATE_LIMIT_ENABLE: 'false',
        // The task screens' test waits for polled Midjourney and Suno tasks (default 15 s).
        TASK_POLL_INTERVAL_MS: '500',
        // One server process: the browsers and the runner need the machine's other CPU (CI has two),
        // and the cluster has its own tests (packages/server/src/cluster/workers*.api.test.ts).
        WORKERS: '1',
      },
    },
  ],
});
