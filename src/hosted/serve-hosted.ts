// Hosted mode put together, top to bottom: the vault and the authorization server on Postgres, the sign-in
// page, the resource server that leads each /mcp request from its token to its grant's tenant (one business
// and key), whose own client, server factory and events answer it, each tenant's webhook endpoint, and the
// listener they all answer on (`serveHosted`). Several processes on one Postgres share grants, secrets and
// signing keys.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { FastifyInstance } from 'fastify';
import type { ClientMetadata, JWK, default as Provider } from 'oidc-provider';
import { REAL_TIMERS, sleep, type Timers } from '../core/timers.js';
import type { ReadinessProbe } from '../http/health.js';
import type { LogSink } from '../log/deferred-logger.js';
import type { Logger } from '../log/logger.js';
import type { ServerFactory } from '../mcp/server.js';
import { PgDb } from '../store/postgres/db.js';
import { SharedPostgres } from '../store/postgres/shared.js';
import type { EventFeed } from '../transports/feed-handlers.js';
import { type HttpServeOptions, type ResourceServer, serveHttp } from '../transports/serve-http.js';
import { FailedSignIns } from './limits/failed-sign-ins.js';
import { Registrations } from './limits/registrations.js';
import { ServiceSignIns, signInFigures } from './limits/service-sign-ins.js';
import { endInteraction } from './oauth/adapter.js';
import { bearerCheck } from './oauth/bearer.js';
import { CheckedTokens } from './oauth/checked-tokens.js';
import { GrantLimiter } from './oauth/grant-limit.js';
import { mountAuthServer, registerResourceMetadata } from './oauth/mount.js';
import { createAuthServer } from './oauth/provider.js';
import { SCOPE_WRITE } from './oauth/resource.js';
import { sweepEvery } from './oauth/sweep.js';
import { briefly, databaseReadiness, pauseFor } from './oauth/unreachable.js';
import { STYLE_HASH } from './signin/html.js';
import { errorPage } from './signin/pages.js';
import { registerSignIn } from './signin/routes.js';
import { signInChecker } from './signin/sign-in-check.js';
import { VerifiedKeys } from './signin/verified-keys.js';
import { prepareHostedSchema, WEBHOOKS_CHANGED } from './store/schema.js';
import { keyEnder } from './tenants/end-key.js';
import { GrantLog } from './tenants/grant-log.js';
import { type TenantSettings, tenantMaker } from './tenants/tenant-maker.js';
import { TenantStore } from './tenants/tenant-store.js';
import { Tenants } from './tenants/tenants.js';
import { Sealer } from './vault/sealer.js';
import { Vault } from './vault/vault.js';
import { readVaultKeys } from './vault/vault-keys.js';
import { registerTenantWebhooks } from './webhooks/receiver.js';
import { WebhookIds } from './webhooks/webhook-ids.js';

/** Hosted mode's settings: its tenants' (tenant-maker.ts) and the deployment's own. */
export interface HostedSettings extends TenantSettings {
  resource: string;
  mirrorUrl: string;
  serviceUrl: string;
  vaultKey: string;
  clientsFile: string | null;
  /** Whether clients may be identified by the URL of their metadata document. */
  clientIdDocuments: boolean;
  /** Requests a minute one grant may send to /mcp, in each process. */
  grantRequestsPerMinute: number;
  /** How long a tenant goes without a request in flight before its books mirror rests (closes until needed). */
  tenantIdleMs: number;
  /** Sign-ins a minute the service allows from the deployment's address: the budget all processes share. */
  serviceSignInsPerMinute: number;
  /** Dynamic registrations one client address may make in an hour. */
  registrationsPerHour: number;
  /** The timers of the key confirmations while a tenant is in use (an open stream); real ones unless given. */
  timers?: Timers;
}

export interface Hosted {
  resourceServer: ResourceServer;
  /** For /readyz: the tenants' mirrors by state, and how many open ones' stores do not answer. */
  readiness: ReadinessProbe;
  factory: ServerFactory;
  grantLog: GrantLog;
  close(): Promise<void>;
}

