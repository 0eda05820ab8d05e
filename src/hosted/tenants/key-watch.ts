// The business's word at the service is final: while a tenant is in use, its key is known to still work
// there, confirmed at most every KEY_CONFIRM_MS. Any call the service accepted with the key's session
// confirms it (so a busy tenant spends nothing on this); a request that finds no confirmation within the
// window waits for one ping. A key the service refuses (401, or 403 on a ping, which needs no scope: revoked,
// regenerated, suspended, a plan without the API) is refused here from then on, answers from the mirror
// included. A service that does not answer refuses nothing: the mirror goes on answering. While the key's
// window is held or spent no ping is sent (it would wait behind the hold): the last confirmation stands.
import { Forbidden, Unauthorized } from '../../api/errors.js';

export const KEY_CONFIRM_MS = 30_000;

export interface KeyWatchDeps {
  /** One call to the service that any working key may make (GET /api/ping). */
  ping: () => Promise<unknown>;
  /** Told once, when the service refuses the key, in the service's words. */
  onRefused: (words: string) => void;
  now: () => number;
  windowMs?: number;
  /**
   * Whether the key's window is held (a 429) or spent, or calls wait for it: a ping then would wait behind
   * them, so none is sent and nothing waits for one; the key is confirmed once the window frees.
   */
  busy?: () => boolean;
}

export class KeyWatch {
  readonly #deps: KeyWatchDeps;
  #confirmedAt = Number.NEGATIVE_INFINITY;
  #refused = false;
  #pinging: Promise<void> | null = null;

  constructor(deps: KeyWatchDeps) {
    this.#deps = deps;
  }

  /** The service accepted a call of the key sent at `sentAt` (or a sign-in with it). */
  confirmed(sentAt: number = this.#deps.now()): void {
    this.#confirmedAt = Math.max(this.#confirmedAt, sentAt);
  }

  /** The service refused the key (a sign-in refused elsewhere). */
  refuse(words: string): void {
    if (this.#refused) return;
    this.#refused = true;
    this.#deps.onRefused(words);
  }

  /** Whether the key may still be used: at once when confirmed lately, else after one ping shared by every caller. */
  async stillWorks(): Promise<boolean> {
    if (this.#refused) return false;
    if (this.#deps.now() - this.#confirmedAt < (this.#deps.windowMs ?? KEY_CONFIRM_MS)) return true;
    // A call or a poll never waits for the key's limit here: during a hold the last confirmation stands.
    if (this.#deps.busy?.()) return true;
    this.#pinging ??= this.#ping().finally(() => {
      this.#pinging = null;
    });
    await this.#pinging;
    return !this.#refused;
  }

  async #ping(): Promise<void> {
    const sentAt = this.#deps.now();
    try {
      await this.#deps.ping();
      this.confirmed(sentAt);
    } catch (err) {
      if (err instanceof Unauthorized || err instanceof Forbidden) this.refuse(err.serviceMessage ?? err.message);
    }
  }
}
