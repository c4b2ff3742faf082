/**
 * Modules view (modules.list): each module with its loaded and enabled
 * state, run state, last outcome, error and drift, and the buttons that
 * follow the module's load_url / unload_url / enable_url / disable_url.
 * Load and unload change the running agent only (drift shows); enable and
 * disable edit the settings file, which the reconciler then applies.
 * A 403 on a button names the missing privilege in the view.
 */
import { h, replace } from '../dom.js';
import { viewHeader, errorNotice, flag, refreshButton } from './common.js';

const ACTIONS = {
  load: { label: 'Load', privilege: 'modules.load', done: 'loaded', what: 'loading modules', slot: 0 },
  unload: { label: 'Unload', privilege: 'modules.unload', done: 'unloaded', what: 'unloading modules', slot: 0 },
  enable: { label: 'Enable', privilege: 'modules.enable', done: 'enabled', what: 'enabling modules', slot: 1 },
  disable: { label: 'Disable', privilege: 'modules.disable', done: 'disabled', what: 'disabling modules', slot: 1 },
};

export function mountModules(root, { api, index, announce, allowed, can }) {
  const message = h('div', { class: 'view-message', 'aria-live': 'polite' });
  const list = h('div', { class: 'module-list' });
  let disposed = false;

  replace(
    root,
    viewHeader(
      'Modules',
      refreshButton(() => refresh()),
    ),
    h('p', {
      class: 'hint',
      text: 'Load and Unload change the running agent only (the difference from the settings file shows as drift). Enable and Disable edit [/modules] in the settings file.',
    }),
    message,
    list,
  );
  // The sign-in probe already got 403: say so without asking again (Refresh retries).
  if (!allowed) replace(list, errorNotice({ status: 403 }, 'the module list', 'modules.list'));
  else refresh();

  async function refresh() {
    try {
      const modules = await api.json(index.modules_url);
      if (disposed) return;
      replace(list, modules.length === 0 ? h('p', { text: 'No modules.' }) : modules.map((m) => card(m)));
    } catch (err) {
      if (!disposed) replace(list, errorNotice(err, 'the module list', 'modules.list'));
    }
  }

  function card(m) {
    const el = h('article', {
      class: `card module${m.drift ? ' module-drift' : ''}`,
      dataset: { module: m.name },
      'aria-labelledby': `module-${m.name}`,
    });
    fill(el, m);
    return el;
  }

  function fill(el, m) {
    el.className = `card module${m.drift ? ' module-drift' : ''}${m.state === 'failed' ? ' module-failed' : ''}`;
    replace(
      el,
      h(
        'h2',
        { id: `module-${m.name}` },
        m.name,
        m.title ? h('span', { class: 'subtitle', text: ` ${m.title}` }) : null,
      ),
      m.description ? h('p', { class: 'description', text: m.description }) : null,
      h(
        'dl',
        { class: 'module-facts' },
        h('div', {}, h('dt', { text: 'Loaded' }), h('dd', {}, flag(m.loaded))),
        h('div', {}, h('dt', { text: 'Enabled' }), h('dd', {}, flag(m.enabled))),
        h(
          'div',
          {},
          h('dt', { text: 'State' }),
          h('dd', {}, h('span', { class: `state state-${m.state}`, text: m.state ?? '—' })),
        ),
        h('div', {}, h('dt', { text: 'Last outcome' }), h('dd', { text: m.outcome ?? '—' })),
        m.drift
          ? h(
              'div',
              { class: 'drift-flag' },
              h('dt', { text: 'Drift' }),
              h('dd', { text: m.loaded ? 'loaded but not enabled in the file' : 'enabled in the file but not loaded' }),
            )
          : null,
      ),
      m.error ? h('p', { class: 'notice notice-error module-error' }, h('strong', { text: 'Error: ' }), m.error) : null,
      h(
        'div',
        { class: 'actions' },
        m.loaded ? button(el, m, 'unload') : button(el, m, 'load'),
        m.enabled ? button(el, m, 'disable') : button(el, m, 'enable'),
      ),
    );
  }

  function button(el, m, action) {
    const spec = ACTIONS[action];
    const url = m[`${action}_url`];
    // An action the user's role does not grant is not offered (the API would answer 403).
    if (!url || !can(spec.privilege)) return null;
    return h('button', {
      type: 'button',
      class: action === 'unload' || action === 'disable' ? 'secondary' : '',
      'aria-label': `${spec.label} ${m.name}`,
      text: spec.label,
      onclick: async (event) => {
        const selfStop = m.name === 'WEBServer' && (action === 'unload' || action === 'disable');
        if (selfStop && !window.confirm(`${spec.label} WEBServer? This page is served by it and will stop working.`))
          return;
        const btn = event.currentTarget;
        btn.disabled = true;
        btn.textContent = `${spec.label}…`;
        try {
          const answer = await api.json(url);
          if (disposed) return;
          const text = answer.message ?? `${m.name} ${spec.done}`;
          // A command that ran but failed (a module that does not start) answers 200 with result 2.
          const failed = typeof answer.result === 'number' && answer.result !== 0;
          replace(
            message,
            h('p', { class: `notice ${failed ? 'notice-error' : 'notice-ok'}`, role: failed ? 'alert' : null, text }),
          );
          announce(text);
          if (answer.module) {
            fill(el, answer.module);
            // The pressed button was replaced: keep the keyboard where it was.
            el.querySelectorAll('.actions button')[spec.slot]?.focus();
          }
          // enable/disable are applied by the reconciler a moment later: show where it ended up.
          if (action === 'enable' || action === 'disable') setTimeout(() => !disposed && refresh(), 800);
        } catch (err) {
          if (disposed) return;
          replace(message, errorNotice(err, spec.what, spec.privilege));
          btn.disabled = false;
          btn.textContent = spec.label;
        }
      },
    });
  }

  return {
    dispose() {
      disposed = true;
    },
  };
}
