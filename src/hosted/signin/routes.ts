// The sign-in page: the authorization server's interaction, served by us. Step one takes the business's
// Key ID and Secret and signs in to the service with them; step two shows the business, its mode, what the
// assistant may do and the business's webhook URL, and Allow makes the grant (the secret, and the webhook
// signing secret when one is given, go to the vault) or Deny refuses it, once: of Allows and Denies posted at
// once, the first to end the sign-in goes on and every other gets the page saying it has ended. Forms
// carry an anti-forgery token bound to the interaction and are refused from another origin; pages carry a
// strict Content-Security-Policy.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Interaction, default as Provider } from 'oidc-provider';
import { clientOf } from '../../http/per-client.js';
import type { Ticket } from '../limits/failed-sign-ins.js';
import { INTERACTION_PREFIX } from '../oauth/provider.js';
import type { GrantLog } from '../tenants/grant-log.js';
import type { TenantStore } from '../tenants/tenant-store.js';
import type { Vault } from '../vault/vault.js';
import type { WebhookIds } from '../webhooks/webhook-ids.js';
import { type GrantRequest, makeGrant, nameRequestedScopes } from './grant.js';
import { STYLE_HASH } from './html.js';
import type { KeyRefusal } from './key-check.js';
import { showable } from './key-shape.js';
import { type ConsentStep, consentPage, errorPage, keyPage } from './pages.js';
import { accessChoices, requestedScopes } from './scopes.js';
import type { SignInChecker } from './sign-in-check.js';

export interface SignInDeps {
  provider: Provider;
  /** The canonical URL of /mcp: the resource every grant is for. */
  resource: string;
  /** The service every business's key is checked with (SVC_BASE_URL). */
  serviceUrl: string;
  /** Checks a Key ID and Secret posted on a page, and hears of the grants made (sign-in-check.ts). */
  keyChecks: SignInChecker;
  /** The origin forms must come from. */
  origin: string;
  csrfKey: string;
  vault: Vault;
  tenants: TenantStore;
  webhookIds: WebhookIds;
  grantLog: GrantLog;
  /** Ends the sign-in `uid`; whether this call did (oauth/adapter.ts `endInteraction`). */
  endSignIn: (uid: string) => Promise<boolean>;
}

const FORM_LIMIT = 8 * 1024;
const HEADINGS: Record<KeyRefusal['kind'], string> = {
  wrong: 'Wrong key ID or secret',
  refused: 'The service refused this key',
  rate: 'Too many sign-in attempts',
  unreachable: 'The service could not be reached',
};

interface Pending {
  keyId: string;
  secret: string;
  businessId: number;
  businessName: string;
  mode: 'live' | 'test';
  scopes: string[];
  /** The places the check holds in the counts of unfinished sign-ins, given back at Allow. */
  ticket: Ticket | null;
}

const pendingName = (uid: string): string => `pending:${uid}`;
/** The spec's signing secrets start with `whsec_`; anything else pasted here is a mistake. */
const WEBHOOK_SECRET = /^whsec_[\x21-\x7e]{8,200}$/;
const NOT_A_SIGNING_SECRET = {
  heading: 'Not a webhook signing secret',
  words: 'A signing secret starts with whsec_ and has no spaces. Paste the one the service gave for this URL, or leave the field empty.',
};

function securityHeaders(reply: FastifyReply, formTargets: string[]): FastifyReply {
  const csp = [
    "default-src 'none'",
    `style-src ${STYLE_HASH}`,
    `form-action 'self' ${formTargets.join(' ')}`.trim(),
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
  return reply
    .header('content-security-policy', csp)
    .header('x-frame-options', 'DENY')
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'same-origin')
    .header('cache-control', 'no-store');
}

/** Where the client is sent back to: a form that ends the sign-in redirects there, so the CSP allows it. */
function redirectOrigin(params: Record<string, unknown>): string[] {
  try {
    return typeof params.redirect_uri === 'string' ? [new URL(params.redirect_uri).origin] : [];
  } catch {
    return [];
  }
}

/**
 * Each sign-in stands alone: the key is asked for every time, so a browser session left by an earlier
 * sign-in (perhaps another business's) is ended rather than switched, which the library would do with a
 * page that needs script.
 */
async function forgetBrowserSession(provider: Provider, interaction: Interaction): Promise<void> {
  if (!interaction.session) return;
  await (await provider.Session.findByUid(interaction.session.uid))?.destroy();
  delete interaction.session;
  await interaction.save(Math.max(1, (interaction.exp ?? 0) - Math.floor(Date.now() / 1000)));
}

