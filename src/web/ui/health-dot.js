/**
 * The dot in the header says what the settings status says: grey before
 * sign-in (or when the user may not read the status), green when the last
 * reload is in force (or none happened yet), amber when some module could
 * not apply it, red when the last edit of the file was rejected. It asks
 * GET settings_status_url (privilege settings.get) every 10 s while signed
 * in; a 403 stops asking. The status view passes on each answer it gets.
 */
const STATES = {
  unknown: 'Settings status unknown',
  ok: 'Settings applied',
  none: 'Settings applied (no reload yet)',
  partial: 'Settings partly applied: a module failed',
  invalid: 'Last settings edit rejected: running on the last good settings',
};

const dot = () => document.getElementById('health');
let timer = null;
let generation = 0;

/** Show a lastResult of the settings status (also called by the status view with its own answer). */
export function showHealth(lastResult) {
  show(lastResult ?? 'unknown');
}

function show(state, detail) {
  const el = dot();
  if (!el) return;
  el.dataset.state = state in STATES ? state : 'unknown';
  const text = detail ? `${STATES[el.dataset.state]} (${detail})` : STATES[el.dataset.state];
  el.setAttribute('aria-label', text);
  el.title = text;
}

/** Start following the status of a signed-in session. */
export function followHealth(api, index) {
  stopHealth();
  const mine = ++generation;
  const poll = async () => {
    if (mine !== generation) return;
    if (!index.settings_status_url) return show('unknown', 'not offered by this agent');
    try {
      const status = await api.json(index.settings_status_url);
      if (mine !== generation) return;
      showHealth(status.lastResult);
    } catch (err) {
      if (mine !== generation) return;
      if (err?.status === 403) return show('unknown', 'this user may not read it');
      show('unknown', 'the agent did not answer');
    }
    timer = setTimeout(poll, 10_000);
  };
  void poll();
}

/** Back to grey (signed out). */
export function stopHealth() {
  generation++;
  clearTimeout(timer);
  timer = null;
  show('unknown');
}
