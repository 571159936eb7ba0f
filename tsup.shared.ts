import { readFile } from "node:fs/promises";
import type { Options } from "tsup";

type EsbuildPlugin = NonNullable<Options["esbuildPlugins"]>[number];

/**
 * Dependencies inlined in each package's build. Kysely is 257 module files: Node's ES module loader spends about a
 * millisecond on each (resolution, package.json lookups, compilation), 0.4 s of a server's start, against 40 ms
 * inlined. Kysely's query nodes are plain objects, so a copy per package is safe.
 */
const INLINED = ["kysely"];

/** The build every package shares: ESM for Node 22+, with declarations and source maps. */
export function libraryBuild(entry: Record<string, string>, overrides: Options = {}): Options {
  return { entry, format: ["esm"], dts: true, sourcemap: true, clean: true, target: "node22", noExternal: INLINED, ...overrides };
}

/**
 * Zod as core's build inlines it.
 *
 * Its translations of its messages into 60 languages, each a module file, are left out: `z.locales` and
 * `z.core.locales` are their only importers, and Kith, which answers in English, reads neither (Zod's schemas import
 * English on their own). An inlined Zod gets empty namespaces there instead.
 *
 * V8 keeps a module's source as a string of one byte a character only while every character is Latin-1: one em dash
 * in a comment of Zod's made the whole 1.2 MB chunk two bytes a character. esbuild writes strings and identifiers in
 * ASCII but keeps comments as they are, so characters past Latin-1 are written as escapes, which mean the same in code.
 */
export const zodForCore: EsbuildPlugin = {
  name: "zod-for-core",
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]v4[\\/](?:classic|core)[\\/]/.test(args.importer) ? { path: "zod-locales", namespace: "zod-locales" } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "zod-locales" }, () => ({ contents: "export {};", loader: "js" }));
    build.onLoad({ filter: /[\\/]zod[\\/]v4[\\/].*\.js$/ }, async (args) => {
      const source = await readFile(args.path, "utf8");
      const latin1 = source.replace(/[\u0100-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
      return { contents: latin1, loader: "js" };
    });
  },
};

/**
 * Whether the build leaves Zod as it is: `KITH_OPTIMISATIONS_OFF` names `zod-rewrite` (or `all`), as the server's
 * variable of that name does for its own speed-ups (docs/optimisations.md).
 */
function zodRewriteOff(): boolean {
  const off = (process.env.KITH_OPTIMISATIONS_OFF ?? "").split(",").map((name) => name.trim());
  return off.includes("zod-rewrite") || off.includes("all");
}

/**
 * The build of `@kith/core`, which inlines Zod as well and passes it on to the server (`z` from `@kith/core`): Zod is
 * 95 module files, 60 of them the translations, which loaded one by one took about a tenth of a server's start. Only
 * core holds a copy, so the server and core share one as before.
 */
export function coreBuild(entry: Record<string, string>, overrides: Options = {}): Options {
  return libraryBuild(entry, { noExternal: [...INLINED, "zod"], esbuildPlugins: zodRewriteOff() ? [] : [zodForCore], ...overrides });
}
