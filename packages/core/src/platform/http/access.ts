import { type PermissionRule, describeRule } from "../../domain/permissions.js";

/** Where a route finds the group whose scoped roles also count. */
export interface GroupSelector {
  readonly source: "query" | "params" | "body";
  readonly name: string;
}

/** Who may call a route. Declared as data, so the router, the OpenAPI document and the tests all read it. */
export type Access =
  | { readonly kind: "public" }
  | { readonly kind: "authenticated" }
  | { readonly kind: "anyToken" }
  | { readonly kind: "signedOut" }
  | { readonly kind: "permission"; readonly rule: PermissionRule; readonly group?: GroupSelector };

/** Anyone, guests included; a token, if sent, must still be valid. */
export const publicAccess: Access = { kind: "public" };
/** Any signed-in user. */
export const authenticated: Access = { kind: "authenticated" };
/** Any valid token: a user's, or an application's own (client_credentials), as `GET /api/v1/apps/verify_credentials` takes. */
export const anyToken: Access = { kind: "anyToken" };
/** Only callers without a session (password recovery). */
export const signedOut: Access = { kind: "signedOut" };

/** A signed-in user whose roles satisfy the rule, globally or in the selected group. */
export function permission(rule: PermissionRule, options: { group?: GroupSelector } = {}): Access {
  return options.group ? { kind: "permission", rule, group: options.group } : { kind: "permission", rule };
}

export const fromQuery = (name: string): GroupSelector => ({ source: "query", name });
export const fromParam = (name: string): GroupSelector => ({ source: "params", name });
export const fromBody = (name: string): GroupSelector => ({ source: "body", name });

export function describeAccess(access: Access): string {
  switch (access.kind) {
    case "public":
      return "public";
    case "authenticated":
      return "any signed-in user";
    case "anyToken":
      return "any valid token, of a user or of an application";
    case "signedOut":
      return "only without a session";
    case "permission": {
      const scope = access.group ? ` (also group-scoped roles of the group in ${access.group.source} '${access.group.name}')` : "";
      return `${describeRule(access.rule)}${scope}`;
    }
  }
}

/** Whether a caller without credentials is turned away (401) by this access rule. */
export function requiresCredentials(access: Access): boolean {
  return access.kind === "authenticated" || access.kind === "permission" || access.kind === "anyToken";
}
