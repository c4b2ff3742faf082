/**
 * The validated, resolved settings: the one thing the reconciler, the
 * modules and the API read. Built by settings/model/load.ts, deep-frozen, never
 * mutated; a reload builds a new one.
 */

/** Where a value came from in the settings file. */
export interface Origin {
  file: string;
  line: number;
  col: number;
  section: string;
  key: string;
  /** For object sections (targets, users): the object the value was inherited from. */
  object?: string;
  /** The value came from `${env:}` or `${file:}`: never show it (settings/model/secrets.ts). */
  secret?: true;
}

/** A resolved object (client target or web user): own keys win over inherited ones. */
export interface ResolvedObject {
  name: string;
  /** Section path of the object, or of the container for one-liners. */
  path: string;
  isTemplate: boolean;
  /** Keys with schema defaults applied, variables expanded, types coerced. */
  values: Readonly<Record<string, unknown>>;
  /** For every key that was set somewhere in the chain: where. Keys absent here are defaults. */
  origins: Readonly<Record<string, Origin>>;
  /** The chain of parents followed, starting with this object's name. */
  chain: readonly string[];
}

export interface Snapshot {
  /** Absolute path of the settings file. */
  readonly file: string;
  /** sha256 hex of the file's bytes; with includes, one hash over every file of the tree (settings/store/includes.ts). */
  readonly hash: string;
  /** Every file the settings were read from (the main file last, after what it includes), each with the sha256 of its bytes. */
  readonly sources: readonly { readonly file: string; readonly hash: string }[];
  /** The remote includes the local files name (`https://` values of [/includes]), each with its cache file. */
  readonly remoteIncludes?: readonly { readonly url: string; readonly cache: string }[];
  /** Values read from `${env:}` / `${file:}`, longest first: what maskSecrets hides in messages and logs. */
  readonly secretValues: readonly string[];
  /** Path variables after [/paths] overrides: base-path, state, certificate-path, scripts, temp. */
  readonly variables: Readonly<Record<string, string>>;
  /** Module name -> enabled, for every module of the catalogue. */
  readonly modules: Readonly<Partial<Record<string, boolean>>>;
  /**
   * Every registered fixed section, keyed by its canonical path, with schema
   * defaults applied, variables expanded and values coerced. Sections that the
   * file does not contain are present with their defaults.
   */
  readonly sections: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  /** Origins of values that the file sets, by canonical section path then key. */
  readonly origins: Readonly<Record<string, Readonly<Record<string, Origin>>>>;
  /** Resolved client targets by client (`agent`, `remote`, `nsca`, `icinga`), templates included. */
  readonly targets: Readonly<Record<TargetClient, ReadonlyMap<string, ResolvedObject>>>;
  /** Resolved web users (templates included; check isTemplate). */
  readonly users: ReadonlyMap<string, ResolvedObject>;
  /** Resolved query aliases of [/settings/external scripts/alias] (templates included; check isTemplate). */
  readonly aliases: ReadonlyMap<string, ResolvedObject>;
  /** Resolved schedules of [/settings/scheduler/schedules] (templates included; check isTemplate). */
  readonly schedules: ReadonlyMap<string, ResolvedObject>;
  /** Role name -> privileges; the built-in role legacy holds `*`. */
  readonly roles: ReadonlyMap<string, readonly string[]>;
}

/** The clients with a targets section. */
export type TargetClient = 'agent' | 'remote' | 'nsca' | 'icinga';

/** Every map of resolved objects of a snapshot: targets, users, aliases, schedules. */
export function objectMaps(
  s: Pick<Snapshot, 'targets' | 'users' | 'aliases' | 'schedules'>,
): ReadonlyMap<string, ResolvedObject>[] {
  return [s.targets.agent, s.targets.remote, s.targets.nsca, s.targets.icinga, s.users, s.aliases, s.schedules];
}

/**
 * The section path an object is known by, `<container>/<name>`, also for a
 * one-liner (whose `path` is the container section it was written in).
 */
export function objectSectionPath(o: ResolvedObject): string {
  return o.path.endsWith(`/${o.name}`) ? o.path : `${o.path}/${o.name}`;
}

/**
 * Freeze what modules read: the snapshot, its sections and their values,
 * the maps' objects and their values. Origins of objects are left alone:
 * freezing every origin of 10,000 targets costs more than the rest of the
 * load, and nothing writes to them after resolution.
 */
export function freezeSnapshot(s: Snapshot): Snapshot {
  for (const v of Object.values(s.sections)) if (!Object.isFrozen(v)) Object.freeze(v);
  for (const v of Object.values(s.origins)) {
    if (Object.isFrozen(v)) continue; // shared with an earlier load of the same reader
    for (const o of Object.values(v)) Object.freeze(o);
    Object.freeze(v);
  }
  for (const map of objectMaps(s)) {
    for (const o of map.values()) {
      if (Object.isFrozen(o)) continue; // memoized by an earlier load of the same reader (objects.ts)
      Object.freeze(o.values);
      Object.freeze(o);
    }
  }
  Object.freeze(s.sections);
  Object.freeze(s.origins);
  Object.freeze(s.variables);
  Object.freeze(s.modules);
  Object.freeze(s.targets);
  return Object.freeze(s);
}
