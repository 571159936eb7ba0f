import type { Options } from "tsup";

/** The build every package shares: ESM for Node 22+, with declarations and source maps. */
export function libraryBuild(entry: Record<string, string>, overrides: Options = {}): Options {
  return { entry, format: ["esm"], dts: true, sourcemap: true, clean: true, target: "node22", ...overrides };
}
