// Admin: webhooks and their deliveries, the audit log, fault injection and the clock.
import type { FastifyInstance } from 'fastify';
import { FieldErrorList } from '../api-error.js';
import { FAULT_KINDS, type FaultKind } from '../faults.js';
import { addDays, localDate, zonedMidnight } from '../time.js';
import type { World } from '../world.js';
import { adminRoute, objectBody, readBusinessId } from './guard.js';

function readUrl(raw: unknown, errors: FieldErrorList): string {
  if (typeof raw === 'string') {
    try {
      const url = new URL(raw);
      if (url.protocol === 'http:' || url.protocol === 'https:') return url.toString();
    } catch {
      // reported below
    }
  }
  errors.add('url', 'url must be an absolute http(s) URL');
  return '';
}

/** `advance_seconds`, `advance_days` (business days: the same time of day, N dates later) or both. */
function readAdvance(body: Record<string, unknown>): { seconds: number; days: number } {
  const errors = new FieldErrorList();
  const { advance_seconds: seconds = 0, advance_days: days = 0 } = body;
  if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds < 0) {
    errors.add('advance_seconds', 'advance_seconds must be a number of seconds, 0 or more');
  }
  if (typeof days !== 'number' || !Number.isInteger(days) || days < 0) {
    errors.add('advance_days', 'advance_days must be a whole number of days, 0 or more');
  }
  if (body.advance_seconds === undefined && body.advance_days === undefined) {
    errors.add('advance_seconds', 'send advance_seconds (seconds) or advance_days (whole days), 0 or more');
  }
  errors.throwIfAny();
  return { seconds: seconds as number, days: days as number };
}

/** Seconds from now to the same time of day `days` dates later in the main business's zone (DST aware). */
function secondsOfDays(world: World, days: number): number {
  if (days === 0) return 0;
  const zone = world.business(1).profile.timeZone;
  const now = world.clock.now();
  const today = localDate(now, zone);
  const target = zonedMidnight(addDays(today, days), zone) + (now - zonedMidnight(today, zone));
  return (target - now) / 1000;
}

/** The clock as the admin sees it: the instant, and the main business's date in its zone. */
function clockReading(world: World): { now: string; today: string } {
  return { now: new Date(world.clock.now()).toISOString(), today: world.today(1) };
}

export function registerSystemAdmin(app: FastifyInstance, world: World, token: string): void {
  app.post(
    '/_sandbox/webhooks',
    adminRoute(token, (request) => {
      const body = objectBody(request);
      const errors = new FieldErrorList();
      const url = readUrl(body.url, errors);
      const businessId = readBusinessId(world, body, errors);
      errors.throwIfAny();
      return { status: 201, body: { ...world.webhooks.register(businessId, url), url } };
    }),
  );
  app.get(
    '/_sandbox/deliveries',
    adminRoute(token, () => ({ status: 200, body: { data: world.webhooks.deliveries } })),
  );
  app.get(
    '/_sandbox/logs',
    adminRoute(token, (request) => {
      const kind = (request.query as { kind?: string }).kind ?? 'requests';
      const errors = new FieldErrorList();
      if (kind !== 'requests' && kind !== 'signins') errors.add('kind', 'kind must be requests or signins');
      errors.throwIfAny();
      world.audit.prune(world.clock.now());
      const entries = kind === 'requests' ? world.audit.requests : world.audit.signins;
      return { status: 200, body: { data: entries.map((e) => ({ ...e, at: new Date(e.at).toISOString() })) } };
    }),
  );
  app.put(
    '/_sandbox/faults',
    adminRoute(token, (request) => {
      const body = objectBody(request);
      const errors = new FieldErrorList();
      const rate = body.rate;
      if (typeof rate !== 'number' || rate < 0 || rate > 1) errors.add('rate', 'rate must be a number from 0 to 1');
      const kinds = body.kinds;
      if (!Array.isArray(kinds) || kinds.length === 0 || kinds.some((k) => !(FAULT_KINDS as readonly unknown[]).includes(k))) {
        errors.add('kinds', `kinds must be a non-empty array of: ${FAULT_KINDS.join(', ')}`);
      }
      const latency = body.latency_ms ?? 200;
      if (typeof latency !== 'number' || latency < 0 || latency > 60_000) {
        errors.add('latency_ms', 'latency_ms must be a number of milliseconds from 0 to 60000');
      }
      errors.throwIfAny();
      world.faults.set({ rate: rate as number, kinds: kinds as FaultKind[], latency_ms: latency as number });
      return { status: 200, body: world.faults.settings };
    }),
  );
  app.delete(
    '/_sandbox/faults',
    adminRoute(token, () => {
      world.faults.clear();
      return { status: 200, body: world.faults.settings };
    }),
  );
  app.post(
    '/_sandbox/clock',
    adminRoute(token, (request) => {
      const { seconds, days } = readAdvance(objectBody(request));
      world.clock.advance(secondsOfDays(world, days) + seconds);
      world.keepTime();
      world.keys.sweep(world.clock.now());
      return { status: 200, body: clockReading(world) };
    }),
  );
  app.get(
    '/_sandbox/clock',
    adminRoute(token, () => ({ status: 200, body: clockReading(world) })),
  );
}
