// What the server's keys may do, once their sessions say: the union of every business's key's scopes (a tool
// stays while any business's key can use it). Learned at the first sign-in (the server starts one in the
// background); a sign-in that fails leaves it unknown until a later one succeeds.
import type { ApiClient } from '../api/client.js';

type Listener = (scopes: readonly string[]) => void;

export class KeyScopes {
  #scopes: readonly string[] | null = null;
  #listeners = new Set<Listener>();
  #learning: Promise<void> | null = null;

  /** The keys' scopes, or null while not known. */
  get known(): readonly string[] | null {
    return this.#scopes;
  }

  /** Tells `listener` once, when the scopes become known; the returned function stops it. */
  onKnown(listener: Listener): () => void {
    if (this.#scopes) return () => undefined;
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Signs every key in (one shared attempt at a time) and learns their scopes; on a failure nothing changes. */
  learn(apis: readonly ApiClient[]): Promise<void> {
    if (this.#scopes) return Promise.resolve();
    this.#learning ??= Promise.all(apis.map((api) => api.session()))
      .then((sessions) => {
        const scopes = [...new Set(sessions.flatMap((s) => s.scopes))];
        this.#scopes = scopes;
        for (const listener of this.#listeners) listener(scopes);
        this.#listeners.clear();
      })
      .finally(() => {
        this.#learning = null;
      });
    return this.#learning;
  }
}
