import { z } from "zod";
import { instanceSettingsSchema } from "../../domain/instance-settings.js";
import { any } from "../../domain/permissions.js";
import { permission } from "../../platform/http/access.js";
import { route } from "../core-route.js";

const SettingsJson = instanceSettingsSchema;

export const adminSettingsRoutes = [
  route({
    method: "GET",
    path: "/api/v1/admin/settings",
    summary: "Every server setting, stored values over defaults",
    tags: ["admin/settings"],
    access: permission(any("AdminSettings.Read", "AdminSettings.Manage")),
    scopes: ["admin:read"],
    response: SettingsJson,
    handler: ({ services }) => services.settings.all(),
  }),
  route({
    method: "PATCH",
    path: "/api/v1/admin/settings",
    summary: "Changes some settings; unknown keys and bad values are refused and nothing is written",
    tags: ["admin/settings"],
    access: permission(any("AdminSettings.Manage")),
    scopes: ["admin:write"],
    body: z.record(z.string(), z.unknown()),
    response: SettingsJson,
    handler: ({ services, body }) => services.settings.update(body),
  }),
];
