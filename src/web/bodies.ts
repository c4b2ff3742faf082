/**
 * The request-body validators: precompiled by `npm run gen` from
 * body-schemas.ts (generated/body-validators.js). When the schemas differ
 * from what was generated (an edit without `npm run gen`), they are compiled
 * with ajv at load instead, so a stale file never validates the wrong shape.
 */
import type { Ajv, ValidateFunction } from 'ajv';
import type { LogLevel } from '../log.js';
import { BODY_AJV_OPTIONS, BODY_SCHEMAS, type BodyName } from './body-schemas.js';
import { bodySchemasHash } from './body-hash.js';
import { requirePackage } from '../package-require.js';
import { byName, schemaHash } from './generated/body-validators.js';

export interface ModuleUpdateBody {
  name: string;
  loaded: boolean;
}

export interface SettingsEntryBody {
  path?: string;
  key?: string;
  value?: string | number | boolean;
}

export interface LogPostBody {
  file?: string;
  line?: number;
  level?: LogLevel;
  message?: string;
}

/**
 * bodySchemasHash() of the bundled schemas as the build computed it (src/tools/bundle.mjs), so a
 * start of the bundled agent hashes nothing to know its validators current; undefined file by file.
 */
declare const __bundleBodySchemasHash: string | undefined;
const builtHash = typeof __bundleBodySchemasHash === 'undefined' ? undefined : __bundleBodySchemasHash;
const precompiled = schemaHash === (builtHash ?? bodySchemasHash());
let ajv: Ajv | undefined;

function validator<T>(name: BodyName): ValidateFunction<T> {
  if (precompiled && byName[name]) return byName[name] as ValidateFunction<T>;
  if (!ajv) {
    const { Ajv: AjvClass } = requirePackage('ajv') as { Ajv: new (o: object) => Ajv };
    ajv = new AjvClass(BODY_AJV_OPTIONS);
  }
  return ajv.compile<T>(BODY_SCHEMAS[name]);
}

/** Whether the precompiled validators are in use (false after a schema edit without `npm run gen`). */
export const bodiesPrecompiled = precompiled;

export const validateModuleUpdate = validator<ModuleUpdateBody>('moduleUpdate');
export const validateModuleLoaded = validator<{ loaded: boolean }>('moduleLoaded');
export const validateScriptContent = validator<{ content: string }>('scriptContent');
export const validateLogPost = validator<LogPostBody>('logPost');
export const validateSettingsPut = validator<SettingsEntryBody | SettingsEntryBody[]>('settingsPut');
export const validateSettingsDelete = validator<SettingsEntryBody | SettingsEntryBody[]>('settingsDelete');
export const validateSettingsCommand = validator<{ command: string }>('settingsCommand');
