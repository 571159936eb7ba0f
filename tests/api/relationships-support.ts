import type { TestKith } from "@kith/core/testing";

/** An account of another server, written straight into storage. */
export async function remoteAccount(kith: TestKith, username: string, domain: string, options: { locked?: boolean } = {}): Promise<string> {
  const id = kith.ids.next("user");
  const now = kith.clock.now().toISOString();
  await kith.storage.db
    .insertInto("accounts")
    .values({
      id,
      username,
      domain,
      acct_key: `${username.toLowerCase()}@${domain}`,
      display_name: username,
      note: "<p>remote</p>",
      actor_type: "Person",
      locked: options.locked ?? false,
      discoverable: true,
      uri: `https://${domain}/users/${username}`,
      url: `https://${domain}/@${username}`,
      avatar_remote_url: `https://${domain}/avatar.png`,
      created_at: now,
      updated_at: now,
      suspended_at: null,
      silenced_at: null,
      sensitized_at: null,
    } as never)
    .execute();
  return id;
}

/** Writes a follow as federation would have, with its counters. */
export async function remoteFollows(kith: TestKith, followerId: string, targetId: string): Promise<void> {
  await kith.services.follows.follow(followerId, targetId);
  const pending = await kith.storage.db
    .selectFrom("follow_requests")
    .select("id")
    .where("account_id", "=", followerId)
    .where("target_account_id", "=", targetId)
    .executeTakeFirst();
  if (pending) await kith.services.follows.authorize(targetId, followerId);
}

export async function json<T = Record<string, unknown>>(response: Response): Promise<T> {
  return (await response.json()) as T;
}
