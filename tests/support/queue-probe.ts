/**
 * `node queue-probe.ts <command> [json]`, run by the federation harness on an
 * instance's data and configuration (its database, or its Redis), while the
 * server runs or while it is down, so a test can read and fill the queue
 * without sending the server a request:
 *
 * - `enqueue <jobs>`: `[{ "queue", "payload" }]` enqueued with one attempt
 *   each (a failed attempt fails the job for good); prints their ids;
 * - `media <username>`: stores a small image for the account, its processing
 *   queued and not yet run; prints the media's id;
 * - `get <ids>`: prints each job's record (without payload), null if unknown;
 * - `list <queue> <status>`: prints the records of a queue's jobs in a status;
 * - `queues`: prints the names of the queues the server handles;
 * - `failed`: prints the jobs of every queue that failed for good.
 */
import { assembleKith } from "../../apps/server/src/assemble.js";
import { loadConfig } from "../../apps/server/src/config.js";
import type { JobRecord, JobStatus } from "../../packages/core/src/index.js";
import { findLocalActorAccount } from "../../packages/core/src/modules/federation/federation-reads-store.js";

/** A 1x1 PNG: enough for the image processor to decode, strip and preview. */
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==",
  "base64",
);

function summary(job: JobRecord | null): Omit<JobRecord, "payload" | "rawPayload"> | null {
  if (!job) return null;
  const { payload: _payload, rawPayload: _raw, ...rest } = job;
  return rest;
}

const [command, argument, extra] = process.argv.slice(2);
const kith = await assembleKith(loadConfig(process.env));
try {
  let result: unknown;
  switch (command) {
    case "enqueue": {
      const jobs = JSON.parse(argument ?? "[]") as { queue: string; payload: unknown }[];
      result = [];
      for (const job of jobs) (result as string[]).push((await kith.queue.enqueue(job.queue, job.payload, { maxAttempts: 1 })).id);
      break;
    }
    case "media": {
      const account = await findLocalActorAccount(kith.storage.db, argument ?? "");
      if (!account) throw new Error(`No local account ${argument}`);
      const file = new File([PNG], "pixel.png", { type: "image/png" });
      result = (await kith.services.media.submitFile({ accountId: account.id, file, tags: [] })).media.id;
      break;
    }
    case "get": {
      const ids = JSON.parse(argument ?? "[]") as string[];
      result = await Promise.all(ids.map(async (id) => summary(await kith.queue.get(id))));
      break;
    }
    case "list":
      result = (await kith.queue.list({ queue: argument ?? "", status: extra as JobStatus, limit: 100 })).map(summary);
      break;
    case "queues":
      result = (await kith.queue.queues()).map((queue) => queue.name);
      break;
    case "failed":
      result = [
        ...(await kith.queue.list({ status: "failed", limit: 100 })),
        ...(await kith.queue.list({ status: "dlq", limit: 100 })),
      ].map(summary);
      break;
    default:
      throw new Error(`usage: queue-probe enqueue|media|get|list|queues|failed ...; got ${command}`);
  }
  process.stdout.write(`${JSON.stringify(result)}\n`);
} finally {
  await kith.close();
}
