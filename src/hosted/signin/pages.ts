// The two steps of signing in: the key (Key ID and Secret), then what the assistant may do with the
// business it opens (Allow or Deny), with the business's webhook URL and an optional field for the signing
// secret the service gives when that URL is registered. And the page for an error of the authorization server.
import { alertHtml, csrfField, escapeHtml, type Problem, pageHtml } from './html.js';

export interface KeyStep {
  action: string;
  csrf: string;
  clientName: string;
  keyId?: string | undefined;
  problem?: Problem | undefined;
}

export function keyPage(step: KeyStep): string {
  const invalid = step.problem ? ' aria-invalid="true" aria-describedby="problem"' : '';
  const body = `<h1>Connect ${escapeHtml(step.clientName)} to your books</h1>
<p>Paste your business's key for the Invoicing Service. It is checked with the service, kept encrypted on this server, and never shown to the assistant.</p>
${alertHtml(step.problem)}
<form method="post" action="${escapeHtml(step.action)}">
${csrfField(step.csrf)}
<label for="key_id">Key ID</label>
<input type="text" id="key_id" name="key_id" required autocomplete="username" spellcheck="false" autocapitalize="off"${step.problem ? '' : ' autofocus'}${invalid} value="${escapeHtml(step.keyId ?? '')}">
<p class="hint" id="key_id_hint">Starts with svck_live_ or svck_test_.</p>
<label for="secret">Secret</label>
<input type="password" id="secret" name="secret" required autocomplete="current-password"${step.problem ? ' autofocus' : ''}${invalid}>
<div class="actions">
<button type="submit" class="primary" name="action" value="continue">Continue</button>
<button type="submit" name="action" value="deny" formnovalidate>Deny</button>
</div>
</form>`;
  return pageHtml('Sign in', body);
}

export interface Choice {
  value: 'read' | 'write';
  label: string;
}

export interface ConsentStep {
  action: string;
  csrf: string;
  clientName: string;
  businessName: string;
  mode: 'live' | 'test';
  choices: Choice[];
  /** The choice made before the page came back (a signing secret refused); the first otherwise. */
  chosen?: Choice['value'] | undefined;
  webhook: WebhookStep;
  /** A signing secret that was not one; the field is shown empty, never with what was given. */
  problem?: Problem | undefined;
}

export interface WebhookStep {
  /** The business's webhook URL on this server. */
  url: string;
  /** Whether a signing secret given at an earlier sign-in is kept. */
  kept: boolean;
}

function webhookSection(webhook: WebhookStep, problem: Problem | undefined): string {
  const described = problem ? 'problem webhook_secret_hint' : 'webhook_secret_hint';
  const state = webhook.kept
    ? 'Webhooks are on: deliveries to this URL are checked with the signing secret given before. Paste a new one to replace it.'
    : 'Optional: register this URL with the Invoicing Service as a webhook endpoint of your business, then paste the signing secret it gives you, so that changes reach the assistant as they happen.';
  return `<section aria-labelledby="webhooks_heading">
<h2 id="webhooks_heading">Webhooks</h2>
<p>Your business's webhook URL:</p>
<p class="url" id="webhook_url">${escapeHtml(webhook.url)}</p>
<p>${state}</p>
${alertHtml(problem)}
<label for="webhook_secret">Webhook signing secret (optional)</label>
<input type="password" id="webhook_secret" name="webhook_secret" autocomplete="off" spellcheck="false" aria-describedby="${described}"${problem ? ' aria-invalid="true" autofocus' : ''}>
<p class="hint" id="webhook_secret_hint">Starts with whsec_. Leave it empty to ${webhook.kept ? 'keep the one given before' : 'go without webhooks'}.</p>
</section>`;
}

export function consentPage(step: ConsentStep): string {
  const mode = step.mode === 'live' ? 'Live: the real books' : 'Test: sample books; nothing is saved';
  const choices = step.choices
    .map(
      (c, i) =>
        `<div class="choice"><input type="radio" id="access_${c.value}" name="access" value="${c.value}"${(step.chosen ? c.value === step.chosen : i === 0) ? ' checked' : ''}><label for="access_${c.value}">${escapeHtml(c.label)}</label></div>`,
    )
    .join('\n');
  const body = `<h1>Allow ${escapeHtml(step.clientName)} to use these books?</h1>
<dl>
<dt>Business</dt><dd id="business">${escapeHtml(step.businessName)}</dd>
<dt>Mode</dt><dd id="mode">${escapeHtml(mode)}</dd>
</dl>
<form method="post" action="${escapeHtml(step.action)}">
${csrfField(step.csrf)}
<fieldset>
<legend>What the assistant may do</legend>
${choices}
</fieldset>
${webhookSection(step.webhook, step.problem)}
<div class="actions">
<button type="submit" class="primary" name="action" value="allow"${step.problem ? '' : ' autofocus'}>Allow</button>
<button type="submit" name="action" value="deny">Deny</button>
</div>
</form>`;
  return pageHtml('Allow access', body);
}

export function errorPage(heading: string, words: string): string {
  return pageHtml(heading, `<h1>${escapeHtml(heading)}</h1>\n${alertHtml({ heading: 'What happened', words })}`);
}
