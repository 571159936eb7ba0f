import { z } from "zod";
import { any } from "../../domain/permissions.js";
import { authenticated, permission } from "../../platform/http/access.js";
import { zList } from "../../platform/http/schemas.js";
import { ADMIN_SCOPES, GroupParams, READ_SCOPES, TAGS, concealGroup, grantsOf, inGroup, route, userOf } from "./route-parts.js";

const manageSettings = permission(any("GroupSettings.Manage"), inGroup);

const SettingKey = z.string().min(1).max(64);
const Keys = zList(SettingKey).pipe(z.array(SettingKey).max(50));

const SettingsJson = z
  .record(z.string(), z.record(z.string(), z.unknown()))
  .describe('Each setting\'s key with its whole value, an object (e.g. `{"posting": {"who": "managers"}}`)');

const SettingsBody = z
  .record(z.string(), z.unknown())
  .describe("The settings to write, by key, each a whole object with every field its setting requires (no partial updates)");

const READ_LEVELS =
  "Settings are read at one of three levels: `public` (anyone who sees the group), `members` (its members), `managers` " +
  "(holders of GroupSettings.Read or GroupSettings.Manage in the group); the groups module's own settings are public: " +
  "`join_mode` `{mode}` (the group's `join_mode`, also changed by PATCH), `posting` `{who: members|managers}`, " +
  "`status_privacy` `{visibility: public|members}`, `calendar` `{public}`. Other modules register their own.";

/** A group's settings: a registry of keys, each with a schema, a default and who may read it. */
export const settingsRoutes = [
  route({
    method: "GET",
    path: "/api/v1/groups/{groupId}/settings",
    summary: "A group's settings the caller may read, by key: all of them, or those `keys` names",
    description: `${READ_LEVELS} A key nobody registered is 422 group.setting_unknown; a secret group is 404 to anyone but its members and invitees.`,
    tags: TAGS,
    access: authenticated,
    scopes: READ_SCOPES,
    params: GroupParams,
    query: z.object({ keys: Keys.optional().describe("The keys to read (`keys[]=posting&keys[]=calendar`); all when absent") }),
    response: SettingsJson,
    handler: async ({ caller, params, query, module }) =>
      module.settings.read(params.groupId, userOf(caller), await grantsOf(caller), query.keys),
  }),
  route({
    method: "PUT",
    path: "/api/v1/groups/{groupId}/settings",
    summary: "Writes several settings of a group at once, each a whole object (GroupSettings.Manage in the group)",
    description:
      "All or none: 422 group.setting_unknown for a key nobody registered; 422 group.setting_invalid when a value is not a whole, valid " +
      "object, its details naming each field (`<key>.<field>`, code `missing` for a field left out). Answers the settings written.",
    tags: TAGS,
    access: manageSettings,
    whenForbidden: concealGroup,
    scopes: ADMIN_SCOPES,
    params: GroupParams,
    body: SettingsBody,
    response: SettingsJson,
    handler: async ({ caller, params, body, module }) =>
      module.settings.write(params.groupId, userOf(caller), await grantsOf(caller), body),
  }),
  route({
    method: "DELETE",
    path: "/api/v1/groups/{groupId}/settings",
    summary: "Reverts the settings `keys` names to their defaults (GroupSettings.Manage in the group)",
    description:
      "What they were set to is forgotten. 422 group.setting_unknown for a key nobody registered. Answers the settings reverted.",
    tags: TAGS,
    access: manageSettings,
    whenForbidden: concealGroup,
    scopes: ADMIN_SCOPES,
    params: GroupParams,
    query: z.object({ keys: Keys.pipe(z.array(SettingKey).min(1)).describe("The keys to revert (`keys[]=posting`)") }),
    response: SettingsJson,
    handler: async ({ caller, params, query, module }) =>
      module.settings.reset(params.groupId, userOf(caller), await grantsOf(caller), query.keys),
  }),
];
