/**
 * Measures the heap of a running agent after a full garbage collection,
 * through the agent's inspector (the agent runs with `--inspect=127.0.0.1:0`,
 * a documented Node flag; nothing in the agent's code is for tests): the
 * Chrome DevTools Protocol's `HeapProfiler.collectGarbage`, then
 * `process.memoryUsage()` evaluated in the agent. Run as its own process
 * (`node --experimental-websocket gc-probe.js ws://…`, Node 20's WebSocket
 * client is behind that flag); prints `{"heapUsed":…,"rss":…}` and exits.
 * Bounded: 15 s at most.
 */
const url = process.argv[2];
if (!url) {
  console.error('usage: gc-probe.js ws://127.0.0.1:PORT/UUID');
  process.exit(2);
}
const limit = setTimeout(() => {
  console.error('gc-probe: no answer within 15 s');
  process.exit(1);
}, 15_000);

const ws = new WebSocket(url);
let next = 1;
const waiting = new Map<number, (result: unknown) => void>();
ws.addEventListener('message', (event: MessageEvent) => {
  const msg = JSON.parse(String(event.data)) as { id?: number; result?: unknown; error?: { message: string } };
  if (msg.id === undefined) return;
  if (msg.error) {
    console.error(`gc-probe: ${msg.error.message}`);
    process.exit(1);
  }
  waiting.get(msg.id)?.(msg.result);
});
ws.addEventListener('error', () => {
  console.error('gc-probe: cannot connect to the inspector');
  process.exit(1);
});

function call(method: string, params: Record<string, unknown> = {}): Promise<unknown> {
  const id = next++;
  return new Promise((res) => {
    waiting.set(id, res);
    ws.send(JSON.stringify({ id, method, params }));
  });
}

ws.addEventListener('open', () => {
  measure().catch((err: unknown) => {
    console.error(`gc-probe: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  });
});

async function measure(): Promise<void> {
  // Twice: objects with finalizers or weak references need a second pass.
  await call('HeapProfiler.collectGarbage');
  await call('HeapProfiler.collectGarbage');
  const r = (await call('Runtime.evaluate', {
    expression: 'JSON.stringify(process.memoryUsage())',
    returnByValue: true,
  })) as { result: { value: string } };
  const usage = JSON.parse(r.result.value) as { heapUsed: number; rss: number };
  console.log(JSON.stringify({ heapUsed: usage.heapUsed, rss: usage.rss }));
  clearTimeout(limit);
  ws.close();
}
