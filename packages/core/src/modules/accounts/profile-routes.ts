import { z } from "zod";
import { acctKey } from "../../domain/accounts.js";
import type { Caller } from "../../domain/caller.js";
import { KithError } from "../../domain/errors.js";
import type { ProfileUpdate } from "./profile-service.js";
import { authenticated, publicAccess } from "../../platform/http/access.js";
import { AccountJson, CredentialAccountJson } from "../../mastodon/entities/account.js";
import { FamiliarFollowersJson, RelationshipJson } from "../../mastodon/entities/relationship.js";
import { ACCOUNTS_PAGE, idPageQuery, pageRequest } from "../../platform/http/pagination.js";
import { route } from "../core-route.js";
import { zBool, zList } from "../../platform/http/schemas.js";
import { serializeCredentialAccount } from "../../mastodon/serializers/account.js";
import { AccountParams, accountPageReply, renderInOrder, userOf } from "../lists/account-list-routes.js";
import type { KithServices } from "../core-services.js";

/** Mastodon's IdentityProof entity, which no account has any more (Mastodon dropped Keybase proofs). */
const IdentityProofJson = z.object({
  provider: z.string(),
  provider_username: z.string(),
  profile_url: z.string(),
  proof_url: z.string(),
  updated_at: z.string(),
});

/** The caller's own account with its source and role, as `update_credentials` answers it. */
async function credentialAccount(services: KithServices, accountId: string) {
  const [account, source, role] = await Promise.all([
    services.accountViews.renderOne(accountId),
    services.profiles.credentialSource(accountId),
    services.accounts.globalRole(accountId),
  ]);
  if (!account) throw new KithError("account.not_found");
  const administrator = role !== null && ["owner", "admin"].includes(role.name.toLowerCase());
  return serializeCredentialAccount(account, source, role && { ...role, administrator });
}

/**
 * Profiles: Mastodon's account endpoints that read an account, list its
 * followers and following, tell how the caller stands with accounts, and edit
 * the caller's own profile. Guests read public profiles; relationships need
 * a signed-in user.
 */

const IdList = zList(z.string().min(1).max(64)).pipe(z.array(z.string()).max(80));
const IdsQuery = z.object({ id: IdList.optional() });

/** `fields_attributes` arrives as an array (JSON, or a form with indexes) or as an object keyed by index. */
const FieldsAttributes = z.preprocess(
  (value) => (value !== null && typeof value === "object" && !Array.isArray(value) ? Object.values(value) : value),
  z.array(z.object({ name: z.string().max(10_000).default(""), value: z.string().max(10_000).default("") })).max(50),
);
const FileField = z.instanceof(File).meta({ type: "string", format: "binary" });
const UpdateCredentialsBody = z.object({
  display_name: z.string().max(10_000).optional(),
  note: z.string().max(100_000).optional(),
  locked: zBool.optional(),
  bot: zBool.optional(),
  discoverable: zBool.optional(),
  hide_collections: zBool.optional(),
  indexable: zBool.optional(),
  fields_attributes: FieldsAttributes.optional(),
  source: z
    .object({
      privacy: z.enum(["public", "unlisted", "private"]).optional(),
      sensitive: zBool.optional(),
      language: z.string().max(16).nullable().optional(),
    })
    .optional(),
  avatar: FileField.optional(),
  header: FileField.optional(),
});

/** Room for an avatar and a header in one multipart body. */
const PROFILE_BODY_BYTES = 2 * 16 * 1024 * 1024 + 1_000_000;

function profileUpdate(body: z.infer<typeof UpdateCredentialsBody>): ProfileUpdate {
  return {
    ...(body.display_name !== undefined && { displayName: body.display_name }),
    ...(body.note !== undefined && { note: body.note }),
    ...(body.locked !== undefined && { locked: body.locked }),
    ...(body.bot !== undefined && { bot: body.bot }),
    ...(body.discoverable !== undefined && { discoverable: body.discoverable }),
    ...(body.hide_collections !== undefined && { hideCollections: body.hide_collections }),
    ...(body.indexable !== undefined && { indexable: body.indexable }),
    ...(body.fields_attributes !== undefined && { fields: body.fields_attributes }),
    ...(body.source?.privacy !== undefined && { privacy: body.source.privacy }),
    ...(body.source?.sensitive !== undefined && { sensitive: body.source.sensitive }),
    ...(body.source?.language !== undefined && { language: body.source.language }),
    ...(body.avatar && { avatar: body.avatar }),
    ...(body.header && { header: body.header }),
  };
}

