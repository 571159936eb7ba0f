import type { LocalAccount } from "../../domain/accounts.js";
import type { AccountEntity, CredentialAccountEntity } from "../entities/account.js";

export interface AccountRoleView {
  readonly id: string;
  readonly name: string;
  /** Whether the role administers the server (Mastodon's `administrator` permission bit). */
  readonly administrator: boolean;
}

/** Where a local account's pages and ActivityPub actor live. */
export function localAccountUrls(origin: string, username: string): { url: string; uri: string } {
  return { url: `${origin}/@${username}`, uri: `${origin}/users/${username}` };
}

/** Nobody may feature an account in a collection: Kith has none. */
export function noFeatureApproval(): AccountEntity["feature_approval"] {
  return { automatic: [], manual: [], current_user: "denied" };
}

export function defaultAvatarUrl(origin: string): string {
  return `${origin}/avatars/original/missing.png`;
}

export function defaultHeaderUrl(origin: string): string {
  return `${origin}/headers/original/missing.png`;
}

export function serializeLocalAccount(account: LocalAccount, origin: string): AccountEntity {
  const { url, uri } = localAccountUrls(origin, account.username);
  const avatar = defaultAvatarUrl(origin);
  return {
    id: account.id,
    username: account.username,
    acct: account.username,
    url,
    uri,
    display_name: account.displayName,
    note: account.note,
    avatar,
    avatar_static: avatar,
    header: defaultHeaderUrl(origin),
    header_static: defaultHeaderUrl(origin),
    locked: account.locked,
    fields: [],
    emojis: [],
    bot: account.actorType === "Service",
    group: account.actorType === "Group",
    discoverable: account.discoverable,
    indexable: account.discoverable,
    noindex: !account.discoverable,
    hide_collections: false,
    moved: null,
    suspended: account.suspended,
    limited: account.silenced,
    memorial: false,
    created_at: account.createdAt,
    last_status_at: null,
    statuses_count: 0,
    followers_count: 0,
    following_count: 0,
    roles: [],
    feature_approval: noFeatureApproval(),
  };
}

/** What only the owner sees of an account: the sources of its profile and its posting defaults. */
export interface CredentialSourceView {
  readonly privacy: string;
  readonly sensitive: boolean;
  readonly language: string | null;
  readonly note: string;
  readonly fields: readonly { readonly name: string; readonly value: string; readonly verified_at: string | null }[];
  readonly followRequestsCount: number;
}

/** The signed-in user's account: the Account entity as everyone sees it, plus its `source` and `role`. */
export function serializeCredentialAccount(account: AccountEntity, source: CredentialSourceView, role: AccountRoleView | null): CredentialAccountEntity {
  return {
    ...account,
    source: {
      privacy: source.privacy,
      sensitive: source.sensitive,
      language: source.language,
      note: source.note,
      fields: source.fields.map((field) => ({ name: field.name, value: field.value, verified_at: field.verified_at })),
      follow_requests_count: source.followRequestsCount,
      hide_collections: account.hide_collections,
      discoverable: account.discoverable,
      indexable: account.indexable,
      attribution_domains: [],
      // New statuses are quotable by anyone unless their author says otherwise (statuses/quote-policy.ts).
      quote_policy: "public",
    },
    role: {
      id: role?.id ?? "",
      name: role?.name ?? "",
      permissions: role?.administrator ? "1" : "0",
      color: "",
      highlighted: role?.administrator ?? false,
    },
  };
}
