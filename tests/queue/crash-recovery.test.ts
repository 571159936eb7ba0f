import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { MonotonicIdGenerator, SqlQueue, type Storage, systemClock, systemRandom, coreMigrations } from "@kith/core";
import { eventually } from "@kith/core/testing";
import { createSqliteStorage } from "@kith/storage-sqlite";
import { sql } from "kysely";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { describeIfPostgres } from "../support/real-servers.js";
import { postgresDatabase } from "./engines.js";

/**
 * A worker process is killed (SIGKILL) in the middle of a job; another
 * process takes the job up once its lease runs out, and the job's effect
 * happens exactly once. The workers are real Node processes running the
 * built packages (see fixtures/crash-worker.mjs).
 */

const root = fileURLToPath(new URL("../../", import.meta.url));
const workerScript = fileURLToPath(new URL("./fixtures/crash-worker.mjs", import.meta.url));
const LEASE_MS = 500;
const children = new Set<ChildProcess>();

interface Worker {
  readonly child: ChildProcess;
  /** Resolves with the first line of output matching `pattern`; rejects if the process exits first or time runs out. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  exited(): Promise<NodeJS.Signals | number | null>;
}

function startWorker(engine: "sqlite" | "postgres", location: string, processId: string, mode: "hang" | "work"): Worker {
  const child = spawn(process.execPath, [workerScript, engine, location, processId, String(LEASE_MS), mode], {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.add(child);
  let stdout = "";
  let stderr = "";
  let exit: NodeJS.Signals | number | null | undefined;
  const listeners = new Set<() => void>();
  const notify = () => {
    for (const listener of listeners) listener();
  };
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
    notify();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) => {
    child.on("exit", (code, signal) => {
      exit = signal ?? code;
      children.delete(child);
      notify();
      resolve(exit);
    });
  });
  return {
    child,
    exited: () => exited,
    waitFor: (pattern, timeoutMs = 20_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const match = stdout.match(pattern);
          if (match) {
            done();
            resolve(match);
          } else if (exit !== undefined) {
            done();
            reject(new Error(`Worker ${processId} exited (${exit}) before printing ${pattern}.\nstdout: ${stdout}\nstderr: ${stderr}`));
          }
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`Worker ${processId} did not print ${pattern} within ${timeoutMs} ms.\nstdout: ${stdout}\nstderr: ${stderr}`));
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        check();
      }),
  };
}

async function createSideTables(storage: Storage): Promise<void> {
  await sql`CREATE TABLE crash_attempts (job_id TEXT NOT NULL, attempt INTEGER NOT NULL, process_id TEXT NOT NULL)`.execute(storage.db);
  await sql`CREATE TABLE crash_effects (job_id TEXT PRIMARY KEY NOT NULL, process_id TEXT NOT NULL)`.execute(storage.db);
}

/** The scenario, on a database both the test and the worker processes reach at `location`. */
async function killedWorkerScenario(engine: "sqlite" | "postgres", location: string, storage: Storage): Promise<void> {
  await createSideTables(storage);
  const queue = new SqlQueue({ storage, ids: new MonotonicIdGenerator(systemClock, systemRandom) });
  const job = await queue.enqueue("crashy", { order: 42 }, { maxAttempts: 3 });

  const doomed = startWorker(engine, location, "doomed-worker", "hang");
  await doomed.waitFor(new RegExp(`started ${job.id} 1`));
  expect(await queue.get(job.id)).toMatchObject({ status: "active", tries: 1 });
  doomed.child.kill("SIGKILL");
  expect(await doomed.exited()).toBe("SIGKILL");
  // Killed mid-job: the job is still marked active, held by a process that no longer exists.
  expect((await queue.get(job.id))?.status).toBe("active");

  const rescuer = startWorker(engine, location, "rescuer-worker", "work");
  await rescuer.waitFor(new RegExp(`started ${job.id} 2`));
  await eventually(async () => expect((await queue.get(job.id))?.status).toBe("finished"), { timeoutMs: 10_000 });
  rescuer.child.kill("SIGTERM");
  expect(await rescuer.exited()).toBe(0);

  expect(await queue.get(job.id)).toMatchObject({ status: "finished", tries: 2 });
  const attempts = await sql<{ job_id: string; attempt: number; process_id: string }>`
    SELECT job_id, attempt, process_id FROM crash_attempts ORDER BY attempt`.execute(storage.db);
  expect(attempts.rows.map((row) => ({ ...row, attempt: Number(row.attempt) }))).toEqual([
    { job_id: job.id, attempt: 1, process_id: "doomed-worker" },
    { job_id: job.id, attempt: 2, process_id: "rescuer-worker" },
  ]);
  const effects = await sql<{ job_id: string; process_id: string }>`SELECT job_id, process_id FROM crash_effects`.execute(storage.db);
  expect(effects.rows).toEqual([{ job_id: job.id, process_id: "rescuer-worker" }]);
  expect((await queue.statsPerDay(1, "crashy")).at(-1)).toMatchObject({ finished: 1, failed: 0 });
}

beforeAll(() => {
  for (const built of ["packages/core/dist/index.js", "packages/storage-sqlite/dist/index.js", "packages/storage-postgres/dist/index.js"]) {
    if (!existsSync(join(root, built))) {
      throw new Error(`${built} is missing: the crash test runs worker processes on the built packages; run \`pnpm build\` first`);
    }
  }
});

afterEach(() => {
  for (const child of children) child.kill("SIGKILL");
});

describe("sql queue: a worker process killed mid-job, on a SQLite file", () => {
  it("takes the job up in another process after its lease, and its effect happens once", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kith-crash-"));
    const file = join(dir, "kith.sqlite");
    const storage = createSqliteStorage({ filename: file });
    try {
      await storage.migrate(coreMigrations);
      await killedWorkerScenario("sqlite", file, storage);
    } finally {
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describeIfPostgres("sql queue: a worker process killed mid-job, on PostgreSQL", () => {
  it("takes the job up in another process after its lease, and its effect happens once", async () => {
    const database = await postgresDatabase();
    try {
      await killedWorkerScenario("postgres", database.url, database.storage);
    } finally {
      await database.close();
    }
  }, 60_000);
});
