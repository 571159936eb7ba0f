import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";

/** The built command line, as `bash scripts/kith` and `pnpm kith` run it. */
const CLI = resolve(import.meta.dirname, "../../apps/server/dist/cli.js");

function run(args: string[], env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH ?? "", ...env }, stdio: ["ignore", "pipe", "pipe"] });
}

function collect(child: ChildProcess): { stdout: () => string; stderr: () => string; exit: Promise<number | null> } {
  let out = "";
  let err = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    err += chunk.toString();
  });
  const exit = new Promise<number | null>((done) => child.on("exit", (code) => done(code)));
  return { stdout: () => out, stderr: () => err, exit };
}

async function waitFor(read: () => string, pattern: RegExp, timeoutMs = 15_000): Promise<RegExpMatchArray> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const match = read().match(pattern);
    if (match) return match;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${pattern}; output so far:\n${read()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("the server process", () => {
  let dataDir: string;
  let child: ChildProcess | undefined;

  beforeAll(() => {
    if (!existsSync(CLI)) throw new Error(`${CLI} is missing: build first (bash scripts/test does)`);
  });
  afterEach(() => {
    child?.kill("SIGKILL");
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it("serves /api/v2/instance on SQLite and stops cleanly on SIGTERM", async () => {
    dataDir = mkdtempSync(join(tmpdir(), "kith-e2e-"));
    child = run(["serve"], { KITH_PORT: "0", KITH_ORIGIN: "https://kith.test", KITH_DATA_DIR: dataDir, KITH_LOG_LEVEL: "info" });
    const output = collect(child);
    const [, url] = await waitFor(output.stderr, /listening on '?(http:\/\/127\.0\.0\.1:\d+)/);
    const instance = await fetch(`${url}/api/v2/instance`);
    expect(instance.status).toBe(200);
    const body = await instance.json();
    expect(body.domain).toBe("kith.test");
    expect(body.configuration.statuses.max_characters).toBeGreaterThan(0);
    const health = await fetch(`${url}/health`);
    expect(await health.json()).toEqual({ status: "ok", database: "ok" });
    expect(existsSync(join(dataDir, "kith.sqlite"))).toBe(true);
    child.kill("SIGTERM");
    expect(await output.exit).toBe(0);
  });

  it("refuses to start on a bad configuration value, with one line naming it", async () => {
    dataDir = mkdtempSync(join(tmpdir(), "kith-e2e-"));
    child = run(["serve"], { KITH_PORT: "not-a-port", KITH_DATA_DIR: dataDir });
    const output = collect(child);
    expect(await output.exit).toBe(78);
    expect(output.stderr().trim().split("\n")).toEqual([
      'kith: invalid configuration: KITH_PORT must be a whole number (got "not-a-port")',
    ]);
  });

  it("creates an account from the command line, printing the password last", async () => {
    dataDir = mkdtempSync(join(tmpdir(), "kith-e2e-"));
    child = run(["accounts", "create", "root", "--email=root@example.com", "--confirmed", "--role=Owner"], { KITH_DATA_DIR: dataDir });
    const output = collect(child);
    expect(await output.exit).toBe(0);
    expect(output.stdout().trim().split("\n").at(-1)).toMatch(/^New password: \S{20,}$/);
  });
});
