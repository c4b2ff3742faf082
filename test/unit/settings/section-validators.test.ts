/**
 * The precompiled section validators (src/settings/generated/validators.js):
 * in use for the package's schemas, and reading the schema set's own parsed
 * files (schemaFile()) instead of a copy of each in their code: what they
 * report (the allowed values of an enum, an unknown key) comes from the
 * very objects the settings code reads, with the same words ajv gives.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadSchemaSet, schemaFile } from '../../../src/settings/model/schema-set.js';
import { usesPrecompiled, validatorFor } from '../../../src/settings/model/ajv-instance.js';

void test('the precompiled validators are in use and report from the schema set objects', () => {
  const set = loadSchemaSet();
  assert.equal(usesPrecompiled(set), true);
  const log = set.files.get('modules/log.schema.json');
  assert.ok(log);
  assert.equal(schemaFile('modules/log.schema.json'), log, 'the set object itself, not a copy');
  assert.equal(schemaFile('modules/no-such.schema.json'), undefined);
  const validate = validatorFor(set, 'modules/log.schema.json');
  assert.equal(validate({ level: 'loud', colour: true }), false);
  const enumError = validate.errors?.find((e) => e.keyword === 'enum');
  assert.ok(enumError, JSON.stringify(validate.errors));
  assert.equal(enumError.params.allowedValues, log.properties?.level?.enum, 'the enum of the set object');
  assert.deepEqual(enumError.params.allowedValues, ['debug', 'info', 'warning', 'error', 'critical']);
  assert.equal(validate({ level: 'info' }), true);
});
