import { z } from "zod";
import type { Caller } from "../../domain/caller.js";
import { KithError } from "../../domain/errors.js";
import type { Grant } from "../../domain/permissions.js";
import { fromParam } from "../../platform/http/access.js";
import { type ModuleForbiddenContext, moduleRoute } from "../module.js";
import type { GroupsServices } from "./groups-services.js";

/** Declares a route of the groups module. */
export const route = moduleRoute<GroupsServices>();

export const TAGS = ["groups"];
/** Reading groups: they are accounts to Mastodon clients. */
export const READ_SCOPES = ["read:accounts"];
/** Making and running groups. */
export const ADMIN_SCOPES = ["write:accounts"];
/** One's own membership: joining a group is following it to Mastodon clients. */
export const MEMBERSHIP_SCOPES = ["write:follows"];

/** Where a group route's permission rule finds the group whose roles count. */
export const inGroup = { group: fromParam("groupId") };

export const GroupParams = z.object({ groupId: z.string().min(1).max(64) });
export const GroupUserParams = GroupParams.extend({ userId: z.string().min(1).max(64) });

/**
 * A caller refused a group route's permission is told the group does not
 * exist when it may not see it (a secret group, to a non-member), so that
 * the 403 does not give it away.
 */
export async function concealGroup({ caller, params, module }: ModuleForbiddenContext<GroupsServices>): Promise<void> {
  await module.groups.conceal(params.groupId ?? "", viewerOf(caller));
}

/** The signed-in account. */
export function userOf(caller: Caller): string {
  if (caller.kind !== "user") throw new KithError("auth.unauthenticated");
  return caller.accountId;
}

/** The viewing account, or null for a guest or an application. */
export function viewerOf(caller: Caller): string | null {
  return caller.kind === "user" ? caller.accountId : null;
}

/** The caller's grants, none for a guest. */
export async function grantsOf(caller: Caller): Promise<readonly Grant[]> {
  return caller.kind === "user" ? caller.grants() : [];
}
