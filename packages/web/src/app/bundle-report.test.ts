import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundleReport, formatReport, routeScreens, type ManifestChunk } from '../../scripts/bundle-report.mjs';

const routerSource = readFileSync(join(__dirname, 'router.tsx'), 'utf8');

/** scripts/bundle-report.mjs, run by the build, names each screen chunk's route from router.tsx. */
describe('bundle report', () => {
  const screens = routeScreens(routerSource);

  it('finds every screen of the route table, with its paths', () => {
    const folders = readdirSync(join(__dirname, '../features'));
    expect([...screens.keys()].sort()).toEqual(folders.sort());
    expect(screens.get('login')).toEqual({ paths: ['/login'], namespaces: [], signedIn: false });
    expect(screens.get('home')?.paths).toEqual(['/']);
    expect(screens.get('not-found')?.paths).toEqual(['*']);
    expect(screens.get('password-reset-confirm')?.paths).toEqual(['/user/reset']);
  });

  it('knows which screens need a signed-in user and which translations they fetch', () => {
    const signedIn = [...screens].filter(([, s]) => s.signedIn).map(([name]) => name).sort();
    expect(signedIn).toEqual(['audit', 'channel', 'detail', 'log', 'midjourney', 'plan', 'playground', 'redemption', 'setting', 'task', 'token', 'topup', 'user']);
    expect(screens.get('token')?.namespaces).toEqual(['token', 'limits']);
    expect(screens.get('about')?.namespaces).toEqual(['home']);
  });

  it('adds the entry, the screen, its translations and the signed-in shell, each file once', () => {
    const manifest: Record<string, ManifestChunk> = {
      'index.html': { file: 'index.js', isEntry: true, imports: ['_vendor.js'], dynamicImports: ['src/features/login/index.tsx', 'src/features/token/index.tsx', 'src/app/layout/side-nav.tsx'] },
      '_vendor.js': { file: 'vendor.js' },
      '_form.js': { file: 'form.js', imports: ['_vendor.js'] },
      'src/features/login/index.tsx': { file: 'login.js', isDynamicEntry: true, imports: ['_form.js'] },
      'src/features/token/index.tsx': { file: 'token.js', isDynamicEntry: true, imports: ['_form.js', '_vendor.js'] },
      'src/i18n/zh/token.json': { file: 'token-zh.js', isDynamicEntry: true },
      'src/i18n/zh/limits.json': { file: 'limits-zh.js', isDynamicEntry: true },
      'src/app/layout/side-nav.tsx': { file: 'side-nav.js', src: 'src/app/layout/side-nav.tsx', isDynamicEntry: true },
    };
    const sizes: Record<string, number> = { 'index.js': 1000, 'vendor.js': 100_000, 'form.js': 10_000, 'login.js': 500, 'token.js': 2000, 'token-zh.js': 300, 'limits-zh.js': 200, 'side-nav.js': 700 };
    const report = bundleReport(manifest, screens, (file) => [sizes[file] * 3, sizes[file]]);
    const login = report.rows.find((row) => row.feature === 'login')!;
    expect([login.files, login.gzip, login.screenGzip]).toEqual([4, 111_500, 10_500]);
    const token = report.rows.find((row) => row.feature === 'token')!;
    expect([token.files, token.gzip, token.screenGzip]).toEqual([7, 114_200, 12_500]);
    expect(report.entry).toEqual({ files: 2, raw: 303_000, gzip: 101_000 });
    expect(report.onDemand).toEqual([{ key: 'src/app/layout/side-nav.tsx', gzip: 700 }]);
    expect(formatReport(report)).toMatch(/\/login\s+login\s+4\s+326\.7\s+108\.9\s+10\.3/);
  });
});
