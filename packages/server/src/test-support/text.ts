/**
 * Deterministic words of random letters: every word is new to the tokeniser's merge cache, so
 * counting them costs what hostile input costs (ordinary prose is much cheaper).
 */
export function randomWords(chars: number, seed = 7): string {
  let s = seed;
  const parts: string[] = [];
  let len = 0;
  while (len < chars) {
    let w = '';
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    const n = 2 + (s % 9);
    for (let i = 0; i < n; i++) {
      s = (s * 1103515245 + 12345) & 0x7fffffff;
      w += String.fromCharCode(97 + (s % 26));
    }
    parts.push(w);
    len += n + 1;
  }
  return parts.join(' ');
}

/** Resolves once `check` holds, polling on the event loop (so a blocked loop also blocks this). */
export async function until(check: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}
