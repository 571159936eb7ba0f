import type { TestKith } from "@kith/core/testing";

/**
 * Writes posts and relationships straight into the database and emits the
 * domain events their services emit, so the feeds can be tested on their own.
 */

export interface PostOptions {
  readonly visibility?: "public" | "unlisted" | "private" | "direct";
  readonly text?: string;
  readonly inReplyTo?: { readonly id: string; readonly accountId: string };
  readonly reblogOf?: string;
  readonly mentions?: readonly string[];
  readonly tags?: readonly string[];
  readonly local?: boolean;
  readonly conversationId?: string;
}

export async function post(kith: TestKith, accountId: string, options: PostOptions = {}): Promise<string> {
  const id = kith.ids.next("status");
  const now = kith.clock.now().toISOString();
  const db = kith.storage.db;
  await db
    .insertInto("statuses")
    .values({
      id,
      account_id: accountId,
      uri: null,
      url: null,
      local: options.local ?? true,
      in_reply_to_id: options.inReplyTo?.id ?? null,
      in_reply_to_account_id: options.inReplyTo?.accountId ?? null,
      reblog_of_id: options.reblogOf ?? null,
      conversation_id: options.conversationId ?? null,
      text: options.text ?? "hello",
      content: `<p>${options.text ?? "hello"}</p>`,
      visibility: options.visibility ?? "public",
      language: "en",
      application_id: null,
      created_at: now,
      updated_at: now,
      edited_at: null,
    } as never)
    .execute();
  for (const mentioned of options.mentions ?? []) {
    await db
      .insertInto("mentions")
      .values({ status_id: id, account_id: mentioned, created_at: now } as never)
      .execute();
  }
  for (const name of options.tags ?? []) {
    let tag = await db.selectFrom("tags").select("id").where("name", "=", name).executeTakeFirst();
    if (!tag) {
      tag = { id: kith.ids.next("tag") };
      await db
        .insertInto("tags")
        .values({ id: tag.id, name, display_name: name, last_status_at: now, created_at: now, updated_at: now } as never)
        .execute();
    }
    await db.insertInto("status_tags").values({ tag_id: tag.id, status_id: id }).execute();
  }
  await kith.services.events.emit({ type: "status.created", statusId: id, accountId });
  return id;
}

/** Whether `accountId` is a local account, which is what a follow by it writes in `follows.follower_local`. */
export async function isLocalAccount(kith: TestKith, accountId: string): Promise<boolean> {
  const account = await kith.storage.db.selectFrom("accounts").select("domain").where("id", "=", accountId).executeTakeFirstOrThrow();
  return account.domain === null;
}

export async function follow(
  kith: TestKith,
  accountId: string,
  targetId: string,
  options: { notify?: boolean; showReblogs?: boolean } = {},
): Promise<void> {
  const now = kith.clock.now().toISOString();
  await kith.storage.db
    .insertInto("follows")
    .values({
      id: kith.ids.next("follow"),
      account_id: accountId,
      target_account_id: targetId,
      follower_local: await isLocalAccount(kith, accountId),
      show_reblogs: options.showReblogs ?? true,
      notify: options.notify ?? false,
      languages: null,
      uri: null,
      created_at: now,
      updated_at: now,
    } as never)
    .execute();
  await kith.services.events.emit({ type: "follow.created", accountId, targetAccountId: targetId });
}

export async function unfollow(kith: TestKith, accountId: string, targetId: string): Promise<void> {
  await kith.storage.db.deleteFrom("follows").where("account_id", "=", accountId).where("target_account_id", "=", targetId).execute();
  await kith.services.events.emit({ type: "follow.removed", accountId, targetAccountId: targetId });
}

export async function block(kith: TestKith, accountId: string, targetId: string): Promise<void> {
  await kith.storage.db
    .insertInto("blocks")
    .values({
      id: kith.ids.next("block"),
      account_id: accountId,
      target_account_id: targetId,
      uri: null,
      created_at: kith.clock.now().toISOString(),
    })
    .execute();
  await kith.services.events.emit({ type: "block.created", accountId, targetAccountId: targetId });
}

export async function mute(kith: TestKith, accountId: string, targetId: string, hideNotifications = true): Promise<void> {
  const now = kith.clock.now().toISOString();
  await kith.storage.db
    .insertInto("mutes")
    .values({
      id: kith.ids.next("mute"),
      account_id: accountId,
      target_account_id: targetId,
      hide_notifications: hideNotifications,
      expires_at: null,
      created_at: now,
      updated_at: now,
    } as never)
    .execute();
  await kith.services.events.emit({ type: "mute.created", accountId, targetAccountId: targetId });
}

export async function favourite(kith: TestKith, accountId: string, statusId: string): Promise<void> {
  await kith.storage.db
    .insertInto("favourites")
    .values({
      id: kith.ids.next("favourite"),
      account_id: accountId,
      status_id: statusId,
      uri: null,
      created_at: kith.clock.now().toISOString(),
    })
    .execute();
  await kith.services.events.emit({ type: "favourite.created", accountId, statusId });
}

/** A remote account, for domain rules. */
export function remoteAccount(kith: TestKith, username: string, domain: string): Promise<string> {
  return accountRow(kith, username, domain);
}

/** A local account's row alone, without a user to sign in: a follower in numbers, for fan-out's rules. */
export function bareLocalAccount(kith: TestKith, username: string): Promise<string> {
  return accountRow(kith, username, null);
}

async function accountRow(kith: TestKith, username: string, domain: string | null): Promise<string> {
  const id = kith.ids.next("user");
  const now = kith.clock.now().toISOString();
  await kith.storage.db
    .insertInto("accounts")
    .values({
      id,
      username,
      domain,
      acct_key: domain === null ? username.toLowerCase() : `${username.toLowerCase()}@${domain}`,
      display_name: username,
      note: "",
      actor_type: "Person",
      locked: false,
      discoverable: true,
      uri: domain === null ? null : `https://${domain}/users/${username}`,
      url: domain === null ? null : `https://${domain}/@${username}`,
      created_at: now,
      updated_at: now,
      suspended_at: null,
      silenced_at: null,
      sensitized_at: null,
    } as never)
    .execute();
  return id;
}

/** Ids of a timeline response, in order. */
export async function idsOf(response: Response): Promise<string[]> {
  const body = (await response.json()) as { id: string }[];
  return body.map((item) => item.id);
}
