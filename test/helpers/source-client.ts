/**
 * The settings source of a running agent through its API, for the
 * `[/settings/source]` tests: the status's `source`, a pull, the first pull
 * awaited (bounded), and the value of one key of the effective settings;
 * and settings for a server to hand out that check_nrpe can read back.
 */
import { webRequest, type WebResponse } from './web-client.js';
import { waitUntil } from './wait-until.js';

export interface SourceState {
  url: string;
  revision: string | null;
  lastError: string | null;
  lastSuccess: string | null;
  fromCache: boolean;
  pulls: { changed: number; unchanged: number; failed: number };
}

export interface SourceClient {
  api(path: string, method?: string): Promise<WebResponse>;
  status(): Promise<SourceState>;
  pull(): Promise<SourceState>;
  /** Wait until the first pull of the agent is done (applied or failed) and return the state then. */
  firstPull(): Promise<SourceState>;
  value(path: string, key: string): Promise<string | undefined>;
}

export function sourceClient(port: number, password: string): SourceClient {
  const api = (path: string, method = 'GET'): Promise<WebResponse> =>
    webRequest(`https://127.0.0.1:${port}${path}`, { method, user: 'root', password, timeoutMs: 20_000 });
  const status = async (): Promise<SourceState> =>
    (await api('/api/v1/settings/status')).json<{ source: SourceState }>().source;
  return {
    api,
    status,
    pull: async () => (await api('/api/v1/settings/pull', 'POST')).json<{ source: SourceState }>().source,
    async firstPull() {
      let s: SourceState | undefined;
      await waitUntil(
        async () => {
          s = await status();
          return s.pulls.changed + s.pulls.failed > 0;
        },
        20_000,
        'the first pull',
      );
      return s as SourceState;
    },
    value: async (path, key) =>
      (await api(`/api/v1/settings${path}`)).json<{ key: string; value: string }[]>().find((e) => e.key === key)?.value,
  };
}

/** Pulled settings that enable RemoteServer (port 0, loopback) and an alias `check_pulled` answering `answer`. */
export function nrpeAliasSettings(answer: string): string {
  return [
    '[/modules]',
    'CheckHelpers = enabled',
    'CheckExternalScripts = enabled',
    'RemoteServer = enabled',
    '[/settings/remote/server]',
    'port = 0',
    'bind to = 127.0.0.1',
    'allowed hosts = 127.0.0.1',
    '[/settings/external scripts/alias]',
    `check_pulled = check_ok "${answer}"`,
    '',
  ].join('\n');
}

/** A local settings file for the source tests: the web server on 127.0.0.1, port 0 (the API, root with `password`), the state folder, then `lines`. */
export function bootIni(state: string, password: string, lines: readonly string[]): string {
  return [
    '[/modules]',
    'WEBServer = enabled',
    '[/paths]',
    `state = ${state}`,
    '[/settings/default]',
    `password = ${password}`,
    'allowed hosts = 127.0.0.1',
    '[/settings/WEB/server]',
    'port = 0s',
    'bind to = 127.0.0.1',
    ...lines,
    '',
  ].join('\n');
}
