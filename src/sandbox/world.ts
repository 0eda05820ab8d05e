// Everything the sandbox knows: the businesses and their books, keys and sessions, limits, the audit log,
// idempotency records, faults and webhooks. One object, passed to every route; nothing at module level.
import type { BusinessProfile, IdSequences, Mode } from './books.js';
import { newIdSequences } from './books.js';
import { AuditLog } from './audit.js';
import { SandboxClock } from './clock.js';
import { Faults } from './faults.js';
import { BOOKS_ANCHOR_MS, MAIN_BUSINESS, OTHER_BUSINESS, generateBooks } from './seed/index.js';
import { IdempotencyStore } from './idempotency.js';
import { KeyRegistry } from './keys.js';
import { FixedWindowLimiter } from './rate-limit.js';
import { Books } from './store.js';
import { localDate } from './time.js';
import type { ViewContext } from './views.js';
import { WebhookSender } from './webhooks.js';

export interface WorldOptions {
  scale: number;
  seed: number;
  rateLimit: number;
  rateWindowSeconds: number;
  signInLimit: number;
  webhookBackoffMs: number;
}

export interface Business {
  readonly profile: BusinessProfile;
  readonly live: Books;
  readonly test: Books;
  apiAccess: boolean;
}

export class World {
  readonly clock = new SandboxClock();
  readonly ids: IdSequences = newIdSequences();
  readonly businesses = new Map<number, Business>();
  readonly keys = new KeyRegistry();
  readonly audit = new AuditLog();
  readonly idempotency = new IdempotencyStore();
  readonly faults = new Faults();
  readonly callLimiter: FixedWindowLimiter<number>;
  readonly signInLimiter: FixedWindowLimiter<string>;
  readonly webhooks: WebhookSender;
  developerSuspended = false;
  baseUrl = '';

  constructor(readonly options: WorldOptions) {
    this.callLimiter = new FixedWindowLimiter(options.rateLimit, options.rateWindowSeconds * 1000);
    this.signInLimiter = new FixedWindowLimiter(options.signInLimit, 60_000);
    this.webhooks = new WebhookSender(this.clock, options.webhookBackoffMs);
    // Live books draw from the shared sequences; the frozen test books are an identical copy.
    for (const [profile, scale] of [
      [MAIN_BUSINESS, options.scale],
      [OTHER_BUSINESS, 1],
    ] as const) {
      const live = new Books(generateBooks(profile, this.ids, { scale, seed: options.seed + profile.id }));
      this.businesses.set(profile.id, { profile, live, test: live, apiAccess: true });
    }
    const testIds = newIdSequences();
    for (const business of this.businesses.values()) {
      const scale = business.profile.id === MAIN_BUSINESS.id ? options.scale : 1;
      const test = new Books(generateBooks(business.profile, testIds, { scale, seed: options.seed + business.profile.id }));
      this.businesses.set(business.profile.id, { ...business, test });
    }
    // The books end at a fixed instant; the sandbox clock starts at real time, never before them.
    if (this.clock.now() < BOOKS_ANCHOR_MS) this.clock.advance((BOOKS_ANCHOR_MS - this.clock.now()) / 1000);
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
