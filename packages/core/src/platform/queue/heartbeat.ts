import type { Kysely } from "kysely";
import type { Logger } from "../../logging.js";
import type { Clock } from "../../ports/clock.js";
import type { WorkerProcess } from "../../ports/queue.js";
import type { Database } from "../../ports/storage-schema.js";
import { FailureReporter } from "./poll-errors.js";
import { RepeatingTask } from "./repeating-task.js";

/** Rows of processes silent this long are deleted: they died without saying goodbye, and nobody lists them any more. */
const FORGET_AFTER_MS = 24 * 3_600_000;

export interface ProcessIdentity {
  readonly id: string;
  readonly hostname: string;
  readonly pid: number;
}

/**
 * This process's row in `job_processes`: written when the queue starts,
 * refreshed every interval, deleted when it stops. The jobs API lists the
 * processes whose row is fresh.
 */
export class ProcessHeartbeat {
  readonly #task: RepeatingTask;
  readonly #failures: FailureReporter;
  #startedAt: string | undefined;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly identity: ProcessIdentity,
    intervalMs: number,
    logger: Logger,
  ) {
    this.#failures = new FailureReporter(logger, "Reporting this process's heartbeat");
    this.#task = new RepeatingTask(intervalMs, () => this.#beatQuietly());
  }

  /** Writes the row (a failure here fails the start), then keeps it fresh. */
  async start(): Promise<void> {
    this.#startedAt = this.clock.now().toISOString();
    await this.#beat();
    this.#task.start({ runNow: false });
  }

  async stop(): Promise<void> {
    if (!this.#task.active) return;
    await this.#task.stop();
    await this.db.deleteFrom("job_processes").where("id", "=", this.identity.id).execute();
  }

  async #beat(): Promise<void> {
    const now = this.clock.now();
    const at = now.toISOString();
    await this.db
      .insertInto("job_processes")
      .values({
        id: this.identity.id,
        hostname: this.identity.hostname,
        pid: this.identity.pid,
        started_at: this.#startedAt ?? at,
        last_heartbeat_at: at,
      })
      .onConflict((oc) => oc.column("id").doUpdateSet({ last_heartbeat_at: at }))
      .execute();
    await this.db
      .deleteFrom("job_processes")
      .where("last_heartbeat_at", "<", new Date(now.getTime() - FORGET_AFTER_MS).toISOString())
      .execute();
  }

  async #beatQuietly(): Promise<void> {
    try {
      await this.#beat();
      this.#failures.succeeded();
    } catch (error) {
      this.#failures.failed(error);
    }
  }
}

/** The processes whose last heartbeat is more recent than `since`, oldest start first. */
export async function liveProcesses(db: Kysely<Database>, since: Date): Promise<WorkerProcess[]> {
  const rows = await db
    .selectFrom("job_processes")
    .selectAll()
    .where("last_heartbeat_at", ">=", since.toISOString())
    .orderBy("started_at")
    .orderBy("id")
    .execute();
  return rows.map((row) => ({
    id: row.id,
    hostname: row.hostname,
    pid: Number(row.pid),
    startedAt: row.started_at,
    lastHeartbeatAt: row.last_heartbeat_at,
  }));
}
