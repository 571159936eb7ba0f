import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { NODE_FLAGS } from "../support/federation-harness.js";

const ROOT = resolve(import.meta.dirname, "../..");
const RECORDER = join(ROOT, "tests/support/resolved-modules.mjs");
const run = promisify(execFile);

/**
 * Fedify, with JSON-LD, OpenTelemetry and the Temporal polyfill, is loaded on a server's first federation use
 * (deferred-federation.ts): loaded at start it costs about 30 MB of idle memory and 0.15 s of start-up. An export of
 * core's main entry that imports it (as the compact activity reader's did) loads it at start without failing anything
 * else, so the modules that loading the server's entry resolves are listed here.
 */
const LOADED_LATER = [/\/@fedify\//, /\/jsonld\//, /\/@opentelemetry\//, /\/@js-temporal\//];

describe("the modules a server loads to start", () => {
  const dir = mkdtempSync(join(tmpdir(), "kith-start-modules-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** The URLs resolved by importing `entry` (and what it imports) in a fresh Node process run with `flags`. */
  async function resolvedBy(flags: readonly string[], entry: string, name: string): Promise<string[]> {
    const log = join(dir, `${name}.txt`);
    await run(
      process.execPath,
      [...flags, "--import", RECORDER, "--input-type=module", "-e", `await import(${JSON.stringify(pathToFileURL(entry).href)});`],
      {
        env: { ...process.env, KITH_RESOLVED_MODULES: log },
      },
    );
    return readFileSync(log, "utf8").split("\n").filter(Boolean);
  }

  it("leave Fedify and what it brings for later, from the sources", async () => {
    const modules = await resolvedBy(NODE_FLAGS, join(ROOT, "apps/server/src/index.ts"), "sources");
    expect(modules.some((url) => url.endsWith("/packages/core/src/index.ts"))).toBe(true);
    expect(modules.filter((url) => LOADED_LATER.some((pattern) => pattern.test(url)))).toEqual([]);
  });

  it.runIf(process.env.KITH_TEST_SERVER === "dist")("leave Fedify and what it brings for later, from the build", async () => {
    const modules = await resolvedBy(["--no-warnings"], join(ROOT, "apps/server/dist/index.js"), "build");
    expect(modules.some((url) => url.endsWith("/packages/core/dist/index.js"))).toBe(true);
    expect(modules.filter((url) => LOADED_LATER.some((pattern) => pattern.test(url)))).toEqual([]);
  });
});
