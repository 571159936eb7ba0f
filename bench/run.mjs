// `pnpm bench`: seeds deterministic datasets on SQLite and PostgreSQL, starts
// the real server as its own process, drives it over HTTP from a separate
// load-generator process, and measures the same requests against a bare
// node:http baseline in the same run. Writes bench/RESULTS.md.
//
//   pnpm bench                 small, medium and large datasets (about 12 minutes on 2 cores; see READING.md)
//   pnpm bench --quick         the small dataset, short runs (under 3 minutes)
//   --no-cache                 seed SQLite datasets anew instead of copying them from bench/.cache
//   --sizes=small,medium       --engines=sqlite,postgres     --seconds=10
//   --inbox-activities=3000    --only=federation (the inbox and delivery scenarios alone; --only=inbox or
//                              --only=delivery for one of them)
//   --delivery-posts=5         the delivery scenario posts this many times, one after another, and the baseline
//                              delivers as many rounds; each reports its median (each round is logged); default 5,
//                              the quick run's too: the first post of a server is a cold one
//   --only=home                only the scenarios whose name contains the text (here both home timelines)
//   KITH_BENCH_POSTGRES_URL    a PostgreSQL server to use (its role must create databases);
//                              otherwise a throwaway one is started as the tests do.
//   KITH_BENCH_NODE_ARGS       more options for the server's node, e.g. "--trace-gc-nvp"; with
//   KITH_BENCH_SERVER_STDOUT   a file the server's standard output is appended to (where V8's tracing prints)
//   KITH_BENCH_STATEMENTS=1    SQLite: the server counts its statements (and SQLite's time in them), and the
//                              scenarios print those of one request, one stored activity and one delivery
//                              (the counting costs CPU: compare CPU figures only between runs alike).
//
// A measurement, not a test: it asserts nothing and never fails on a number.

