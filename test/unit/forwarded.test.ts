// The hosts a proxy forwards (src/http/forwarded.ts): X-Forwarded-Host's list and RFC 7239's Forwarded
// `host=` (quoted or not, among other parameters), each checked against the public origin's host.
import { describe, expect, it } from 'vitest';
import { forwardedHostProblem, forwardedHosts } from '../../src/http/forwarded.js';

const PUBLIC = new URL('https://books.example.com');

describe('forwarded hosts', () => {
  it('reads every X-Forwarded-Host entry and every Forwarded host, quoted or not', () => {
    expect(
      forwardedHosts({
        'x-forwarded-host': 'a.example, b.example',
        forwarded: 'for=192.0.2.1;host="c.example:8443";proto=https, for="[2001:db8::1]";host=d.example',
      }),
    ).toEqual([
      { header: 'X-Forwarded-Host', value: 'a.example' },
      { header: 'X-Forwarded-Host', value: 'b.example' },
      { header: 'Forwarded', value: 'c.example:8443' },
      { header: 'Forwarded', value: 'd.example' },
    ]);
    expect(forwardedHosts({ forwarded: 'for=192.0.2.1;proto=https' })).toEqual([]);
  });

  it('takes the public host in any case, with its port or the scheme default, and nothing else', () => {
    for (const host of ['books.example.com', 'BOOKS.example.com', 'books.example.com:443']) {
      expect(forwardedHostProblem({ 'x-forwarded-host': host }, PUBLIC), host).toBeNull();
    }
    for (const host of ['evil.example', 'books.example.com:8443', 'books.example.com.evil.example', 'evil.example/@books.example.com']) {
      expect(forwardedHostProblem({ 'x-forwarded-host': host }, PUBLIC), host).toMatch(/is not this deployment's public host/);
    }
    expect(forwardedHostProblem({ forwarded: 'host="evil.example"' }, PUBLIC)).toMatch(/^Forwarded "evil.example"/);
  });
});
