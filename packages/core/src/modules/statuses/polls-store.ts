import type { Kysely } from "kysely";
import { writeFlag } from "../../platform/storage/boolean-columns.js";
import type { Database, PollRow } from "../../ports/storage-schema.js";

/** What a new poll is made of, its options trimmed. */
export interface NewPoll {
  readonly id: string;
  readonly statusId: string;
  readonly accountId: string;
  readonly options: readonly string[];
  readonly multiple: boolean;
  readonly hideTotals: boolean;
  readonly expiresAt: string;
}

export async function insertPoll(db: Kysely<Database>, poll: NewPoll, now: string): Promise<void> {
  await db
    .insertInto("polls")
    .values({
      id: poll.id,
      status_id: poll.statusId,
      account_id: poll.accountId,
      options: JSON.stringify(poll.options),
      cached_tallies: JSON.stringify(poll.options.map(() => 0)),
      multiple: writeFlag(poll.multiple),
      hide_totals: writeFlag(poll.hideTotals),
      expires_at: poll.expiresAt,
      created_at: now,
      updated_at: now,
    })
    .execute();
}

/** Removes a status's poll and its votes. */
export async function deletePollsOfStatus(db: Kysely<Database>, statusId: string): Promise<void> {
  const ids = (await db.selectFrom("polls").select("id").where("status_id", "=", statusId).execute()).map((poll) => poll.id);
  if (ids.length === 0) return;
  await db.deleteFrom("poll_votes").where("poll_id", "in", ids).execute();
  await db.deleteFrom("polls").where("id", "in", ids).execute();
}

export async function findPoll(db: Kysely<Database>, pollId: string): Promise<PollRow | null> {
  return (await db.selectFrom("polls").selectAll().where("id", "=", pollId).executeTakeFirst()) ?? null;
}

/** The poll of a status (a Question), if it has one. */
export async function findPollOfStatus(db: Kysely<Database>, statusId: string): Promise<PollRow | null> {
  return (await db.selectFrom("polls").selectAll().where("status_id", "=", statusId).executeTakeFirst()) ?? null;
}

export async function listOwnVotes(db: Kysely<Database>, pollId: string, accountId: string): Promise<{ id: string; choice: number }[]> {
  return db
    .selectFrom("poll_votes")
    .select(["id", "choice"])
    .where("poll_id", "=", pollId)
    .where("account_id", "=", accountId)
    .orderBy("choice")
    .execute();
}

/**
 * Adds votes for these choices to a poll's tallies, counting a voter once:
 * `newVoter` says whether these are the voter's first votes on it. Run in
 * the transaction that records the votes.
 */
async function addToTallies(
  db: Kysely<Database>,
  pollId: string,
  choices: readonly number[],
  newVoter: boolean,
  now: string,
): Promise<void> {
  const poll = await db.selectFrom("polls").select(["options", "cached_tallies"]).where("id", "=", pollId).executeTakeFirstOrThrow();
  const optionCount = (JSON.parse(poll.options) as unknown[]).length;
  const tallies = JSON.parse(poll.cached_tallies) as number[];
  for (const choice of choices) tallies[choice] = (tallies[choice] ?? 0) + 1;
  await db
    .updateTable("polls")
    .set((eb) => ({
      cached_tallies: JSON.stringify(Array.from({ length: Math.max(optionCount, tallies.length) }, (_, index) => tallies[index] ?? 0)),
      votes_count: eb("votes_count", "+", choices.length),
      voters_count: newVoter ? eb("voters_count", "+", 1) : eb.ref("voters_count"),
      updated_at: now,
    }))
    .where("id", "=", pollId)
    .execute();
}

/** A local account's votes, all at once; false when it had voted on the poll already. */
export async function insertLocalVotes(
  db: Kysely<Database>,
  vote: { pollId: string; accountId: string; choices: readonly number[]; ids: () => string },
  now: string,
): Promise<boolean> {
  const existing = await db
    .selectFrom("poll_votes")
    .select("id")
    .where("poll_id", "=", vote.pollId)
    .where("account_id", "=", vote.accountId)
    .executeTakeFirst();
  if (existing) return false;
  await db
    .insertInto("poll_votes")
    .values(vote.choices.map((choice) => ({ id: vote.ids(), poll_id: vote.pollId, account_id: vote.accountId, choice, created_at: now })))
    .execute();
  await addToTallies(db, vote.pollId, vote.choices, true, now);
  return true;
}

/**
 * Records one vote of an account on a poll (a remote voter's, or the tally
 * another server reports), once per voter and option; a single-choice poll
 * takes one vote per voter. False when it was not recorded.
 */
export async function insertVote(
  db: Kysely<Database>,
  vote: { id: string; pollId: string; accountId: string; choice: number; uri: string; multiple: boolean },
  now: string,
): Promise<boolean> {
  const earlier = await db
    .selectFrom("poll_votes")
    .select(["choice", "uri"])
    .where("poll_id", "=", vote.pollId)
    .where("account_id", "=", vote.accountId)
    .execute();
  if (earlier.some((row) => row.choice === vote.choice || row.uri === vote.uri)) return false;
  if (!vote.multiple && earlier.length > 0) return false;
  await db
    .insertInto("poll_votes")
    .values({ id: vote.id, poll_id: vote.pollId, account_id: vote.accountId, choice: vote.choice, uri: vote.uri, created_at: now })
    .execute();
  await addToTallies(db, vote.pollId, [vote.choice], earlier.length === 0, now);
  return true;
}

/** Marks an open poll closed; false when it was closed already. */
export async function closePoll(db: Kysely<Database>, pollId: string, now: string): Promise<boolean> {
  const updated = await db
    .updateTable("polls")
    .set({ closed_at: now, updated_at: now })
    .where("id", "=", pollId)
    .where("closed_at", "is", null)
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) > 0;
}
