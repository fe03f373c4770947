#!/usr/bin/env node
// Builds the console with Vite when the web package has its entry page.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
if (!fs.existsSync(path.join(root, 'packages/web/index.html'))) {
  console.log('packages/web has no index.html yet: skipping the console build');
  process.exit(0);
}
const r = spawnSync('npm', ['run', 'build', '-w', '@modelgate/web'], { cwd: root, stdio: 'inherit' });
process.exit(r.status ?? 1);
