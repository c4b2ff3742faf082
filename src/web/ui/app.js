/**
 * The web UI's entry point: sign-in, the view switcher (location hash
 * `#status`, `#modules`, `#queries[/name]`, `#schedules`, `#logs`,
 * `#settings`) and the session. The header and the page title carry the
 * agent's host name; the views offer only the actions the user's
 * privileges (named by the API index) grant.
 *
 * Credentials live in sessionStorage only (gone when the tab closes; never
 * localStorage or cookies). Sign-in is one request, GET /api (privilege
 * `public`): a 403 there refuses the sign-in (the API gives the same 403
 * for a wrong password, a disallowed address or a missing privilege, and
 * counts failed attempts per address, so the page never retries). After
 * it, the page probes the API call of every view; a view whose call
 * answers 403 is marked as not allowed for this role and says so, without
 * signing out.
 */
import { createApi, discover, ApiError } from './api.js';
import { h, replace } from './dom.js';
import { followHealth, stopHealth } from './health-dot.js';
import { mountStatus } from './views/status.js';
import { mountModules } from './views/modules.js';
import { mountQueries } from './views/queries.js';
import { mountLogs } from './views/logs.js';
import { mountSchedules } from './views/schedules.js';
import { mountSettings } from './views/settings.js';
import { privilegeChecker } from './privileges.js';

const SESSION_KEY = 'agent-ui-session';

/** Each view: its id (hash), label, mount function and the calls that tell whether the role may see it. */
const VIEWS = [
  { id: 'status', label: 'Status', mount: mountStatus, probes: (ix) => [ix.info_url, ix.settings_status_url] },
  { id: 'modules', label: 'Modules', mount: mountModules, probes: (ix) => [ix.modules_url] },
  { id: 'queries', label: 'Queries', mount: mountQueries, probes: (ix) => [ix.queries_url] },
  { id: 'schedules', label: 'Schedules', mount: mountSchedules, probes: (ix) => [ix.schedules_url] },
  { id: 'logs', label: 'Logs', mount: mountLogs, probes: (ix) => [withParams(ix.logs_url, { per_page: '1' })] },
  {
    id: 'settings',
    label: 'Settings',
    mount: mountSettings,
    probes: (ix) => [ix.settings_url && `${ix.settings_url}/modules`],
  },
];
const PRODUCT = 'Monitoring agent';

const main = document.getElementById('main');
const nav = document.getElementById('nav');
const announcer = document.getElementById('announce');

let index = null;
let api = null;
let access = new Map();
let current = null;
let can = privilegeChecker([]);
/** The agent's host name (from /api/v1/info; empty when the role may not read it). */
let host = '';

start();

async function start() {
  document.getElementById('sign-out').addEventListener('click', signOut);
  window.addEventListener('hashchange', route);
  const saved = readSession();
  if (saved) {
    const problem = await signIn(saved.user, saved.password);
    if (!problem) return;
    clearSession();
    return showSignIn(`Your saved sign-in was not accepted. ${problem}`);
  }
  showSignIn();
}

/** Show the sign-in form; `message` (optional) is shown as an alert. */
function showSignIn(message) {
  api = null;
  stopHealth();
  disposeView();
  nav.hidden = true;
  document.getElementById('session').hidden = true;
  const error = h('p', {
    id: 'sign-in-error',
    class: 'notice notice-error',
    role: 'alert',
    hidden: !message,
    text: message ?? '',
  });
  const user = h('input', {
    id: 'user',
    name: 'user',
    autocomplete: 'username',
    required: true,
    value: 'root',
    spellcheck: 'false',
    autocapitalize: 'none',
  });
  const password = h('input', {
    id: 'password',
    name: 'password',
    type: 'password',
    autocomplete: 'current-password',
    required: true,
  });
  const submit = h('button', { type: 'submit', text: 'Sign in' });
  const form = h(
    'form',
    { class: 'card sign-in', 'aria-describedby': 'sign-in-help' },
    h('h1', { text: 'Sign in' }),
    h('p', {
      id: 'sign-in-help',
      class: 'hint',
      text: 'Use root with the web password of the agent, or a user from [/settings/web/users]. The password is kept for this browser tab only.',
    }),
    h('div', { class: 'field' }, h('label', { for: 'user', text: 'User' }), user),
    h('div', { class: 'field' }, h('label', { for: 'password', text: 'Password' }), password),
    error,
    submit,
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    submit.disabled = true;
    submit.textContent = 'Signing in…';
    error.hidden = true;
    const problem = await signIn(user.value, password.value);
    if (!problem) return;
    submit.disabled = false;
    submit.textContent = 'Sign in';
    error.textContent = problem;
    error.hidden = false;
    password.select();
    password.focus();
  });
  replace(main, form);
  showHost('');
  document.title = `Sign in · ${PRODUCT}`;
  (message ? password : user.value ? password : user).focus();
}

