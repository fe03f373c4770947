import type { ColumnType, Generated } from 'kysely';

/** An auto-increment id (db/schema.ts and the table files beside it). */
export type Id = Generated<number>;
/** A column with a database default: optional on insert. */
export type Def<T> = ColumnType<T, T | undefined, T>;