import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import os, { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { scenarioSet } from "./lib/scenarios.mjs";
import { SIZES, seed } from "./lib/seed.mjs";
import { report } from "./lib/report.mjs";
import { load, memoryMb, resetPeakMemory, startBaseline, startKith } from "./lib/processes.mjs";
import { deliveryScenario, inboxScenario, startRemoteHosts } from "./lib/federation.mjs";
import { describeStatements, statementTotals, statementsPer } from "./lib/statement-totals.mjs";
import { describeGcPauses, gcPausesPer, gcTotals } from "./lib/gc-pauses.mjs";
import { rsaKeyPairs } from "./lib/http-signature.mjs";
import { benchArgs } from "./lib/args.mjs";
import { importBuilt } from "./lib/built.mjs";

const args = benchArgs();
const quick = args.quick === "true";
const sizes = (args.sizes ?? (quick ? "small" : "small,medium,large")).split(",");
const engines = (args.engines ?? "sqlite,postgres").split(",");
const durationMs = Number(args.seconds ?? (quick ? 2.5 : 5)) * 1000;
const connections = Number(args.connections ?? 10);
const log = (line) => process.stderr.write(`${line}\n`);
/**
 * The warm-up of the first request scenario after a server starts, which warms the server as well: V8 compiling its
 * busiest code, the database pool opening its connections and PostgreSQL planning each statement five times on each
 * of them before it keeps a generic plan. Measured with the other scenarios' warm-up (1 s), the first scenario's
 * windows caught the end of that: on the large PostgreSQL dataset 400-750 requests a second for about 3 s, then
 * about 1 000, and a p99 of 33-65 ms against 21-24 ms for the next scenario's. Start-up itself is measured apart
 * (cold start).
 */
const FIRST_WARMUP_MS = quick ? 1_500 : 4_000;
/** `--only` values that mean the federation scenarios (both, or one of them). */
const FEDERATION_ONLY = new Set(["federation", "inbox", "delivery"]);

const { coreMigrations, defaultModules, migrationsWithModules } = await importBuilt("@kith/core");
/** The schema the server runs on, the modules' tables with the core's: the dataset fills some of both (a group). */
const schema = migrationsWithModules(coreMigrations, defaultModules);
const { createSqliteStorage } = await importBuilt("@kith/storage-sqlite");
const { createPostgresStorage, createPostgresDatabase, dropPostgresDatabase } = await importBuilt("@kith/storage-postgres");

async function postgresServer() {
  if (process.env.KITH_BENCH_POSTGRES_URL) return { url: process.env.KITH_BENCH_POSTGRES_URL, stop: async () => {} };
  const setup = (await import("../tests/setup/real-servers.ts")).default;
  const provided = {};
  const stop = await setup({ provide: (key, value) => (provided[key] = value) });
  if (!provided.postgresUrl) return null;
  // Kith reaches the throwaway server over its Unix socket, as an install with PostgreSQL on the same machine would:
  // a round trip costs both sides less CPU than over loopback TCP.
  return { url: provided.postgresSocketUrl ?? provided.postgresUrl, stop };
}

const CACHE_DIR = new URL("./.cache/", import.meta.url).pathname;
const MIGRATIONS = new URL("../packages/core/src/storage/migrations/", import.meta.url).pathname;

/** Names a seeded dataset by its size, the generator's code and the schema's migrations: any change to them seeds anew. */
function datasetKey(size) {
  const hash = createHash("sha256").update(readFileSync(new URL("./lib/seed.mjs", import.meta.url)));
  for (const name of readdirSync(MIGRATIONS).sort()) hash.update(name).update(readFileSync(join(MIGRATIONS, name)));
  // The modules' migrations, by name: a module's new migration changes the schema too.
  for (const migration of schema) hash.update(migration.name);
  return `${size}-${hash.digest("hex").slice(0, 12)}`;
}

/** A migrated, seeded database of `size` on `engine`, with what the server needs to open it. */
async function prepare(engine, size, pg) {
  const dataDir = mkdtempSync(join(tmpdir(), "kith-bench-"));
  let storage;
  let databaseUrl = null;
  let dropDatabase = async () => {};
  // SQLite datasets are kept in bench/.cache (`--no-cache` seeds anew): a rerun copies the file instead of seeding.
  const cached = join(CACHE_DIR, `${datasetKey(size)}.sqlite`);
  const useCache = engine === "sqlite" && args["no-cache"] !== "true";
  if (engine === "sqlite") {
    if (useCache && existsSync(cached) && existsSync(`${cached}.json`)) copyFileSync(cached, join(dataDir, "kith.sqlite"));
    storage = createSqliteStorage({ filename: join(dataDir, "kith.sqlite") });
  } else {
    const name = `kith_bench_${size}_${process.pid}`;
    databaseUrl = await createPostgresDatabase(pg.url, name);
    storage = createPostgresStorage({ connectionString: databaseUrl });
    dropDatabase = () => dropPostgresDatabase(pg.url, name);
  }
  await storage.migrate(schema);
  const started = Date.now();
  if (useCache && existsSync(cached) && existsSync(`${cached}.json`)) {
    log(`  ${size} dataset from ${cached}`);
    return opened(storage, JSON.parse(readFileSync(`${cached}.json`, "utf8")), { seedSeconds: 0, cached: true });
  }
  // Seeding settings of this connection only (the server opens its own): a page cache that holds the growing indexes
  // (SQLite's default is 2 MB), no fsync, and no foreign-key checks, since the generator writes consistent rows.
  if (engine === "sqlite") {
    for (const pragma of ["cache_size = -1048576", "synchronous = off", "foreign_keys = off"])
      await sql.raw(`pragma ${pragma}`).execute(storage.db);
  }
  const dataset = await seed(storage, size, { log });
  if (engine === "sqlite") await sql`pragma foreign_keys = on`.execute(storage.db);
  // A PostgreSQL server in service keeps planner statistics through autovacuum; a database filled a moment ago has
  // none yet, and the planner then picks plans no running server would (measured: 45 ms instead of 0.1 ms for one
  // page's visibility check). Autovacuum also marks the pages every transaction sees, which lets PostgreSQL answer
  // from an index alone: with statistics only, it costed fan-out's read of followers dearer for its generic plan and
  // planned it on every run. SQLite is left as a server would find it: Kith does not run ANALYZE there.
  if (engine === "postgres") await sql`vacuum analyze`.execute(storage.db);
  const seedSeconds = (Date.now() - started) / 1000;
  log(`  seeded ${engine}/${size} in ${seedSeconds.toFixed(1)} s`);
  if (useCache) {
    mkdirSync(CACHE_DIR, { recursive: true });
    // Datasets of this size from an older generator or schema are of no further use.
    for (const name of readdirSync(CACHE_DIR)) if (name.startsWith(`${size}-`)) rmSync(join(CACHE_DIR, name), { force: true });
    await sql`vacuum into ${sql.lit(`${cached}.tmp`)}`.execute(storage.db);
    renameSync(`${cached}.tmp`, cached);
    writeFileSync(`${cached}.json`, JSON.stringify(dataset));
  }
  return opened(storage, dataset, { seedSeconds, cached: false });

  function opened(storage, dataset, seeding) {
    return {
      storage,
      dataset,
      dataDir,
      databaseUrl,
      ...seeding,
      dispose: async () => {
        await storage.close();
        await dropDatabase();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
}

async function capture(url, request) {
  const response = await fetch(url + request.path, {
    method: request.method ?? "GET",
    headers: request.headers,
    body: request.bodyTemplate ? request.bodyTemplate.replaceAll("{n}", "capture") : request.body,
  });
  const body = await response.text();
  const headers = { "content-type": response.headers.get("content-type") ?? "application/json" };
  const link = response.headers.get("link");
  if (link) headers.link = link;
  return { status: response.status, headers, body };
}

async function measureEngineSize(engine, size, pg, results) {
  log(`\n== ${engine}, ${size} (${SIZES[size].accounts} accounts, ${SIZES[size].posts} posts)`);
  const prepared = await prepare(engine, size, pg);
  const kith = await startKith({ dataDir: prepared.dataDir, databaseUrl: prepared.databaseUrl });
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  results.process.push({
    engine,
    size,
    coldStartMs: kith.coldStartMs,
    idleRssMb: memoryMb(kith.pid).rss,
    seedSeconds: prepared.seedSeconds,
    cached: prepared.cached,
  });
  const scenarios = scenarioSet(prepared.dataset);
  if (args.only) {
    // `--only=federation` (or inbox, or delivery) keeps those scenarios alone; any other text keeps the scenarios whose name has it.
    const keep = (scenario) => !FEDERATION_ONLY.has(args.only) && scenario.name.includes(args.only);
    scenarios.requests = scenarios.requests.filter(keep);
    scenarios.probes = scenarios.probes.filter(keep);
  }
  const answers = {};
  const captured = [];
  for (const scenario of scenarios.requests) {
    const answer = await capture(kith.url, scenario.request);
    if (answer.status >= 300) {
      results.rows.push({ engine, size, scenario: scenario.name, skipped: `Kith answered ${answer.status}` });
      continue;
    }
    answers[`${scenario.request.method ?? "GET"} ${scenario.request.path}`] = answer;
    captured.push(scenario);
  }
  const answersFile = join(prepared.dataDir, "baseline-answers.json");
  writeFileSync(answersFile, JSON.stringify(answers));
  const baseline = await startBaseline(answersFile);
  try {
    for (const scenario of captured) {
      const peakKnown = resetPeakMemory(kith.pid);
      const statementsBefore = await statementTotals(kith);
      const gcBefore = await gcTotals(kith);
      // The server's CPU in the measured windows: the load generator reads it around each of them, after its warm-up.
      // The baseline is steady from its first request (it answers from memory): a second or two in all measures it,
      // in turns with the server's windows.
      const measured = await load(kith.url, scenario.request, {
        connections,
        durationMs,
        pid: kith.pid,
        baseline: { url: baseline.url, durationMs: Math.min(durationMs, quick ? 1_000 : 2_000) },
        // The first scenario's warm-up also warms the server itself (see FIRST_WARMUP_MS).
        ...(scenario === captured[0] ? { warmupMs: FIRST_WARMUP_MS } : {}),
      });
      const cpu = measured.serverCpuMs;
      const statements = statementsPer(statementsBefore, await statementTotals(kith), measured.serverAnswered);
      const gc = gcPausesPer(gcBefore, await gcTotals(kith), measured.serverAnswered);
      const peakRssMb = peakKnown ? memoryMb(kith.pid).peak : null;
      const bare = measured.baseline;
      const failures = Object.entries(measured.statuses).filter(([status]) => Number(status) >= 300 || Number(status) === 0);
      const row = {
        engine,
        size,
        scenario: scenario.name,
        series: scenario.series ?? scenario.name,
        rps: measured.rps,
        p50: measured.p50,
        p99: measured.p99,
        cpuMsPerRequest: measured.requests ? cpu / measured.requests : null,
        waitMsPerRequest: measured.requests && measured.serverMainWaitMs !== null ? measured.serverMainWaitMs / measured.requests : null,
        gc,
        peakRssMb,
        baselineRps: bare.rps,
        baselineP50: bare.p50,
        baselineP99: bare.p99,
        ratio: measured.rps / bare.rps,
        failures: failures.map(([status, count]) => `${count}×${status}`).join(", "),
      };
      results.rows.push(row);
      log(
        `  ${scenario.name}: ${measured.rps.toFixed(0)} req/s (baseline ${bare.rps.toFixed(0)}), p50 ${measured.p50?.toFixed(2)} ms, p99 ${measured.p99?.toFixed(2)} ms (baseline ${bare.p50?.toFixed(2)} / ${bare.p99?.toFixed(2)} ms); CPU ${row.cpuMsPerRequest?.toFixed(2) ?? "–"} ms a request, its main thread waiting ${row.waitMsPerRequest?.toFixed(2) ?? "–"} ms for a core`,
      );
      for (const line of describeGcPauses("a request", gc)) log(line);
      for (const line of describeStatements("per request", statements)) log(line);
    }
    for (const probe of scenarios.probes) {
      const outcome = await probe.run({ url: kith.url, storage: prepared.storage, dataset: prepared.dataset, workDir: prepared.dataDir });
      results.probes.push({ engine, size, name: probe.name, series: probe.series ?? probe.name, ...outcome });
      log(`  ${probe.name}: ${outcome.summary}`);
    }
    if (!args.only || FEDERATION_ONLY.has(args.only)) await measureFederation(engine, size, kith, prepared, results);
  } finally {
    results.process.at(-1).peakRssMb = memoryMb(kith.pid).peak;
    await baseline.stop();
    await kith.stop();
    await prepared.dispose();
  }
}

/**
 * Before each federation scenario on PostgreSQL, the maintenance that the earlier scenarios' writes call for, done
 * now rather than by autovacuum in the middle of a measurement: the posting scenario writes thousands of posts in
 * seconds and the inbox thousands of rows, which on the small dataset crosses autovacuum's thresholds. A logged run
 * of it had autovacuum go over the posts, the feeds and the notifications during the delivery's rounds, where its
 * passes fall on Kith's rounds or on the baseline's by chance. A server in service has autovacuum keep up over the
 * hours such writes take.
 */
async function settleDatabase(engine, storage) {
  if (engine === "postgres") await sql`vacuum analyze`.execute(storage.db);
}

/** Inbox throughput and delivery, last: the delivery scenario adds remote followers to the dataset. */
async function measureFederation(engine, size, kith, prepared, results) {
  const remote = await startRemoteHosts(prepared.dataDir, federationKeys);
  try {
    const context = { kith, storage: prepared.storage, workDir: prepared.dataDir, keys: federationKeys, remote, log };
    if (args.only !== "delivery") {
      await settleDatabase(engine, prepared.storage);
      const inbox = await inboxScenario({ ...context, count: inboxActivities, connections });
      results.federation.push({ engine, size, kind: "inbox", ...inbox });
      log(`  inbox: ${inbox.rate.toFixed(0)} activities/s stored (baseline ${inbox.baselineRate.toFixed(0)} verified/s); ${inbox.detail}`);
      for (const line of describeGcPauses("a stored activity", inbox.gc)) log(line);
      for (const line of describeStatements("per stored activity", inbox.statements)) log(line);
    }
    if (args.only === "inbox") return;
    await settleDatabase(engine, prepared.storage);
    const delivery = await deliveryScenario({ ...context, posts: deliveryPosts });
    results.federation.push({ engine, size, kind: "delivery", ...delivery });
    log(
      `  delivery: ${delivery.skipped ?? `${delivery.kithMs?.toFixed(0)} ms, ${delivery.cpuMs?.toFixed(0)} ms CPU (baseline ${delivery.baselineMs?.toFixed(0)} ms, ${delivery.baselineCpuMs?.toFixed(0)} ms CPU); ${delivery.detail}`}`,
    );
    for (const line of describeStatements("per verified delivery", delivery.statements)) log(line);
  } catch (error) {
    log(`  federation scenarios failed: ${error.stack ?? error}`);
    results.federation.push({ engine, size, kind: "inbox", skipped: String(error.message ?? error) });
  } finally {
    await remote.stop();
  }
}

// A second or more of measured inbox at the target's rate: a shorter window is decided by one stall of the machine.
const inboxActivities = Number(args["inbox-activities"] ?? (quick ? 2_000 : 3_000));
const deliveryPosts = Math.max(1, Number(args["delivery-posts"] ?? 5));
const federationKeys = await rsaKeyPairs(8);
const results = { rows: [], probes: [], process: [], federation: [], startedAt: new Date() };
const pg = engines.includes("postgres") ? await postgresServer() : null;
if (engines.includes("postgres") && !pg) log("PostgreSQL is not installed: measuring SQLite only.");
try {
  for (const size of sizes) {
    for (const engine of engines) {
      if (engine === "postgres" && !pg) continue;
      await measureEngineSize(engine, size, pg, results);
    }
  }
} finally {
  await pg?.stop();
}
const machine = {
  cpu: os.cpus()[0]?.model ?? "unknown",
  cores: os.cpus().length,
  memoryGb: os.totalmem() / 1024 ** 3,
  node: process.version,
  os: `${os.type()} ${os.release()}`,
};
const reading = readFileSync(new URL("./READING.md", import.meta.url), "utf8");
const out = args.out ?? new URL("./RESULTS.md", import.meta.url).pathname;
writeFileSync(out, report({ results, machine, quick, connections, durationMs, reading }));
log(`\nWrote ${out}`);
