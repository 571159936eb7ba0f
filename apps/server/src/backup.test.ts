import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LocalDirectoryBlobStore } from "@kith/core";
import { createSqliteStorage } from "@kith/storage-sqlite";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { assembleKith } from "./assemble.js";
import { type CliIo, runCli } from "./cli.js";
import { loadConfig } from "./config.js";

function io(env: NodeJS.ProcessEnv): CliIo & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { env, out: (line) => stdout.push(line), err: (line) => stderr.push(line), stdout, stderr };
}

async function jobIds(filename: string): Promise<Set<string>> {
  const storage = createSqliteStorage({ filename });
  try {
    const rows = await storage.db.selectFrom("jobs").select("id").execute();
    return new Set(rows.map((row) => row.id));
  } finally {
    await storage.close();
  }
}

describe("kith backup and restore", () => {
  let scratch: string;
  beforeEach(() => {
    scratch = mkdtempSync(join(tmpdir(), "kith-backup-"));
  });
  afterEach(() => rmSync(scratch, { recursive: true, force: true }));

  it("copies the database and media while they are written, and restores every row and file into a new directory", async () => {
    const env = { KITH_DATA_DIR: join(scratch, "live"), KITH_LOG_LEVEL: "error" };
    const kith = await assembleKith(loadConfig(env));
    const media = new LocalDirectoryBlobStore({ directory: join(scratch, "live", "media") });
    const written: string[] = [];
    let writing = true;
    let n = 0;
    // The write load: a job row and a media file at a time, as fast as they go, until the backup is done.
    const load = (async () => {
      while (writing) {
        n += 1;
        await kith.queue.enqueue("probe", { n });
        const key = `load/${n}.txt`;
        await media.put(key, new TextEncoder().encode(`file ${n}`), { contentType: "text/plain" });
        written.push(key);
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    try {
      while (n < 50) await new Promise((resolve) => setTimeout(resolve, 5));
      const before = await jobIds(join(scratch, "live", "kith.sqlite"));
      const filesBefore = [...written];
      const run = io(env);
      expect(await runCli(["backup", join(scratch, "backup")], run), run.stderr.join("\n")).toBe(0);
      expect(run.stdout).toEqual([`OK, sqlite database and media in ${join(scratch, "backup")}`]);
      writing = false;
      await load;
      expect(n).toBeGreaterThan(filesBefore.length);

      const restoredEnv = { KITH_DATA_DIR: join(scratch, "restored"), KITH_LOG_LEVEL: "error" };
      const restoring = io(restoredEnv);
      expect(await runCli(["restore", join(scratch, "backup")], restoring), restoring.stderr.join("\n")).toBe(0);
      const restored = await jobIds(join(scratch, "restored", "kith.sqlite"));
      // Every row committed before the backup began is there, and nothing that was never written.
      for (const id of before) expect(restored.has(id)).toBe(true);
      const live = await jobIds(join(scratch, "live", "kith.sqlite"));
      for (const id of restored) expect(live.has(id)).toBe(true);
      const restoredMedia = new LocalDirectoryBlobStore({ directory: join(scratch, "restored", "media") });
      for (const key of filesBefore) expect(await restoredMedia.get(key), key).not.toBeNull();
      // The restored directory serves: migrations find it up to date.
      const migrate = io(restoredEnv);
      expect(await runCli(["migrate"], migrate)).toBe(0);
      expect(migrate.stdout).toEqual(["Up to date"]);
    } finally {
      writing = false;
      await load;
      await kith.close();
    }
  });

  it("refuses to write over a backup or restore over a database, in one line", async () => {
    const env = { KITH_DATA_DIR: join(scratch, "live"), KITH_LOG_LEVEL: "error" };
    expect(await runCli(["migrate"], io(env))).toBe(0);
    expect(await runCli(["backup", join(scratch, "backup")], io(env))).toBe(0);
    const again = io(env);
    expect(await runCli(["backup", join(scratch, "backup")], again)).toBe(64);
    expect(again.stderr[0]).toMatch(/^kith: backup writes into a new or empty directory/);
    const over = io(env);
    expect(await runCli(["restore", join(scratch, "backup")], over)).toBe(64);
    expect(over.stderr[0]).toMatch(/^kith: restore makes a new database; .*kith\.sqlite exists$/);
    const notBackup = io({ ...env, KITH_DATA_DIR: join(scratch, "other") });
    expect(await runCli(["restore", scratch], notBackup)).toBe(64);
    expect(notBackup.stderr[0]).toMatch(/holds no whole backup/);
    expect(existsSync(join(scratch, "other", "kith.sqlite"))).toBe(false);
    expect(readdirSync(join(scratch, "backup")).sort()).toEqual(["kith-backup.json", "kith.sqlite"]);
  });
});
