/**
 * What an import did, or (dry run) would do: per table the rows found in new-api, imported,
 * already present from an earlier run and skipped; everything that could not be mapped; the
 * tables left behind. The CLI prints it with `formatImportReport`.
 */
export interface TableCounts {
  source: number;
  imported: number;
  present: number;
  skipped: number;
}

export interface ImportIssue {
  table: string;
  /** The source row (`#12`, an option key) or '' for the whole table. */
  row: string;
  message: string;
}

export class ImportReport {
  readonly tables = new Map<string, TableCounts>();
  /** Rows, columns, keys and values that could not be mapped (the row was skipped or adjusted as said). */
  readonly issues: ImportIssue[] = [];
  /** Rows that exist in ModelGate under the same key but are not the new-api row: the run cannot go on. */
  readonly conflicts: ImportIssue[] = [];
  /** Source tables that are not imported, with their row counts and why. */
  readonly notImported: string[] = [];
  readonly notes: string[] = [];

  constructor(
    readonly dryRun: boolean,
    readonly source: string,
    readonly target: string,
  ) {}

  counts(table: string): TableCounts {
    let c = this.tables.get(table);
    if (!c) this.tables.set(table, (c = { source: 0, imported: 0, present: 0, skipped: 0 }));
    return c;
  }

  issue(table: string, row: string, message: string): void {
    this.issues.push({ table, row, message });
  }

  conflict(table: string, row: string, message: string): void {
    this.conflicts.push({ table, row, message });
  }
}

const pad = (s: string | number, n: number) => String(s).padStart(n);

export function formatImportReport(r: ImportReport): string[] {
  const lines = [`new-api ${r.source} → ModelGate ${r.target}${r.dryRun ? ' (dry run: nothing written)' : ''}`];
  lines.push(`${'table'.padEnd(12)} ${pad('in new-api', 10)} ${pad(r.dryRun ? 'to import' : 'imported', 10)} ${pad('present', 8)} ${pad('skipped', 8)}`);
  for (const [table, c] of r.tables) {
    lines.push(`${table.padEnd(12)} ${pad(c.source, 10)} ${pad(c.imported, 10)} ${pad(c.present, 8)} ${pad(c.skipped, 8)}`);
  }
  for (const n of r.notImported) lines.push(`not imported: ${n}`);
  if (r.issues.length) lines.push(`could not map (${r.issues.length}):`);
  for (const i of r.issues) lines.push(`  ${i.table}${i.row ? ` ${i.row}` : ''}: ${i.message}`);
  if (r.conflicts.length) lines.push(`conflicts with rows already in ModelGate (${r.conflicts.length}):`);
  for (const i of r.conflicts) lines.push(`  ${i.table}${i.row ? ` ${i.row}` : ''}: ${i.message}`);
  for (const n of r.notes) lines.push(n);
  return lines;
}
