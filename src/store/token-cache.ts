/**
 * Values by key, kept until a change token moves (a store's `changeToken()`, or any string
 * that changes whenever the underlying data may have). Lookups split the keys into the
 * values kept and the keys to read; `null` remembers a key known to have no value.
 */
export class TokenCache<V> {
  private readonly values = new Map<string, V | null>();
  private token: string | undefined;

  constructor(private readonly limit: number) {}

  /** The kept values of `keys` as of `token` (everything is dropped when it moved), and the keys not kept. */
  lookup(keys: readonly string[], token: string): { found: Map<string, V>; missing: string[] } {
    if (token !== this.token || this.values.size > this.limit) {
      this.values.clear();
      this.token = token;
    }
    const found = new Map<string, V>();
    const missing: string[] = [];
    for (const key of keys) {
      const kept = this.values.get(key);
      if (kept === undefined) missing.push(key);
      else if (kept !== null) found.set(key, kept);
    }
    return { found, missing };
  }

  /** Keeps a value read for the current token (`null`: the key has none). */
  set(key: string, value: V | null): void {
    this.values.set(key, value);
  }
}
