/**
 * Status view: the agent's info (info.get) and the reconciler's status
 * (settings.get): settings hashes, last reload and its result, the
 * problems of a rejected edit with their lines, warnings and drift; with
 * a settings source, where it stands and, for a user whose role grants
 * the pull route's privilege (settings.put), a "Pull now" button
 * (POST /api/v1/settings/pull) that shows the pull's result.
 * Refreshes every 5 s while shown (can be switched off); the page is only
 * redrawn when an answer changed, so reading and focus are not disturbed.
 */
import { h, replace, facts, timeEl, uid } from '../dom.js';
import { viewHeader, errorNotice, refreshButton, shortHash } from './common.js';
import { showHealth } from '../health-dot.js';

/** Stands for the 403 a part got before, when the timer does not ask again. */
const FORBIDDEN = { status: 403, message: '403 You are not allowed' };

const RESULT_TEXT = {
  ok: ['Applied', 'The last reload was valid and is in force.'],
  invalid: [
    'Rejected',
    'The last edit of the settings file was rejected; the agent keeps running on the last good settings.',
  ],
  partial: ['Partly applied', 'The settings are valid but some modules failed to apply them.'],
  none: ['No reload yet', 'The settings file has not been reloaded since the agent started.'],
};

/** The privilege of POST /api/v1/settings/pull (src/web/routes/settings.ts). */
const PULL_PRIVILEGE = 'settings.put';

export function mountStatus(root, { api, index, can, announce }) {
  const infoBox = h('section', { class: 'card', 'aria-labelledby': 'info-heading' });
  const statusBox = h('section', { class: 'card', 'aria-labelledby': 'reconciler-heading' });
  const autoId = uid('auto');
  const auto = h('input', { type: 'checkbox', id: autoId, checked: true, onchange: () => schedule() });
  const updated = h('p', { class: 'hint updated', 'aria-live': 'off' });
  let lastInfo = '';
  let lastStatus = '';
  let timer = null;
  let disposed = false;
  // A part that answered 403 is not asked again by the timer (each refusal is a warning in the
  // agent's log); the Refresh button asks again.
  const forbidden = { info: false, status: false };
  const ask = (part, url, manual) => (forbidden[part] && !manual ? Promise.reject(FORBIDDEN) : api.json(url));
  // Made once and kept across redraws, so the last pull's result stays in sight until the next one.
  const pullControl =
    index.settings_pull_url && can?.(PULL_PRIVILEGE)
      ? makePullControl(api, index.settings_pull_url, announce, () => refresh())
      : null;

  replace(
    root,
    viewHeader(
      'Status',
      refreshButton(() => refresh()),
      h('span', { class: 'check' }, auto, h('label', { for: autoId, text: 'Refresh every 5 s' })),
    ),
    updated,
    h('div', { class: 'grid' }, infoBox, statusBox),
  );
  refresh();

  async function refresh(manual = true) {
    const [info, status] = await Promise.allSettled([
      ask('info', index.info_url, manual),
      ask('status', index.settings_status_url, manual),
    ]);
    if (disposed) return;
    forbidden.info = info.status === 'rejected' && info.reason?.status === 403;
    forbidden.status = status.status === 'rejected' && status.reason?.status === 403;
    const infoKey = keyOf(info);
    if (infoKey !== lastInfo) {
      lastInfo = infoKey;
      renderInfo(infoBox, info);
    }
    const statusKey = keyOf(status);
    if (statusKey !== lastStatus) {
      lastStatus = statusKey;
      const hadFocus = pullControl?.contains(document.activeElement);
      renderStatus(statusBox, status, pullControl);
      // Redrawing moved the pull control: keep the keyboard where it was.
      if (hadFocus) pullControl.querySelector('button')?.focus();
    }
    updated.textContent = `Updated ${new Date().toLocaleTimeString()}.`;
    schedule();
  }

  function schedule() {
    clearTimeout(timer);
    timer = auto.checked && !disposed ? setTimeout(() => refresh(false), 5000) : null;
  }

  return {
    dispose() {
      disposed = true;
      clearTimeout(timer);
    },
  };
}

function renderInfo(box, outcome) {
  const heading = h('h2', { id: 'info-heading', text: 'Agent' });
  if (outcome.status === 'rejected')
    return replace(box, heading, errorNotice(outcome.reason, 'the agent information', 'info.get'));
  const info = outcome.value;
  replace(
    box,
    heading,
    facts([
      ['Host', info.hostname],
      ['Name', info.name],
      ['Version', info.version],
      ['Started', timeEl(info.started)],
      ['Process id', info.pid != null ? String(info.pid) : null],
      ['Settings file', h('code', { class: 'path', text: info.settings ?? '—' })],
    ]),
  );
}