/** Try the credentials; resolves with undefined on success or the message to show on failure. */
async function signIn(user, password) {
  const candidate = createApi({ user, password });
  try {
    index = await discover(candidate);
  } catch (err) {
    if (err instanceof ApiError && err.forbidden) {
      return 'Sign-in refused (403): the user name or password is wrong, this address is not allowed, or the role lacks the privilege "public" that this page needs.';
    }
    return `The agent did not accept the request: ${err instanceof Error ? err.message : String(err)}`;
  }
  const results = await Promise.all(
    VIEWS.map(async (view) => {
      const urls = view.probes(index).filter(Boolean);
      const outcomes = await Promise.allSettled(urls.map((url) => candidate.json(url)));
      return { view, outcomes };
    }),
  );
  // A view is allowed unless every one of its calls answered 403 (other errors show inside the view).
  access = new Map(
    results.map(({ view, outcomes }) => [
      view.id,
      !outcomes.every((o) => o.status === 'rejected' && o.reason instanceof ApiError && o.reason.forbidden),
    ]),
  );
  api = candidate;
  can = privilegeChecker(index.privileges);
  const info = results.find((r) => r.view.id === 'status')?.outcomes[0];
  showHost(info?.status === 'fulfilled' && typeof info.value?.hostname === 'string' ? info.value.hostname : '');
  followHealth(api, index);
  writeSession({ user, password });
  document.getElementById('session-user').textContent = user;
  document.getElementById('session').hidden = false;
  renderNav();
  nav.hidden = false;
  route();
  main.focus();
  announce(`Signed in as ${user}.`);
  return undefined;
}

function signOut() {
  clearSession();
  if (location.hash) history.replaceState(null, '', location.pathname);
  showSignIn();
  announce('Signed out.');
}

function renderNav() {
  replace(
    nav,
    h(
      'ul',
      {},
      VIEWS.map((view) =>
        h(
          'li',
          {},
          h(
            'a',
            { href: `#${view.id}`, dataset: { view: view.id } },
            view.label,
            access.get(view.id) ? null : h('span', { class: 'lock', text: ' (no access)' }),
          ),
        ),
      ),
    ),
  );
}

/** Show the view named by the location hash (default: status). */
function route() {
  if (!api) return;
  const [id, ...rest] = location.hash.replace(/^#/, '').split('/');
  const view = VIEWS.find((v) => v.id === id) ?? VIEWS[0];
  if (current?.id === view.id && current.param === rest.join('/') && main.contains(current.root)) return;
  for (const a of nav.querySelectorAll('a')) {
    if (a.dataset.view === view.id) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  disposeView();
  const root = h('div', { class: `view view-${view.id}` });
  replace(main, root);
  const param = decodeURIComponent(rest.join('/'));
  const handle = view.mount(root, { api, index, announce, param, allowed: access.get(view.id) !== false, can });
  current = { id: view.id, param: rest.join('/'), root, handle };
  document.title = [view.label, host, PRODUCT].filter(Boolean).join(' · ');
}

/** The host name in the header and (through `host`) in the page title, so tabs of several hosts differ. */
function showHost(name) {
  host = name;
  document.getElementById('brand-name').textContent = name ? `${name} · ${PRODUCT}` : PRODUCT;
}

function disposeView() {
  current?.handle?.dispose?.();
  current = null;
}

/** Say `text` through the polite live region (cleared first so repeats are read). */
function announce(text) {
  announcer.textContent = '';
  setTimeout(() => {
    announcer.textContent = text;
  }, 50);
}

function readSession() {
  try {
    const value = JSON.parse(sessionStorage.getItem(SESSION_KEY) ?? 'null');
    return value && typeof value.user === 'string' && typeof value.password === 'string' ? value : null;
  } catch {
    return null;
  }
}

function writeSession(value) {
  try {
    sessionStorage.setItem(SESSION_KEY, JSON.stringify(value));
  } catch {
    // Storage may be disabled; the session then lasts until the page reloads.
  }
}

function clearSession() {
  try {
    sessionStorage.removeItem(SESSION_KEY);
  } catch {
    // Nothing stored.
  }
}

function withParams(url, params) {
  if (!url) return url;
  const u = new URL(url);
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  return u.href;
}
