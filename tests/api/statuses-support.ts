import type { TestKith, TestUser } from "@kith/core/testing";
import { expect } from "vitest";

/** Helpers shared by the posts, polls and pins suites. */

export interface StatusBody {
  id: string;
  uri: string;
  url: string | null;
  content: string;
  text: string | null;
  visibility: string;
  sensitive: boolean;
  spoiler_text: string;
  language: string | null;
  in_reply_to_id: string | null;
  in_reply_to_account_id: string | null;
  replies_count: number;
  reblogs_count: number;
  favourites_count: number;
  edited_at: string | null;
  favourited?: boolean;
  reblogged?: boolean;
  bookmarked?: boolean;
  muted?: boolean;
  pinned?: boolean;
  account: { id: string; username: string; statuses_count: number };
  mentions: { id: string; username: string; acct: string; url: string }[];
  tags: { name: string; url: string }[];
  poll: {
    id: string;
    expired: boolean;
    multiple: boolean;
    votes_count: number;
    voters_count: number | null;
    options: { title: string; votes_count: number | null }[];
    voted?: boolean;
    own_votes?: number[];
  } | null;
  reblog: StatusBody | null;
  media_attachments: unknown[];
  filtered?: unknown[];
  application?: { name: string; website: string | null } | null;
}

export async function post(
  kith: TestKith,
  user: TestUser,
  json: Record<string, unknown>,
  headers?: Record<string, string>,
): Promise<StatusBody> {
  const response = await kith.request("POST", "/api/v1/statuses", { token: user.token, json, ...(headers && { headers }) });
  expect(response.status, await response.clone().text()).toBe(200);
  return (await response.json()) as StatusBody;
}

export async function follow(kith: TestKith, follower: TestUser, target: TestUser): Promise<void> {
  const now = new Date().toISOString();
  await kith.storage.db
    .insertInto("follows")
    .values({
      id: `fo_${follower.account.id.slice(3, 13)}${target.account.id.slice(13)}`,
      account_id: follower.account.id,
      target_account_id: target.account.id,
      follower_local: true,
      created_at: now,
      updated_at: now,
    })
    .execute();
}

export async function block(kith: TestKith, blocker: TestUser, target: TestUser): Promise<void> {
  await kith.storage.db
    .insertInto("blocks")
    .values({
      id: `bl_${blocker.account.id.slice(3, 13)}${target.account.id.slice(13)}`,
      account_id: blocker.account.id,
      target_account_id: target.account.id,
      created_at: new Date().toISOString(),
    })
    .execute();
}

export async function get(kith: TestKith, path: string, token?: string): Promise<Response> {
  return kith.request("GET", path, token ? { token } : {});
}
