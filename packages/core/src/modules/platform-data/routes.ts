import { z } from "zod";
import type { Caller } from "../../domain/caller.js";
import { KithError } from "../../domain/errors.js";
import { authenticated } from "../../platform/http/access.js";
import { DEFAULT_PAGE, idPageQuery, pageRequest, pagedReply } from "../../platform/http/pagination.js";
import { zList } from "../../platform/http/schemas.js";
import { moduleRoute } from "../module.js";
import { MAX_CONTENT_BYTES, MAX_LABEL_LENGTH, MAX_TAGS } from "./data-content.js";
import type { DataCaller, DataService } from "./data-service.js";

const route = moduleRoute<DataService>();

const TAGS = ["data"];
const READ_SCOPES = ["read"];
const WRITE_SCOPES = ["write"];

function printable(text: string): boolean {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x20 || code === 0x7f) return false;
  }
  return true;
}

/** A tag or a type: printable text, since control characters (NUL above all) have no place in either. */
const Label = z.string().trim().min(1).max(MAX_LABEL_LENGTH).refine(printable, "no control characters");
const Tags = zList(Label).pipe(z.array(Label).max(MAX_TAGS));
const OwnerId = z.string().min(1).max(64).describe("A user's id (`us_...`), a group's (`gr_...`), or `platform`");
const Content = z.json().describe(`Any JSON value, at most ${MAX_CONTENT_BYTES} bytes as JSON text (413 data.content_too_large past it)`);

const DataEntryJson = z.object({
  id: z.string(),
  ownerId: z.string().describe("A user's id, a group's, or `platform`; it never changes"),
  type: z.string().nullable(),
  tags: z.array(z.string()),
  content: z.unknown(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

const RULES =
  "Data.Manage for the owner: a user holds it for their own entries; a group's entries need a role holding it in the group " +
  "(and the group's `data` application installed, else 404 group.app_not_installed); the platform's a global grant, which " +
  "counts for every owner. Lacking it is 403 auth.forbidden.";

async function dataCaller(caller: Caller): Promise<DataCaller> {
  if (caller.kind !== "user") throw new KithError("auth.unauthenticated");
  return { accountId: caller.accountId, grants: await caller.grants() };
}

/** Platform data: the spec's four endpoints. */
export const dataRoutes = [
  route({
    method: "GET",
    path: "/api/v1/data",
    summary: "Platform data entries: of one owner, or of every owner the caller manages",
    description:
      `${RULES} Filters: \`owner\` (Data.Manage for it), \`type\`, \`tags\` (\`tags[]=a&tags[]=b\`: an entry has every one). ` +
      "Without `owner`, every entry the caller may manage: its own, its groups' where it holds Data.Manage, all of them with a global grant. " +
      "Newest first; `limit` (20 by default, at most 80), `max_id`, `min_id`, `since_id`; the neighbouring pages in the `Link` header.",
    tags: TAGS,
    access: authenticated,
    scopes: READ_SCOPES,
    query: idPageQuery.extend({
      owner: OwnerId.optional(),
      type: Label.optional(),
      tags: Tags.optional(),
    }),
    response: z.array(DataEntryJson),
    handler: async ({ caller, query, module, url }) => {
      const page = pageRequest(query, DEFAULT_PAGE);
      const entries = await module.list(
        await dataCaller(caller),
        {
          ...(query.owner !== undefined && { owner: query.owner }),
          ...(query.type !== undefined && { type: query.type }),
          ...(query.tags !== undefined && { tags: query.tags }),
        },
        page,
      );
      return pagedReply(url, entries, page.limit);
    },
  }),
  route({
    method: "POST",
    path: "/api/v1/data",
    summary: "Creates a platform data entry for an owner: the caller, a group or the platform",
    description: `${RULES} \`ownerId\` (or \`owner\`) is the caller's own user when absent; tags are kept once each, in their order.`,
    tags: TAGS,
    access: authenticated,
    scopes: WRITE_SCOPES,
    body: z.object({
      ownerId: OwnerId.optional(),
      owner: OwnerId.optional().describe("The same as `ownerId`, the spec's name for it in a creation"),
      type: Label.optional(),
      tags: Tags.optional(),
      content: Content,
    }),
    response: DataEntryJson,
    handler: async ({ caller, body, module }) => {
      if (body.ownerId !== undefined && body.owner !== undefined && body.ownerId !== body.owner) {
        throw new KithError("request.validation_failed", {
          message: "ownerId and owner name different owners",
          details: [{ field: "owner", message: "differs from ownerId" }],
        });
      }
      const ownerId = body.ownerId ?? body.owner;
      return module.create(await dataCaller(caller), {
        ...(ownerId !== undefined && { ownerId }),
        ...(body.type !== undefined && { type: body.type }),
        ...(body.tags !== undefined && { tags: body.tags }),
        content: body.content,
      });
    },
  }),
  route({
    method: "PUT",
    path: "/api/v1/data/{id}",
    summary: "Updates a platform data entry's content, type and tags; its owner never changes",
    description:
      `${RULES} A field left out keeps its value; \`type: null\` clears the type, \`tags: []\` the tags. ` +
      "`ownerId`, when sent, must be the entry's owner: another is 409 data.owner_immutable.",
    tags: TAGS,
    access: authenticated,
    scopes: WRITE_SCOPES,
    params: z.object({ id: z.string().min(1).max(64) }),
    body: z.object({
      ownerId: OwnerId.optional(),
      type: Label.nullable().optional(),
      tags: Tags.optional(),
      content: Content.optional(),
    }),
    response: DataEntryJson,
    handler: async ({ caller, params, body, module }) =>
      module.update(await dataCaller(caller), params.id, {
        ...(body.ownerId !== undefined && { ownerId: body.ownerId }),
        ...(body.type !== undefined && { type: body.type }),
        ...(body.tags !== undefined && { tags: body.tags }),
        ...(body.content !== undefined && { content: body.content }),
      }),
  }),
  route({
    method: "DELETE",
    path: "/api/v1/data/{id}",
    summary: "Deletes a platform data entry for good, with its type and tags",
    description: RULES,
    tags: TAGS,
    access: authenticated,
    scopes: WRITE_SCOPES,
    params: z.object({ id: z.string().min(1).max(64) }),
    response: z.object({}),
    handler: async ({ caller, params, module }) => {
      await module.delete(await dataCaller(caller), params.id);
      return {};
    },
  }),
];
