import { KithError } from "../../domain/errors.js";
import { authenticated } from "../../platform/http/access.js";
import { CredentialAccountJson } from "../../mastodon/entities/account.js";
import { route } from "../core-route.js";
import { serializeCredentialAccount } from "../../mastodon/serializers/account.js";

export const accountRoutes = [
  route({
    method: "GET",
    path: "/api/v1/accounts/verify_credentials",
    summary: "The signed-in user's own account, with its source and role",
    tags: ["accounts"],
    access: authenticated,
    scopes: ["read:accounts", "profile"],
    response: CredentialAccountJson,
    handler: async ({ caller, services }) => {
      if (caller.kind !== "user") throw new KithError("auth.unauthenticated");
      const [account, source, role] = await Promise.all([
        services.accountViews.renderOne(caller.accountId),
        services.profiles.credentialSource(caller.accountId),
        services.accounts.globalRole(caller.accountId),
      ]);
      if (!account) throw new KithError("account.not_found");
      const administrator = role !== null && ["owner", "admin"].includes(role.name.toLowerCase());
      return serializeCredentialAccount(account, source, role && { ...role, administrator });
    },
  }),
];
