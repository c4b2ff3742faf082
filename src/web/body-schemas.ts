/**
 * JSON Schemas of the request bodies, by name. They list what a route reads;
 * other fields are allowed and ignored. `npm run gen` precompiles them with
 * ajv's standalone code into generated/body-validators.js, so the web server
 * neither loads ajv's compiler nor compiles anything when it starts
 * (bodies.ts picks the validators).
 */
import { LEVELS } from '../log.js';

const settingsEntry = {
  type: 'object',
  properties: {
    path: { type: 'string', minLength: 1, maxLength: 1000 },
    key: { type: 'string', minLength: 1, maxLength: 1000 },
    value: { anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] },
  },
};

/** ajv options of the body validators (the generator and the run-time fallback use the same). */
export const BODY_AJV_OPTIONS = { allErrors: true, strict: true } as const;

export const BODY_SCHEMAS = {
  /** PUT /api/v1/modules */
  moduleUpdate: {
    type: 'object',
    properties: {
      name: { type: 'string', minLength: 1, maxLength: 200 },
      loaded: { type: 'boolean' },
    },
    required: ['name', 'loaded'],
  },
  /** PUT /api/v1/modules/:module */
  moduleLoaded: {
    type: 'object',
    properties: { loaded: { type: 'boolean' } },
    required: ['loaded'],
  },
  /** PUT /api/v1/scripts/:runtime/:script with a JSON body. */
  scriptContent: {
    type: 'object',
    properties: { content: { type: 'string' } },
    required: ['content'],
  },
  /** POST /api/v1/logs */
  logPost: {
    type: 'object',
    properties: {
      file: { type: 'string', maxLength: 1000 },
      line: { type: 'integer', minimum: 0, maximum: 2147483647 },
      level: { type: 'string', enum: [...LEVELS] },
      message: { type: 'string' },
    },
  },
  /** PUT /api/v1/settings{/path} */
  settingsPut: {
    anyOf: [
      { ...settingsEntry, required: ['key'] },
      { type: 'array', minItems: 1, maxItems: 10_000, items: { ...settingsEntry, required: ['key'] } },
    ],
  },
  /** DELETE /api/v1/settings{/path} with a body. */
  settingsDelete: {
    anyOf: [settingsEntry, { type: 'array', minItems: 1, maxItems: 10_000, items: settingsEntry }],
  },
  /** POST /api/v1/settings/command */
  settingsCommand: {
    type: 'object',
    properties: { command: { type: 'string', maxLength: 100 } },
    required: ['command'],
  },
} as const satisfies Record<string, Record<string, unknown>>;

export type BodyName = keyof typeof BODY_SCHEMAS;