function newSigningKey(): string {
  const jwk = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });
  return JSON.stringify({ ...jwk, alg: 'ES256', use: 'sig', kid: randomBytes(8).toString('base64url') });
}

async function readClients(file: string | null): Promise<ClientMetadata[]> {
  if (file === null) return [];
  const parsed = JSON.parse(await readFile(file, 'utf8')) as unknown;
  if (!Array.isArray(parsed)) throw new Error(`--oauth-clients: ${file} must hold a JSON array of OAuth client metadata`);
  return parsed as ClientMetadata[];
}

/** The log line of a secret sealed under a vault key this process lacks: its fingerprint (never the key), at most once a minute each. */
function missingKeyLog(logger: Logger): (keyId: string) => void {
  const said = new Map<string, number>();
  return (keyId) => {
    const now = Date.now();
    if (now - (said.get(keyId) ?? Number.NEGATIVE_INFINITY) < 60_000) return;
    said.set(keyId, now);
    logger.error(
      { vaultKey: keyId },
      `a stored secret is sealed with vault key ${keyId}, which this process was not given: requests that need it are answered 503 until it is given in INVOICING_MCP_VAULT_KEY (every process needs every key in use; docs/hosted.md)`,
    );
  };
}

/** How long a person's sign-in waits for room in the deployment's budget before being told how long. */
const PERSON_SIGN_IN_WAIT_MS = 5_000;

/** The deployment's signing key and cookie keys, made once and kept in the vault for every process. */
async function deploymentKeys(vault: Vault): Promise<{ signingKey: JWK; cookieKeys: string[] }> {
  const signingKey = JSON.parse(await vault.getOrCreate('oauth:signing-key', newSigningKey)) as JWK;
  const cookieKeys = JSON.parse(
    await vault.getOrCreate('oauth:cookie-keys', () => JSON.stringify([randomBytes(32).toString('base64url')])),
  ) as string[];
  return { signingKey, cookieKeys };
}

interface AuthServerParts {
  db: PgDb;
  sealer: Sealer;
  signingKey: JWK;
  cookieKeys: string[];
  checked: CheckedTokens;
  logger: Logger;
}

/** The authorization server, its errors shown as our page, and the checked tokens told of grants ended. */
async function authServer(
  settings: HostedSettings,
  issuer: string,
  { db, sealer, signingKey, cookieKeys, checked, logger }: AuthServerParts,
) {
  const provider = createAuthServer(issuer, {
    resource: settings.resource,
    db,
    sealer,
    signingKey,
    cookieKeys,
    clients: await readClients(settings.clientsFile),
    clientIdDocuments: settings.clientIdDocuments,
    grantEnded: (grantId) => checked.forgetGrants([grantId]),
    renderError: async (ctx, out, error) => {
      ctx.type = 'html';
      ctx.set('content-security-policy', `default-src 'none'; style-src ${STYLE_HASH}; frame-ancestors 'none'; base-uri 'none'`);
      ctx.set('cache-control', 'no-store');
      ctx.body = errorPage('The sign-in could not go on', String(out.error_description ?? error.message));
    },
  });
  // The provider's own logs are its debug output; its errors reach the person through renderError.
  provider.on('server_error', (ctx, err) => {
    // Down for now (the database, or a vault key mid-rotation, whose log line is missingKeyLog's): the endpoint
    // answers 503 with a wait.
    const pause = pauseFor(err);
    if (pause) return briefly(ctx, pause);
    logger.warn({ err: err.message }, 'authorization server: server error');
  });
  provider.on('grant.revoked', (_ctx, grantId: string) => checked.forgetGrants([grantId]));
  provider.on('access_token.destroyed', (token: { jti: string }) => checked.forgetToken(token.jti));
  return provider;
}

interface TenantParts {
  db: PgDb;
  vault: Vault;
  grantLog: GrantLog;
  checked: CheckedTokens;
  /** The first cookie key: what the stored sign-in counts hash with. */
  hashKey: string;
  logger: Logger;
  sink: LogSink;
}

