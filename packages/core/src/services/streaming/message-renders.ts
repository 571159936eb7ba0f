import type { StatusEntity } from "../../api/entities/status.js";
import type { FilterMatcher } from "../filters/filter-matcher.js";
import type { StreamRenderers } from "./stream-connection.js";
import type { StreamSpec } from "./stream-names.js";

/**
 * The renders of one stream message, shared by every connection of this
 * process that hears it: a viewer with a thousand open connections (or
 * tabs, or devices) costs one render of the post, one check of hidden
 * authors, one load of filters, one serialisation. Lives as long as the
 * message is being handled, so nothing it holds can go stale: the next
 * message (an edit, a changed filter) starts from fresh reads.
 */
export class MessageRenders {
  readonly #statuses = new Map<string, Promise<StatusEntity | undefined>>();
  readonly #hidden = new Map<string, Promise<Set<string>>>();
  readonly #filters = new Map<string, Promise<FilterMatcher>>();
  readonly #owned = new Map<string, Promise<object | null>>();
  readonly #json = new WeakMap<object, string>();

  constructor(private readonly renderers: StreamRenderers) {}

  /** The post as the viewer sees it, or undefined when the viewer may not see it. */
  status(statusId: string, viewerId: string | null): Promise<StatusEntity | undefined> {
    return once(this.#statuses, `${viewerId ?? ""} ${statusId}`, async () =>
      (await this.renderers.statuses([statusId], viewerId)).get(statusId),
    );
  }

  hiddenAuthors(viewerId: string, authorIds: readonly string[]): Promise<Set<string>> {
    return once(this.#hidden, `${viewerId} ${authorIds.join(" ")}`, () => this.renderers.hiddenAuthors(viewerId, authorIds));
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

function once<T>(memo: Map<string, Promise<T>>, key: string, load: () => Promise<T>): Promise<T> {
  let promise = memo.get(key);
  if (!promise) {
    promise = load();
    memo.set(key, promise);
  }
  return promise;
}
