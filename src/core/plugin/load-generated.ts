/**
 * The generated protobuf code (generated/plugin.js, with protobufjs), loaded at its first use
 * rather than when the agent starts: a start encodes no message until the first query, log entry
 * or settings request crosses the plugin boundary, and the module bodies of the ~100 message
 * classes and of protobufjs took about 0.45 ms of every start (issue 41). The load is synchronous,
 * so encode() and decode() stay synchronous: `require` in the bundle, where esbuild makes it
 * the generated module's lazy initialiser (src/tools/bundle.mjs), and node's require of an ES
 * module when the code runs file by file (dist/src/, the unit tests), which gives the very module
 * instance an `import` of it gives.
 */
import type * as Generated from './generated/plugin.js';
import type ProtobufMinimal from 'protobufjs/minimal.js';

let loaded: typeof Generated.Plugin | undefined;

/** The generated `Plugin` namespace: the message classes and the enums of proto/plugin.proto. */
export function proto(): typeof Generated.Plugin {
  return (loaded ??= load());
}

function load(): typeof Generated.Plugin {
  const protobuf = requireHere('protobufjs/minimal.js') as typeof ProtobufMinimal;
  // int64 fields (ids, integer performance data) decode as numbers, exact up to 2^53, which is all
  // the agent keeps of them (codec.ts num()); not as long.js objects. The bundle leaves long.js out
  // (src/tools/bundle.mjs); this makes the unbundled code (the unit tests) decode the same way.
  protobuf.util.Long = null as unknown as typeof protobuf.util.Long;
  protobuf.configure();
  return (requireHere('./generated/plugin.js') as typeof Generated).Plugin;
}

/**
 * require() beside this file: the bundle's own `require`, which esbuild resolves at build time
 * (each call names its module literally, below), or node's, made for this file, in an ES module.
 */
function requireHere(id: './generated/plugin.js' | 'protobufjs/minimal.js'): unknown {
  if (typeof require === 'function')
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the bundle's require, resolved by esbuild (see above)
    return id === './generated/plugin.js' ? require('./generated/plugin.js') : require('protobufjs/minimal.js');
  return process.getBuiltinModule('node:module').createRequire(import.meta.url)(id);
}
