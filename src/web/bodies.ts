/**
 * JSON Schemas of the request bodies, next to the routes that use them.
 * They list what a route reads; other fields are allowed and ignored.
 */
import { bodyValidator } from './body.js';

export interface ModuleUpdateBody {
  name: string;
  loaded: boolean;
}

/** PUT /api/v1/modules */
export const validateModuleUpdate = bodyValidator<ModuleUpdateBody>({
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 200 },
    loaded: { type: 'boolean' },
  },
  required: ['name', 'loaded'],
});

/** PUT /api/v1/modules/:module */
export const validateModuleLoaded = bodyValidator<{ loaded: boolean }>({
  type: 'object',
  properties: { loaded: { type: 'boolean' } },
  required: ['loaded'],
});

/** PUT /api/v1/scripts/:runtime/:script with a JSON body. */
export const validateScriptContent = bodyValidator<{ content: string }>({
  type: 'object',
  properties: { content: { type: 'string' } },
  required: ['content'],
});
