/**
 * Benchmark: queries per second through the core (`check_ok` of CheckHelpers,
 * in process, every call encoding and decoding the plugin messages), and the
 * protobuf encode+decode rate of a typical QueryResponseMessage against
 * JSON.stringify+JSON.parse of the same object in the same run.
 * The two codecs run in alternating slices and each rate is the median of
 * its slices, so that load from other processes hits both alike.
 * Bounded: at most 200,000 queries or 3 s; 7 slices of at most 300 ms or
 * 100,000 round trips per codec.
 */
import { performance } from 'node:perf_hooks';
import { createCore } from '../../src/core/core-impl.js';
import { sink } from '../../src/log.js';
import { agentModule } from '../../src/modules/check-helpers/index.js';
import { decode, encode, header, resultToResponse } from '../../src/core/plugin/codec.js';
import { Plugin } from '../../src/core/plugin/generated/plugin.js';
import { loadSettingsText } from '../../src/settings/model/load.js';
import { moduleView } from '../../src/settings/model/module-view.js';
import { MODULE_SECTIONS } from '../../src/settings/model/module-table.js';
import { inRange } from '../../src/in-range.js';

sink.consoleLevel = 'silent';

const loaded = loadSettingsText('[/modules]\nCheckHelpers = enabled\n', '/tmp/bench-core/agent.ini');
if (!loaded.ok) throw new Error('bench settings invalid');
const snapshot = loaded.snapshot;
const core = createCore({ settings: () => snapshot });
const abort = new AbortController();
const helpers = await agentModule.start({
  name: 'CheckHelpers',
  settings: moduleView(MODULE_SECTIONS.CheckHelpers, snapshot),
  log: sink.logger('bench'),
  signal: abort.signal,
  core,
});

// ---- Queries through the core.
const MAX_QUERIES = 200_000;
const QUERY_MS = 3000;
for (let i = 0; i < 5000; i++) await core.query('check_ok');
const first = await core.query('check_ok');
if (first.result !== 0) throw new Error(`check_ok answered ${first.result}: ${first.message}`);
let n = 0;
const q0 = performance.now();
while (n < MAX_QUERIES && (n % 1000 !== 0 || performance.now() - q0 < QUERY_MS)) {
  await core.query('check_ok', n % 2 === 0 ? [] : ['all', 'good']);
  n++;
}
const qSeconds = (performance.now() - q0) / 1000;
const qps = n / qSeconds;
console.log(
  `core-query: ${n.toLocaleString('en')} check_ok queries in ${qSeconds.toFixed(2)} s: ${fmt(qps)} queries/s (${((1e6 * qSeconds) / n).toFixed(1)} µs each; 3 protobuf encodes and 3 decodes per query: request, handler's response, reply)`,
);

// ---- Codec: one typical QueryResponseMessage.
const response = {
  header: header(Plugin.Header.Type.QUERY_RESPONSE, { sender: 'agent', recipient: 'client' }),
  payload: [
    resultToResponse(
      {
        command: 'check_cpu',
        result: 1,
        message: 'WARNING: CPU load is 83% (5m), 71% (1m), 64% (5s) on host', // ~60 characters
        perf: [
          { alias: 'total 5m', value: 83, unit: '%', warning: 80, critical: 90, minimum: 0, maximum: 100 },
          { alias: 'total 1m', value: 71.5, unit: '%', warning: 80, critical: 90 },
          { alias: 'state', value: 'busy' },
        ],
      },
      1,
    ),
  ],
};
const bytes = encode('QueryResponseMessage', response);
const json = JSON.stringify(response);

const SLICES = 7;
const protobufRates: number[] = [];
const jsonRates: number[] = [];
const protobufRound = (): void => void decode('QueryResponseMessage', encode('QueryResponseMessage', response));
const jsonRound = (): void => void JSON.parse(JSON.stringify(response));
for (let i = 0; i < 20_000; i++) {
  protobufRound();
  jsonRound();
}
for (let s = 0; s < SLICES; s++) {
  protobufRates.push(rate(protobufRound));
  jsonRates.push(rate(jsonRound));
}
const protobuf = median(protobufRates);
const plainJson = median(jsonRates);
console.log(
  `core-query: QueryResponseMessage (1 payload, ${response.payload[0]?.message.length} char message, 3 perf values): protobuf ${bytes.length} bytes, JSON ${json.length} bytes`,
);
console.log(
  `core-query: protobuf encode+decode (with verify): ${fmt(protobuf)} round trips/s (median of ${SLICES} slices)`,
);
console.log(`core-query: JSON.stringify+JSON.parse baseline: ${fmt(plainJson)} round trips/s`);
console.log(`core-query: protobuf/JSON rate ratio ${(protobuf / plainJson).toFixed(2)}x`);
console.log(
  `core-query: query rate vs protobuf round trips: one query costs ${(protobuf / qps).toFixed(1)} protobuf round trips`,
);

abort.abort();
await helpers.stop();

/** Round trips per second of fn over one slice, bounded in count and time. */
function rate(fn: () => void): number {
  const MAX_ROUNDS = 100_000;
  const SLICE_MS = 300;
  let count = 0;
  const t0 = performance.now();
  while (count < MAX_ROUNDS && (count % 500 !== 0 || performance.now() - t0 < SLICE_MS)) {
    fn();
    count++;
  }
  return count / ((performance.now() - t0) / 1000);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return inRange(s, Math.floor(s.length / 2));
}

function fmt(x: number): string {
  return Math.round(x).toLocaleString('en');
}
