import type { InboxContext, InboxListenerSetters } from "@fedify/fedify";
import { EmojiReact, Undo } from "@fedify/fedify/vocab";
import { getLogger } from "../../logging.js";
import type { ServiceDeps } from "../service-deps.js";
import { addReaction, removeReactionByUri } from "./status-reactions-store.js";
import type { FederationContextData } from "../../platform/federation/federation-context-data.js";
import { readProperty } from "../../platform/federation/inbox-request-pass.js";
import { type ActivitySenderDeps, activitySenderOf } from "../federation/activity-senders.js";
import { embeddedTagsOf } from "../federation/embedded-values.js";
import { rememberRemoteEmojis, remoteEmojisOf } from "../emojis/remote-emojis.js";
import { localStatusAt, sameOrigin } from "./remote-statuses.js";

const logger = getLogger(["federation", "inbox"]);

type Ctx = InboxContext<FederationContextData>;

export interface ReactionInboxDeps extends ActivitySenderDeps {
  readonly deps: Pick<ServiceDeps, "storage" | "clock" | "ids">;
}

/** A custom emoji's `:shortcode:` as a reaction names it. */
const CUSTOM = /^:([a-zA-Z0-9_]{2,128}):$/;
/** A Unicode emoji: a few code points, at least one of them a pictograph, a flag's letter or a keycap. */
const UNICODE = /^(?=.*(?:\p{Extended_Pictographic}|\p{Regional_Indicator}|\u20e3))[^\s<>:]{1,16}$/u;

/** The emoji a reaction names: a Unicode one, or a custom one's shortcode; null for anything else. */
export function reactionNameOf(content: string): { readonly name: string; readonly custom: boolean } | null {
  const text = content.trim();
  const custom = CUSTOM.exec(text);
  if (custom?.[1]) return { name: custom[1], custom: true };
  return UNICODE.test(text) ? { name: text, custom: false } : null;
}

/**
 * Emoji reactions to local statuses (`EmojiReact`, as Pleroma and Akkoma send
 * them) and their Undo, kept in `status_reactions` and shown in the status's
 * `reactions`. As with likes, a reaction to another server's status is that
 * server's business. A Misskey reaction comes as a Like (with
 * `_misskey_reaction`), which is a favourite, as Mastodon takes it.
 */
export function listenForReactions(inbox: InboxListenerSetters<FederationContextData>, env: ReactionInboxDeps): void {
  const db = env.deps.storage.db;

  async function onEmojiReact(ctx: Ctx, react: EmojiReact): Promise<void> {
    const reactor = await activitySenderOf(ctx, env, react);
    if (!reactor?.domain || !react.id) return;
    const status = await localStatusAt(ctx, db, react.objectId);
    if (!status || status.reblog_of_id !== null || status.visibility === "direct") return;
    const reaction = reactionNameOf(String(react.content ?? ""));
    if (!reaction) {
      logger.debug("Ignored a reaction of {actor} that names no emoji", { actor: reactor.uri });
      return;
    }
    let customEmojiId: string | null = null;
    if (reaction.custom) {
      const tags = await embeddedTagsOf(react);
      const emojis = (await remoteEmojisOf(tags, reactor.domain)).filter((emoji) => emoji.shortcode === reaction.name);
      customEmojiId = (await rememberRemoteEmojis(db, env.deps, emojis)).get(reaction.name) ?? null;
      // A custom emoji without its image cannot be shown.
      if (customEmojiId === null) return;
    }
    const now = env.deps.clock.now().toISOString();
    await env.deps.storage.transaction((trx) =>
      addReaction(
        trx,
        {
          id: env.deps.ids.next("reaction"),
          statusId: status.id,
          accountId: reactor.id,
          name: reaction.name,
          customEmojiId,
          uri: react.id?.href ?? null,
        },
        now,
      ),
    );
  }

  async function onUndo(ctx: Ctx, undo: Undo): Promise<void> {
    const objectId = undo.objectId;
    if (!objectId || !undo.actorId || !sameOrigin(objectId, undo.actorId)) return;
    const object = await readProperty(ctx, (options) => undo.getObject(options));
    if (!(object instanceof EmojiReact) || object.actorId?.href !== undo.actorId.href) return;
    const reactor = await activitySenderOf(ctx, env, undo);
    if (!reactor) return;
    await env.deps.storage.transaction((trx) => removeReactionByUri(trx, reactor.id, objectId.href));
  }

  inbox.on(EmojiReact, (ctx, react) => onEmojiReact(ctx, react)).on(Undo, (ctx, undo) => onUndo(ctx, undo));
}

