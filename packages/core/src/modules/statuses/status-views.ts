import type { AccountEntity } from "../../mastodon/entities/account.js";
import type { CustomEmojiEntity } from "../../mastodon/entities/custom-emoji.js";
import type { ReactionEntity } from "../../mastodon/entities/reaction.js";
import type { InnerStatusEntity, StatusEntity, StatusMediaEntity } from "../../mastodon/entities/status.js";
import { type JsonTexts, jsonString } from "../../platform/http/json-text.js";
import { serializeReactions } from "../../mastodon/serializers/reaction.js";
import {
  localReblogUri,
  localStatusUrls,
  parseJsonArray,
  serializeMention,
  serializePoll,
  serializeTag,
} from "../../mastodon/serializers/status.js";
import {
  loadApplications,
  loadMentions,
  loadOwnVotes,
  loadPolls,
  loadStatusRows,
  loadStatusTags,
} from "./status-view-loads-store.js";
import type { AccountVersionRow } from "../accounts/accounts-store.js";
import { loadReactions } from "./status-reactions-store.js";
import {
  type StatusMarks,
  STATUS_COUNTERS,
  type StatusCounter,
  type StatusVersionRow,
  type VisiblePage,
  type VisibleStatus,
  loadVisiblePosts,
} from "./visible-statuses-store.js";
import { readFlag } from "../../platform/storage/boolean-columns.js";
import type { StatusRow, Visibility } from "../../ports/storage-schema.js";
import type { ServiceDeps } from "../service-deps.js";
import { EmojiRenderer } from "../emojis/emoji-renderer.js";
import type { DomainEvents } from "../../platform/events/domain-events.js";
import { KeptRows } from "../../platform/cache/kept-rows.js";
import { RenderMemo } from "../../platform/cache/render-memo.js";
import { type StatusParts, StatusPartsCache } from "./status-parts-cache.js";
import { type StatusTextParts, statusText, statusTextParts } from "./status-text.js";
import type { PreviewCardEntity } from "../../mastodon/entities/preview-card.js";
import { type StatusCardSource, StatusCards } from "./status-cards.js";
import { type QuoteApproval, type QuoteState, quoteApprovalOf, quoteDecision, storedQuoteState } from "./quote-policy.js";
import { followedAmong, followersAmong } from "./quotes-store.js";

/** Renders accounts as Mastodon's Account entity, many at once (the profiles part provides it). */
export interface AccountRenderer {
  /** With `texts`, the JSON text of each account returned is put there too. */
  render(ids: readonly string[], texts?: JsonTexts): Promise<Map<string, AccountEntity>>;
  /** The same for accounts whose versions and counters were just read (with the statuses they wrote). */
  renderVersions(versions: readonly AccountVersionRow[], texts?: JsonTexts): Promise<Map<string, AccountEntity>>;
}

/** Renders the media attached to statuses, many statuses at once (the media part provides it). */
export interface StatusMediaRenderer {
  renderForStatuses(statusIds: readonly string[]): Promise<Map<string, readonly StatusMediaEntity[]>>;
}

export interface RenderOptions {
  /** Include the plain-text source in `text` (deleting for a redraft). @default false */
  readonly withSource?: boolean;
  /**
   * Where to put the JSON text of each status returned (and of the accounts in them), for an answer assembled from
   * them (`jsonText`); the texts are made from pieces kept from earlier renders of the same rows.
   */
  readonly texts?: JsonTexts;
  /**
   * Quoted statuses are named by id only (Mastodon's ShallowQuote), not rendered: for the statuses a quote shows, so a
   * chain of quotes is rendered one level deep. @default false
   */
  readonly shallowQuotes?: boolean;
}

/** Statuses whose lasting JSON pieces are kept (about 2 KB each); the least recently used go first. */
export const STATUS_TEXT_MEMO_SIZE = 5_000;

