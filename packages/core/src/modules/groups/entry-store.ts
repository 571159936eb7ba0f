import type { GroupJoinTokensTable, GroupQuestionsTable, GroupRulesTable, GroupsDb } from "./group-tables-store.js";

export type QuestionRow = GroupQuestionsTable;
export type RuleRow = GroupRulesTable;
export type JoinTokenRow = GroupJoinTokensTable;

export async function questionsOf(db: GroupsDb, groupId: string): Promise<QuestionRow[]> {
  return db.selectFrom("group_questions").selectAll().where("group_id", "=", groupId).orderBy("position").execute();
}

/** Replaces a group's questions with these, in their order. */
export async function replaceQuestions(db: GroupsDb, groupId: string, rows: readonly QuestionRow[]): Promise<void> {
  await db.deleteFrom("group_questions").where("group_id", "=", groupId).execute();
  if (rows.length > 0) await db.insertInto("group_questions").values([...rows]).execute();
}

export async function rulesOf(db: GroupsDb, groupId: string): Promise<RuleRow[]> {
  return db.selectFrom("group_rules").selectAll().where("group_id", "=", groupId).orderBy("position").execute();
}

/** Replaces a group's rules with these, in their order. */
export async function replaceRules(db: GroupsDb, groupId: string, rows: readonly RuleRow[]): Promise<void> {
  await db.deleteFrom("group_rules").where("group_id", "=", groupId).execute();
  if (rows.length > 0) await db.insertInto("group_rules").values([...rows]).execute();
}

export async function insertJoinToken(db: GroupsDb, row: JoinTokenRow): Promise<void> {
  await db.insertInto("group_join_tokens").values(row).execute();
}

/**
 * Uses a join token, in one statement: it must be the account's, for the
 * group, unused and unexpired. Of two joins with the same token at once,
 * one changes the row and the other finds it used.
 */
export async function consumeJoinToken(db: GroupsDb, tokenHash: string, groupId: string, accountId: string, now: string): Promise<boolean> {
  const result = await db
    .updateTable("group_join_tokens")
    .set({ consumed_at: now })
    .where("token_hash", "=", tokenHash)
    .where("group_id", "=", groupId)
    .where("account_id", "=", accountId)
    .where("consumed_at", "is", null)
    .where("expires_at", ">", now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** The token's row, to tell why it could not be used. */
export async function findJoinToken(db: GroupsDb, tokenHash: string): Promise<JoinTokenRow | undefined> {
  return db.selectFrom("group_join_tokens").selectAll().where("token_hash", "=", tokenHash).executeTakeFirst();
}

/** Forgets tokens that expired before `before`; how many. */
export async function deleteExpiredJoinTokens(db: GroupsDb, before: string): Promise<number> {
  const result = await db.deleteFrom("group_join_tokens").where("expires_at", "<", before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
