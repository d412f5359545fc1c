/**
 * Signing the page in: a one-time code from `goondan studio` (in the URL fragment, so it never
 * reaches a server log) or the API token typed into a form; either is exchanged once for the
 * HttpOnly session cookie. The page itself never stores a credential.
 */
import { describeError, errorOf } from './api-client.ts';
import { h } from './dom.ts';

/** Exchanges `#code=…` if the URL has one; clears it from the address bar either way. */
export async function redeemCodeFromUrl(): Promise<string | undefined> {
  const match = /^#code=([A-Za-z0-9_-]+)/.exec(location.hash);
  if (!match) return undefined;
  history.replaceState(null, '', `${location.pathname}${location.search}#swarm`);
  try {
    await exchange({ code: match[1] ?? '' });
    return undefined;
  } catch (e) {
    return describeError(e);
  }
}

async function exchange(body: { code: string } | { token: string }): Promise<void> {
  const response = await fetch('/studio/session', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), credentials: 'same-origin' });
  if (!response.ok) throw await errorOf(response);
}

/** The form shown when the page has no session; resolves once signed in. */
export function loginForm(problem: string | undefined, onSignedIn: () => void): HTMLElement {
  const input = h('input', { id: 'api-token', type: 'password', autocomplete: 'off', required: true, spellcheck: 'false' });
  const message = h('p', { class: 'error', role: 'alert', hidden: problem === undefined }, problem ?? '');
  const form = h(
    'form',
    { class: 'login', 'aria-labelledby': 'login-title' },
    h('h2', { id: 'login-title' }, 'Sign in to this daemon'),
    h('p', {}, 'Run ', h('code', {}, 'goondan studio'), ' where the daemon runs for a one-time link, or paste the API token: the content of ', h('code', {}, '<state-root>/runtime/api-token'), ' (or GOONDAN_API_TOKEN).'),
    message,
    h('label', { for: 'api-token' }, 'API token'),
    input,
    h('button', { type: 'submit', class: 'primary' }, 'Sign in'),
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    try {
      await exchange({ token: input.value.trim() });
      onSignedIn();
    } catch (e) {
      message.textContent = describeError(e);
      message.hidden = false;
      input.select();
    }
  });
  return form;
}