/**
 * Turns status ids into Mastodon's Status entity for one viewer. Only statuses the
 * viewer may see come back (visibility.ts decides); a boost whose boosted
 * status is hidden is left out too. The number of queries is fixed, however
 * many ids are asked for: every related row is loaded in one batch per table.
 */
export class StatusViews {
  constructor(
    private readonly deps: Pick<ServiceDeps, "storage" | "config" | "clock" | "blob">,
    private readonly accounts: AccountRenderer,
    private readonly media: StatusMediaRenderer,
    events?: DomainEvents,
    /** Preview cards, from the module that reads linked pages (none without it). */
    private readonly cards: StatusCardSource = new StatusCards(),
  ) {
    events?.on("status.updated", (event) => this.#forget(event.statusId));
    events?.on("status.deleted", (event) => this.#forget(event.statusId));
    this.#emojis = new EmojiRenderer(deps);
  }

  readonly #emojis: EmojiRenderer;

  /** The statuses' rows, read again whole only when their version differs. */
  readonly #rows = new KeptRows<StatusRow, StatusCounter>(STATUS_TEXT_MEMO_SIZE, STATUS_COUNTERS);
  readonly #parts = new StatusPartsCache();
  /** The lasting pieces of each status's JSON text, made again when anything they are made from differs. */
  readonly #texts = new RenderMemo<StatusTextParts>(STATUS_TEXT_MEMO_SIZE);

  #forget(statusId: string): void {
    this.#rows.forget(statusId);
    this.#parts.forget(statusId);
    this.#texts.forget(statusId);
  }

  /** The statuses among `ids` the viewer may see, by id. */
  async render(ids: readonly string[], viewerId: string | null, options: RenderOptions = {}): Promise<Map<string, StatusEntity>> {
    const unique = [...new Set(ids)];
    return this.#renderVisible(unique, await loadVisiblePosts(this.deps.storage.db, unique, viewerId), viewerId, options);
  }

  /** A page read with its statuses' versions and marks (a home, public or hashtag page), in the page's order. */
  async renderPage(page: VisiblePage, viewerId: string | null, options: RenderOptions = {}): Promise<StatusEntity[]> {
    return inOrder(page.ids, await this.#renderVisible(page.ids, page.posts, viewerId, options));
  }

  /** Renders `ids` (unique) from `visible`, what was read of those the viewer may see (visible-statuses.ts). */
  async #renderVisible(
    ids: readonly string[],
    visible: readonly VisibleStatus[],
    viewerId: string | null,
    options: RenderOptions,
  ): Promise<Map<string, StatusEntity>> {
    const db = this.deps.storage.db;
    const versions = new Map<string, StatusVersionRow>();
    const authorVersions = new Map<string, AccountVersionRow>();
    // The marks of the statuses shown: every non-boost, and the boosted status of a boost.
    const marks = new Map<string, StatusMarks>();
    for (const entry of visible) {
      for (const { post, author } of entry.boosted ? [entry, entry.boosted] : [entry]) {
        versions.set(post.id, post);
        authorVersions.set(author.id, author);
      }
      if (entry.marks) marks.set(entry.boosted?.post.id ?? entry.post.id, entry.marks);
    }
    const rows = new Map<string, StatusRow>();
    for (const row of await this.#rows.rows([...versions.values()], (unkept) => loadStatusRows(db, unkept))) rows.set(row.id, row);
    const outer = visible.flatMap(({ post }) => rows.get(post.id) ?? []);
    // The statuses whose content is shown: every non-boost, and the boosted statuses.
    const shown = [...rows.values()].filter((row) => row.reblog_of_id === null);
    const shownIds = shown.map((row) => row.id);

    const origin = this.deps.config.origin;
    const now = this.deps.clock.now();
    const parts = new Map<string, StatusParts>();
    for (const row of shown) {
      const cached = this.#parts.get(row.id, row.version);
      if (cached) parts.set(row.id, cached);
    }
    const missing = shown.filter((row) => !parts.has(row.id));
    const missingIds = missing.map((row) => row.id);
    const appIds = [...new Set(missing.flatMap((row) => (row.application_id ? [row.application_id] : [])))];
    // Kept statuses known to have no media or no poll are not looked up for them (status-parts-cache.ts).
    const mediaCandidates = shownIds.filter((id) => parts.get(id)?.hasMedia !== false);
    const pollCandidates = shownIds.filter((id) => parts.get(id)?.hasPoll !== false);

    // Reactions are taken for local statuses only: those to another server's statuses are its business, as likes are.
    const reactionIds = missing.filter((row) => readFlag(row.local)).map((row) => row.id);
    const [accounts, media, mentions, tags, polls, apps, reactions, cards] = await Promise.all([
      this.accounts.renderVersions([...authorVersions.values()], options.texts),
      this.media.renderForStatuses(mediaCandidates),
      loadMentions(db, missingIds),
      loadStatusTags(db, missingIds),
      loadPolls(db, pollCandidates),
      loadApplications(db, appIds),
      loadReactions(db, reactionIds),
      this.cards.cardsOf(missingIds),
    ]);
    const ownVotes =
      viewerId === null
        ? []
        : await loadOwnVotes(
            db,
            polls.map((poll) => poll.id),
            viewerId,
          );

    const mentionsBy = groupBy(mentions, (row) => row.status_id);
    const tagsBy = groupBy(tags, (row) => row.status_id);
    const pollBy = new Map(polls.map((poll) => [poll.status_id, poll]));
    const votesBy = groupBy(ownVotes, (row) => row.poll_id);
    const appBy = new Map(apps.map((app) => [app.id, app]));
    const reactionsBy = groupBy(reactions, (row) => row.status_id);
    const emojisBy = await this.#emojis.render(
      missing.map((row) => ({
        key: row.id,
        domain: domainOfAcct(accounts.get(row.account_id)?.acct),
        texts: [row.spoiler_text, row.content, ...parseJsonArray<string>(pollBy.get(row.id)?.options ?? null)],
      })),
    );
    for (const row of missing) {
      const app = row.application_id ? appBy.get(row.application_id) : undefined;
      const loaded: StatusParts = {
        mentions: inTextOrder(row, mentionsBy.get(row.id) ?? []).map((mention) => serializeMention(origin, mention)),
        tags: (tagsBy.get(row.id) ?? []).map((tag) => serializeTag(origin, tag.name)),
        application: app && readFlag(row.local) ? { name: app.name, website: app.website } : null,
        emojis: emojisBy.get(row.id) ?? [],
        reactions: serializeReactions(reactionsBy.get(row.id) ?? [], origin, this.deps.blob),
        hasMedia: (media.get(row.id)?.length ?? 0) > 0,
        hasPoll: pollBy.has(row.id),
        card: cards.get(row.id) ?? null,
      };
      parts.set(row.id, loaded);
      this.#parts.set(row.id, row.version, loaded);
    }

    const quotes = await this.#quotes(shown, viewerId, options);
    const followed = await this.#followedForQuotes(shown, viewerId);
    const texts = options.texts;
    const renderContent = (row: StatusRow): { entity: InnerStatusEntity; textParts: StatusTextParts | null } | null => {
      const account = accounts.get(row.account_id);
      if (!account) return null;
      const poll = pollBy.get(row.id);
      const part = parts.get(row.id);
      const postMedia = media.get(row.id) ?? [];
      const entity = statusEntityOf(row, account, origin, {
        media: [...postMedia],
        application: part?.application ? { ...part.application } : null,
        mentions: (part?.mentions ?? []).map((mention) => ({ ...mention })),
        tags: (part?.tags ?? []).map((tag) => ({ ...tag, history: [] })),
        poll: poll
          ? serializePoll(poll, {
              now,
              viewerId,
              ownVotes: viewerId === null ? null : (votesBy.get(poll.id) ?? []).map((vote) => vote.choice),
            })
          : null,
        text: options.withSource ? row.text : null,
        emojis: (part?.emojis ?? []).map((emoji) => ({ ...emoji })),
        reactions: (part?.reactions ?? []).map((reaction) => ({ ...reaction })),
        quote: quotes.get(row.id) ?? null,
        card: part?.card ? { ...part.card } : null,
        quoteApproval: quoteApprovalOf(
          row.quote_policy,
          quoteDecision({ ...row, local: readFlag(row.local) }, { accountId: viewerId, follows: followed.has(row.account_id) }),
        ),
      });
      if (viewerId !== null) Object.assign(entity, viewerFlags(marks.get(row.id) ?? NO_MARKS));
      if (!texts) return { entity, textParts: null };
      const accountText = jsonString(texts.get(account) ?? JSON.stringify(account));
      // What the lasting pieces are made of: the row's version (raised by the database on every write but the
      // counters', migration 0020) and counters, the author's text, the media, the parts and the source when shown.
      const inputs = [
        row.version,
        row.reblogs_count,
        row.favourites_count,
        row.replies_count,
        accountText,
        postMedia.length === 0 ? "[]" : JSON.stringify(postMedia),
        part,
        options.withSource ? row.text : null,
        entity.quote === null ? null : JSON.stringify(entity.quote),
        // Who may quote depends on the viewer: the same status reads differently to another.
        entity.quote_approval.current_user,
      ];
      const textParts = this.#texts.getOrMake(row.id, inputs, () => statusTextParts(entity, accountText));
      texts.set(entity, statusText(entity, textParts, "null"));
      return { entity, textParts };
    };

    const asked = new Map(outer.map((row) => [row.id, row]));
    const result = new Map<string, StatusEntity>();
    for (const id of ids) {
      const row = asked.get(id);
      if (!row) continue;
      if (row.reblog_of_id === null) {
        const content = renderContent(row);
        if (content) result.set(id, content.entity);
        continue;
      }
      const inner = rows.get(row.reblog_of_id);
      const account = accounts.get(row.account_id);
      const content = inner ? renderContent(inner) : null;
      if (!content || !account) continue;
      const boost = reblogEntity(row, content.entity, account, origin);
      result.set(id, boost);
      if (!texts || !content.textParts) continue;
      const accountText = jsonString(texts.get(account) ?? JSON.stringify(account));
      // The boost's pieces carry the boosted status's counters: its pieces (the same object while unchanged) are an input.
      const inputs = [row.version, accountText, content.textParts];
      const textParts = this.#texts.getOrMake(row.id, inputs, () => statusTextParts(boost, accountText));
      texts.set(boost, statusText(boost, textParts, texts.get(content.entity) ?? JSON.stringify(content.entity)));
    }
    return result;
  }

  /**
   * What the statuses among `shown` that quote another show of it: the quoted status rendered for the viewer (Mastodon's
   * Quote), or only named (ShallowQuote) when these statuses are themselves shown in a quote; the quoted status only
   * while the quote is accepted. One render for them all.
   */
  async #quotes(shown: readonly StatusRow[], viewerId: string | null, options: RenderOptions): Promise<Map<string, StatusQuote>> {
    const quoting = shown.filter((row) => row.quote_uri !== null);
    const result = new Map<string, StatusQuote>();
    if (quoting.length === 0) return result;
    const accepted = (row: StatusRow) => storedQuoteState(row.quote_state) === "accepted";
    const quotedIds = quoting.flatMap((row) => (row.quote_id !== null && accepted(row) ? [row.quote_id] : []));
    const quoted = options.shallowQuotes || quotedIds.length === 0 ? null : await this.render(quotedIds, viewerId, { shallowQuotes: true });
    for (const row of quoting) {
      const state = storedQuoteState(row.quote_state);
      if (state !== "accepted") result.set(row.id, options.shallowQuotes ? { state, quoted_status_id: null } : { state, quoted_status: null });
      // A status quoted but not known here is shown as an accepted quote of nothing, which clients show as unavailable.
      else if (row.quote_id === null) result.set(row.id, options.shallowQuotes ? { state, quoted_status_id: null } : NOT_KNOWN);
      else if (options.shallowQuotes) result.set(row.id, { state, quoted_status_id: row.quote_id });
      else {
        const entity = quoted?.get(row.quote_id);
        result.set(row.id, entity ? { state, quoted_status: entity } : { state: "unauthorized", quoted_status: null });
      }
    }
    return result;
  }

