import { z } from "zod";
import { AccountJson } from "../../mastodon/entities/account.js";
import { publicAccess } from "../../platform/http/access.js";
import { clampLimit } from "../../platform/http/pagination.js";
import { zBool, zInt } from "../../platform/http/schemas.js";
import { moduleRoute } from "../module.js";
import type { DirectoryService } from "./directory-service.js";

const route = moduleRoute<DirectoryService>();

/** Mastodon lists 40 accounts a page by default, 80 at most. */
const DIRECTORY_PAGE = { defaultLimit: 40, maxLimit: 80 };

export const directoryRoutes = [
  route({
    method: "GET",
    path: "/api/v1/directory",
    summary:
      "The profile directory: discoverable accounts, local and remote (`local` for this server's only), by latest status (`order=active`, the default) or newest account (`order=new`), paged with `offset` and `limit`",
    tags: ["directory"],
    access: publicAccess,
    scopes: ["read:accounts"],
    query: z.object({
      offset: zInt.pipe(z.number().int().min(0)).optional(),
      limit: zInt.optional(),
      order: z.enum(["active", "new"]).optional(),
      local: zBool.optional(),
    }),
    response: z.array(AccountJson),
    handler: ({ caller, query, module }) =>
      module.list({
        order: query.order ?? "active",
        localOnly: query.local ?? false,
        offset: query.offset ?? 0,
        limit: clampLimit(query.limit, DIRECTORY_PAGE),
        viewerId: caller.kind === "user" ? caller.accountId : null,
      }),
  }),
];
