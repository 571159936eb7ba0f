/**
 * `kith backup` and `kith restore` on PostgreSQL: pg_dump's one snapshot taken while a Kith writes, restored by
 * pg_restore into another, empty database, with the media directory beside it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LocalDirectoryBlobStore } from "@kith/core";
import { createPostgresStorage } from "@kith/storage-postgres";
import { afterEach, expect, it } from "vitest";
import { assembleKith, loadConfig, runCli } from "../../apps/server/src/index.js";
import { type FreshPostgresDatabase, describeIfPostgres, freshPostgresDatabase } from "../support/real-servers.js";

async function jobIds(url: string): Promise<Set<string>> {
  const storage = createPostgresStorage({ connectionString: url });
  try {
    return new Set((await storage.db.selectFrom("jobs").select("id").execute()).map((row) => row.id));
  } finally {
    await storage.close();
  }
}

const quiet = { out: () => {}, err: (line: string) => process.stderr.write(`${line}\n`) };

describeIfPostgres("kith backup and restore on PostgreSQL", () => {
  const databases: FreshPostgresDatabase[] = [];
  let scratch: string | undefined;
  afterEach(async () => {
    for (const database of databases.splice(0)) await database.drop();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it("dumps while a Kith writes and restores every row and file into an empty database", async () => {
    scratch = mkdtempSync(join(tmpdir(), "kith-pg-backup-"));
    const live = await freshPostgresDatabase();
    const target = await freshPostgresDatabase();
    databases.push(live, target);
    const env = { KITH_DATABASE_URL: live.url, KITH_DATA_DIR: join(scratch, "live"), KITH_LOG_LEVEL: "error" };
    const kith = await assembleKith(loadConfig(env));
    const media = new LocalDirectoryBlobStore({ directory: join(scratch, "live", "media") });
    const written: string[] = [];
    let writing = true;
    let n = 0;
    const load = (async () => {
      while (writing) {
        n += 1;
        await kith.queue.enqueue("probe", { n });
        const key = `load/${n}.txt`;
        await media.put(key, new TextEncoder().encode(`file ${n}`), { contentType: "text/plain" });
        written.push(key);
      }
    })();
    try {
      while (n < 30) await new Promise((resolve) => setTimeout(resolve, 5));
      const before = await jobIds(live.url);
      const filesBefore = [...written];
      expect(await runCli(["backup", join(scratch, "backup")], { env, ...quiet })).toBe(0);
      writing = false;
      await load;

      const restoredEnv = { KITH_DATABASE_URL: target.url, KITH_DATA_DIR: join(scratch, "restored"), KITH_LOG_LEVEL: "error" };
      expect(await runCli(["restore", join(scratch, "backup")], { env: restoredEnv, ...quiet })).toBe(0);
      const restored = await jobIds(target.url);
      for (const id of before) expect(restored.has(id)).toBe(true);
      const liveNow = await jobIds(live.url);
      for (const id of restored) expect(liveNow.has(id)).toBe(true);
      const restoredMedia = new LocalDirectoryBlobStore({ directory: join(scratch, "restored", "media") });
      for (const key of filesBefore) expect(await restoredMedia.get(key), key).not.toBeNull();
      const migrate: string[] = [];
      expect(await runCli(["migrate"], { env: restoredEnv, out: (line) => migrate.push(line), err: quiet.err })).toBe(0);
      expect(migrate).toEqual(["Up to date"]);
    } finally {
      writing = false;
      await load;
      await kith.close();
    }
  });
});
