/**
 * Role-based permissions as DESIGN.md defines them. A role holds permissions:
 * a resource name and a set of access types. An endpoint asks for permission
 * names `<Resource>.<Action>`; the action maps onto access types:
 * `Read` holds with Read; `Manage` with Add, Modify and Delete; `Invite` with
 * Add; a bare resource name (`AIProviders`) holds with any access.
 */

export const ACCESS_TYPES = ["Read", "Add", "Modify", "Delete"] as const;
export type AccessType = (typeof ACCESS_TYPES)[number];

/** The scope of a role: the whole server, or one group (its `gr_` id). */
export type RoleScope = "global" | string;

/** A permission held through a role, with that role's scope. */
export interface Grant {
  readonly resource: string;
  readonly access: readonly AccessType[];
  readonly scope: RoleScope;
}

const ACTION_ACCESS: Readonly<Record<string, readonly AccessType[]>> = {
  Read: ["Read"],
  Manage: ["Add", "Modify", "Delete"],
  Invite: ["Add"],
};

/** A permission rule: a permission name, or any/all of nested rules. */
export type PermissionRule =
  | { readonly kind: "permission"; readonly name: string }
  | { readonly kind: "any"; readonly rules: readonly PermissionRule[] }
  | { readonly kind: "all"; readonly rules: readonly PermissionRule[] };

function toRule(rule: string | PermissionRule): PermissionRule {
  if (typeof rule !== "string") return rule;
  parsePermissionName(rule); // fail at declaration time on a name we cannot evaluate
  return { kind: "permission", name: rule };
}

/** Holds when at least one of the rules holds. */
export function any(...rules: readonly (string | PermissionRule)[]): PermissionRule {
  // An empty any() would refuse everyone; almost surely a mistake in a declaration.
  if (rules.length === 0) throw new Error("any() needs at least one rule");
  return { kind: "any", rules: rules.map(toRule) };
}

/** Holds when every rule holds. */
export function all(...rules: readonly (string | PermissionRule)[]): PermissionRule {
  // An empty all() would hold for every signed-in user: refuse it rather than open a route by accident.
  if (rules.length === 0) throw new Error("all() needs at least one rule");
  return { kind: "all", rules: rules.map(toRule) };
}

export interface ParsedPermission {
  readonly resource: string;
  /** Access types that must all be held; empty means any access suffices. */
  readonly requires: readonly AccessType[];
}

export function parsePermissionName(name: string): ParsedPermission {
  const dot = name.indexOf(".");
  if (dot === -1) {
    if (!name) throw new Error("Empty permission name");
    return { resource: name, requires: [] };
  }
  const resource = name.slice(0, dot);
  const action = name.slice(dot + 1);
  // Own keys only: `Reports.toString` must not find Object.prototype's members.
  const requires = Object.hasOwn(ACTION_ACCESS, action) ? ACTION_ACCESS[action] : undefined;
  if (!resource || !requires) throw new Error(`Unknown permission name: ${name}`);
  return { resource, requires };
}

/** Whether a grant applies in the given group context: global grants apply everywhere, group grants only in their group. */
function grantApplies(grant: Grant, group: string | null): boolean {
  return grant.scope === "global" || (group !== null && grant.scope === group);
}

/** Whether the grants satisfy one permission name, in a group context or none. */
export function holdsPermission(grants: readonly Grant[], name: string, group: string | null = null): boolean {
  const { resource, requires } = parsePermissionName(name);
  const held = new Set<AccessType>();
  for (const grant of grants) {
    if (grant.resource !== resource || !grantApplies(grant, group)) continue;
    for (const access of grant.access) held.add(access);
  }
  if (requires.length === 0) return held.size > 0;
  return requires.every((access) => held.has(access));
}

/** Evaluates a rule against the caller's grants. */
export function ruleHolds(rule: PermissionRule, grants: readonly Grant[], group: string | null = null): boolean {
  switch (rule.kind) {
    case "permission":
      return holdsPermission(grants, rule.name, group);
    case "any":
      return rule.rules.some((inner) => ruleHolds(inner, grants, group));
    case "all":
      return rule.rules.every((inner) => ruleHolds(inner, grants, group));
  }
}

/** Every permission name a rule mentions, for documentation and tests. */
export function permissionNames(rule: PermissionRule): string[] {
  if (rule.kind === "permission") return [rule.name];
  return [...new Set(rule.rules.flatMap(permissionNames))];
}

/** A readable form of a rule, e.g. `any(Reports.Read, Reports.Manage)`. */
export function describeRule(rule: PermissionRule): string {
  if (rule.kind === "permission") return rule.name;
  return `${rule.kind}(${rule.rules.map(describeRule).join(", ")})`;
}

/**
 * The smallest set of grants that satisfies a rule, for tests that need a
 * caller who just holds it. Global scope unless a group is given.
 */
export function grantsSatisfying(rule: PermissionRule, scope: RoleScope = "global"): Grant[] {
  const grantFor = (name: string): Grant => {
    const { resource, requires } = parsePermissionName(name);
    return { resource, access: requires.length ? requires : ["Read"], scope };
  };
  switch (rule.kind) {
    case "permission":
      return [grantFor(rule.name)];
    case "any":
      return rule.rules[0] ? grantsSatisfying(rule.rules[0], scope) : [];
    case "all":
      return rule.rules.flatMap((inner) => grantsSatisfying(inner, scope));
  }
}
