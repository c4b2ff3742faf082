/**
 * Schedules view (schedules.list): the Scheduler's schedules, one row
 * each, with the query it runs, interval, channel and target, last run
 * (time, status, message), next run and the counters (runs, submitted,
 * skipped because the previous run still ran). Refreshes every 5 s while
 * shown, and on demand.
 */
import { h, replace, timeEl } from '../dom.js';
import { viewHeader, errorNotice, refreshButton } from './common.js';

const STATUS_CSS = { OK: 'ok', WARNING: 'warning', CRITICAL: 'critical', UNKNOWN: 'unknown' };

export function mountSchedules(root, { api, index, allowed }) {
  const box = h('div', { class: 'log-box' });
  let disposed = false;
  let timer = null;

  replace(
    root,
    viewHeader(
      'Schedules',
      refreshButton(() => refresh()),
    ),
    h('p', {
      class: 'hint',
      text: 'Queries the Scheduler runs at their interval; each result goes to its channel (NSCA, ICINGA) as a passive check. Skipped: runs that were due while the previous run still ran.',
    }),
    box,
  );
  if (!allowed) replace(box, errorNotice({ status: 403 }, 'the schedules', 'schedules.list'));
  else refresh();

  async function refresh() {
    clearTimeout(timer);
    try {
      const rows = await api.json(index.schedules_url);
      if (disposed) return;
      replace(
        box,
        rows.length === 0 ? h('p', { text: 'No schedules (is the Scheduler module loaded?).' }) : table(rows),
      );
      timer = setTimeout(refresh, 5000);
    } catch (err) {
      if (!disposed) replace(box, errorNotice(err, 'the schedules', 'schedules.list'));
    }
  }

  function table(rows) {
    const head = [
      'Schedule',
      'Query',
      'Every',
      'Channel',
      'Last run',
      'Status',
      'Next run',
      'Runs',
      'Submitted',
      'Skipped',
    ];
    return h(
      'table',
      { class: 'schedules stack' },
      h('caption', { class: 'visually-hidden', text: 'Schedules' }),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          head.map((t) => h('th', { scope: 'col', text: t })),
        ),
      ),
      h(
        'tbody',
        {},
        rows.map((r) => row(r)),
      ),
    );
  }

  function row(r) {
    const cell = (label, ...children) => h('td', { dataset: { label } }, ...children);
    if (r.problem)
      return h(
        'tr',
        { dataset: { schedule: r.name } },
        cell('Schedule', h('code', { text: r.name })),
        h('td', { colspan: '9', class: 'notice-error', text: r.problem }),
      );
    const status = r.last_status
      ? h('span', {
          class: `level status-${STATUS_CSS[r.last_status] ?? 'unknown'}`,
          title: r.last_message ?? '',
          text: r.last_status,
        })
      : '—';
    return h(
      'tr',
      { dataset: { schedule: r.name } },
      cell(
        'Schedule',
        h('code', { text: r.name }),
        r.alias !== r.name ? h('span', { class: 'hint', text: ` as ${r.alias}` }) : null,
      ),
      cell('Query', h('code', { text: r.command })),
      cell('Every', `${r.interval_s} s`),
      cell('Channel', r.channel, r.target ? h('span', { class: 'hint', text: ` → ${r.target}` }) : null),
      cell('Last run', r.last_run ? timeEl(r.last_run) : 'not yet'),
      cell('Status', status, r.last_message ? h('div', { class: 'hint', text: r.last_message }) : null),
      cell('Next run', r.next_run ? timeEl(r.next_run) : '—'),
      cell('Runs', String(r.runs)),
      cell('Submitted', String(r.submitted)),
      cell('Skipped', String(r.skipped)),
    );
  }

  return {
    dispose() {
      disposed = true;
      clearTimeout(timer);
    },
  };
}
