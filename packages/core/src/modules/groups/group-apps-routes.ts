import { z } from "zod";
import { any } from "../../domain/permissions.js";
import { permission, publicAccess } from "../../platform/http/access.js";
import { ADMIN_SCOPES, GroupParams, READ_SCOPES, TAGS, concealGroup, inGroup, route, userOf, viewerOf } from "./route-parts.js";

const manageApps = permission(any("GroupApps.Manage"), inGroup);

const GroupAppParams = GroupParams.extend({ appId: z.string().min(1).max(64) });

const GroupAppJson = z.object({
  id: z.string().describe("The application's id, e.g. `channels`"),
  name: z.string(),
  description: z.string(),
  module: z.string().nullable().describe("The module that offers it; null while this server has none"),
  available: z.boolean().describe("Whether groups can install it here; the catalog lists planned applications too"),
  default_installed: z.boolean().describe("Installed in every group until its managers uninstall it"),
});

const GroupInstalledAppJson = GroupAppJson.extend({
  installed: z.boolean(),
  changed_at: z.string().nullable().describe("When the group's managers last installed or uninstalled it; null while it has its default"),
});

/** Group applications: the catalog, and what each group installed. */
export const appsRoutes = [
  route({
    method: "GET",
    path: "/api/v1/groups/apps",
    summary: "Every application offered at the group entry point: the catalog groups install from",
    description: "Applications the server's modules declare, and planned ones it has no module for yet (`available: false`).",
    tags: TAGS,
    access: publicAccess,
    scopes: READ_SCOPES,
    response: z.array(GroupAppJson),
    handler: ({ module }) => module.apps.catalog(),
  }),
  route({
    method: "GET",
    path: "/api/v1/groups/{groupId}/apps",
    summary: "The applications installed in a group",
    description: "Open to anyone who sees the group: a secret group is 404 to anyone but its members and invitees.",
    tags: TAGS,
    access: publicAccess,
    scopes: READ_SCOPES,
    params: GroupParams,
    response: z.array(GroupInstalledAppJson),
    handler: async ({ caller, params, module }) => module.apps.installed(params.groupId, viewerOf(caller)),
  }),
  route({
    method: "PUT",
    path: "/api/v1/groups/{groupId}/apps/{appId}",
    summary: "Installs an application in a group, turning its feature on there (GroupApps.Manage in the group)",
    description:
      "Installing one installed already changes nothing. 404 group.app_not_found for an id the catalog lacks; 409 group.app_unavailable for a planned one.",
    tags: TAGS,
    access: manageApps,
    whenForbidden: concealGroup,
    scopes: ADMIN_SCOPES,
    params: GroupAppParams,
    response: GroupInstalledAppJson,
    handler: async ({ caller, params, module }) => module.apps.install(params.groupId, userOf(caller), params.appId),
  }),
  route({
    method: "DELETE",
    path: "/api/v1/groups/{groupId}/apps/{appId}",
    summary: "Uninstalls an application from a group: its routes answer 404 for the group (GroupApps.Manage in the group)",
    description:
      "One installed by default is uninstalled too, until installed again; what the application kept for the group stays. 404 group.app_not_found for an id the catalog lacks; 409 group.app_unavailable for a planned one.",
    tags: TAGS,
    access: manageApps,
    whenForbidden: concealGroup,
    scopes: ADMIN_SCOPES,
    params: GroupAppParams,
    response: GroupInstalledAppJson,
    handler: async ({ caller, params, module }) => module.apps.uninstall(params.groupId, userOf(caller), params.appId),
  }),
];
