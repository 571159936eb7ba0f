import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "tsup";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { zodForCore } from "../../tsup.shared.js";

// Canary of what core's build relies on in Zod's source (tsup.shared.ts, docs/optimisations.md): its translations
// are imported only through `../locales/index.js` of its classic and core modules, and Kith's schemas answer in English
// without them. A failure here means a Zod release changed that: build with KITH_OPTIMISATIONS_OFF=zod-rewrite and
// adapt the plugin. Lives here because the build script it guards is at the workspace's root, where no tests run.

const core = join(import.meta.dirname, "../../packages/core");

/** Zod as core's build inlines it, with or without the rewrite: the bundle's text and its `z`. */
async function bundle(dir: string, rewrite: boolean): Promise<{ text: string; z: typeof import("zod").z }> {
  const entry = join(dir, "entry.ts");
  writeFileSync(entry, 'export { z } from "zod";\n');
  const outDir = join(dir, rewrite ? "rewritten" : "plain");
  await build({
    entry: { zod: entry },
    format: ["esm"],
    outDir,
    target: "node22",
    dts: false,
    silent: true,
    noExternal: ["zod"],
    esbuildPlugins: rewrite ? [zodForCore] : [],
    // Zod resolves from core's dependencies, as in core's build.
    esbuildOptions: (options) => {
      options.nodePaths = [join(core, "node_modules")];
    },
  });
  const file = join(outDir, "zod.js");
  return { text: readFileSync(file, "utf8"), z: (await import(pathToFileURL(file).href)).z };
}

describe("Zod's source as core's build rewrites it", () => {
  let dir: string;
  let plain: Awaited<ReturnType<typeof bundle>>;
  let rewritten: Awaited<ReturnType<typeof bundle>>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "kith-zod-"));
    plain = await bundle(dir, false);
    rewritten = await bundle(dir, true);
  }, 60_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("leaves out the translations, which Zod imports where the build expects them", () => {
    expect(Object.keys(plain.z.locales), "Zod as published carries its translations").toContain("de");
    expect(Object.keys(rewritten.z.locales), "the rewrite's stub took the place of Zod's locales").toEqual([]);
    expect(rewritten.text.length).toBeLessThan(plain.text.length * 0.8);
  });

  it("writes every character of Zod's source in Latin-1", () => {
    const pastLatin1 = (text: string): string[] => [...text].filter((char) => (char.codePointAt(0) ?? 0) > 0xff);
    expect(pastLatin1(plain.text).length, "Zod as published has characters past Latin-1").toBeGreaterThan(0);
    expect(pastLatin1(rewritten.text)).toEqual([]);
  });

  it("still answers in English, as Zod's schemas import English on their own", () => {
    for (const { z } of [plain, rewritten]) {
      const result = z.object({ name: z.string() }).safeParse({ name: 1 });
      expect(result.success).toBe(false);
      expect(result.error?.issues[0]?.message).toBe("Invalid input: expected string, received number");
    }
  });
});
