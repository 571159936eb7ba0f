import type { StatusEntity } from "../../mastodon/entities/status.js";
import type { FilterMatcher } from "../filters/filter-matcher.js";
import type { QuoteDecision, StreamRenderers } from "./stream-connection.js";
import type { StreamSpec } from "./stream-names.js";

/**
 * The renders of one stream message, shared by every connection of this
 * process that hears it: a viewer with a thousand open connections (or
 * tabs, or devices) costs one render of the status, one check of hidden
 * authors, one load of filters, one serialisation; a thousand viewers of a
 * public status cost one render and one query for their marks. Lives as long
 * as the message is being handled, so nothing it holds can go stale: the
 * next message (an edit, a changed filter) starts from fresh reads.
 */
export class MessageRenders {
  readonly #statuses = new Map<string, Promise<StatusEntity | undefined>>();
  readonly #hidden = new Map<string, Promise<Set<string>>>();
  readonly #filters = new Map<string, Promise<FilterMatcher>>();
  readonly #owned = new Map<string, Promise<object | null>>();
  readonly #json = new WeakMap<object, string>();
  readonly #batches = new Map<string, TurnBatch<Map<string, StatusEntity | undefined>>>();
  readonly #hiddenBatches = new Map<string, TurnBatch<Map<string, Set<string>>>>();

  constructor(private readonly renderers: StreamRenderers) {}

  /**
   * The post as the viewer sees it, or undefined when the viewer may not see
   * it. The caller still checks the viewer's hidden authors: a status shared
   * between viewers is the guests' rendering, which does not know of blocks.
   */
  status(statusId: string, viewerId: string | null): Promise<StatusEntity | undefined> {
    return once(this.#statuses, `${viewerId ?? ""} ${statusId}`, () =>
      viewerId === null ? this.#renderFor(statusId, null) : this.#batched(statusId, viewerId),
    );
  }

  async #renderFor(statusId: string, viewerId: string | null): Promise<StatusEntity | undefined> {
    return (await this.renderers.statuses([statusId], viewerId)).get(statusId);
  }

  /** Signed-in viewers asking for the post in the same turn of the event loop are rendered together. */
  #batched(statusId: string, viewerId: string): Promise<StatusEntity | undefined> {
    return joinTurnBatch(this.#batches, statusId, viewerId, (viewers) => this.#renderBatch(statusId, viewers)).then((entities) =>
      entities.get(viewerId),
    );
  }

  /**
   * A public or unlisted status (not a boost, no poll) looks the same to every
   * viewer who has not marked it: the guests' rendering with the marks unset.
   * It is rendered once for them all; the few who favourited, boosted,
   * bookmarked or pinned it, or muted its thread, get their own rendering.
   */
  async #renderBatch(statusId: string, viewerIds: readonly string[]): Promise<Map<string, StatusEntity | undefined>> {
    const shared = await this.status(statusId, null);
    const shareable = shared !== undefined && shared.reblog === null && shared.poll === null && PUBLIC.has(shared.visibility);
    const own = shareable ? await this.renderers.viewersWithMarks(statusId, viewerIds) : new Set(viewerIds);
    const decisions = shareable
      ? await this.renderers.quoteDecisions(
          statusId,
          viewerIds.filter((id) => !own.has(id)),
        )
      : new Map<string, QuoteDecision>();
    // One object per answer to "may I quote it" (a handful at most), so each is still serialised once for all its viewers.
    const unmarked = new Map<QuoteDecision, StatusEntity>();
    const unmarkedFor = (viewerId: string): StatusEntity | undefined => {
      if (!shareable) return undefined;
      const decision = decisions.get(viewerId) ?? shared.quote_approval.current_user;
      let entity = unmarked.get(decision);
      if (entity === undefined) {
        entity = { ...shared, ...NO_MARKS, quote_approval: { ...shared.quote_approval, current_user: decision } };
        unmarked.set(decision, entity);
      }
      return entity;
    };
    const entries = await Promise.all(
      viewerIds.map(
        async (viewerId) => [viewerId, own.has(viewerId) ? await this.#renderFor(statusId, viewerId) : unmarkedFor(viewerId)] as const,
      ),
    );
    return new Map(entries);
  }

  /** Of these authors, those the viewer does not want to see; viewers asking in the same turn of the event loop are checked together. */
  hiddenAuthors(viewerId: string, authorIds: readonly string[]): Promise<Set<string>> {
    const authors = authorIds.join(" ");
    return once(this.#hidden, `${viewerId} ${authors}`, () =>
      joinTurnBatch(this.#hiddenBatches, authors, viewerId, (viewers) => this.renderers.hiddenAuthors(viewers, authorIds)).then(
        (hidden) => hidden.get(viewerId) ?? new Set<string>(),
      ),
    );
  }

  filters(viewerId: string, context: StreamSpec["filterContext"]): Promise<FilterMatcher> {
    return once(this.#filters, `${viewerId} ${context}`, () => this.renderers.filters(viewerId, context));
  }

  notification(viewerId: string, notificationId: string): Promise<object | null> {
    return once(this.#owned, `n ${viewerId} ${notificationId}`, () => this.renderers.notification(viewerId, notificationId));
  }

  conversation(viewerId: string, conversationId: string): Promise<object | null> {
    return once(this.#owned, `c ${viewerId} ${conversationId}`, () => this.renderers.conversation(viewerId, conversationId));
  }

  /** The entity as JSON; the same object (the same render, no filter result added) is serialised once. */
  json(entity: object): string {
    let text = this.#json.get(entity);
    if (text === undefined) {
      text = JSON.stringify(entity);
      this.#json.set(entity, text);
    }
    return text;
  }
}

const PUBLIC: ReadonlySet<string> = new Set(["public", "unlisted"]);

/** A viewer's marks on a status they have done nothing to, in the order the REST API renders them. */
const NO_MARKS = { favourited: false, reblogged: false, muted: false, bookmarked: false, pinned: false } as const;

/** The viewers asking for the same thing in one turn of the event loop, answered by one call for them all. */
interface TurnBatch<R> {
  readonly viewers: Set<string>;
  readonly answered: Promise<R>;
}

/** Adds the viewer to this turn's batch for `key` (starting one if there is none) and returns the batch's answer. */
function joinTurnBatch<R>(
  batches: Map<string, TurnBatch<R>>,
  key: string,
  viewerId: string,
  answer: (viewerIds: string[]) => Promise<R>,
): Promise<R> {
  let batch = batches.get(key);
  if (!batch) {
    const viewers = new Set<string>();
    const answered = nextTurn().then(() => {
      // Later askers start a batch of their own.
      batches.delete(key);
      return answer([...viewers]);
    });
    batch = { viewers, answered };
    batches.set(key, batch);
  }
  batch.viewers.add(viewerId);
  return batch.answered;
}

/** Resolves after the connections that heard a message in this turn of the event loop have asked for what they need. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

function once<T>(memo: Map<string, Promise<T>>, key: string, load: () => Promise<T>): Promise<T> {
  let promise = memo.get(key);
  if (!promise) {
    promise = load();
    memo.set(key, promise);
  }
  return promise;
}