const csrfFor = (deps: SignInDeps, uid: string): string => createHmac('sha256', deps.csrfKey).update(`csrf\n${uid}`).digest('base64url');

function sameCsrf(deps: SignInDeps, uid: string, given: unknown): boolean {
  const want = Buffer.from(csrfFor(deps, uid));
  const got = Buffer.from(typeof given === 'string' ? given : '');
  return got.length === want.length && timingSafeEqual(got, want);
}

const send = (reply: FastifyReply, status: number, html: string, targets: string[] = []) =>
  securityHeaders(reply, targets).code(status).type('text/html; charset=utf-8').send(html);

const lost = (reply: FastifyReply) =>
  send(
    reply,
    400,
    errorPage('This sign-in has ended', 'It expired, was finished, or was opened in another browser. Start again from your assistant.'),
  );

/** The second step's page for a key checked (and its webhook URL). */
async function consentFor(
  deps: SignInDeps,
  base: Omit<ConsentStep, 'webhook' | 'businessName' | 'mode'>,
  pending: Pending,
  problem?: ConsentStep['problem'],
): Promise<string> {
  const webhook = {
    url: deps.webhookIds.urlOf(deps.webhookIds.idOf(deps.serviceUrl, pending.keyId)),
    kept: await deps.tenants.hasWebhookSecret(pending.keyId),
  };
  return consentPage({ ...base, businessName: pending.businessName, mode: pending.mode, webhook, problem });
}

/** The sign-in the page's `uid` names, if it is the browser's current one. */
async function details(deps: SignInDeps, request: FastifyRequest, reply: FastifyReply) {
  const uid = (request.params as { uid: string }).uid;
  try {
    const interaction = await deps.provider.interactionDetails(request.raw, reply.raw);
    if (interaction.uid !== uid) return null;
    const client = await deps.provider.Client.find(String(interaction.params.client_id));
    const clientName = client?.clientName ?? 'An assistant';
    return { interaction, uid, clientName, action: `${INTERACTION_PREFIX}/${uid}`, targets: redirectOrigin(interaction.params) };
  } catch {
    return null;
  }
}

type Found = NonNullable<Awaited<ReturnType<typeof details>>>;
type Form = Record<string, string | undefined>;

async function finish(
  deps: SignInDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  interaction: Interaction,
  result: Parameters<Provider['interactionFinished']>[2],
) {
  await forgetBrowserSession(deps.provider, interaction);
  reply.hijack();
  await deps.provider.interactionFinished(request.raw, reply.raw, result, { mergeWithLastSubmission: false });
}

/** Continue: the key checked (sign-in-check.ts), then the consent step, or the key step again with why. */
async function continueStep(
  deps: SignInDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  { uid, clientName, action, targets }: Found,
  form: Form,
  requested: ReadonlySet<string>,
) {
  const keyId = (form.key_id ?? '').trim();
  const secret = (form.secret ?? '').trim();
  const checked = await deps.keyChecks.check({ page: uid, address: clientOf(request.raw), keyId, secret });
  const csrf = csrfFor(deps, uid);
  // What cannot be a key ID is not shown back: the alert says which character is wrong.
  const again = (problem: { heading: string; words: string }) =>
    keyPage({ action, csrf, clientName, keyId: showable(keyId) ? keyId : '', problem });
  if ('kind' in checked) {
    if (checked.retryAfter !== undefined) reply.header('retry-after', String(checked.retryAfter));
    return send(reply, checked.retryAfter === undefined ? 200 : 429, again({ heading: HEADINGS[checked.kind], words: checked.message }));
  }
  const choices = accessChoices(checked.key.scopes, requested);
  if (choices.length === 0) {
    const words = 'This key cannot do what the assistant asked for. Use a key with the scopes it needs, or Deny.';
    return send(reply, 200, again({ heading: 'Not enough access', words }), targets);
  }
  const pending: Pending = { keyId, secret, ...checked.key, ticket: checked.ticket };
  await deps.vault.put(pendingName(uid), JSON.stringify(pending));
  return send(reply, 200, await consentFor(deps, { action, csrf, clientName, choices }, pending), targets);
}

/** Deny: the sign-in ended with access_denied, if no other form ended it first. */
async function denyStep(deps: SignInDeps, request: FastifyRequest, reply: FastifyReply, { interaction, uid }: Found) {
  if (!(await deps.endSignIn(uid))) return lost(reply);
  await deps.vault.delete(pendingName(uid));
  const clientId = String(interaction.params.client_id);
  await deps.grantLog.add({ event: 'denied', grantId: null, clientId, keyId: null, businessId: null, detail: null });
  return finish(deps, request, reply, interaction, {
    error: 'access_denied',
    error_description: 'The person declined to connect their books.',
  });
}

