/**
 * What the signed-in user may do, from the privileges the API index names
 * (GET /api/v1: `privileges`), matched as the agent matches them
 * (src/settings/model/privileges.ts): equal, `*`, or a rule ending in `*` that
 * covers what starts with the text before it. The UI offers only the
 * actions these grant; the API still checks every request.
 */

/** A checker for `privileges` (an array of rules); no list: nothing is granted. */
export function privilegeChecker(privileges) {
  const rules = Array.isArray(privileges) ? privileges.map((r) => String(r).trim()).filter(Boolean) : [];
  return (required) =>
    rules.some(
      (rule) => rule === '*' || rule === required || (rule.endsWith('*') && required.startsWith(rule.slice(0, -1))),
    );
}
