import type { FeaturedTagSource } from "../accounts/profile-features.js";
import type { FullTagEntity } from "../../mastodon/entities/tag.js";
import { KithError } from "../../domain/errors.js";
import {
  deleteTagFollow,
  ensureTag,
  findTagByName,
  findTagsByIds,
  followedTagIds,
  insertTagFollow,
  listTagFollows,
  type TagRecord,
  tagFollowerIdsOfStatus,
} from "./tags-store.js";
import type { ServiceDeps } from "../service-deps.js";
import { tagHistories } from "./tag-history.js";
import { displayTagName, normalizeTagName } from "./tag-names.js";

export interface TagPage {
  readonly limit: number;
  readonly maxId?: string;
  readonly minId?: string;
  readonly sinceId?: string;
}

/** Hashtags as Mastodon shows them (with a week of history), and the tags people follow. */
export class TagService {
  constructor(
    private readonly deps: ServiceDeps,
    /** Which tags the viewer features on their profile (Tag's `featuring`). */
    private readonly featuredTags: Pick<FeaturedTagSource, "featuredAmong">,
  ) {}

  /** Tags as entities: the week's history for each and, for a signed-in viewer, whether they follow it. */
  async render(tags: readonly TagRecord[], viewerId: string | null): Promise<FullTagEntity[]> {
    const ids = tags.map((tag) => tag.id);
    const [histories, followed, featured] = await Promise.all([
      tagHistories(this.deps.storage.db, ids, this.deps.clock.now()),
      viewerId ? followedTagIds(this.deps.storage.db, viewerId, ids) : Promise.resolve(null),
      viewerId ? this.featuredTags.featuredAmong(viewerId, ids) : Promise.resolve(null),
    ]);
    return tags.map((tag) => ({
      id: tag.id,
      name: tag.displayName || tag.name,
      url: `${this.deps.config.origin}/tags/${encodeURIComponent(tag.name)}`,
      history: histories.get(tag.id) ?? [],
      ...(followed && { following: followed.has(tag.id), featuring: featured?.has(tag.id) ?? false }),
    }));
  }

  async get(rawName: string, viewerId: string | null): Promise<FullTagEntity> {
    const name = normalizeTagName(rawName);
    const tag = name ? await findTagByName(this.deps.storage.db, name) : null;
    if (!tag) throw new KithError("tag.not_found");
    return (await this.render([tag], viewerId))[0] as FullTagEntity;
  }

  /**
   * The tag of a name as a person wrote it, made when nobody used it yet
   * (featuring a tag, like following one, may come first); `tag.invalid`
   * when the name is not a hashtag.
   */
  async ensure(rawName: string): Promise<TagRecord> {
    const name = normalizeTagName(rawName);
    if (!name) throw new KithError("tag.invalid");
    const now = this.deps.clock.now().toISOString();
    return ensureTag(this.deps.storage.db, { id: this.deps.ids.next("tag"), name, displayName: displayTagName(rawName), now });
  }

  /** Tags by id, in no particular order; unknown ids left out. */
  async records(ids: readonly string[]): Promise<TagRecord[]> {
    return findTagsByIds(this.deps.storage.db, ids);
  }

  /** The tag of a name as a person wrote it, or null when there is none. */
  async find(rawName: string): Promise<TagRecord | null> {
    const name = normalizeTagName(rawName);
    return name ? findTagByName(this.deps.storage.db, name) : null;
  }

  /** Follows a tag (made on first follow, as Mastodon does); following twice changes nothing. */
  async follow(accountId: string, rawName: string): Promise<FullTagEntity> {
    const name = normalizeTagName(rawName);
    if (!name) throw new KithError("tag.invalid");
    const now = this.deps.clock.now().toISOString();
    const tag = await ensureTag(this.deps.storage.db, { id: this.deps.ids.next("tag"), name, displayName: displayTagName(rawName), now });
    await insertTagFollow(this.deps.storage.db, { id: this.deps.ids.next("tagFollow"), accountId, tagId: tag.id, now });
    return (await this.render([tag], accountId))[0] as FullTagEntity;
  }

  async unfollow(accountId: string, rawName: string): Promise<FullTagEntity> {
    const name = normalizeTagName(rawName);
    const tag = name ? await findTagByName(this.deps.storage.db, name) : null;
    if (!tag) throw new KithError("tag.not_found");
    await deleteTagFollow(this.deps.storage.db, accountId, tag.id);
    return (await this.render([tag], accountId))[0] as FullTagEntity;
  }

  /**
   * Local readers following a hashtag of the status (the author excepted). Home
   * fan-out gives public statuses to these as well as to followers; the
   * visibility and hiding rules are the fan-out's to apply.
   */
  followersOfStatusTags(statusId: string): Promise<string[]> {
    return tagFollowerIdsOfStatus(this.deps.storage.db, statusId);
  }

  /** A page of followed tags; each carries the follow's id as its cursor. */
  async followed(accountId: string, page: TagPage): Promise<{ cursor: string; tag: FullTagEntity }[]> {
    const rows = await listTagFollows(this.deps.storage.db, accountId, page);
    const rendered = await this.render(
      rows.map((row) => row.tag),
      accountId,
    );
    return rows.map((row, i) => ({ cursor: row.followId, tag: rendered[i] as FullTagEntity }));
  }
}
