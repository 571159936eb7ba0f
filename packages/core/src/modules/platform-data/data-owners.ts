import { type Grant, holdsPermission } from "../../domain/permissions.js";

/** The owner id of the platform's own entries. */
export const PLATFORM_OWNER = "platform";

const USER_ID = /^us_[0-9a-z]{26}$/;
const GROUP_ID = /^gr_[0-9a-z]{26}$/;
const MANAGE = "Data.Manage";

/** Who owns an entry: a user, a group, or the platform. */
export type DataOwner =
  | { readonly kind: "platform"; readonly id: typeof PLATFORM_OWNER }
  | { readonly kind: "user"; readonly id: string }
  | { readonly kind: "group"; readonly id: string };

/** The owner an id names, or null for a string that is none of the three kinds. */
export function ownerOf(id: string): DataOwner | null {
  if (id === PLATFORM_OWNER) return { kind: "platform", id: PLATFORM_OWNER };
  if (USER_ID.test(id)) return { kind: "user", id };
  if (GROUP_ID.test(id)) return { kind: "group", id };
  return null;
}

/**
 * Whether the account holds Data.Manage for the owner: implicitly for its
 * own entries; through a role of the group, in the group's scope, for a
 * group's; and through a global grant for every owner, as a global grant
 * counts in every scope.
 */
export function managesOwner(accountId: string, grants: readonly Grant[], owner: DataOwner): boolean {
  if (holdsPermission(grants, MANAGE)) return true;
  if (owner.kind === "user") return owner.id === accountId;
  if (owner.kind === "group") return holdsPermission(grants, MANAGE, owner.id);
  return false;
}

/**
 * The owners whose entries the account may read and change: null for all of
 * them (a global grant), else its own and those of the groups where its
 * roles hold Data.Manage.
 */
export function managedOwners(accountId: string, grants: readonly Grant[]): string[] | null {
  if (holdsPermission(grants, MANAGE)) return null;
  const groups = new Set<string>();
  for (const grant of grants) {
    if (grant.scope !== "global" && grant.resource === "Data" && holdsPermission(grants, MANAGE, grant.scope)) groups.add(grant.scope);
  }
  return [accountId, ...[...groups].sort()];
}
