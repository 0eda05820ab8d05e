// Everything the sandbox knows: the businesses and their books, keys and sessions, limits, the audit log,
// idempotency records, faults and webhooks. One object, passed to every route; nothing at module level
// (the sample books it starts from are copies of books made once: seed/sample-books.ts).

import { AuditLog } from './audit.js';
import type { BooksData, BusinessProfile, IdSequences, Mode } from './books.js';
import { newIdSequences } from './books.js';
import { SandboxClock } from './clock.js';
import { Books } from './collection.js';
import { Faults } from './faults.js';
import { IdempotencyStore } from './idempotency.js';
import { KeyRegistry } from './keys.js';
import { FixedWindowLimiter } from './rate-limit.js';
import { generateBooks, MAIN_BUSINESS, OTHER_BUSINESS } from './seed/index.js';
import { moreProfile } from './seed/more-profiles.js';
import { sampleBooks } from './seed/sample-books.js';
import { addDays, localDate, zonedMidnight } from './time.js';
import { applyTimeRules } from './time-rules.js';
import type { ViewContext } from './views.js';
import { WebhookSender } from './webhooks.js';

export interface WorldOptions {
  scale: number;
  seed: number;
  rateLimit: number;
  rateWindowSeconds: number;
  signInLimit: number;
  webhookBackoffMs: number;
  /** How many businesses to start with (at least the two sample ones); more are made with `addBusiness`. */
  businesses?: number | undefined;
  /** The main business's day to start on (`YYYY-MM-DD`); today in its zone when absent. */
  today?: string | undefined;
}

/** A pinned day starts at 09:00 in the business's zone: far from midnight, so a run stays on that day. */
const PINNED_START_HOUR = 9;

function startInstant(today: string | undefined): number | undefined {
  return today === undefined ? undefined : zonedMidnight(today, MAIN_BUSINESS.timeZone) + PINNED_START_HOUR * 3600_000;
}

export interface Business {
  readonly profile: BusinessProfile;
  readonly live: Books;
  readonly test: Books;
  apiAccess: boolean;
}

export class World {
  readonly clock: SandboxClock;
  readonly ids: IdSequences = newIdSequences();
  readonly businesses = new Map<number, Business>();
  readonly keys = new KeyRegistry();
  readonly audit = new AuditLog();
  readonly idempotency = new IdempotencyStore();
  readonly faults = new Faults();
  /** Each key's calls per window; the admin interface may set another limit (its windows start afresh). */
  callLimiter: FixedWindowLimiter<number>;
  readonly signInLimiter: FixedWindowLimiter<string>;
  readonly webhooks: WebhookSender;
  developerSuspended = false;
  baseUrl = '';
  /** The next business midnight (of any business) at which time moves statuses. */
  #nextMidnightMs = -Infinity;
  /** Each business's test books, once a test key has read them. */
  readonly #testBooks = new Map<number, Books>();

  constructor(readonly options: WorldOptions) {
    this.clock = new SandboxClock(startInstant(options.today));
    this.callLimiter = new FixedWindowLimiter(options.rateLimit, options.rateWindowSeconds * 1000);
    this.signInLimiter = new FixedWindowLimiter(options.signInLimit, 60_000);
    this.webhooks = new WebhookSender(this.clock, options.webhookBackoffMs);
    // The live books are a copy of the sample books, which drew ids from the shared sequences; the frozen
    // test books are an identical copy. Each business's books end the day before its own today.
    const now = this.clock.now();
    const profiles = [MAIN_BUSINESS, OTHER_BUSINESS];
    for (let id = 3; id <= (options.businesses ?? 2); id++) profiles.push(moreProfile(id));
    const sample = sampleBooks(
      {
        scale: options.scale,
        seed: options.seed,
        businesses: profiles.map((profile) => ({ profile, today: localDate(now, profile.timeZone) })),
      },
      MAIN_BUSINESS.id,
    );
    Object.assign(this.ids, sample.ids);
    for (const profile of profiles) this.#register(profile, sample.books.get(profile.id) as BooksData, () => sample.another(profile.id));
    this.keepTime();
  }

  /**
   * A new business with sample books of its own, drawn from the sandbox's seed and the business's id (ids
   * from the shared sequences, so the same order of additions gives the same records).
   */
  addBusiness(name?: string): Business {
    const id = Math.max(...this.businesses.keys()) + 1;
    const profile = moreProfile(id, name);
    const today = localDate(this.clock.now(), profile.timeZone);
    const data = generateBooks(profile, this.ids, { scale: 1, seed: this.options.seed + id, today });
    const pristine = structuredClone(data);
    this.#register(profile, data, () => structuredClone(pristine));
    // The new business's midnight may come before the one time is waiting for.
    this.#nextMidnightMs = -Infinity;
    this.keepTime();
    return this.business(id);
  }

  #register(profile: BusinessProfile, data: BooksData, another: () => BooksData): void {
    const made = this.#testBooks;
    // The test books are copied when a test key first reads them (most sandboxes never do), with the
    // statuses time has moved by then: the same as having moved them at each midnight.
    const frozen = (): Books => {
      let books = made.get(profile.id);
      if (!books) {
        books = new Books(another());
        applyTimeRules(books, localDate(this.clock.now(), profile.timeZone), profile.timeZone);
        made.set(profile.id, books);
      }
      return books;
    };
    this.businesses.set(profile.id, {
      profile,
      live: new Books(data),
      get test() {
        return frozen();
      },
      apiAccess: true,
    });
  }

  /**
   * Moves the statuses time has moved since the last look (the service's own doing at each business's
   * midnight, in both modes). Called before every request and after the clock is advanced; between
   * midnights it costs one comparison.
   */
  keepTime(): void {
    const now = this.clock.now();
    if (now < this.#nextMidnightMs) return;
    let next = Infinity;
    for (const business of this.businesses.values()) {
      const zone = business.profile.timeZone;
      const today = localDate(now, zone);
      const test = this.#testBooks.get(business.profile.id);
      for (const books of test ? [business.live, test] : [business.live]) applyTimeRules(books, today, zone);
      next = Math.min(next, zonedMidnight(addDays(today, 1), zone));
    }
    this.#nextMidnightMs = next;
  }

  business(id: number): Business {
    const b = this.businesses.get(id);
    if (!b) throw new Error(`no business ${id}`);
    return b;
  }

  books(businessId: number, mode: Mode): Books {
    const b = this.business(businessId);
    return mode === 'live' ? b.live : b.test;
  }

  viewContext(businessId: number, mode: Mode): ViewContext {
    return { profile: this.business(businessId).profile, books: this.books(businessId, mode), baseUrl: this.baseUrl };
  }

  today(businessId: number): string {
    return localDate(this.clock.now(), this.business(businessId).profile.timeZone);
  }
}
