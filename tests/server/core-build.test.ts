import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "tsup";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { coreBuild, zodForCore } from "../../tsup.shared.js";

const CORE = resolve(import.meta.dirname, "../../packages/core");

// Zod as core's build inlines it, built with the same settings from an entry of its own inside the core package (so
// `zod` resolves as it does for core's sources).
describe("Zod in core's build", () => {
  let workDir: string;
  let output: string;

  beforeAll(async () => {
    workDir = mkdtempSync(join(CORE, ".zod-build-"));
    writeFileSync(join(workDir, "entry.ts"), 'export { z } from "zod";\n');
    // The rewrite stated, as KITH_OPTIMISATIONS_OFF=zod-rewrite would leave it out: it is what these tests are about.
    const options = coreBuild({ entry: join(workDir, "entry.ts") }, { esbuildPlugins: [zodForCore] });
    await build({ ...options, outDir: join(workDir, "dist"), dts: false, sourcemap: false, silent: true, config: false });
    const [file] = readdirSync(join(workDir, "dist")).filter((name) => name.endsWith(".js"));
    if (!file) throw new Error("the build wrote no JavaScript");
    output = join(workDir, "dist", file);
  }, 60_000);
  afterAll(() => rmSync(workDir, { recursive: true, force: true }));

  it("leaves out the translations but English", () => {
    const modules = [...readFileSync(output, "utf8").matchAll(/^\/\/ .*zod\/v4\/locales\/(\S+)$/gm)].map((match) => match[1]);
    expect(modules).toEqual(["en.js"]);
  });

  it("is Latin-1 throughout, so Node keeps its source one byte a character", () => {
    expect(readFileSync(output, "utf8")).not.toMatch(/[\u0100-\uffff]/);
  });

  it("validates and answers in English as Zod from node_modules does", async () => {
    const { z } = (await import(pathToFileURL(output).href)) as typeof import("zod");
    expect(z.string().safeParse(1).error?.issues[0]?.message).toBe("Invalid input: expected string, received number");
    expect(z.url().safeParse("no url").error?.issues[0]?.message).toBe("Invalid URL");
    expect(z.object({ at: z.iso.datetime() }).safeParse({ at: "2026-11-24T07:00:00Z" }).success).toBe(true);
    expect(Object.keys(z.locales)).toEqual([]);
  });
});
