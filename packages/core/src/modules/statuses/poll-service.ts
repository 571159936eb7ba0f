import type { Kysely } from "kysely";
import type { PollEntity } from "../../mastodon/entities/status.js";
import { parseJsonArray, pollExpired, serializePoll } from "../../mastodon/serializers/status.js";
import { KithError } from "../../domain/errors.js";
import { findVisibleStatus } from "./statuses-store.js";
import { readFlag } from "../../platform/storage/boolean-columns.js";
import { closePoll, deletePollsOfStatus, findPoll, insertLocalVotes, insertPoll, listOwnVotes } from "./polls-store.js";
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
    const options = input.options.map((option) => option.trim());
    await insertPoll(
      trx,
      { id, statusId, accountId, options, multiple: input.multiple ?? false, hideTotals: input.hideTotals ?? false, expiresAt },
      now.toISOString(),
    );
    await this.deps.queue.enqueue(POLL_CLOSE_QUEUE, { pollId: id } satisfies CloseJob, {
      db: trx,
      delayMs: input.expiresIn * 1000,
      deduplicationKey: `poll-close:${id}`,
    });
    return id;
  }

  /** Removes a status's poll and its votes (an edit that changes the options starts a new poll). */
  async removeInTransaction(trx: Kysely<Database>, statusId: string): Promise<void> {
    await deletePollsOfStatus(trx, statusId);
  }

  async #findVisible(pollId: string, viewerId: string | null): Promise<PollRow> {
    const db = this.deps.storage.db;
    const poll = await findPoll(db, pollId);
    if (!poll || !(await findVisibleStatus(db, poll.status_id, viewerId))) throw new KithError("poll.not_found");
    return poll;
  }

  async #render(poll: PollRow, viewerId: string | null): Promise<PollEntity> {
    const ownVotes = viewerId === null ? null : (await listOwnVotes(this.deps.storage.db, poll.id, viewerId)).map((row) => row.choice);
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
    const voted = await this.deps.storage.transaction((trx) =>
      insertLocalVotes(trx, { pollId, accountId, choices: unique, ids: () => this.deps.ids.next("pollVote") }, now),
    );
    if (!voted) throw new KithError("poll.already_voted");
    await this.events.emit({ type: "poll.voted", accountId, pollId, statusId: poll.status_id });
    return this.get(pollId, accountId);
  }

  /** Marks an ended poll closed and announces it, once; a poll that has not ended yet is left alone. */
  async close(pollId: string): Promise<boolean> {
    const db = this.deps.storage.db;
    const poll = await findPoll(db, pollId);
    if (!poll || poll.closed_at !== null) return false;
    const now = this.deps.clock.now();
    if (poll.expires_at !== null && Date.parse(poll.expires_at) > now.getTime()) return false;
    if (!(await closePoll(db, pollId, now.toISOString()))) return false;
    await this.events.emit({ type: "poll.closed", pollId, statusId: poll.status_id });
    return true;
  }
}
