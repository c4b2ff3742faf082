/** sha256 of the request-body schemas: the generated validators record it, bodies.ts compares it. */
import { createHash } from 'node:crypto';
import { BODY_AJV_OPTIONS, BODY_SCHEMAS } from './body-schemas.js';

export function bodySchemasHash(): string {
  return createHash('sha256')
    .update(JSON.stringify([BODY_AJV_OPTIONS, BODY_SCHEMAS]))
    .digest('hex');
}
