// The sign-in page driven over plain HTTP, as a browser without script would: follow the authorization
// URL's redirects, post the Key ID and Secret, then Allow, carrying cookies; the pages' forms may be posted
// to another process of the same deployment (`via`), which must know the sign-in from the shared database.
import type { Signer } from './oauth-client.js';

type Jar = Map<string, string>;

function keepCookies(jar: Jar, res: Response): void {
  for (const line of res.headers.getSetCookie()) {
    const [pair = ''] = line.split(';');
    const at = pair.indexOf('=');
    const name = pair.slice(0, at).trim();
    const value = pair.slice(at + 1).trim();
    if (value === '' || /expires=Thu, 01 Jan 1970/i.test(line)) jar.delete(name);
    else jar.set(name, value);
  }
}

const cookieHeader = (jar: Jar): string => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');

/** Follows redirects by hand, keeping cookies, until a page answers or the client's redirect URL is reached. */
async function follow(
  fetch: typeof globalThis.fetch,
  jar: Jar,
  start: Response,
  from: URL,
  redirect: string,
  headers: Record<string, string> = {},
): Promise<{ page: string; url: URL } | { back: URL }> {
  let res = start;
  let url = from;
  for (;;) {
    keepCookies(jar, res);
    const location = res.headers.get('location');
    if (res.status < 300 || res.status >= 400 || !location) return { page: await res.text(), url };
    url = new URL(location, url);
    if (url.href.startsWith(redirect)) return { back: url };
    res = await fetch(url, { redirect: 'manual', headers: { ...headers, cookie: cookieHeader(jar) } });
  }
}

function formOf(page: string): { action: string; csrf: string } {
  const action = /<form method="post" action="([^"]+)"/.exec(page)?.[1];
  const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1];
  if (!action || !csrf) throw new Error(`not a sign-in page: ${page.slice(0, 300)}`);
  return { action: action.replace(/&amp;/g, '&'), csrf };
}

export interface FormSignIn {
  /** Posts the Key ID and Secret (Continue); the page that answers. */
  continueWith(signer: Signer): Promise<string>;
  /** Posts the Key ID and Secret (Continue); the answer's status and page. */
  tryKey(signer: Signer): Promise<{ status: number; page: string }>;
  /** The key form's action (absolute, at `via`), its fields but the key, and the cookies: to post it by hand. */
  keyPost(): { url: URL; fields: Record<string, string>; cookie: string };
  /** A page's form action (absolute, at `via`), its anti-forgery field and the cookies: to post it by hand. */
  pagePost(page: string): { url: URL; fields: Record<string, string>; cookie: string };
  /** Posts Allow on the page given (reading only, or also writing, and any other field); the query the client got back. */
  allow(page: string, access?: 'read' | 'write', fields?: Record<string, string>): Promise<URLSearchParams>;
}

/**
 * Opens the sign-in page of an authorization URL; its forms are posted to `via`, by `fetch`. `headers` go
 * with every request of the sign-in (a client behind a proxy: X-Forwarded-For).
 */
export async function openSignIn(
  authorizationUrl: URL,
  redirect: string,
  via: string,
  fetch = globalThis.fetch,
  headers: Record<string, string> = {},
): Promise<FormSignIn> {
  const jar: Jar = new Map();
  const post = async (action: string, fields: Record<string, string>) => {
    const url = new URL(action, via);
    const res = await fetch(url, {
      method: 'POST',
      redirect: 'manual',
      headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded', cookie: cookieHeader(jar) },
      body: new URLSearchParams(fields).toString(),
    });
    return { status: res.status, answer: await follow(fetch, jar, res, url, redirect, headers) };
  };
  const opened = await fetch(authorizationUrl, { redirect: 'manual', headers });
  const first = await follow(fetch, jar, opened, authorizationUrl, redirect, headers);
  if ('back' in first) throw new Error('sent back before signing in');
  const keyForm = formOf(first.page);
  const keyFields = (signer: Signer) => ({ csrf: keyForm.csrf, action: 'continue', key_id: signer.keyId, secret: signer.secret });
  return {
    async continueWith(signer) {
      const { answer } = await post(keyForm.action, keyFields(signer));
      if ('back' in answer) throw new Error('sent back before allowing');
      return answer.page;
    },
    async tryKey(signer) {
      const { status, answer } = await post(keyForm.action, keyFields(signer));
      if ('back' in answer) throw new Error('sent back before allowing');
      return { status, page: answer.page };
    },
    keyPost: () => ({ url: new URL(keyForm.action, via), fields: { csrf: keyForm.csrf, action: 'continue' }, cookie: cookieHeader(jar) }),
    pagePost(page) {
      const form = formOf(page);
      return { url: new URL(form.action, via), fields: { csrf: form.csrf }, cookie: cookieHeader(jar) };
    },
    async allow(page, access = 'read', fields = {}) {
      const allowForm = formOf(page);
      const { answer: done } = await post(allowForm.action, { ...fields, csrf: allowForm.csrf, action: 'allow', access });
      if (!('back' in done)) throw new Error(`not sent back after Allow: ${done.page.slice(0, 300)}`);
      return done.back.searchParams;
    },
  };
}

/** Signs in with `signer` and Allows; resolves with the query the client got back. */
export async function signInByForms(
  authorizationUrl: URL,
  redirect: string,
  signer: Signer,
  via: string,
  fetch = globalThis.fetch,
): Promise<URLSearchParams> {
  const flow = await openSignIn(authorizationUrl, redirect, via, fetch);
  return flow.allow(await flow.continueWith(signer));
}
