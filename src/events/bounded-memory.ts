// A memory of the latest keys, each with a value, that forgets the oldest first once it holds `size`:
// event ids already acted on, changes already reported, the last state of each record.

export class BoundedMemory<K, V> {
  readonly #items = new Map<K, V>();
  constructor(private readonly size: number) {}

  get(key: K): V | undefined {
    return this.#items.get(key);
  }

  has(key: K): boolean {
    return this.#items.has(key);
  }

  set(key: K, value: V): void {
    this.#items.set(key, value);
    if (this.#items.size > this.size) this.#items.delete(this.#items.keys().next().value as K);
  }

  delete(key: K): void {
    this.#items.delete(key);
  }
}
