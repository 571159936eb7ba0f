import type { Kysely } from "kysely";
import type { PollEntity } from "../../mastodon/entities/status.js";
import { parseJsonArray, pollExpired, serializePoll } from "../../mastodon/serializers/status.js";
import { KithError } from "../../domain/errors.js";
import { findVisibleStatus } from "./statuses-store.js";
import { readFlag, writeFlag } from "../../platform/storage/boolean-columns.js";
import type { Database, PollRow } from "../../ports/storage-schema.js";
import type { ServiceDeps } from "../service-deps.js";
import type { DomainEvents } from "../../platform/events/domain-events.js";

/** The queue whose delayed jobs close polls when they end. */
export const POLL_CLOSE_QUEUE = "polls.close";

export interface PollInput {
  readonly options: readonly string[];
  /** Seconds from now. */
  readonly expiresIn: number;
  readonly multiple?: boolean;
  readonly hideTotals?: boolean;
}

interface CloseJob {
  readonly pollId: string;
}

function isCloseJob(payload: unknown): payload is CloseJob {
  return typeof payload === "object" && payload !== null && typeof (payload as { pollId?: unknown }).pollId === "string";
}

/**
 * Polls of statuses: created with their status, voted on, closed when they end.
 * The end is a delayed job queued with the status, so "poll ended"
 * notifications go out on time whether or not anyone reads the poll; reading
 * an ended poll that the job has not closed yet already shows it expired.
 */
export class PollService {
  constructor(
    private readonly deps: Pick<ServiceDeps, "storage" | "queue" | "clock" | "ids" | "config">,
    private readonly events: DomainEvents,
  ) {
    deps.queue.handle(
      POLL_CLOSE_QUEUE,
      async (payload) => {
        if (isCloseJob(payload)) await this.close(payload.pollId);
      },
      { description: "Closes a poll when it ends and tells its voters" },
    );
  }

  /** Refuses options, durations and counts outside the instance limits (422 with details). */
  validate(input: PollInput): void {
    const problems: { field: string; message: string }[] = [];
    const { maxOptions, maxCharactersPerOption, minExpiration, maxExpiration } = this.deps.config.limits.polls;
    if (input.options.length < 2) problems.push({ field: "poll.options", message: "must have at least 2 options" });
    if (input.options.length > maxOptions) problems.push({ field: "poll.options", message: `must have at most ${maxOptions} options` });
    if (input.options.some((option) => option.trim().length === 0))
      problems.push({ field: "poll.options", message: "options must not be blank" });
    if (input.options.some((option) => [...option].length > maxCharactersPerOption)) {
      problems.push({ field: "poll.options", message: `options must be at most ${maxCharactersPerOption} characters` });
    }
    if (new Set(input.options.map((option) => option.trim())).size !== input.options.length) {
      problems.push({ field: "poll.options", message: "options must be different from each other" });
    }
    if (!Number.isFinite(input.expiresIn) || input.expiresIn < minExpiration || input.expiresIn > maxExpiration) {
      problems.push({ field: "poll.expires_in", message: `must be between ${minExpiration} and ${maxExpiration} seconds` });
    }
    if (problems.length > 0) throw new KithError("status.invalid", { details: problems });
  }

  /** Writes the poll of a new post in the status's transaction and queues its end. */
  async createInTransaction(trx: Kysely<Database>, statusId: string, accountId: string, input: PollInput): Promise<string> {
    const now = this.deps.clock.now();
    const id = this.deps.ids.next("poll");
    const expiresAt = new Date(now.getTime() + input.expiresIn * 1000).toISOString();
    await trx
      .insertInto("polls")
      .values({
        id,
        status_id: statusId,
        account_id: accountId,
        options: JSON.stringify(input.options.map((option) => option.trim())),
        cached_tallies: JSON.stringify(input.options.map(() => 0)),
        multiple: writeFlag(input.multiple ?? false),
        hide_totals: writeFlag(input.hideTotals ?? false),
        expires_at: expiresAt,
        created_at: now.toISOString(),
        updated_at: now.toISOString(),
      })
      .execute();
    await this.deps.queue.enqueue(POLL_CLOSE_QUEUE, { pollId: id } satisfies CloseJob, {
      db: trx,
      delayMs: input.expiresIn * 1000,
      deduplicationKey: `poll-close:${id}`,
    });
    return id;
  }

