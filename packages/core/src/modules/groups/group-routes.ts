import { z } from "zod";
import { any } from "../../domain/permissions.js";
import { authenticated, permission, publicAccess } from "../../platform/http/access.js";
import { DEFAULT_PAGE, idPageQuery, pageRequest, pagedReply } from "../../platform/http/pagination.js";
import { zBool, zList } from "../../platform/http/schemas.js";
import { GroupJson, GroupQuestionJson, GroupRuleJson, JoinTokenJson, QUESTION_KINDS } from "./group-entities.js";
import { JOIN_MODES } from "./group-tables-store.js";
import {
  ADMIN_SCOPES,
  GroupParams,
  MEMBERSHIP_SCOPES,
  READ_SCOPES,
  TAGS,
  concealGroup,
  grantsOf,
  inGroup,
  route,
  userOf,
  viewerOf,
} from "./route-parts.js";

const DisplayName = z.string().trim().max(100);
const Note = z.string().max(5000);
const JoinMode = z.enum(JOIN_MODES);

const CreateBody = z.object({
  name: z
    .string()
    .regex(/^[A-Za-z0-9_]{1,30}$/, "1 to 30 letters, digits or underscores")
    .describe("The group's handle, unique on the server (with its accounts' usernames), case aside"),
  display_name: DisplayName.optional(),
  note: Note.optional(),
  join_mode: JoinMode.default("OPEN"),
  secret: zBool.default(false).describe("A secret group is invisible to anyone but its members and invitees"),
  discoverable: zBool.default(true).describe("Listed in the directory (a secret group never is)"),
});

const ImageFile = z.instanceof(File).meta({ type: "string", format: "binary" });
/** Room for an avatar and a header in one multipart body, as `update_credentials` has. */
const GROUP_BODY_BYTES = 2 * 16 * 1024 * 1024 + 1_000_000;

const UpdateBody = z.object({
  avatar: ImageFile.optional().describe("The group's avatar (multipart), processed as a profile's"),
  header: ImageFile.optional().describe("The group's header (multipart), processed as a profile's"),
  display_name: DisplayName.optional(),
  note: Note.optional(),
  join_mode: JoinMode.optional(),
  secret: zBool.optional(),
  discoverable: zBool.optional(),
});

const DirectoryQuery = idPageQuery.extend({
  q: z.string().max(100).optional().describe("Words the group's name or display name holds"),
  mine: zBool.optional().describe("Only the caller's groups"),
});

const RulesBody = z.object({
  rules: z
    .array(z.object({ text: z.string().trim().min(1).max(1000), hint: z.string().trim().max(2000).default("") }))
    .max(50)
    .describe("The whole list, in its order"),
});

const QuestionsBody = z.object({
  questions: z
    .array(
      z.object({
        question: z.string().trim().min(1).max(500),
        kind: z.enum(QUESTION_KINDS),
        required: zBool.default(true),
        options: z.array(z.string().trim().min(1).max(200)).max(50).default([]),
        expected: z
          .array(z.string().trim().min(1).max(200))
          .max(50)
          .nullable()
          .default(null)
          .describe("Choices an answer must hold: one of them (single choice), all of them (multiple choice)"),
      }),
    )
    .max(50)
    .describe("The whole list, in its order; each question gets a new id"),
});

const AnswersBody = z.object({
  answers: z
    .array(
      z.object({
        question_id: z.string().min(1).max(64),
        text: z.string().max(5000).optional().describe("The answer to a text question"),
        choices: zList(z.string().max(200)).pipe(z.array(z.string()).max(50)).optional().describe("The chosen options of a choice question"),
      }),
    )
    .max(50),
});

const manageSettings = permission(any("GroupSettings.Manage"), inGroup);

