/**
 * Answer QuerySettingsRequestMessage from the resolved settings: a path and
 * key give the value (as a string AnyDataType); a path without a key gives
 * the section's keys; `fetch_descriptions` adds the schema's title and
 * description. Unknown paths or keys answer with no value. Values the
 * schema marks x-secret (and values from ${env:} / ${file:}) answer as
 * `******`, as in `config-agent settings show` and the API. With `scope` (a
 * module's sections), a path outside them answers as an unknown one: a
 * module reads its own sections only, never another's or the web users.
 */
import { decode, encode, isSet, type Plugin, proto } from './plugin/codec.js';
import { loadSchemaSet } from '../settings/model/schema-set.js';
import { objectSectionPath, type Snapshot } from '../settings/model/snapshot.js';
import { shownValue } from '../settings/model/effective.js';

export function answerSettingsQuery(snapshot: Snapshot, bytes: Uint8Array, scope?: readonly string[]): Uint8Array {
  const request = decode('QuerySettingsRequestMessage', bytes);
  const set = loadSchemaSet();
  const payload: Plugin.QuerySettingsResponseMessage.Response.$Properties[] = [];
  for (const p of request.payload) {
    // node is required (decode throws without it); what it holds is optional.
    const path = p.node.node?.path?.path ?? '';
    const key = p.node.node?.path?.key ?? undefined;
    const found = set.find(path);
    const canonical = found?.canonical ?? path;
    const visible = scope === undefined || inScope(scope, canonical);
    const section = visible ? (snapshot.sections[canonical] ?? objectValues(snapshot, canonical)) : undefined;
    const response: Plugin.QuerySettingsResponseMessage.Response.$Properties = {
      node: p.node,
      ...(p.id != null ? { id: p.id } : {}),
    };
    if (key) {
      const canonicalKey = found?.section.keys.get(key.toLowerCase()) ?? key;
      const value = section?.[canonicalKey];
      if (value !== undefined)
        response.value = {
          type: proto().DataType.STRING,
          string_data: String(
            shownValue(found?.section.schema, canonicalKey, value, snapshot.origins[canonical]?.[canonicalKey]),
          ),
        };
      else if (isSet(p, 'default')) response.value = { type: proto().DataType.STRING, string_data: p.default ?? '' };
      if (p.fetch_descriptions && found && visible) {
        const prop = found.section.schema.properties?.[canonicalKey];
        response.title = canonicalKey;
        response.description = prop?.description ?? '';
      }
    } else {
      response.keys = { key: Object.keys(section ?? {}) };
      if (p.fetch_descriptions && found && visible) {
        response.title = found.section.schema.title ?? canonical;
        response.description = found.section.schema.description ?? '';
      }
    }
    payload.push(response);
  }
  return encode('QuerySettingsResponseMessage', {
    header: {
      type: proto().Header.Type.QUERY_RESPONSE,
      version: proto().Version.VERSION_1,
      ...(request.header.id != null ? { id: request.header.id } : {}),
    },
    payload,
  });
}

function objectValues(snapshot: Snapshot, path: string): Readonly<Record<string, unknown>> | undefined {
  for (const map of [snapshot.targets.agent, snapshot.targets.remote, snapshot.users, snapshot.aliases]) {
    for (const o of map.values()) if (objectSectionPath(o).toLowerCase() === path.toLowerCase()) return o.values;
  }
  return undefined;
}

/** Whether `path` is one of `scope`'s sections or an object under one (a user, a target, an alias). */
function inScope(scope: readonly string[], path: string): boolean {
  const p = path.toLowerCase();
  return scope.some((s) => {
    const own = s.toLowerCase();
    return p === own || (p.startsWith(`${own}/`) && !p.slice(own.length + 1).includes('/'));
  });
}