  /** The authors the viewer follows among those of `shown` whose statuses their followers may quote. */
  async #followedForQuotes(shown: readonly StatusRow[], viewerId: string | null): Promise<Set<string>> {
    if (viewerId === null) return new Set();
    const authors = shown.filter((row) => row.quote_policy === "followers" && row.account_id !== viewerId).map((row) => row.account_id);
    return authors.length === 0 ? new Set() : followedAmong(this.deps.storage.db, viewerId, authors);
  }

  /**
   * What `quote_approval.current_user` each signed-in viewer gets for a status, the rest of its entity being the same
   * for all who have not marked it: what a stream sharing one rendering among its viewers sets for each (absent when
   * the status is gone).
   */
  async quoteDecisions(statusId: string, viewerIds: readonly string[]): Promise<Map<string, QuoteApproval["current_user"]>> {
    const [row] = await loadStatusRows(this.deps.storage.db, [statusId]);
    if (!row || viewerIds.length === 0) return new Map();
    const followers =
      row.quote_policy === "followers" ? await followersAmong(this.deps.storage.db, row.account_id, viewerIds) : new Set<string>();
    const status = { ...row, local: readFlag(row.local) };
    return new Map(viewerIds.map((viewerId) => [viewerId, quoteDecision(status, { accountId: viewerId, follows: followers.has(viewerId) })]));
  }

  /** One status for the viewer, or null when it does not exist or may not be seen. */
  async renderOne(id: string, viewerId: string | null, options: RenderOptions = {}): Promise<StatusEntity | null> {
    return (await this.render([id], viewerId, options)).get(id) ?? null;
  }

  /** Statuses in the order of `ids`, those the viewer may not see left out. */
  async renderList(ids: readonly string[], viewerId: string | null, options: RenderOptions = {}): Promise<StatusEntity[]> {
    return inOrder(ids, await this.render(ids, viewerId, options));
  }
}

