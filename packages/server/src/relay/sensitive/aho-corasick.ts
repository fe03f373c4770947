/**
 * A multi-pattern matcher (Aho–Corasick): one pass over the text finds every pattern, whatever
 * their number, instead of one `includes` scan per word. Case-insensitive: patterns and text are
 * lower-cased. Built once per word list (sensitive-filter.ts caches it per option value).
 *
 * States live in flat arrays; each state's transitions are a Map from UTF-16 code unit to state,
 * and `fail` links are followed only on a miss, so matching is linear in the text length.
 */
export class AhoCorasick {
  private readonly next: Array<Map<number, number>> = [new Map()];
  private readonly fail: number[] = [0];
  /** Index of the pattern that ends at a state, or -1. */
  private readonly word: number[] = [-1];
  /** The nearest state on the fail chain (excluding itself) where a pattern ends, or -1. */
  private readonly outLink: number[] = [-1];
  readonly patterns: readonly string[];

  constructor(words: Iterable<string>) {
    const unique = [...new Set([...words].map((w) => w.trim().toLowerCase()).filter(Boolean))];
    this.patterns = unique;
    unique.forEach((w, i) => this.insert(w, i));
    this.link();
  }

  get size(): number {
    return this.patterns.length;
  }

  private insert(w: string, index: number): void {
    let s = 0;
    for (let i = 0; i < w.length; i++) {
      const c = w.charCodeAt(i);
      let t = this.next[s]!.get(c);
      if (t === undefined) {
        t = this.next.length;
        this.next.push(new Map());
        this.fail.push(0);
        this.word.push(-1);
        this.outLink.push(-1);
        this.next[s]!.set(c, t);
      }
      s = t;
    }
    this.word[s] = index;
  }

  /** Breadth-first: a state's fail link is the longest proper suffix of its path that is also a path. */
  private link(): void {
    const queue: number[] = [];
    for (const t of this.next[0]!.values()) queue.push(t);
    for (let head = 0; head < queue.length; head++) {
      const s = queue[head]!;
      for (const [c, t] of this.next[s]!) {
        let f = this.fail[s]!;
        while (f !== 0 && !this.next[f]!.has(c)) f = this.fail[f]!;
        const target = this.next[f]!.get(c);
        this.fail[t] = target !== undefined && target !== t ? target : 0;
        const ft = this.fail[t]!;
        this.outLink[t] = this.word[ft]! >= 0 ? ft : this.outLink[ft]!;
        queue.push(t);
      }
    }
  }

  /** The distinct patterns found in `text`, in the order they first end; at most `limit`. */
  findAll(text: string, limit = Infinity): string[] {
    if (this.patterns.length === 0) return [];
    const found = new Set<number>();
    this.scan(0, text, found, limit);
    return [...found].map((k) => this.patterns[k]!);
  }

  /**
   * A resumable scan: a text that arrives in pieces (a streamed completion) is matched as if it
   * were one string, so a word split across two pieces is still found. Each `feed` returns the
   * patterns that end inside that piece and were not reported before.
   */
  scanner(): { feed(piece: string): string[] } {
    let state = 0;
    const seen = new Set<number>();
    return {
      feed: (piece) => {
        if (this.patterns.length === 0) return [];
        const before = seen.size;
        state = this.scan(state, piece, seen, Infinity);
        return seen.size === before ? [] : [...seen].slice(before).map((k) => this.patterns[k]!);
      },
    };
  }

  /** Runs the automaton from state `s` over `text`, adding the index of each pattern that ends; returns the last state. */
  private scan(s: number, text: string, found: Set<number>, limit: number): number {
    const lower = text.toLowerCase();
    for (let i = 0; i < lower.length; i++) {
      const c = lower.charCodeAt(i);
      let t = this.next[s]!.get(c);
      while (t === undefined && s !== 0) {
        s = this.fail[s]!;
        t = this.next[s]!.get(c);
      }
      s = t ?? 0;
      for (let o = this.word[s]! >= 0 ? s : this.outLink[s]!; o >= 0; o = this.outLink[o]!) {
        found.add(this.word[o]!);
        if (found.size >= limit) return s;
      }
    }
    return s;
  }

  /** True when any pattern occurs in `text`. */
  test(text: string): boolean {
    return this.findAll(text, 1).length > 0;
  }
}
