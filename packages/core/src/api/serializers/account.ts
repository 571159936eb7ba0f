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

export function defaultAvatarUrl(origin: string): string {
  return `${origin}/avatars/original/missing.png`;
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
    header: `${origin}/headers/original/missing.png`,
    header_static: `${origin}/headers/original/missing.png`,
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
  };
}

export function serializeCredentialAccount(account: LocalAccount, role: AccountRoleView | null, origin: string): CredentialAccountEntity {
  return {
    ...serializeLocalAccount(account, origin),
    source: {
      privacy: "public",
      sensitive: false,
      language: null,
      note: account.note,
      fields: [],
      follow_requests_count: 0,
      hide_collections: false,
      discoverable: account.discoverable,
      indexable: account.discoverable,
      attribution_domains: [],
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
