import { type Command, UsageError, onePositional, parse, withKith } from "./command.js";

const STATUSES = ["submitted", "schedule", "retries", "active", "finished", "failed", "dlq"] as const;
type Status = (typeof STATUSES)[number];

function statusOf(value: string | undefined): Status | undefined {
  if (value === undefined) return undefined;
  if (!(STATUSES as readonly string[]).includes(value)) throw new UsageError(`--status takes ${STATUSES.join(", ")}, not ${value}`);
  return value as Status;
}

/** `kith jobs`: the background jobs, through the core's jobs service (the same as the administration API's). */
export const jobsCommand: Command = {
  name: "jobs",
  summary: "List background jobs and retry failed ones",
  usage: [
    "jobs list [--queue=QUEUE] [--status=STATUS] [--limit=N]",
    `    Jobs newest first, one a line: id, queue, status, tries, when it runs, its last error (STATUS: ${STATUSES.join(", ")})`,
    "jobs retry JOB_ID | --queue=QUEUE",
    "    Run a failed or dead-letter job again; with --queue, every failed job of the queue",
  ],
  async run(args, config, io) {
    const [action, ...rest] = args;
    if (action === "list") {
      const { values, positionals } = parse(rest, { queue: { type: "string" }, status: { type: "string" }, limit: { type: "string" } });
      if (positionals.length) throw new UsageError("jobs list takes no positional argument");
      const limit = values.limit === undefined ? 50 : Number(values.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 1_000) throw new UsageError("--limit takes a whole number from 1 to 1000");
      const status = statusOf(values.status);
      const jobs = await withKith(config, (kith) =>
        kith.services.jobs.list({ limit, ...(values.queue !== undefined && { queue: values.queue }), ...(status && { status }) }),
      );
      for (const job of jobs) {
        const error = job.lastError ? `\t${job.lastError.split("\n")[0]}` : "";
        io.out(`${job.id}\t${job.queue}\t${job.status}\t${job.tries}/${job.maxAttempts}\t${job.runAt}${error}`);
      }
      return 0;
    }
    if (action === "retry") {
      const { values, positionals } = parse(rest, { queue: { type: "string" } });
      if (values.queue !== undefined) {
        if (positionals.length) throw new UsageError("jobs retry takes JOB_ID or --queue, not both");
        const queue = values.queue;
        const moved = await withKith(config, (kith) => kith.services.jobs.retryAll(queue));
        io.out(`OK, ${moved} to run again`);
        return 0;
      }
      const id = onePositional(positionals, "jobs retry takes one JOB_ID, or --queue=QUEUE");
      await withKith(config, (kith) => kith.services.jobs.retry(id));
      io.out("OK");
      return 0;
    }
    throw new UsageError("jobs takes list or retry");
  },
};