/** Mastodon's Quote (the quoted status rendered) and ShallowQuote (named by id, inside a quoted status). */
export type StatusQuote =
  | { readonly state: QuoteState; readonly quoted_status: StatusEntity | null }
  | { readonly state: QuoteState; readonly quoted_status_id: string | null };

const NOT_KNOWN: StatusQuote = { state: "accepted", quoted_status: null };

/** The domain of an account's `acct` (`user@domain`), null for a local one. */
function domainOfAcct(acct: string | undefined): string | null {
  const at = acct?.indexOf("@") ?? -1;
  return acct !== undefined && at >= 0 ? acct.slice(at + 1) : null;
}

/** The marks of a post the viewer did nothing to. */
const NO_MARKS: StatusMarks = { favourited: false, reblogged: false, bookmarked: false, pinned: false, muted: false };

/** The marks in the order Mastodon writes them. */
function viewerFlags(marks: StatusMarks) {
  return {
    favourited: marks.favourited,
    reblogged: marks.reblogged,
    muted: marks.muted,
    bookmarked: marks.bookmarked,
    pinned: marks.pinned,
  };
}

function inOrder(ids: readonly string[], rendered: Map<string, StatusEntity>): StatusEntity[] {
  return ids.flatMap((id) => {
    const entity = rendered.get(id);
    return entity ? [entity] : [];
  });
}