/** The viewing account, or null for a guest or an application. */
function viewerOf(caller: Caller): string | null {
  return caller.kind === "user" ? caller.accountId : null;
}

/** `user`, `@user`, `user@this.host` or `user@other.host` as an acct key. */
function lookupKey(acct: string, origin: string): string {
  const [username = "", domain = null] = acct.replace(/^@/, "").split("@");
  const own = new URL(origin).host.toLowerCase();
  return acctKey(username, domain === null || domain.toLowerCase() === own ? null : domain);
}

export const profileRoutes = [
  route({
    method: "GET",
    path: "/api/v1/accounts/lookup",
    summary: "Finds a known account by its acct (`user` or `user@domain`); a remote one older than a day is fetched again",
    tags: ["accounts"],
    access: publicAccess,
    scopes: ["read:accounts"],
    query: z.object({ acct: z.string().min(1).max(400) }),
    response: AccountJson,
    handler: async ({ caller, query, services, config }) => {
      const known = await services.profiles.idByAcctKey(lookupKey(query.acct, config.origin));
      if (known) await services.groupAccounts.assertVisible(viewerOf(caller), known);
      // As Mastodon, an unknown remote account is not looked up (search with resolve does that); a stale one is refreshed.
      const row = known ? await services.remoteAccounts.refreshIfStale(known) : null;
      const account = row ? await services.accountViews.renderOne(row) : null;
      if (!account) throw new KithError("account.not_found");
      return account;
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/accounts/relationships",
    summary: "How the caller stands with each account (`id[]`); suspended accounts only with `with_suspended`",
    tags: ["accounts"],
    access: authenticated,
    scopes: ["read:follows"],
    query: IdsQuery.extend({ with_suspended: zBool.optional() }),
    response: z.array(RelationshipJson),
    handler: async ({ caller, query, services }) =>
      services.relationships.relationships(userOf(caller).accountId, query.id ?? [], { withSuspended: query.with_suspended ?? false }),
  }),
  route({
    method: "GET",
    path: "/api/v1/accounts/familiar_followers",
    summary: "For each account (`id[]`), the accounts the caller follows that follow it",
    tags: ["accounts"],
    access: authenticated,
    scopes: ["read:follows"],
    query: IdsQuery,
    response: z.array(FamiliarFollowersJson),
    handler: async ({ caller, query, services }) => {
      const ids = [...new Set(query.id ?? [])];
      const familiar = await services.relationships.familiarFollowers(userOf(caller).accountId, ids);
      const rendered = await services.accountViews.render([...familiar.values()].flat());
      return ids.map((id) => ({
        id,
        accounts: (familiar.get(id) ?? []).flatMap((followerId) => {
          const account = rendered.get(followerId);
          return account ? [account] : [];
        }),
      }));
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/accounts",
    summary: "Several accounts at once (`id[]`), in the order asked; unknown ids left out",
    tags: ["accounts"],
    access: publicAccess,
    scopes: ["read:accounts"],
    query: IdsQuery,
    response: z.array(AccountJson),
    handler: async ({ caller, query, services }) => {
      const ids = [...new Set(query.id ?? [])];
      const hidden = await services.groupAccounts.hidden(viewerOf(caller), ids);
      return renderInOrder(services, ids.filter((id) => !hidden.has(id)));
    },
  }),
  route({
    method: "PATCH",
    path: "/api/v1/accounts/update_credentials",
    summary:
      "Edits the caller's profile: display name, note, fields (`fields_attributes`), locked, bot, discoverable, hide_collections, indexable, posting defaults (`source`), avatar and header (multipart)",
    tags: ["accounts"],
    access: authenticated,
    scopes: ["write:accounts"],
    body: UpdateCredentialsBody,
    maxBodyBytes: PROFILE_BODY_BYTES,
    response: CredentialAccountJson,
    handler: async ({ caller, body, services }) => {
      const { accountId } = userOf(caller);
      await services.profiles.update(accountId, profileUpdate(body));
      return credentialAccount(services, accountId);
    },
  }),
  ...(["avatar", "header"] as const).map((image) =>
    route({
      method: "DELETE",
      path: `/api/v1/profile/${image}`,
      summary: `Takes the caller's ${image} away, back to the default image; answers the CredentialAccount, as Mastodon does`,
      description:
        "Other servers are sent an Update of the actor, as after `update_credentials`. Taking an image that is not there is no error.",
      tags: ["accounts"],
      access: authenticated,
      scopes: ["write:accounts"],
      response: CredentialAccountJson,
      handler: async ({ caller, services }) => {
        const { accountId } = userOf(caller);
        await services.profiles.removeImage(accountId, image);
        return credentialAccount(services, accountId);
      },
    }),
  ),
  route({
    method: "GET",
    path: "/api/v1/accounts/{id}/identity_proofs",
    summary: "Identity proofs of an account: always an empty list, as Mastodon answers since it dropped them",
    tags: ["accounts"],
    access: authenticated,
    scopes: ["read:accounts"],
    params: AccountParams,
    response: z.array(IdentityProofJson),
    handler: async ({ caller, params, services }) => {
      await services.groupAccounts.assertVisible(viewerOf(caller), params.id);
      if (!(await services.accountViews.renderOne(params.id))) throw new KithError("account.not_found");
      return [];
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/accounts/{id}",
    summary: "One account; a suspended account is shown as an empty profile marked `suspended`; a remote one older than a day is fetched again in the background",
    tags: ["accounts"],
    access: publicAccess,
    scopes: ["read:accounts"],
    params: AccountParams,
    response: AccountJson,
    handler: async ({ caller, params, services }) => {
      await services.groupAccounts.assertVisible(viewerOf(caller), params.id);
      const account = await services.accountViews.renderOne(params.id);
      if (!account) throw new KithError("account.not_found");
      // A stale remote copy is shown as it is and fetched again in the background.
      await services.remoteAccounts.refreshLater(params.id);
      return account;
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/accounts/{id}/followers",
    summary: "Who follows an account, newest follow first, paged with `Link`; empty when the owner hides them",
    tags: ["accounts"],
    access: publicAccess,
    scopes: ["read:accounts"],
    params: AccountParams,
    query: idPageQuery,
    response: z.array(AccountJson),
    handler: async ({ caller, params, query, services, url }) => {
      const page = pageRequest(query, { defaultLimit: 40, maxLimit: ACCOUNTS_PAGE.maxLimit });
      const viewer = caller.kind === "user" ? caller.accountId : null;
      return accountPageReply(services, url, await services.relationships.followList(viewer, params.id, "followers", page), page.limit);
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/accounts/{id}/following",
    summary: "Whom an account follows, newest follow first, paged with `Link`; empty when the owner hides them",
    tags: ["accounts"],
    access: publicAccess,
    scopes: ["read:accounts"],
    params: AccountParams,
    query: idPageQuery,
    response: z.array(AccountJson),
    handler: async ({ caller, params, query, services, url }) => {
      const page = pageRequest(query, { defaultLimit: 40, maxLimit: ACCOUNTS_PAGE.maxLimit });
      const viewer = caller.kind === "user" ? caller.accountId : null;
      return accountPageReply(services, url, await services.relationships.followList(viewer, params.id, "following", page), page.limit);
    },
  }),
  route({
    method: "POST",
    path: "/api/v1/accounts/{id}/note",
    summary: "Sets the caller's private note on an account (an empty comment removes it)",
    tags: ["accounts"],
    access: authenticated,
    scopes: ["write:accounts"],
    params: AccountParams,
    body: z.object({ comment: z.string().max(10_000).default("") }),
    response: RelationshipJson,
    handler: async ({ caller, params, body, services }) => {
      const { accountId } = userOf(caller);
      await services.groupAccounts.assertVisible(accountId, params.id);
      return services.relationships.setNote(accountId, params.id, body.comment);
    },
  }),
];
