import { z } from "zod";
import { KithError } from "../../domain/errors.js";
import { authenticated } from "../../platform/http/access.js";
import { moduleRoute } from "../module.js";
import type { PreferencesService } from "./preferences-service.js";

const route = moduleRoute<PreferencesService>();

const PreferencesJson = z.object({
  "posting:default:visibility": z.enum(["public", "unlisted", "private", "direct"]),
  "posting:default:sensitive": z.boolean(),
  "posting:default:language": z.string().nullable(),
  "posting:default:quote_policy": z.enum(["public", "followers", "nobody"]),
  "reading:expand:media": z.enum(["default", "show_all", "hide_all"]),
  "reading:expand:spoilers": z.boolean(),
  "reading:autoplay:gifs": z.boolean(),
});

export const preferenceRoutes = [
  route({
    method: "GET",
    path: "/api/v1/preferences",
    summary: "The caller's posting defaults and reading preferences",
    tags: ["preferences"],
    access: authenticated,
    scopes: ["read:accounts"],
    response: PreferencesJson,
    handler: async ({ caller, module }) => {
      if (caller.kind !== "user") throw new KithError("auth.unauthenticated");
      return module.get(caller.accountId);
    },
  }),
];
