import type { ColumnDefinitionBuilder, CreateTableBuilder, Kysely } from 'kysely';
import type { SqlKind } from '../../config/config.js';

/**
 * Dialect seam for migrations: the few column shapes that differ between SQLite, PostgreSQL and
 * MySQL. Migration files stay dialect-neutral by going through these helpers.
 */
export function withId<T extends string>(kind: SqlKind, table: CreateTableBuilder<T, never>) {
  if (kind === 'postgres') return table.addColumn('id', 'bigserial', (c) => c.primaryKey());
  if (kind === 'mysql') return table.addColumn('id', 'bigint', (c) => c.primaryKey().autoIncrement());
  return table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
}

/** Long text: MySQL TEXT columns cannot carry a default, so callers pass defaults only where allowed. */
export const TEXT = 'text' as const;

export function defaultZero(c: ColumnDefinitionBuilder) {
  return c.notNull().defaultTo(0);
}

export function defaultEmpty(c: ColumnDefinitionBuilder) {
  return c.notNull().defaultTo('');
}

export type MigrationFn = (db: Kysely<unknown>, kind: SqlKind) => Promise<void>;