/** What a status entity holds beyond its row and author: loaded, or known from what was just written. */
export interface StatusEntityParts {
  readonly media: InnerStatusEntity["media_attachments"];
  readonly application: InnerStatusEntity["application"];
  readonly mentions: InnerStatusEntity["mentions"];
  readonly tags: InnerStatusEntity["tags"];
  readonly poll: InnerStatusEntity["poll"];
  readonly text: string | null;
  /** @default none */
  readonly emojis?: readonly CustomEmojiEntity[];
  /** @default none */
  readonly reactions?: readonly ReactionEntity[];
  /** @default null */
  readonly quote?: StatusQuote | null;
  /** @default null */
  readonly card?: PreviewCardEntity | null;
  /** Who may quote the status, for the viewer. @default nobody */
  readonly quoteApproval?: QuoteApproval;
}

/** A status (not a boost) as its entity, without the viewer's marks: one shape for every renderer of a status. */
export function statusEntityOf(row: StatusRow, account: AccountEntity, origin: string, parts: StatusEntityParts): InnerStatusEntity {
  const urls = readFlag(row.local)
    ? localStatusUrls(origin, account.username, row.id)
    : { uri: row.uri ?? "", url: row.url ?? row.uri ?? "" };
  return {
    id: row.id,
    uri: row.uri ?? urls.uri,
    url: row.url ?? urls.url,
    created_at: row.created_at,
    account,
    content: row.content,
    visibility: row.visibility as Visibility,
    sensitive: readFlag(row.sensitive),
    spoiler_text: row.spoiler_text,
    media_attachments: parts.media,
    application: parts.application,
    mentions: parts.mentions,
    tags: parts.tags,
    emojis: [...(parts.emojis ?? [])],
    reactions: [...(parts.reactions ?? [])],
    reblogs_count: row.reblogs_count,
    favourites_count: row.favourites_count,
    replies_count: row.replies_count,
    quotes_count: row.quotes_count,
    in_reply_to_id: row.in_reply_to_id,
    in_reply_to_account_id: row.in_reply_to_account_id,
    reblog: null,
    poll: parts.poll,
    card: parts.card ?? null,
    language: row.language,
    text: parts.text,
    edited_at: row.edited_at,
    quote: parts.quote ?? null,
    quote_approval: parts.quoteApproval ?? quoteApprovalOf(null, "denied"),
    filtered: [],
  };
}

