/**
 * The shape of a JSON value, to compare what a fake serves with a provider's documented fixture
 * without comparing the values the fake fills in (text, ids, usage numbers): an object becomes its
 * keys with each value's shape, an array the distinct shapes of its items (sorted, so order and count
 * do not matter), anything else its type name (`null` for null).
 */
export type Shape = string | Shape[] | { [key: string]: Shape };

export function shapeOf(value: unknown): Shape {
  if (value === null) return 'null';
  if (Array.isArray(value)) {
    const seen = new Map<string, Shape>();
    for (const item of value) {
      const s = shapeOf(item);
      seen.set(JSON.stringify(s), s);
    }
    return [...seen.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([, s]) => s);
  }
  if (typeof value === 'object') {
    const out: Record<string, Shape> = {};
    for (const key of Object.keys(value as object).sort()) out[key] = shapeOf((value as Record<string, unknown>)[key]);
    return out;
  }
  return typeof value;
}
