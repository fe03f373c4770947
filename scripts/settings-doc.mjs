#!/usr/bin/env node
// Writes docs/settings.md: every settings tab and section of the console, each field with its
// English label, what it does (the console's own hint) and its default (the typed option registry).
// The hints are the ones the console shows, so the doc and the screen cannot disagree.
// `node scripts/settings-doc.mjs --check` exits 1 when docs/settings.md is out of date (a test runs it).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const sectionsDir = join(root, 'packages/web/src/features/setting/sections');
const en = JSON.parse(readFileSync(join(root, 'packages/web/src/i18n/en/setting.json'), 'utf8'));
const pricing = JSON.parse(readFileSync(join(root, 'packages/web/src/i18n/en/pricing.json'), 'utf8'));
const registry = readFileSync(join(root, 'packages/shared/src/option-registry.ts'), 'utf8');
const tabsSource = readFileSync(join(sectionsDir, 'tabs.tsx'), 'utf8');

/** `Key: kind(default, …)` → the default as written when it is a literal, else a pointer to the registry. */
function defaults() {
  const out = new Map();
  for (const m of registry.matchAll(/^ {2}(\w+): (\w+)\(([^\n]*)\),?$/gm)) {
    const [, key, kind, args] = m;
    let value = '';
    if (kind === 'secret') value = '(empty)';
    else value = literal(firstArg(kind === 'make' ? args.slice(args.indexOf(',') + 1).trim() : args));
    out.set(key, value);
  }
  return out;
}

/** The first argument of a call's argument list: a quoted string whole, else up to the first comma. */
function firstArg(args) {
  const quoted = /^'[^']*'/.exec(args);
  return quoted ? quoted[0] : args.split(',')[0]?.trim();
}

function literal(arg) {
  if (arg === undefined || arg === '' || /^(pub|needs|PAYMENT)/.test(arg)) return '(empty)';
  if (/^'.*'$/.test(arg)) return arg.length > 2 ? `\`${arg.slice(1, -1)}\`` : '(empty)';
  if (/^(true|false|-?\d+(\.\d+)?)$/.test(arg)) return `\`${arg}\``;
  return 'built-in table (see the console)';
}

const defaultOf = defaults();

/** The tab functions of tabs.tsx and the section components each renders, in order. */
function tabs() {
  const imports = new Map([...tabsSource.matchAll(/import \{ (\w+) \} from '\.\/([\w-]+)'/g)].map((m) => [m[1], m[2]]));
  const out = [];
  for (const m of tabsSource.matchAll(/export function (\w+)Tab\(\)[\s\S]*?<\/Stack>/g)) {
    const sections = [...m[0].matchAll(/<(\w+Section) \/>/g)].map((s) => imports.get(s[1]));
    out.push({ tab: m[1].toLowerCase(), sections });
  }
  return out;
}

const cell = (text) => String(text ?? '').replace(/\|/g, '\\|').replace(/\n/g, ' ');

function sectionDoc(file) {
  const source = readFileSync(join(sectionsDir, `${file}.tsx`), 'utf8');
  const name = /name="(\w+)"/.exec(source)?.[1];
  const keys = [...source.matchAll(/\{ key: '(\w+)', kind: '(\w+)'/g)].map((k) => ({ key: k[1], kind: k[2] }));
  if (file === 'ratio-section') {
    return [
      `### ${pricing.editor.title}`,
      '',
      'ModelPrice (fixed USD per call), ModelRatio, CompletionRatio, CacheRatio and CreateCacheRatio (JSON maps keyed by',
      'model name; the two cache maps price prompt tokens read from and written to the provider\'s cache as a share of the',
      'input price, see docs/relay-billing.md "Prompt cache"), edited as JSON',
      `("${pricing.editor.tabJson}") or as a table ("${pricing.editor.tabVisual}": 10 rows per page, add, edit, delete,`,
      'numbers only, duplicate names refused, a fixed price disabling the ratio fields), and reset to the built-in defaults.',
      'A model with neither a price nor a ratio is refused by the relay with a message naming it, unless',
      '**AllowUnpricedModels** is switched on here (then it is billed at ratio 30, the reference\'s silent default);',
      'the editor lists such models so they can be priced with one click.',
      '',
    ];
  }
  const title = en.section[name] ?? name;
  const lines = [`### ${title}`, '', '| Option | Field | What it does | Default |', '|---|---|---|---|'];
  for (const { key, kind } of keys) {
    const o = en.option[key] ?? {};
    const value = kind === 'secret' ? 'secret (sealed, never shown back)' : defaultOf.get(key) ?? '(empty)';
    lines.push(`| \`${key}\` | ${cell(o.label)} | ${cell(o.hint)} | ${value} |`);
  }
  lines.push('');
  return lines;
}

const TAB_INTRO = {
  operation: 'Running the service: retries, drawing and task switches, the sensitive-word filter, logs, the data dashboard, channel monitoring, quotas, chat links, groups and model prices.',
  system: 'How the server is reached and how people sign in and pay: server address, worker, payment, sign-in methods, e-mail, bot protection.',
  other: 'What visitors read: the notice, the name and logo, the home page, the about page and the footer (Markdown, sanitised before it is shown).',
};

function render() {
  const out = [
    '# Settings reference',
    '',
    '<!-- Generated by `node scripts/settings-doc.mjs` from the console\'s settings sections, their hints',
    '     (packages/web/src/i18n/en/setting.json) and the option registry (packages/shared/src/option-registry.ts). Do not edit by hand. -->',
    '',
    'The console\'s **Settings** page (`/setting`) has four tabs. *Personal* is every user\'s own account;',
    '*Operation*, *System* and *Other* are for the super admin (root) only — anyone else asking for them with',
    '`?tab=` gets a message and the personal tab. Each section saves only its own options; a value that breaks a',
    'rule (a number out of range, malformed JSON, a sign-in method switched on without its configuration,',
    'payment without a server address) is refused with a message naming the field, and nothing is saved.',
    'Every option takes effect on every node at once (options are shared through Redis or the database).',
    'The same options are read and written by `GET/PUT /api/option/` (root).',
    '',
  ];
  for (const { tab, sections } of tabs()) {
    out.push(`## ${en.tabs[tab]}`, '', TAB_INTRO[tab] ?? '', '');
    for (const file of sections) out.push(...sectionDoc(file));
  }
  // Written by hand: where ModelGate chose differently from the spec or the reference, and why.
  const notes = join(root, 'docs/settings-choices.md');
  if (existsSync(notes)) out.push('', readFileSync(notes, 'utf8').trim(), '');
  return `${out.join('\n').replace(/\n{3,}/g, '\n\n').trimEnd()}\n`;
}

const target = join(root, 'docs/settings.md');
const text = render();
if (process.argv.includes('--check')) {
  const current = readFileSync(target, 'utf8');
  if (current !== text) {
    console.error('docs/settings.md is out of date: run `node scripts/settings-doc.mjs`');
    process.exit(1);
  }
} else {
  writeFileSync(target, text);
  console.log(`wrote ${target}`);
}