/** The tenants, with the shared connections their mirrors use and the sign-in budget, told of webhook changes. */
async function openTenants(settings: HostedSettings, { db, vault, grantLog, checked, hashKey, logger, sink }: TenantParts) {
  const ended = keyEnder({ db, grantLog, tenants: () => tenants, logger, forgetGrants: (ids) => checked.forgetGrants(ids) });
  // The tenants' books mirrors share this process's connections to the database, however many tenants answer.
  const shared = new SharedPostgres(settings.mirrorUrl);
  const budget = new ServiceSignIns(
    db,
    { now: settings.now ?? Date.now, sleep: (ms) => sleep(ms), hashKey },
    signInFigures(settings.serviceSignInsPerMinute),
  );
  const tenants = new Tenants(
    new TenantStore(db, vault),
    tenantMaker(settings, { logger, sink, ended, shared, budget }),
    settings.tenantIdleMs,
    settings.timers,
    settings.now,
  );
  // Told of every change to an endpoint's secret, and of the connection lost (nothing is kept until it is made
  // again: what changed meanwhile was not heard).
  await shared.session
    .listen(
      WEBHOOKS_CHANGED,
      () => tenants.webhooksChanged(true),
      () => tenants.webhooksChanged(false),
    )
    .then(
      () => tenants.webhooksChanged(true),
      () => undefined,
    );
  return { tenants, shared, budget };
}

/** Each /mcp request's token led to its tenant, whose key must still work, and that tenant's server and events. */
function tenantCheck(provider: Provider, settings: HostedSettings, tenants: Tenants, checked: CheckedTokens) {
  return bearerCheck(
    provider,
    settings.resource,
    async (keyId, auth, reply) => {
      const tenant = await tenants.get(keyId);
      if (!tenant || !(await tenant.keyStillWorks())) return null;
      // In use until answered; a stream (a subscription) until it ends.
      reply.raw.once('close', tenants.using(keyId));
      return {
        serve: await tenant.factory(auth.scopes.includes(SCOPE_WRITE)),
        businessId: tenant.record.businessId,
        feed: tenant.live ? tenant.events : null,
      };
    },
    new GrantLimiter(settings.grantRequestsPerMinute),
    checked,
  );
}

interface RouteParts {
  db: PgDb;
  provider: Provider;
  issuer: string;
  hashKey: string;
  vault: Vault;
  tenants: Tenants;
  budget: ServiceSignIns;
  grantLog: GrantLog;
  logger: Logger;
}

/** The authorization server, its metadata, the sign-in page and the tenants' webhook endpoints, on the listener. */
async function hostedRoutes(settings: HostedSettings, parts: RouteParts): Promise<(app: FastifyInstance) => Promise<void>> {
  const { db, provider, issuer, hashKey, vault, tenants, budget, grantLog, logger } = parts;
  const keyChecks = signInChecker({
    serviceUrl: settings.serviceUrl,
    tenants: tenants.store,
    failures: new FailedSignIns(db, hashKey, Date.now),
    budget,
    verified: new VerifiedKeys(db, hashKey, Date.now),
    personWaitMs: PERSON_SIGN_IN_WAIT_MS,
    sleep: (ms) => sleep(ms),
    logger,
  });
  const webhookIds = new WebhookIds(issuer, await vault.getOrCreate('webhooks:id-key', () => randomBytes(32).toString('base64url')));
  return async (app) => {
    mountAuthServer(app, provider, new Registrations(db, hashKey, Date.now, settings.registrationsPerHour));
    registerResourceMetadata(app, settings.resource, issuer);
    registerSignIn(app, {
      provider,
      resource: settings.resource,
      serviceUrl: settings.serviceUrl,
      keyChecks,
      origin: issuer,
      csrfKey: hashKey,
      vault,
      tenants: tenants.store,
      webhookIds,
      grantLog,
      endSignIn: (uid) => endInteraction(db, uid),
    });
    await registerTenantWebhooks(app, tenants, logger);
  };
}

