import { describe, expect, it } from 'vitest';
import { isNumberText, pretty, prettyTables, rowsFromTables, tablesFromOptions, tablesFromRows, unlistedModels } from './ratio-tables';

describe('ratio tables', () => {
  const tables = {
    ModelPrice: { 'dall-e-3': 0.04 },
    ModelRatio: { 'gpt-4o': 1.25, 'dall-e-3': 8 },
    CompletionRatio: { 'gpt-4o': 4 },
    CacheRatio: { 'gpt-4o': 0.5, 'dall-e-3': 0.5 },
    CreateCacheRatio: { 'claude-x': 1.25 },
  };

  it('turns the five options into rows and back; a fixed price drops the ratios of its model', () => {
    const rows = rowsFromTables(tables);
    expect(rows).toEqual([
      { name: 'claude-x', price: '', ratio: '', completionRatio: '', cacheRatio: '', createCacheRatio: '1.25' },
      { name: 'dall-e-3', price: '0.04', ratio: '8', completionRatio: '', cacheRatio: '0.5', createCacheRatio: '' },
      { name: 'gpt-4o', price: '', ratio: '1.25', completionRatio: '4', cacheRatio: '0.5', createCacheRatio: '' },
    ]);
    expect(tablesFromRows(rows)).toEqual({
      ModelPrice: { 'dall-e-3': 0.04 },
      ModelRatio: { 'gpt-4o': 1.25 },
      CompletionRatio: { 'gpt-4o': 4 },
      CacheRatio: { 'gpt-4o': 0.5 },
      CreateCacheRatio: { 'claude-x': 1.25 },
    });
    expect(prettyTables(tablesFromRows(rows)).CacheRatio).toBe('{\n  "gpt-4o": 0.5\n}');
  });

  it('reads stored options, ignoring values that are not numbers', () => {
    const read = tablesFromOptions({ ModelPrice: '{"a": 1, "b": "x"}', ModelRatio: 'not json', CompletionRatio: '{}', CacheRatio: '{"a": 0.1}' });
    expect([read.ModelPrice, read.CacheRatio]).toEqual([{ a: 1 }, { a: 0.1 }]);
    // A key the server did not list reads as its default.
    expect(read.CreateCacheRatio['claude-opus-4-8']).toBe(1.25);
    expect(pretty({ a: 1 })).toBe('{\n  "a": 1\n}');
  });

  it('accepts only non-negative numbers', () => {
    for (const ok of ['', '0', '1.5', '.5', '2e-3']) expect(isNumberText(ok), ok).toBe(true);
    for (const bad of ['-1', 'abc', '1,5', '1.2.3', 'NaN']) expect(isNumberText(bad), bad).toBe(false);
  });

  it('lists enabled models with neither a price nor a ratio, gizmo wildcards priced', () => {
    expect(unlistedModels(['gpt-4o', 'dall-e-3', 'mystery', 'gpt-4-gizmo-abc'], { ...tables, ModelPrice: { ...tables.ModelPrice, 'gpt-4-gizmo-*': 0.1 } })).toEqual(['mystery']);
  });
});
