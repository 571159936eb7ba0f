import type { Caller } from "../../domain/caller.js";
import { KithError } from "../../domain/errors.js";
import { ruleHolds } from "../../domain/permissions.js";
import { scopesAllow } from "../../domain/scopes.js";
import type { Access, GroupSelector } from "./access.js";

export interface AccessInputs {
  readonly params: Readonly<Record<string, unknown>>;
  readonly query: Readonly<Record<string, unknown>>;
  readonly body: unknown;
}

function groupOf(selector: GroupSelector | undefined, inputs: AccessInputs): string | null {
  if (!selector) return null;
  const source = selector.source === "body" ? inputs.body : inputs[selector.source];
  if (typeof source !== "object" || source === null) return null;
  const value = (source as Record<string, unknown>)[selector.name];
  return typeof value === "string" && value !== "" ? value : null;
}

/**
 * The one place where a route's access rule and scopes are checked:
 * no credentials where they are needed is 401; a token without the scope,
 * or a user without the permission, is 403.
 */
export async function authorize(
  caller: Caller,
  access: Access,
  scopes: readonly string[],
  inputs: AccessInputs,
  options: { allowUnconfirmedEmail?: boolean } = {},
): Promise<void> {
  switch (access.kind) {
    case "public":
      break;
    case "signedOut":
      if (caller.kind !== "guest") throw new KithError("auth.must_not_be_authenticated");
      return;
    case "anyToken":
      if (caller.kind === "guest") throw new KithError("auth.unauthenticated");
      break;
    case "authenticated":
    case "permission":
      if (caller.kind === "guest") throw new KithError("auth.unauthenticated");
      if (caller.kind === "app") {
        throw new KithError("auth.unauthenticated", { message: "This method requires an authenticated user" });
      }
      break;
  }
  if (caller.kind !== "guest" && !scopesAllow(caller.scopes, scopes)) throw new KithError("auth.insufficient_scope");
  if (access.kind === "permission" && caller.kind === "user") {
    const grants = await caller.grants();
    if (!ruleHolds(access.rule, grants, groupOf(access.group, inputs))) throw new KithError("auth.forbidden");
  }
  // As Mastodon: a token exists from sign-up on, but a user must confirm the
  // address before using routes that act as that user. A missing permission is still the first 403.
  const actsAsUser = access.kind === "authenticated" || access.kind === "permission";
  if (actsAsUser && caller.kind === "user" && !caller.emailConfirmed && !options.allowUnconfirmedEmail) {
    throw new KithError("registration.email_unconfirmed");
  }
}
