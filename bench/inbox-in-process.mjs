// What an incoming activity costs Kith without HTTP: Kith assembled in this
// process (the built apps/server, its job workers running) on a freshly
// seeded small dataset, the inbox benchmark's activities (bench/lib/
// inbox-activities.mjs) signed ahead and handed to its fetch handler 10 at a
// time. A warm-up from every actor stores the senders first; each round then
// prints the process's CPU an activity (user and system) and how many of the
// round's activities were stored once it was answered: an activity answered
// 202 may have been left to a job, and then its cost is not in the round's.
//
//   pnpm bench:inbox-in-process                --rounds=5 --activities=2000
//
// A measurement, not a test: numbers depend on the machine. To compare two
// builds, run it in each tree in turn.

import { createPrivateKey } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { benchArgs } from "./lib/args.mjs";
import { importBuilt } from "./lib/built.mjs";
import { startRemoteHosts } from "./lib/federation.mjs";
import { rsaKeyPairs } from "./lib/http-signature.mjs";
import { inboxActors, landedActivities, likeTargetUrls, signedActivity } from "./lib/inbox-activities.mjs";
import { seed } from "./lib/seed.mjs";

const args = benchArgs();
const rounds = Number(args.rounds ?? 5);
const perRound = Number(args.activities ?? 2_000);
const CONCURRENCY = 10;
const ORIGIN = "http://127.0.0.1:3999";

const { coreMigrations } = await importBuilt("@kith/core");
const { createSqliteStorage } = await importBuilt("@kith/storage-sqlite");
const { loadConfig, assembleKith } = await importBuilt(new URL("../apps/server/dist/index.js", import.meta.url).href);

const dir = mkdtempSync(join(tmpdir(), "kith-inbox-in-process-"));
const keys = await rsaKeyPairs(8);
const remote = await startRemoteHosts(dir, keys);
let kith;
try {
  const seeding = createSqliteStorage({ filename: join(dir, "kith.sqlite") });
  await seeding.migrate(coreMigrations);
  await seed(seeding, "small");
  await seeding.close();

  kith = await assembleKith(
    loadConfig({ KITH_DATA_DIR: dir, KITH_LOG_LEVEL: "error", KITH_ORIGIN: ORIGIN, KITH_ALLOW_PRIVATE_ADDRESS: "true" }),
  );
  await kith.start();
  const db = kith.storage.db;
  const actors = inboxActors(remote.info.hosts, keys.length);
  const privateKeys = keys.map((pair) => createPrivateKey(pair.privateKey));
  const posts = await likeTargetUrls(db, ORIGIN, 20_000);
  let liked = 0;

  /** `count` activities tagged `tag`, each Like of a post not liked before (a second like of a post stores nothing). */
  function activities(tag, count) {
    const likeTargets = posts.slice(liked, liked + count);
    liked += count;
    const spec = { host: new URL(ORIGIN).host, path: "/inbox", tag, actors, privateKeys, likeTargets };
    return Array.from({ length: count }, (_, i) => signedActivity(spec, i));
  }

  async function send(list) {
    const statuses = {};
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < list.length) {
          const { body, headers } = list[next++];
          const response = await kith.fetch(new Request(`${ORIGIN}/inbox`, { method: "POST", headers, body }));
          await response.arrayBuffer();
          statuses[response.status] = (statuses[response.status] ?? 0) + 1;
        }
      }),
    );
    return statuses;
  }

  // Every actor's first activity is left to a job that fetches and stores it; the second warm-up finds them stored.
  await send(activities("warm1", 2 * actors.length));
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  await send(activities("warm2", 6 * actors.length));

  for (let round = 1; round <= rounds; round++) {
    const tag = `round${round}`;
    const list = activities(tag, perRound);
    const since = Date.now();
    const before = process.cpuUsage();
    const statuses = await send(list);
    const cpu = process.cpuUsage(before);
    const landed = await landedActivities(db, tag, since);
    const µs = (value) => (value / perRound).toFixed(0).padStart(5);
    console.log(
      `round ${round}: ${µs(cpu.user + cpu.system)} µs of CPU an activity (system ${µs(cpu.system)}); ` +
        `${landed}/${perRound} stored; answers ${JSON.stringify(statuses)}`,
    );
  }
} finally {
  await kith?.close();
  await remote.stop();
  rmSync(dir, { recursive: true, force: true });
}
