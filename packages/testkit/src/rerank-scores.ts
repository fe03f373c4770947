/** Words of a text, lower-cased (the fakes' deterministic token and relevance rules). */
export function words(text: string): string[] {
  return text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);
}

/**
 * Deterministic relevance for the rerank fakes: the share of the query's words a document
 * contains, nudged by position so ties keep a stable order. Sorted best first, cut at `topN`.
 */
export function rankDocuments(query: string, docs: string[], topN?: number): Array<{ index: number; relevance_score: number }> {
  const q = new Set(words(query));
  const scored = docs.map((d, index) => {
    const w = new Set(words(d));
    const hits = [...q].filter((x) => w.has(x)).length;
    return { index, relevance_score: Number(((q.size ? hits / q.size : 0) * 0.9 + 0.05 - index * 0.001).toFixed(6)) };
  });
  scored.sort((a, b) => b.relevance_score - a.relevance_score || a.index - b.index);
  return topN !== undefined ? scored.slice(0, topN) : scored;
}

/** A deterministic embedding of `dims` values from the text's word count. */
export function fakeEmbedding(text: string, dims: number): number[] {
  const n = words(text).length;
  return Array.from({ length: dims }, (_, j) => ((n + j) % 10) / 10);
}