/** Serves a request with the server its checked token's tenant made. */
const tenantFactory: ServerFactory = (unit) => {
  const serve = unit.auth?.extra?.serve as ServerFactory | undefined;
  if (!serve) throw new Error('hosted: a request reached the server without a checked token');
  return serve(unit);
};

export async function startHosted(settings: HostedSettings, logger: Logger, sink: LogSink): Promise<Hosted> {
  const db = new PgDb(settings.mirrorUrl);
  await prepareHostedSchema(db);
  // Nothing is sealed again here: during a rolling rotation a process still on the old key must go on opening
  // everything. `invoicing-mcp vault reseal` does it once every process has the new key.
  const sealer = new Sealer(readVaultKeys(settings.vaultKey), missingKeyLog(logger));
  const vault = new Vault(db, sealer);
  const sweeping = sweepEvery(db, { now: Date.now, timers: REAL_TIMERS, logger });
  const { signingKey, cookieKeys } = await deploymentKeys(vault);
  const hashKey = cookieKeys[0] as string;
  const issuer = new URL(settings.resource).origin;
  const checked = new CheckedTokens();
  const provider = await authServer(settings, issuer, { db, sealer, signingKey, cookieKeys, checked, logger });
  const grantLog = new GrantLog(db);
  const { tenants, shared, budget } = await openTenants(settings, { db, vault, grantLog, checked, hashKey, logger, sink });
  const resourceServer: ResourceServer = {
    check: tenantCheck(provider, settings, tenants, checked),
    eventsOf: (auth) => (auth.extra?.feed as EventFeed | null | undefined) ?? null,
    routes: await hostedRoutes(settings, { db, provider, issuer, hashKey, vault, tenants, budget, grantLog, logger }),
  };
  return {
    resourceServer,
    readiness: databaseReadiness(db, () => tenants.readiness()),
    factory: tenantFactory,
    grantLog,
    close: async () => {
      sweeping.stop();
      await tenants.close();
      await shared.close();
      await db.close();
    },
  };
}

/** The listener's own settings (flags): the rest of what it serves comes from hosted mode. */
export type HostedListener = Omit<
  HttpServeOptions,
  'logger' | 'events' | 'eventsWanted' | 'resourceServer' | 'readiness' | 'extraRoutes'
> & {
  /** How long a stop waits for the calls in flight (ms). */
  drainTimeoutMs: number;
};

/** A hosted deployment's process serving: where it listens, and how to drain and stop it (once, whoever asks). */
export interface HostedServing {
  readonly url: string;
  stop(): Promise<void>;
}

/** Hosted mode on its listener: the parts above, then /mcp, the sign-in and the webhooks on one HTTP server. */
export async function serveHosted(
  settings: HostedSettings,
  listener: HostedListener,
  logger: Logger,
  sink: LogSink,
): Promise<HostedServing> {
  const hosted = await startHosted(settings, logger, sink);
  // The public name is ours, and so is the sign-in page's origin (its forms post back to it).
  const publicHost = new URL(settings.resource).hostname;
  const http = await serveHttp(hosted.factory, {
    ...listener,
    allowedHosts: [...listener.allowedHosts, publicHost],
    allowedOrigins: [...listener.allowedOrigins, publicHost],
    publicOrigin: new URL(settings.resource).origin,
    logger: sink,
    events: null,
    resourceServer: hosted.resourceServer,
    readiness: hosted.readiness,
  }).catch(async (err: unknown) => {
    // A listener that cannot start (its port taken) leaves no database connection or timer behind.
    await hosted.close().catch(() => undefined);
    throw err;
  });
  let stopped: Promise<void> | null = null;
  const stop = (): Promise<void> =>
    (stopped ??= (async () => {
      await http.drain(listener.drainTimeoutMs).catch(() => undefined);
      await http.close().catch(() => undefined);
      await hosted.close().catch(() => undefined);
    })());
  return { url: http.url, stop };
}