/** A boost: its own id, author and time, the boosted status nested, the counters and marks of the boosted status. */
function reblogEntity(row: StatusRow, content: InnerStatusEntity, account: AccountEntity, origin: string): StatusEntity {
  const uri = row.uri ?? localReblogUri(origin, account.username, row.id);
  return {
    ...content,
    id: row.id,
    uri,
    url: row.url,
    created_at: row.created_at,
    account,
    visibility: row.visibility as Visibility,
    content: "",
    spoiler_text: "",
    sensitive: false,
    media_attachments: [],
    application: null,
    mentions: [],
    tags: [],
    emojis: [],
    reactions: [],
    poll: null,
    in_reply_to_id: null,
    in_reply_to_account_id: null,
    language: null,
    text: null,
    edited_at: null,
    quote: null,
    reblog: content,
  };
}

/** Mentions in the order the status names them (the table keeps no order). */
export function inTextOrder<T extends { username: string }>(row: StatusRow, mentions: readonly T[]): T[] {
  const haystack = (row.text || row.content).toLowerCase();
  const at = (mention: T) => {
    const index = haystack.indexOf(`@${mention.username.toLowerCase()}`);
    return index < 0 ? Number.MAX_SAFE_INTEGER : index;
  };
  return [...mentions].sort((a, b) => at(a) - at(b));
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group) group.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}
