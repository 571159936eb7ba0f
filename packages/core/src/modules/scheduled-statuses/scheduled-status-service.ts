import type { Kysely } from "kysely";
import { KithError, isKithError, statusOf } from "../../domain/errors.js";
import type { PageRequest } from "../../domain/page.js";
import { getLogger } from "../../logging.js";
import type { ScheduledStatusEntity } from "../../mastodon/entities/scheduled-status.js";
import type { KithServices } from "../core-services.js";
import type { Database } from "../../ports/storage-schema.js";
import type { ServiceDeps } from "../service-deps.js";
import type { StatusInput, StatusScheduler } from "../statuses/index.js";
import { scheduledStatusErrors, scheduledStatusIds } from "./scheduled-status-codes.js";
import type { ScheduledStatusRow, ScheduledStatusesStore } from "./scheduled-statuses-store.js";

/** The queue whose delayed jobs post scheduled statuses when their time comes. */
export const SCHEDULED_STATUS_PUBLISH_QUEUE = "scheduled_statuses.publish";

/** Mastodon's limits: at least five minutes ahead, 300 waiting per account, 25 of them on one (UTC) day. */
export const MINIMUM_LEAD_MS = 5 * 60 * 1000;
export const TOTAL_LIMIT = 300;
export const DAILY_LIMIT = 25;

const DAY_MS = 24 * 60 * 60 * 1000;
/** How long an `Idempotency-Key` answers with the same scheduled status, as for statuses posted at once. */
const IDEMPOTENCY_WINDOW_MS = 60 * 60 * 1000;
const RECOVERY_BATCH = 500;

interface PublishJob {
  readonly id: string;
  /** The time the job was queued for: a job of a time since changed finds the row moved and does nothing. */
  readonly scheduledAt: string;
}

function isPublishJob(payload: unknown): payload is PublishJob {
  const job = payload as Partial<PublishJob> | null;
  return typeof job?.id === "string" && typeof job.scheduledAt === "string";
}

const logger = getLogger(["scheduled-statuses"]);

/**
 * Statuses kept to be posted later. Each is a row (what will be posted, and
 * when) and a delayed job queued in the row's transaction for its time; the
 * job posts through the statuses service, as any status is posted, so
 * federation, timelines and notifications follow as usual. A start queues
 * the jobs of the rows again (deduplicated by id and time), for a queue that
 * kept none across the restart. Posting takes an idempotency key of the row,
 * so a job run again after a crash between the post and the row's deletion
 * posts nothing twice.
 */
export class ScheduledStatusService implements StatusScheduler {
  constructor(
    private readonly deps: Pick<ServiceDeps, "clock" | "ids" | "queue">,
    private readonly core: Pick<KithServices, "statuses" | "media">,
    private readonly store: ScheduledStatusesStore,
  ) {}

  async schedule(accountId: string, input: StatusInput, scheduledAt: Date): Promise<ScheduledStatusEntity> {
    const key = input.idempotencyKey ?? null;
    if (key !== null) {
      const earlier = await this.#idempotent(accountId, key);
      if (earlier) return this.render(earlier);
    }
    await this.#checkTime(accountId, scheduledAt, null);
    // Refused now rather than at posting time, when no one is there to be told.
    this.core.statuses.validateDraft(input);
    if (input.mediaIds?.length) await this.core.media.checkAttachable(accountId, input.mediaIds);
    if (input.inReplyToId) await this.core.statuses.findVisible(input.inReplyToId, accountId);
    const { idempotencyKey: _key, ...kept } = input;
    const row: ScheduledStatusRow = {
      id: this.deps.ids.next(scheduledStatusIds.scheduledStatus),
      account_id: accountId,
      scheduled_at: scheduledAt.toISOString(),
      params: JSON.stringify(kept),
      idempotency_key: key,
      created_at: this.deps.clock.now().toISOString(),
    };
    const inserted = await this.store.transaction(async (trx) => {
      if (!(await this.store.insert(trx, row))) return false;
      await this.#enqueue(row.id, row.scheduled_at, trx);
      return true;
    });
    if (inserted) return this.render(row);
    // The same key at the same moment: the other request's is the answer.
    const other = key !== null ? await this.#idempotent(accountId, key) : undefined;
    if (!other) throw new KithError(scheduledStatusErrors["scheduled_status.not_found"]);
    return this.render(other);
  }

