import { KithError } from "../../domain/errors.js";
import type { FullTagEntity } from "../../mastodon/entities/tag.js";
import type { FeaturedTagName, FeaturedTagSource } from "../accounts/index.js";
import type { TagRecord, TagService } from "../tags/index.js";
import type { ServiceDeps } from "../service-deps.js";
import { featuredTagErrors, featuredTagIds } from "./featured-tag-ids.js";
import type { FeaturedTagRecord, FeaturedTagsStore } from "./featured-tags-store.js";

/** Mastodon's FeaturedTag entity. */
export interface FeaturedTagEntity {
  readonly id: string;
  readonly name: string;
  readonly url: string;
  readonly statuses_count: number;
  /** The day (not the time) of the last status using it, as Mastodon gives it. */
  readonly last_status_at: string | null;
}

/** Suggested hashtags offered, as Mastodon offers them. */
const SUGGESTIONS = 10;

/**
 * The hashtags an account features on its profile: at most the instance's
 * `accounts.max_featured_tags` (ten, as Mastodon), each shown with how often
 * and how lately the account used it.
 */
export class FeaturedTagService implements FeaturedTagSource {
  constructor(
    private readonly deps: ServiceDeps,
    private readonly store: FeaturedTagsStore,
    private readonly tags: TagService,
  ) {}

  /** Features a hashtag; featuring one already featured returns it as it is. */
  async feature(accountId: string, rawName: string): Promise<FeaturedTagEntity> {
    const tag = await this.tags.ensure(rawName);
    await this.#insert(accountId, tag);
    const featured = (await this.store.list(accountId)).find((row) => row.tagId === tag.id);
    if (!featured) throw new KithError(featuredTagErrors["featured_tag.not_found"]);
    return (await this.#render(accountId, [featured]))[0] as FeaturedTagEntity;
  }

  /** `POST /api/v1/tags/{name}/feature`: the same, answered with the tag. */
  async featureTag(accountId: string, rawName: string): Promise<FullTagEntity> {
    const tag = await this.tags.ensure(rawName);
    await this.#insert(accountId, tag);
    return (await this.tags.render([tag], accountId))[0] as FullTagEntity;
  }

  async unfeatureTag(accountId: string, rawName: string): Promise<FullTagEntity> {
    const tag = await this.tags.find(rawName);
    if (!tag) throw new KithError("tag.not_found");
    await this.store.deleteTag(accountId, tag.id);
    return (await this.tags.render([tag], accountId))[0] as FullTagEntity;
  }

  async unfeature(accountId: string, id: string): Promise<void> {
    if (!(await this.store.delete(accountId, id))) throw new KithError(featuredTagErrors["featured_tag.not_found"]);
  }

  /** The hashtags an account features; an account that does not exist, or is suspended, is not found. */
  async ofAccount(accountId: string): Promise<FeaturedTagEntity[]> {
    if (!(await this.store.activeAccount(accountId))) throw new KithError("account.not_found");
    return this.#render(accountId, await this.store.list(accountId));
  }

  /** The hashtags the account used most and does not feature yet. */
  async suggestions(accountId: string): Promise<FullTagEntity[]> {
    const ids = await this.store.mostUsed(accountId, SUGGESTIONS);
    const records = new Map((await this.tags.records(ids)).map((tag) => [tag.id, tag]));
    const ordered = ids.flatMap((id) => {
      const tag = records.get(id);
      return tag ? [tag] : [];
    });
    return this.tags.render(ordered, accountId);
  }

  featuredAmong(accountId: string, tagIds: readonly string[]): Promise<ReadonlySet<string>> {
    return this.store.featuredAmong(accountId, tagIds);
  }

  async featuredNames(accountId: string): Promise<readonly FeaturedTagName[]> {
    return (await this.store.list(accountId)).map((row) => ({ name: row.name, displayName: row.displayName }));
  }

  async #insert(accountId: string, tag: TagRecord): Promise<void> {
    const limit = this.deps.config.limits.accounts.maxFeaturedTags;
    const written = await this.store.insertWithin(
      {
        id: this.deps.ids.next(featuredTagIds.featuredTag),
        account_id: accountId,
        tag_id: tag.id,
        created_at: this.deps.clock.now().toISOString(),
      },
      limit,
    );
    if (written) return;
    // Not written: featured already (nothing to do), or the limit is reached.
    const featured = await this.store.featuredAmong(accountId, [tag.id]);
    if (!featured.has(tag.id)) {
      throw new KithError(featuredTagErrors["featured_tag.limit_reached"], { message: `At most ${limit} hashtags can be featured` });
    }
  }

  async #render(accountId: string, rows: readonly FeaturedTagRecord[]): Promise<FeaturedTagEntity[]> {
    const account = await this.store.activeAccount(accountId);
    const usage = await this.store.usage(
      accountId,
      rows.map((row) => row.tagId),
    );
    const origin = this.deps.config.origin;
    return rows.map((row) => {
      const used = usage.get(row.tagId);
      const profile = account && account.domain === null ? `${origin}/@${account.username}` : null;
      return {
        id: row.id,
        name: row.displayName || row.name,
        url: profile ? `${profile}/tagged/${encodeURIComponent(row.name)}` : `${origin}/tags/${encodeURIComponent(row.name)}`,
        statuses_count: used?.statusesCount ?? 0,
        last_status_at: used?.lastStatusAt ? used.lastStatusAt.slice(0, 10) : null,
      };
    });
  }
}
