import { z } from "zod";

/** Mastodon's rule: letters, digits and underscores, at most 30 characters. */
export const USERNAME_PATTERN = /^[A-Za-z0-9_]{1,30}$/;

export const ACCOUNT_STATES = ["active", "pending", "disabled", "silenced", "suspended"] as const;
export type AccountState = (typeof ACCOUNT_STATES)[number];

export type ActorType = "Person" | "Service" | "Group";

export const Username = z.string().regex(USERNAME_PATTERN, "letters, digits and underscores, up to 30 characters");

/** The key that makes `Alice` and `alice` on one server the same account. */
export function acctKey(username: string, domain: string | null): string {
  const name = username.toLowerCase();
  return domain ? `${name}@${domain.toLowerCase()}` : name;
}

/** A local account as services see it. */
export interface LocalAccount {
  readonly id: string;
  readonly username: string;
  readonly displayName: string;
  readonly note: string;
  readonly actorType: ActorType;
  readonly locked: boolean;
  readonly discoverable: boolean;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly email: string;
  readonly emailConfirmed: boolean;
  readonly approved: boolean;
  readonly disabled: boolean;
  readonly suspended: boolean;
  readonly silenced: boolean;
}

/** Whether an account may sign in and use its tokens. */
export function canSignIn(account: Pick<LocalAccount, "approved" | "disabled" | "suspended">): boolean {
  return account.approved && !account.disabled && !account.suspended;
}

/**
 * Whether the account is one of Kith's groups or a group's channel (their
 * accounts have the group's own `gr_` id, the channel's own `ch_`; see
 * modules/accounts/group-accounts.ts).
 */
export function isGroupAccountId(id: string): boolean {
  return id.startsWith("gr_") || id.startsWith("ch_");
}

/** Whether the account is a group's channel (its own `ch_` id), of the accounts `isGroupAccountId` tells apart. */
export function isChannelAccountId(id: string): boolean {
  return id.startsWith("ch_");
}