  /** Removes a status's poll and its votes (an edit that changes the options starts a new poll). */
  async removeInTransaction(trx: Kysely<Database>, statusId: string): Promise<void> {
    const polls = await trx.selectFrom("polls").select("id").where("status_id", "=", statusId).execute();
    if (polls.length === 0) return;
    const ids = polls.map((poll) => poll.id);
    await trx.deleteFrom("poll_votes").where("poll_id", "in", ids).execute();
    await trx.deleteFrom("polls").where("id", "in", ids).execute();
  }

  async #findVisible(pollId: string, viewerId: string | null): Promise<PollRow> {
    const db = this.deps.storage.db;
    const poll = await db.selectFrom("polls").selectAll().where("id", "=", pollId).executeTakeFirst();
    if (!poll || !(await findVisibleStatus(db, poll.status_id, viewerId))) throw new KithError("poll.not_found");
    return poll;
  }

  async #render(poll: PollRow, viewerId: string | null): Promise<PollEntity> {
    const ownVotes =
      viewerId === null
        ? null
        : (
            await this.deps.storage.db
              .selectFrom("poll_votes")
              .select("choice")
              .where("poll_id", "=", poll.id)
              .where("account_id", "=", viewerId)
              .orderBy("choice")
              .execute()
          ).map((row) => row.choice);
    return serializePoll(poll, { now: this.deps.clock.now(), viewerId, ownVotes });
  }

  /** The poll, if the viewer may see its status (404 otherwise). */
  async get(pollId: string, viewerId: string | null): Promise<PollEntity> {
    return this.#render(await this.#findVisible(pollId, viewerId), viewerId);
  }

  /** Votes once: one choice, or several on a multiple-choice poll; never on an ended poll or one's own. */
  async vote(accountId: string, pollId: string, choices: readonly number[]): Promise<PollEntity> {
    const poll = await this.#findVisible(pollId, accountId);
    if (pollExpired(poll, this.deps.clock.now())) throw new KithError("poll.expired");
    if (poll.account_id === accountId) throw new KithError("poll.own_poll");
    const options = parseJsonArray<string>(poll.options);
    const unique = [...new Set(choices)];
    if (unique.length === 0 || unique.some((choice) => !Number.isInteger(choice) || choice < 0 || choice >= options.length)) {
      throw new KithError("poll.invalid_choice");
    }
    if (!readFlag(poll.multiple) && unique.length > 1) {
      throw new KithError("poll.invalid_choice", { message: "This poll takes a single choice" });
    }
    const now = this.deps.clock.now().toISOString();
    await this.deps.storage.transaction(async (trx) => {
      const existing = await trx
        .selectFrom("poll_votes")
        .select("id")
        .where("poll_id", "=", pollId)
        .where("account_id", "=", accountId)
        .executeTakeFirst();
      if (existing) throw new KithError("poll.already_voted");
      await trx
        .insertInto("poll_votes")
        .values(
          unique.map((choice) => ({ id: this.deps.ids.next("pollVote"), poll_id: pollId, account_id: accountId, choice, created_at: now })),
        )
        .execute();
      const fresh = await trx.selectFrom("polls").select(["cached_tallies"]).where("id", "=", pollId).executeTakeFirstOrThrow();
      const tallies = parseJsonArray<number>(fresh.cached_tallies);
      for (const choice of unique) tallies[choice] = (tallies[choice] ?? 0) + 1;
      await trx
        .updateTable("polls")
        .set((eb) => ({
          cached_tallies: JSON.stringify(options.map((_, index) => tallies[index] ?? 0)),
          votes_count: eb("votes_count", "+", unique.length),
          voters_count: eb("voters_count", "+", 1),
          updated_at: now,
        }))
        .where("id", "=", pollId)
        .execute();
    });
    await this.events.emit({ type: "poll.voted", accountId, pollId, statusId: poll.status_id });
    return this.get(pollId, accountId);
  }

  /** Marks an ended poll closed and announces it, once; a poll that has not ended yet is left alone. */
  async close(pollId: string): Promise<boolean> {
    const db = this.deps.storage.db;
    const poll = await db
      .selectFrom("polls")
      .select(["id", "status_id", "expires_at", "closed_at"])
      .where("id", "=", pollId)
      .executeTakeFirst();
    if (!poll || poll.closed_at !== null) return false;
    const now = this.deps.clock.now();
    if (poll.expires_at !== null && Date.parse(poll.expires_at) > now.getTime()) return false;
    const updated = await db
      .updateTable("polls")
      .set({ closed_at: now.toISOString(), updated_at: now.toISOString() })
      .where("id", "=", pollId)
      .where("closed_at", "is", null)
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) === 0) return false;
    await this.events.emit({ type: "poll.closed", pollId, statusId: poll.status_id });
    return true;
  }
}
