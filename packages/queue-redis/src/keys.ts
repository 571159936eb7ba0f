/**
 * Redis key names. BullMQ keeps its own keys under `<prefix>:<queue>:...`;
 * Kith's own bookkeeping (configuration, the id index, ordering lists,
 * statistics, heartbeats) lives under `<prefix>:~:...`. Queue names may not
 * contain `:` (BullMQ refuses them) nor start with `~`, so the two never meet.
 */
export class RedisKeys {
  /** The `prefix` option BullMQ is given. */
  readonly bull: string;
  /** Root of Kith's own keys. */
  readonly meta: string;

  constructor(prefix: string) {
    this.bull = prefix;
    this.meta = `${prefix}:~`;
  }

  /** Prefix of one BullMQ queue's keys, ending in `:` (BullMQ's `queue.toKey("")`). */
  bullBase(queue: string): string {
    return `${this.bull}:${queue}:`;
  }

  /** SET of every queue name seen (configured by a handler, or enqueued to). */
  get queues(): string {
    return `${this.meta}:queues`;
  }

  /** HASH of one queue's configuration. */
  queueConfig(queue: string): string {
    return `${this.meta}:queue:${queue}`;
  }

  /** ZSET (all scores 0, ordered by member) of `<job id>:<queue>` for every job with a Kith id. */
  get jobIndex(): string {
    return `${this.meta}:jobs`;
  }

  /** ZSET (all scores 0) of the job ids of one queue. */
  queueIndex(queue: string): string {
    return `${this.meta}:jobs:${queue}`;
  }

  /** SET of the ids of one queue's failed jobs that are dead letters. */
  deadLetters(queue: string): string {
    return `${this.meta}:dlq:${queue}`;
  }

  /** LIST of the unfinished job ids of one ordering key, oldest first. */
  ordering(queue: string, key: string): string {
    return `${this.meta}:ord:${queue}:${key}`;
  }

  /** SET of the ordering keys of a queue that have unfinished jobs. */
  orderingKeys(queue: string): string {
    return `${this.meta}:ordkeys:${queue}`;
  }

  /** HASH of one UTC day's counters, fields `<queue or *>:finished` and `<queue or *>:failed`. */
  dailyStats(day: string): string {
    return `${this.meta}:stats:${day}`;
  }

  /** HASH of repeating job name -> queue, to find the BullMQ queue holding a job scheduler. */
  get schedules(): string {
    return `${this.meta}:schedules`;
  }

  /** SET of process ids that reported a heartbeat at some point. */
  get processes(): string {
    return `${this.meta}:procs`;
  }

  /** STRING (JSON) with a TTL: one live process. */
  process(id: string): string {
    return `${this.meta}:proc:${id}`;
  }
}

/** BullMQ refuses `:`; `~` would reach into Kith's own key space. */
export function assertQueueName(queue: string): void {
  if (queue === "" || queue.includes(":") || queue.startsWith("~")) {
    throw new RangeError(`Invalid queue name ${JSON.stringify(queue)}: it must be non-empty, without ':' and not start with '~'`);
  }
}
