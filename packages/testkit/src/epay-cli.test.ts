import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const CLI = fileURLToPath(new URL('./epay-cli.ts', import.meta.url));
let child: ChildProcessWithoutNullStreams | undefined;

afterAll(() => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
});

describe('epay cli', () => {
  it('runs the fake gateway standalone, prints its URL, refuses an unsigned form and stops on SIGTERM', async () => {
    child = spawn(process.execPath, ['--import', 'tsx', CLI, '--port', '0', '--pid', '9', '--key', 'cli-key'], { stdio: 'pipe' });
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`no URL printed: ${out}`)), 20_000);
      child!.stdout.on('data', (c: Buffer) => {
        out += c.toString();
        const m = /listening on (http:\/\/127\.0\.0\.1:\d+) \(merchant 9\)/u.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      });
    });
    const refused = await fetch(`${url}/submit.php?pid=9&type=alipay&out_trade_no=X&notify_url=http://a/n&return_url=http://a/r&name=n&money=1.00&sign=00`);
    expect(refused.status).toBe(400);
    expect(await (await fetch(`${url}/__fake/orders`)).json()).toEqual([]);
    child.kill('SIGTERM');
    expect(await new Promise((r) => child!.once('exit', (code) => r(code)))).toBe(0);
  });
});
