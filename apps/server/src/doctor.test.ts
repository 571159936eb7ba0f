import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { coreMigrations } from "@kith/core";
import { createSqliteStorage } from "@kith/storage-sqlite";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "./cli.js";
import { loadConfig } from "./config.js";
import { type RunningServer, serve } from "./serve.js";

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function doctor(env: NodeJS.ProcessEnv): Promise<{ code: number; lines: string[] }> {
  const lines: string[] = [];
  const code = await runCli(["doctor"], { env, out: (line) => lines.push(line), err: (line) => lines.push(line) });
  return { code, lines };
}

describe("kith doctor", () => {
  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  let running: RunningServer | undefined;

  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "kith-doctor-"));
    env = { KITH_DATA_DIR: dataDir, KITH_PORT: String(await freePort()), KITH_LOG_LEVEL: "error" };
  });
  afterEach(async () => {
    await running?.close();
    running = undefined;
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("finds the origin down when no server runs, and says what to fix", async () => {
    await runCli(["migrate"], { env, out: () => {}, err: () => {} });
    const { code, lines } = await doctor(env);
    expect(code).toBe(1);
    expect(lines).toContainEqual(expect.stringMatching(/^ok {3}database: sqlite /));
    expect(lines).toContainEqual("ok   migrations: all applied");
    expect(lines).toContainEqual(expect.stringMatching(/^ok {3}jobs: \d+ queues, none stuck, none failed$/));
    expect(lines).toContainEqual(expect.stringMatching(/^fail origin: http:\/\/127\.0\.0\.1:\d+ does not answer .*is kith serve running/));
    expect(lines).toContainEqual(expect.stringMatching(/^warn mail: no KITH_SMTP_URL/));
    expect(lines.at(-1)).toMatch(/^1 to fix, \d+ to look at$/);
  });

  it("finds a running server answering, WebFinger included", async () => {
    running = await serve(loadConfig(env), "all", { installSignalHandlers: false });
    const { code, lines } = await doctor(env);
    expect(lines).toContainEqual(expect.stringMatching(/^ok {3}origin: /));
    expect(lines).toContainEqual(expect.stringMatching(/^ok {3}webfinger: answers for acct:/));
    expect(code).toBe(0);
    expect(lines.at(-1)).toMatch(/^Nothing to fix; \d+ to look at$/);
  });

  it("reports migrations not applied without applying them", async () => {
    const storage = createSqliteStorage({ filename: join(dataDir, "kith.sqlite") });
    await storage.migrate(coreMigrations);
    await storage.close();
    const { lines } = await doctor(env);
    expect(lines).toContainEqual(expect.stringMatching(/^warn migrations: \d+ not applied \(.*\): run kith migrate/));
    const again = await doctor(env);
    expect(again.lines).toContainEqual(expect.stringMatching(/^warn migrations: \d+ not applied/));
  });
});
