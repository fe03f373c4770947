/** Usage log types (spec §4): 1 top-up, 2 consumption, 3 admin, 4 system; 0 means "all" in filters. */
export const LogType = { Unknown: 0, Topup: 1, Consume: 2, Manage: 3, System: 4 } as const;
export type LogTypeValue = (typeof LogType)[keyof typeof LogType];

/** The type filter's choices, "all" first. */
export const LOG_TYPE_FILTERS: readonly LogTypeValue[] = [LogType.Unknown, LogType.Topup, LogType.Consume, LogType.Manage, LogType.System];

const COLORS: Record<number, string> = { [LogType.Topup]: 'cyan', [LogType.Consume]: 'green', [LogType.Manage]: 'orange', [LogType.System]: 'purple' };

export function logTypeColor(type: number): string {
  return COLORS[type] ?? 'default';
}

/** Rows that carry billing facts: consumption, and type 0 rows of older versions. */
export function isConsumeLog(type: number): boolean {
  return type === LogType.Consume || type === LogType.Unknown;
}
