import { KithError } from "../../domain/errors.js";
import type { Clock } from "../../ports/clock.js";
import type { ScheduledStatusEntity } from "../../mastodon/entities/scheduled-status.js";
import type { StatusInput } from "./status-service.js";

/** Keeps a status to post later: what `scheduled_at` on `POST /api/v1/statuses` asks for. */
export interface StatusScheduler {
  /** Keeps `input` to be posted by `accountId` at `scheduledAt`; refuses a time too soon and an account over its limits. */
  schedule(accountId: string, input: StatusInput, scheduledAt: Date): Promise<ScheduledStatusEntity>;
}

/**
 * Scheduling as the core's posting route sees it: refused until a module
 * binds its scheduler (the scheduled-statuses module), so a server without
 * that module answers `scheduled_at` with 422 rather than posting at once.
 */
export class StatusScheduling implements StatusScheduler {
  #scheduler: StatusScheduler | null = null;

  constructor(private readonly clock: Clock) {}

  /** Whether `time` has come: a status "scheduled" then is posted at once, as Mastodon does. */
  isPast(time: Date): boolean {
    return time.getTime() <= this.clock.now().getTime();
  }

  /** Schedules with `scheduler` from now on. */
  bind(scheduler: StatusScheduler): void {
    this.#scheduler = scheduler;
  }

  async schedule(accountId: string, input: StatusInput, scheduledAt: Date): Promise<ScheduledStatusEntity> {
    if (!this.#scheduler) throw new KithError("status.scheduling_unsupported");
    return this.#scheduler.schedule(accountId, input, scheduledAt);
  }
}