  /** The one made with `key` within the hour Mastodon keeps keys; an older one's key is freed for a new one. */
  async #idempotent(accountId: string, key: string): Promise<ScheduledStatusRow | undefined> {
    const since = new Date(this.deps.clock.now().getTime() - IDEMPOTENCY_WINDOW_MS).toISOString();
    const earlier = await this.store.findByIdempotencyKey(accountId, key, since);
    if (!earlier) await this.store.forgetIdempotencyKey(accountId, key);
    return earlier;
  }

  async list(accountId: string, page: PageRequest): Promise<ScheduledStatusEntity[]> {
    const rows = await this.store.page(accountId, page);
    return Promise.all(rows.map((row) => this.render(row)));
  }

  async get(accountId: string, id: string): Promise<ScheduledStatusEntity> {
    return this.render(await this.#own(accountId, id));
  }

  /** Moves one to another time, under the same rules as a new one; the job of the old time then does nothing. */
  async reschedule(accountId: string, id: string, scheduledAt: Date): Promise<ScheduledStatusEntity> {
    const row = await this.#own(accountId, id);
    await this.#checkTime(accountId, scheduledAt, id);
    const time = scheduledAt.toISOString();
    await this.store.transaction(async (trx) => {
      if (!(await this.store.reschedule(trx, id, accountId, time)))
        throw new KithError(scheduledStatusErrors["scheduled_status.not_found"]);
      await this.#enqueue(id, time, trx);
    });
    return this.render({ ...row, scheduled_at: time });
  }

  async cancel(accountId: string, id: string): Promise<void> {
    if (!(await this.store.delete(id, accountId))) throw new KithError(scheduledStatusErrors["scheduled_status.not_found"]);
  }

  /** The job: posts the status if it is still waiting for this time; drops it, logged, if posting refuses it. */
  async publish(payload: unknown): Promise<void> {
    if (!isPublishJob(payload)) return;
    const row = await this.store.find(payload.id);
    if (!row || row.scheduled_at !== payload.scheduledAt) return;
    if (Date.parse(row.scheduled_at) > this.deps.clock.now().getTime()) {
      // Run early (a queue's clock ahead of ours): wait for the rest of the time.
      await this.#enqueue(row.id, row.scheduled_at, undefined, true);
      return;
    }
    const input = JSON.parse(row.params) as StatusInput;
    try {
      await this.core.statuses.post(row.account_id, { ...input, idempotencyKey: `scheduled:${row.id}` });
    } catch (error) {
      // A refusal (the status replied to, or a media, is gone) will not change on a retry; anything else may.
      if (!isKithError(error) || statusOf(error.code) >= 500) throw error;
      logger.warn("Scheduled status {id} of {accountId} was refused when posted: {code}", {
        id: row.id,
        accountId: row.account_id,
        code: error.code,
      });
    }
    await this.store.delete(row.id, null, row.scheduled_at);
  }

  /** Queues again the job of every waiting status: a queue that keeps no jobs across a restart has lost them. */
  async recover(): Promise<void> {
    let after = "";
    for (;;) {
      const rows = await this.store.batchAfter(after, RECOVERY_BATCH);
      for (const row of rows) await this.#enqueue(row.id, row.scheduled_at);
      if (rows.length < RECOVERY_BATCH) return;
      after = rows[rows.length - 1]?.id ?? after;
    }
  }

  async render(row: ScheduledStatusRow): Promise<ScheduledStatusEntity> {
    const input = JSON.parse(row.params) as StatusInput;
    const mediaIds = input.mediaIds ? [...new Set(input.mediaIds)] : [];
    const media = mediaIds.length > 0 ? await this.core.media.render(mediaIds) : new Map();
    return {
      id: row.id,
      scheduled_at: row.scheduled_at,
      params: {
        text: input.text ?? "",
        poll: input.poll
          ? {
              options: [...input.poll.options],
              expires_in: String(input.poll.expiresIn),
              multiple: input.poll.multiple ?? false,
              hide_totals: input.poll.hideTotals ?? false,
            }
          : null,
        media_ids: mediaIds.length > 0 ? mediaIds : null,
        sensitive: input.sensitive ?? null,
        spoiler_text: input.spoilerText ?? null,
        visibility: input.visibility ?? null,
        in_reply_to_id: input.inReplyToId ?? null,
        language: input.language ?? null,
        application_id: null,
        scheduled_at: null,
        idempotency: row.idempotency_key,
        with_rate_limit: false,
        allowed_mentions: input.allowedMentions ? [...input.allowedMentions] : null,
      },
      media_attachments: mediaIds.flatMap((id) => media.get(id) ?? []),
    };
  }

  async #own(accountId: string, id: string): Promise<ScheduledStatusRow> {
    const row = await this.store.find(id);
    if (!row || row.account_id !== accountId) throw new KithError(scheduledStatusErrors["scheduled_status.not_found"]);
    return row;
  }

  async #checkTime(accountId: string, scheduledAt: Date, except: string | null): Promise<void> {
    const time = scheduledAt.getTime();
    if (time < this.deps.clock.now().getTime() + MINIMUM_LEAD_MS) {
      throw new KithError(scheduledStatusErrors["scheduled_status.too_soon"], {
        details: [{ field: "scheduled_at", message: "must be at least 5 minutes in the future", code: "too_soon" }],
      });
    }
    const dayStart = Math.floor(time / DAY_MS) * DAY_MS;
    const counts = await this.store.counts(accountId, new Date(dayStart).toISOString(), new Date(dayStart + DAY_MS).toISOString(), except);
    if (counts.total >= TOTAL_LIMIT) {
      throw new KithError(scheduledStatusErrors["scheduled_status.over_total_limit"], {
        details: [{ field: "scheduled_at", message: `at most ${TOTAL_LIMIT} scheduled statuses`, code: "over_total_limit" }],
      });
    }
    if (counts.day >= DAILY_LIMIT) {
      throw new KithError(scheduledStatusErrors["scheduled_status.over_daily_limit"], {
        details: [{ field: "scheduled_at", message: `at most ${DAILY_LIMIT} scheduled statuses a day`, code: "over_daily_limit" }],
      });
    }
  }

  async #enqueue(id: string, scheduledAt: string, db?: Kysely<Database>, again = false): Promise<void> {
    const delayMs = Math.max(0, Date.parse(scheduledAt) - this.deps.clock.now().getTime());
    await this.deps.queue.enqueue(SCHEDULED_STATUS_PUBLISH_QUEUE, { id, scheduledAt } satisfies PublishJob, {
      delayMs,
      // One waiting job per row and time, however often a start queues it again.
      deduplicationKey: `scheduled-status:${id}:${scheduledAt}${again ? ":again" : ""}`,
      ...(db && { db }),
    });
  }
}