/** Groups themselves, their rules and their entry questions. */
export const groupRoutes = [
  route({
    method: "POST",
    path: "/api/v1/groups",
    summary: "Makes a group; the caller becomes its owner",
    description: "The group gets its own Owner, Admin, Moderator and Member roles (RBAC roles in the group's scope); 422 group.name_taken.",
    tags: TAGS,
    access: authenticated,
    scopes: ADMIN_SCOPES,
    body: CreateBody,
    response: GroupJson,
    handler: async ({ caller, body, module }) =>
      module.groups.create(userOf(caller), {
        name: body.name,
        ...(body.display_name && { displayName: body.display_name }),
        ...(body.note !== undefined && { note: body.note }),
        joinMode: body.join_mode,
        secret: body.secret,
        discoverable: body.discoverable,
      }),
  }),
  route({
    method: "GET",
    path: "/api/v1/groups",
    summary: "The group directory and search: discoverable groups that are not secret, and the caller's own, newest first",
    tags: TAGS,
    access: publicAccess,
    scopes: READ_SCOPES,
    query: DirectoryQuery,
    response: z.array(GroupJson),
    handler: async ({ caller, query, module, url }) => {
      const page = pageRequest(query, DEFAULT_PAGE);
      const groups = await module.groups.directory(viewerOf(caller), { ...(query.q && { q: query.q }), mineOnly: query.mine ?? false }, page);
      return pagedReply(url, groups, page.limit);
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/groups/{groupId}",
    summary: "A group, with the caller's membership and roles in it",
    description: "A secret group is 404 to anyone but its members and invitees.",
    tags: TAGS,
    access: publicAccess,
    scopes: READ_SCOPES,
    params: GroupParams,
    response: GroupJson,
    handler: async ({ caller, params, module }) => module.groups.get(params.groupId, viewerOf(caller)),
  }),
  route({
    method: "PATCH",
    path: "/api/v1/groups/{groupId}",
    summary: "Changes a group's display name, note, join mode, secrecy, listing, avatar or header (GroupSettings.Manage in the group)",
    description:
      "Secrecy is fixed once the group has statuses: 409 group.secrecy_fixed. Images come as multipart files, as to PATCH /api/v1/accounts/update_credentials; a file that is no image is 422.",
    tags: TAGS,
    access: manageSettings,
    whenForbidden: concealGroup,
    scopes: ADMIN_SCOPES,
    params: GroupParams,
    body: UpdateBody,
    maxBodyBytes: GROUP_BODY_BYTES,
    response: GroupJson,
    handler: async ({ caller, params, body, module }) =>
      module.groups.update(
        params.groupId,
        userOf(caller),
        {
          ...(body.display_name !== undefined && { display_name: body.display_name }),
          ...(body.note !== undefined && { note: body.note }),
          ...(body.join_mode !== undefined && { join_mode: body.join_mode }),
          ...(body.secret !== undefined && { secret: body.secret }),
          ...(body.discoverable !== undefined && { discoverable: body.discoverable }),
        },
        { ...(body.avatar && { avatar: body.avatar }), ...(body.header && { header: body.header }) },
      ),
  }),
  route({
    method: "DELETE",
    path: "/api/v1/groups/{groupId}",
    summary: "Deletes a group with its members, requests, invitations, rules, questions and roles (GroupOwnership.Manage: its owners)",
    tags: TAGS,
    access: permission(any("GroupOwnership.Manage"), inGroup),
    whenForbidden: concealGroup,
    scopes: ADMIN_SCOPES,
    params: GroupParams,
    response: z.object({}),
    handler: async ({ caller, params, module }) => {
      await module.groups.delete(params.groupId, userOf(caller));
      return {};
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/groups/{groupId}/rules",
    summary: "A group's rules, in their order",
    tags: TAGS,
    access: publicAccess,
    scopes: READ_SCOPES,
    params: GroupParams,
    response: z.array(GroupRuleJson),
    handler: async ({ caller, params, module }) => module.entry.rules(params.groupId, viewerOf(caller)),
  }),
  route({
    method: "PUT",
    path: "/api/v1/groups/{groupId}/rules",
    summary: "Replaces a group's rules (GroupSettings.Manage in the group)",
    tags: TAGS,
    access: manageSettings,
    whenForbidden: concealGroup,
    scopes: ADMIN_SCOPES,
    params: GroupParams,
    body: RulesBody,
    response: z.array(GroupRuleJson),
    handler: async ({ caller, params, body, module }) => module.entry.replaceRules(params.groupId, userOf(caller), body.rules),
  }),
  route({
    method: "GET",
    path: "/api/v1/groups/{groupId}/questions",
    summary: "The questions a group asks those who would join it (QUESTIONS mode)",
    description: "`expected` is shown to holders of GroupSettings.Read or GroupSettings.Manage in the group only.",
    tags: TAGS,
    access: publicAccess,
    scopes: READ_SCOPES,
    params: GroupParams,
    response: z.array(GroupQuestionJson),
    handler: async ({ caller, params, module }) => module.entry.questions(params.groupId, viewerOf(caller), await grantsOf(caller)),
  }),
  route({
    method: "PUT",
    path: "/api/v1/groups/{groupId}/questions",
    summary: "Replaces a group's entry questions (GroupSettings.Manage in the group)",
    description: "422 group.questions_invalid with a detail a field: a text question has no options; a choice question 2 to 20 distinct ones; expected answers among them.",
    tags: TAGS,
    access: manageSettings,
    whenForbidden: concealGroup,
    scopes: ADMIN_SCOPES,
    params: GroupParams,
    body: QuestionsBody,
    response: z.array(GroupQuestionJson),
    handler: async ({ caller, params, body, module }) =>
      module.entry.replaceQuestions(params.groupId, userOf(caller), await grantsOf(caller), body.questions),
  }),
  route({
    method: "POST",
    path: "/api/v1/groups/{groupId}/questions/answers",
    summary: "Answers a group's questions: a join token for POST .../join, single use, for ten minutes",
    description: "422 group.answers_invalid with a detail a question (`answers.<question_id>`) when the answers do not let the caller in.",
    tags: TAGS,
    access: authenticated,
    scopes: MEMBERSHIP_SCOPES,
    params: GroupParams,
    body: AnswersBody,
    response: JoinTokenJson,
    handler: async ({ caller, params, body, module }) =>
      module.entry.answer(
        params.groupId,
        userOf(caller),
        body.answers.map((answer) => ({
          questionId: answer.question_id,
          ...(answer.text !== undefined && { text: answer.text }),
          ...(answer.choices !== undefined && { choices: answer.choices }),
        })),
      ),
  }),
];