/** Allow: the access chosen and the signing secret checked, then the sign-in ended and the grant made. */
async function allowStep(
  deps: SignInDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  found: Found,
  form: Form,
  requested: ReadonlySet<string>,
) {
  const { interaction, uid, clientName, action, targets } = found;
  const stored = await deps.vault.get(pendingName(uid));
  if (stored === undefined) return lost(reply);
  const pending = JSON.parse(stored) as Pending;
  const choices = accessChoices(pending.scopes, requested);
  const choice = choices.find((c) => c.value === form.access);
  if (!choice) return send(reply, 400, errorPage('Refused', 'Choose what the assistant may do.'), targets);
  const webhookSecret = (form.webhook_secret ?? '').trim();
  if (webhookSecret !== '' && !WEBHOOK_SECRET.test(webhookSecret)) {
    const base = { action, csrf: csrfFor(deps, uid), clientName, choices, chosen: choice.value };
    return send(reply, 200, await consentFor(deps, base, pending, NOT_A_SIGNING_SECRET), targets);
  }
  if (!(await deps.endSignIn(uid))) return lost(reply);
  await deps.vault.delete(pendingName(uid));
  await deps.keyChecks.granted(pending.ticket ?? null);
  const grantId = await grantAccess(deps, interaction, pending, { access: choice.value, requested, webhookSecret });
  return finish(deps, request, reply, interaction, { login: { accountId: pending.keyId }, consent: { grantId } });
}

/** The business kept (its secret and signing secret to the vault) and the grant made and logged; its id. */
async function grantAccess(
  deps: SignInDeps,
  interaction: Interaction,
  pending: Pending,
  { access, requested, webhookSecret }: Pick<GrantRequest, 'access' | 'requested'> & { webhookSecret: string },
): Promise<string> {
  const clientId = String(interaction.params.client_id);
  const { secret, ticket: _held, ...record } = pending;
  const webhookId = deps.webhookIds.idOf(deps.serviceUrl, pending.keyId);
  await deps.tenants.save({ ...record, baseUrl: deps.serviceUrl, webhookId }, secret);
  if (webhookSecret !== '') await deps.tenants.saveWebhookSecret(pending.keyId, webhookSecret);
  await nameRequestedScopes(interaction, requested);
  const grantId = await makeGrant(deps.provider, {
    resource: deps.resource,
    clientId,
    keyId: pending.keyId,
    access,
    requested,
    scope: interaction.params.scope,
  });
  await deps.grantLog.add({ event: 'granted', grantId, clientId, keyId: pending.keyId, businessId: pending.businessId, detail: access });
  return grantId;
}

/** A form posted: refused from another origin or without this page's token, else the step it asks for. */
async function answerForm(deps: SignInDeps, request: FastifyRequest, reply: FastifyReply) {
  const origin = request.headers.origin;
  if (origin !== undefined && origin !== deps.origin)
    return send(reply, 403, errorPage('Refused', 'This form was sent from another site.'));
  const found = await details(deps, request, reply);
  if (!found) return lost(reply);
  const form = (request.body ?? {}) as Form;
  if (!sameCsrf(deps, found.uid, form.csrf))
    return send(reply, 403, errorPage('Refused', 'This form was not sent from this sign-in page.'));
  if (form.action === 'deny') return denyStep(deps, request, reply, found);
  const requested = requestedScopes(found.interaction.params.scope);
  if (form.action === 'continue') return continueStep(deps, request, reply, found, form, requested);
  if (form.action === 'allow') return allowStep(deps, request, reply, found, form, requested);
  return send(reply, 400, errorPage('Refused', 'This form asked for nothing this page does.'));
}

export function registerSignIn(app: FastifyInstance, deps: SignInDeps): void {
  app.register(async (scope) => {
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_LIMIT }, (_req, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    });

    scope.get(`${INTERACTION_PREFIX}/:uid`, async (request, reply) => {
      const found = await details(deps, request, reply);
      if (!found) return lost(reply);
      return send(
        reply,
        200,
        keyPage({ action: found.action, csrf: csrfFor(deps, found.uid), clientName: found.clientName }),
        found.targets,
      );
    });

    scope.post(`${INTERACTION_PREFIX}/:uid`, (request, reply) => answerForm(deps, request, reply));
  });
}
