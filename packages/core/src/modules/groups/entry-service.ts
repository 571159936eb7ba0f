import { createHash } from "node:crypto";
import type { Kysely } from "kysely";
import { KithError } from "../../domain/errors.js";
import { type Grant, any, ruleHolds } from "../../domain/permissions.js";
import { type Database, toBool } from "../../ports/storage-schema.js";
import type { ServiceDeps } from "../service-deps.js";
import { consumeJoinToken, deleteExpiredJoinTokens, findJoinToken, insertJoinToken, questionsOf, replaceQuestions, replaceRules, rulesOf } from "./entry-store.js";
import type { QuestionRow } from "./entry-store.js";
import { type AnswerInput, type Question, type QuestionInput, answerProblems, questionProblems } from "./entry-questions.js";
import type { GroupQuestionEntity, GroupRuleEntity, JoinTokenEntity, QuestionKind } from "./group-entities.js";
import { groupErrors } from "./group-errors.js";
import { groupIds } from "./group-ids.js";
import { type GroupsDb, groupsDb } from "./group-tables-store.js";
import type { GroupViews } from "./group-views.js";
import { findMember, isBanned } from "./members-store.js";

/** How long a join token lasts: long enough to press "join", short enough that answers stay fresh. */
export const JOIN_TOKEN_TTL_MS = 10 * 60 * 1000;

export interface RuleInput {
  readonly text: string;
  readonly hint: string;
}

const SEES_EXPECTED = any("GroupSettings.Read", "GroupSettings.Manage");

function hashToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

function toQuestion(row: QuestionRow): Question {
  return {
    id: row.id,
    question: row.question,
    kind: row.kind as QuestionKind,
    required: toBool(row.required),
    options: JSON.parse(row.options) as string[],
    expected: row.expected === null ? null : (JSON.parse(row.expected) as string[]),
  };
}

/**
 * What a group shows those who would join it, and what it asks of them: its
 * rules, its entry questions, and the join tokens that validated answers
 * give (bound to the applicant and the group, single use, short lived; only
 * their hash is kept).
 */
export class EntryService {
  constructor(
    private readonly deps: Pick<ServiceDeps, "storage" | "ids" | "clock" | "random">,
    private readonly views: GroupViews,
  ) {}

  #db(): GroupsDb {
    return groupsDb(this.deps.storage.db);
  }

  async rules(groupId: string, viewerId: string | null): Promise<GroupRuleEntity[]> {
    await this.views.visible(groupId, viewerId);
    return (await rulesOf(this.#db(), groupId)).map((row) => ({ id: row.id, text: row.text, hint: row.hint, position: row.position }));
  }

  async replaceRules(groupId: string, actorId: string, rules: readonly RuleInput[]): Promise<GroupRuleEntity[]> {
    await this.views.visible(groupId, actorId);
    const rows = rules.map((rule, position) => ({ id: this.deps.ids.next(groupIds.groupRule), group_id: groupId, position, ...rule }));
    await this.deps.storage.transaction((trx) => replaceRules(groupsDb(trx), groupId, rows));
    return this.rules(groupId, actorId);
  }

  /** The group's questions; the answers it expects only to those who may read its settings. */
  async questions(groupId: string, viewerId: string | null, grants: readonly Grant[]): Promise<GroupQuestionEntity[]> {
    await this.views.visible(groupId, viewerId);
    const showExpected = ruleHolds(SEES_EXPECTED, grants, groupId);
    return (await questionsOf(this.#db(), groupId)).map(toQuestion).map((question) => ({
      ...question,
      options: [...question.options],
      expected: showExpected && question.expected ? [...question.expected] : null,
    }));
  }

  async replaceQuestions(groupId: string, actorId: string, grants: readonly Grant[], questions: readonly QuestionInput[]): Promise<GroupQuestionEntity[]> {
    await this.views.visible(groupId, actorId);
    const problems = questionProblems(questions);
    if (problems.length > 0) throw new KithError(groupErrors["group.questions_invalid"], { details: problems });
    const rows: QuestionRow[] = questions.map((question, position) => ({
      id: this.deps.ids.next(groupIds.groupQuestion),
      group_id: groupId,
      position,
      kind: question.kind,
      question: question.question,
      required: question.required,
      options: JSON.stringify(question.options),
      expected: question.expected === null ? null : JSON.stringify(question.expected),
    }));
    await this.deps.storage.transaction((trx) => replaceQuestions(groupsDb(trx), groupId, rows));
    return this.questions(groupId, actorId, grants);
  }

  /**
   * Checks an applicant's answers: a join token when they let the applicant
   * in, else `group.answers_invalid` (422) with a detail a question.
   */
  async answer(groupId: string, accountId: string, answers: readonly AnswerInput[]): Promise<JoinTokenEntity> {
    const group = await this.views.visible(groupId, accountId);
    const db = this.#db();
    if (group.join_mode !== "QUESTIONS") throw new KithError(groupErrors["group.not_questions_mode"]);
    if (await findMember(db, groupId, accountId)) throw new KithError(groupErrors["group.already_member"]);
    if (await isBanned(db, groupId, accountId)) throw new KithError(groupErrors["group.banned"]);
    const problems = answerProblems((await questionsOf(db, groupId)).map(toQuestion), answers);
    if (problems.length > 0) throw new KithError(groupErrors["group.answers_invalid"], { details: problems });
    const token = Buffer.from(this.deps.random.bytes(32)).toString("base64url");
    const now = this.deps.clock.now();
    const expiresAt = new Date(now.getTime() + JOIN_TOKEN_TTL_MS).toISOString();
    await insertJoinToken(db, {
      token_hash: hashToken(token),
      group_id: groupId,
      account_id: accountId,
      expires_at: expiresAt,
      consumed_at: null,
      created_at: now.toISOString(),
    });
    return { token, expires_at: expiresAt };
  }

  /** Forgets join tokens expired for a day; how many. */
  async pruneTokens(): Promise<number> {
    const before = new Date(this.deps.clock.now().getTime() - 24 * 60 * 60 * 1000).toISOString();
    return deleteExpiredJoinTokens(this.#db(), before);
  }

  /**
   * Uses a join token in the join's transaction (rolled back with it). A
   * token not issued to this account for this group, expired, or used
   * already is refused, each with its code.
   */
  async useToken(trx: Kysely<Database>, groupId: string, accountId: string, token: string): Promise<void> {
    const db = groupsDb(trx);
    const hash = hashToken(token);
    const now = this.deps.clock.now().toISOString();
    if (await consumeJoinToken(db, hash, groupId, accountId, now)) return;
    const row = await findJoinToken(db, hash);
    if (!row || row.group_id !== groupId || row.account_id !== accountId) throw new KithError(groupErrors["group.join_token_invalid"]);
    if (row.consumed_at !== null) throw new KithError(groupErrors["group.join_token_used"]);
    throw new KithError(groupErrors["group.join_token_expired"]);
  }
}