function renderStatus(box, outcome, pullControl) {
  const heading = h('h2', { id: 'reconciler-heading', text: 'Settings and reconciler' });
  if (outcome.status === 'rejected')
    return replace(box, heading, errorNotice(outcome.reason, 'the settings status', 'settings.get'));
  const s = outcome.value;
  // The header's dot shows the same answer at once, not at its own next poll.
  showHealth(s.lastResult);
  const [word, explanation] = RESULT_TEXT[s.lastResult] ?? [String(s.lastResult), ''];
  const inForce = s.fileHash && s.appliedHash && s.fileHash !== s.appliedHash;
  const problems = Array.isArray(s.problems) ? s.problems : [];
  const warnings = Array.isArray(s.warnings) ? s.warnings : [];
  const drift = Array.isArray(s.drift) ? s.drift : [];
  replace(
    box,
    heading,
    h('p', { class: `result result-${s.lastResult}` }, h('span', { class: 'badge', text: word }), ' ', explanation),
    facts([
      ['Last reload', timeEl(s.lastReload)],
      ['Last result', s.lastResult],
      ['Settings file', h('code', { class: 'path', text: s.file ?? '—' })],
      ['File hash', shortHash(s.fileHash)],
      [
        'Applied hash',
        [
          shortHash(s.appliedHash),
          inForce ? h('span', { class: 'hint', text: ' (differs: the file on disk is not in force)' }) : null,
        ],
      ],
      s.reloads
        ? ['Reloads', `${s.reloads.ok ?? 0} ok, ${s.reloads.invalid ?? 0} rejected, ${s.reloads.partial ?? 0} partial`]
        : null,
    ]),
    sourceFacts(s.source, pullControl),
    problemList('Problems of the rejected edit', problems, 'problems'),
    problemList('Warnings', warnings, 'warnings'),
    driftList(drift),
  );
}

/**
 * The "Pull now" button and the line that shows what the last press did:
 * applied (the new revision), unchanged, or the error (the settings in
 * force kept). `done` refreshes the view once the pull has answered.
 */
function makePullControl(api, url, announce, done) {
  const message = h('p', { class: 'pull-result', 'aria-live': 'polite' });
  const button = h('button', {
    type: 'button',
    class: 'pull-now',
    text: 'Pull now',
    onclick: async () => {
      button.disabled = true;
      button.textContent = 'Pulling…';
      replace(message);
      try {
        const { source } = await api.json(url, { method: 'POST' });
        const failed = source.lastError !== null;
        const text = failed
          ? `Pull failed; the settings in force are kept: ${source.lastError}`
          : `Pulled: revision ${source.revision ?? '—'} is in force.`;
        replace(
          message,
          h('span', { class: `notice ${failed ? 'notice-error' : 'notice-ok'}`, role: failed ? 'alert' : null, text }),
        );
        announce?.(text);
      } catch (err) {
        replace(message, errorNotice(err, 'the pull', PULL_PRIVILEGE));
      } finally {
        button.disabled = false;
        button.textContent = 'Pull now';
        done();
      }
    },
  });
  return h('div', { class: 'actions pull' }, button, message);
}

/** `[/settings/source]`: where pulled settings stand (the revision in force, the last pull and error, the remote includes). */
function sourceFacts(src, pullControl) {
  if (!src) return null;
  const pulls = src.pulls ?? {};
  return h(
    'section',
    { class: 'source', 'aria-label': 'Settings source' },
    h('h3', { text: 'Settings source' }),
    facts([
      ['Source', h('code', { class: 'path', text: src.url })],
      [
        'Revision',
        [
          h('code', { text: src.revision ?? '— (nothing pulled yet)' }),
          src.fromCache ? h('span', { class: 'hint', text: ' (the cached pull of an earlier run)' }) : null,
        ],
      ],
      ['Last pull', timeEl(src.lastPull)],
      ['Last success', timeEl(src.lastSuccess)],
      ['Last change', timeEl(src.lastChange)],
      ['Next pull', timeEl(src.nextPull)],
      ['Pulls', `${pulls.changed ?? 0} applied, ${pulls.unchanged ?? 0} unchanged, ${pulls.failed ?? 0} failed`],
      src.lastError ? ['Last error', h('span', { class: 'message source-error', text: src.lastError })] : null,
      ...(src.includes ?? []).map((i) => [
        'Remote include',
        [
          h('code', { class: 'path', text: i.url }),
          ` ${i.revision ?? '— (not pulled yet)'}${i.fromCache ? ' (cached)' : ''}`,
          i.lastError ? h('span', { class: 'message source-error', text: ` ${i.lastError}` }) : null,
        ],
      ]),
    ]),
    pullControl,
  );
}

function problemList(title, items, kind) {
  if (items.length === 0) return null;
  return h(
    'section',
    { class: `problems problems-${kind}`, 'aria-label': title },
    h('h3', { text: `${title} (${items.length})` }),
    h(
      'ul',
      { class: 'problem-list' },
      items.map((p) =>
        h(
          'li',
          { class: `problem problem-${p.severity ?? 'error'}` },
          h(
            'span',
            { class: 'where' },
            h('span', { class: 'line', text: p.line ? `Line ${p.line}${p.col ? `, col ${p.col}` : ''}` : 'File' }),
            p.section ? h('code', { text: ` [${p.section}]${p.key ? ` ${p.key}` : ''}` }) : null,
          ),
          h('span', { class: 'message', text: p.message }),
          p.code ? h('code', { class: 'code', text: p.code }) : null,
        ),
      ),
    ),
  );
}

function driftList(drift) {
  if (drift.length === 0)
    return h('p', {
      class: 'hint drift-none',
      text: 'No drift: every module is loaded exactly when the settings file enables it.',
    });
  return h(
    'section',
    { class: 'drift', 'aria-label': 'Drift' },
    h('h3', { text: `Drift (${drift.length})` }),
    h('p', { class: 'hint', text: 'Modules loaded or unloaded at run time, differing from the settings file:' }),
    h(
      'ul',
      {},
      drift.map((d) =>
        h(
          'li',
          {},
          h('strong', { text: d.module }),
          `: ${d.loaded ? 'loaded' : 'not loaded'}, but ${d.enabled ? 'enabled' : 'not enabled'} in the settings file`,
        ),
      ),
    ),
  );
}

function keyOf(outcome) {
  return outcome.status === 'fulfilled'
    ? JSON.stringify(outcome.value)
    : `error:${outcome.reason?.status}:${outcome.reason?.message}`;
}
