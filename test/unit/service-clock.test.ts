// The service's clock read from its answers' Date headers, on an injected clock: the estimate stays within
// what each answer allows, narrows as answers agree, and follows the service's clock when it is moved.
import { describe, expect, it } from 'vitest';
import { ServiceClock } from '../../src/core/service-clock.js';

const date = (ms: number): string => new Date(ms).toUTCString();

describe('ServiceClock', () => {
  it('knows nothing before an answer with a Date, and ignores one without', () => {
    const time = new ServiceClock(() => 1_000_000);
    time.heard(undefined, 0, 10);
    time.heard('not a date', 0, 10);
    expect(time.serviceNow()).toBeNull();
    expect(time.offsetMs()).toBeNull();
  });

  it('puts the service within a second of its Date, and narrows as answers agree', () => {
    let ours = 50_000;
    const time = new ServiceClock(() => ours);
    const ahead = 3_600_000 + 250; // the service's clock runs an hour and a quarter second ahead of ours
    // Each answer takes 20 ms; the service stamps it midway, in whole seconds.
    const answer = (sent: number): void => {
      const stamped = Math.floor((sent + 10 + ahead) / 1000) * 1000;
      time.heard(date(stamped), sent, sent + 20);
    };
    answer(50_000);
    expect(Math.abs((time.offsetMs() as number) - ahead)).toBeLessThanOrEqual(520);
    for (let t = 50_137; t < 60_000; t += 137) answer(t);
    expect(Math.abs((time.offsetMs() as number) - ahead)).toBeLessThanOrEqual(30);
    ours = 90_000;
    expect(Math.abs((time.serviceNow() as number) - (90_000 + ahead))).toBeLessThanOrEqual(30);
  });

  it('follows a service clock moved forward or back, from its next answer', () => {
    let ours = 0;
    const time = new ServiceClock(() => ours);
    let service = Date.parse('2027-03-15T10:58:00Z');
    const answer = (): void => time.heard(date(service), ours, ours + 5);
    for (let i = 0; i < 20; i++) {
      answer();
      ours += 700;
      service += 700;
    }
    service += 3 * 60 * 1000; // the sandbox's admin moves its clock three minutes on
    answer();
    expect(Math.abs((time.serviceNow() as number) - service)).toBeLessThanOrEqual(1005);
    service -= 10 * 60 * 1000;
    answer();
    expect(Math.abs((time.serviceNow() as number) - service)).toBeLessThanOrEqual(1005);
  });
});
