import type { Options } from "tsup";

/**
 * Dependencies inlined in each package's build. Kysely is 257 module files: Node's ES module loader spends about a
 * millisecond on each (resolution, package.json lookups, compilation), 0.4 s of a server's start, against 40 ms
 * inlined. Kysely's query nodes are plain objects, so a copy per package is safe. Zod is not inlined: the server and
 * core share one copy from node_modules, and a copy in each build costs more memory than its 95 files.
 */
const INLINED = ["kysely"];

/** The build every package shares: ESM for Node 22+, with declarations and source maps. */
export function libraryBuild(entry: Record<string, string>, overrides: Options = {}): Options {
  return { entry, format: ["esm"], dts: true, sourcemap: true, clean: true, target: "node22", noExternal: INLINED, ...overrides };
}
