/**
 * A multi-pattern matcher (Aho–Corasick): one pass over the text finds every pattern, whatever
 * their number, instead of one `includes` scan per word. Built once per word list
 * (sensitive-filter.ts caches it per option value).
 *
 * Every UTF-16 code unit that occurs in a (lower-cased) pattern gets a small class number (1…K),
 * and so does every code unit whose lower case is that unit: case is folded by the class table,
 * per code unit (simple case mapping), without lower-casing the text. Every other code unit is
 * class 0 and sends the automaton back to its root. When states × (K + 1) fits DENSE_LIMIT the
 * fail links are compiled into a full transition table whose entries are row offsets, negated
 * (~row) where a pattern ends: one typed-array read and one sign test per character. A larger
 * alphabet (thousands of distinct Chinese characters, say) keeps per-state maps and follows fail
 * links on a miss. Either way matching is linear in the text length.
 */

/** Transition-table entries at most (Int32: 8 MB); above it the sparse form is used. */
const DENSE_LIMIT = 1 << 21;

export class AhoCorasick {
  /** Code unit → class; 0 for a code unit no pattern contains. */
  private readonly classOf = new Uint16Array(0x10000);
  private classes = 0;
  /** Per-state transitions by class (the trie); kept for the sparse form. */
  private readonly next: Array<Map<number, number>> = [new Map()];
  private readonly fail: number[] = [0];
  /** Index of the pattern that ends at a state, or -1. */
  private readonly word: number[] = [-1];
  /** The nearest state on the fail chain (excluding itself) where a pattern ends, or -1. */
  private readonly outLink: number[] = [-1];
  /** The first state, from a state along its fail chain (itself included), where a pattern ends, or -1. */
  private out = new Int32Array(1);
  /** Full transition table, row `s` at s × width, entries the target's row (~row where a pattern ends); undefined in the sparse form. */
  private delta: Int32Array | undefined;
  private width = 1;
  readonly patterns: readonly string[];

  constructor(words: Iterable<string>) {
    const unique = [...new Set([...words].map((w) => w.trim().toLowerCase()).filter(Boolean))];
    this.patterns = unique;
    unique.forEach((w, i) => this.insert(w, i));
    this.foldCase();
    this.link();
  }

  /** Upper-case (and title-case) code units share the class of their lower case. */
  private foldCase(): void {
    if (this.classes === 0) return;
    for (let unit = 0; unit < 0x10000; unit++) {
      if (this.classOf[unit] !== 0 || (unit >= 0xd800 && unit <= 0xdfff)) continue;
      const lower = String.fromCharCode(unit).toLowerCase();
      if (lower.length === 1) this.classOf[unit] = this.classOf[lower.charCodeAt(0)]!;
    }
  }

  get size(): number {
    return this.patterns.length;
  }

  /** True when the transitions are compiled into one table (tests, the bench). */
  get dense(): boolean {
    return this.delta !== undefined;
  }

  private insert(w: string, index: number): void {
    let s = 0;
    for (let i = 0; i < w.length; i++) {
      const unit = w.charCodeAt(i);
      let c = this.classOf[unit]!;
      if (c === 0) {
        if (this.classes === 0xffff) throw new Error('sensitive words: too many distinct characters');
        c = ++this.classes;
        this.classOf[unit] = c;
      }
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
    const order: number[] = [0];
    for (const t of this.next[0]!.values()) order.push(t);
    for (let head = 1; head < order.length; head++) {
      const s = order[head]!;
      for (const [c, t] of this.next[s]!) {
        let f = this.fail[s]!;
        while (f !== 0 && !this.next[f]!.has(c)) f = this.fail[f]!;
        const target = this.next[f]!.get(c);
        this.fail[t] = target !== undefined && target !== t ? target : 0;
        const ft = this.fail[t]!;
        this.outLink[t] = this.word[ft]! >= 0 ? ft : this.outLink[ft]!;
        order.push(t);
      }
    }
    const states = this.next.length;
    this.out = Int32Array.from(this.word, (w, s) => (w >= 0 ? s : this.outLink[s]!));
    this.width = this.classes + 1;
    if (states * this.width > DENSE_LIMIT) return;
    // Compiled in breadth-first order, so a state's fail target's row is complete before its own.
    const delta = new Int32Array(states * this.width);
    for (const s of order) {
      const row = s * this.width;
      const failRow = this.fail[s]! * this.width;
      for (let c = 1; c < this.width; c++) {
        const t = this.next[s]!.get(c);
        delta[row + c] = t !== undefined ? (this.out[t]! >= 0 ? ~(t * this.width) : t * this.width) : s === 0 ? 0 : delta[failRow + c]!;
      }
    }
    this.delta = delta;
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
    const classOf = this.classOf;
    const delta = this.delta;
    const width = this.width;
    if (delta) {
      let row = s * width;
      for (let i = 0; i < text.length; i++) {
        row = delta[row + classOf[text.charCodeAt(i)]!]!;
        if (row < 0) {
          row = ~row;
          if (this.report(this.out[row / width]!, found, limit)) return row / width;
        }
      }
      return row / width;
    }
    const out = this.out;
    for (let i = 0; i < text.length; i++) {
      s = this.step(s, classOf[text.charCodeAt(i)]!);
      const o = out[s]!;
      if (o >= 0 && this.report(o, found, limit)) return s;
    }
    return s;
  }

  /** Sparse form: the trie's transition, following fail links on a miss. */
  private step(s: number, c: number): number {
    if (c === 0) return 0;
    let t = this.next[s]!.get(c);
    while (t === undefined && s !== 0) {
      s = this.fail[s]!;
      t = this.next[s]!.get(c);
    }
    return t ?? 0;
  }

  /** Adds every pattern ending at state `o` and along its output links; true once `limit` is reached. */
  private report(o: number, found: Set<number>, limit: number): boolean {
    for (; o >= 0; o = this.outLink[o]!) {
      found.add(this.word[o]!);
      if (found.size >= limit) return true;
    }
    return false;
  }

  /** True when any pattern occurs in `text`. */
  test(text: string): boolean {
    return this.findAll(text, 1).length > 0;
  }
}
