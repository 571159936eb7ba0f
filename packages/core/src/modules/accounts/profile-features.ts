/** What the endorsements module answers the core: whom an account features on its profile. */
export interface EndorsementSource {
  /** Of `targetIds`, those `accountId` endorses (one query for a whole list of relationships). */
  endorsedAmong(accountId: string, targetIds: readonly string[]): Promise<ReadonlySet<string>>;
  /** The accounts `accountId` endorses, newest first, as the actor's collection lists them. */
  endorsedIds(accountId: string): Promise<readonly string[]>;
}

export interface FeaturedTagName {
  readonly name: string;
  readonly displayName: string;
}

/** What the featured-tags module answers the core: which hashtags an account features on its profile. */
export interface FeaturedTagSource {
  /** Of `tagIds`, those `accountId` features. */
  featuredAmong(accountId: string, tagIds: readonly string[]): Promise<ReadonlySet<string>>;
  /** The hashtags `accountId` features (`name` normalised, `displayName` as written), as the actor's collection lists them. */
  featuredNames(accountId: string): Promise<readonly FeaturedTagName[]>;
}

/**
 * What the profile-feature modules (endorsements, featured hashtags) tell the
 * social core: relationships carry `endorsed`, tags carry `featuring`, and the
 * actor's collections list them. Without those modules nothing is featured.
 */
export class ProfileFeatures implements EndorsementSource, FeaturedTagSource {
  #endorsements: EndorsementSource | null = null;
  #featuredTags: FeaturedTagSource | null = null;

  bindEndorsements(source: EndorsementSource): void {
    this.#endorsements = source;
  }

  bindFeaturedTags(source: FeaturedTagSource): void {
    this.#featuredTags = source;
  }

  /** Whether an endorsements module answers: the actor's endorsements collection is served only then. */
  get hasEndorsements(): boolean {
    return this.#endorsements !== null;
  }

  async endorsedAmong(accountId: string, targetIds: readonly string[]): Promise<ReadonlySet<string>> {
    return this.#endorsements && targetIds.length > 0 ? this.#endorsements.endorsedAmong(accountId, targetIds) : new Set();
  }

  async endorsedIds(accountId: string): Promise<readonly string[]> {
    return this.#endorsements ? this.#endorsements.endorsedIds(accountId) : [];
  }

  async featuredAmong(accountId: string, tagIds: readonly string[]): Promise<ReadonlySet<string>> {
    return this.#featuredTags && tagIds.length > 0 ? this.#featuredTags.featuredAmong(accountId, tagIds) : new Set();
  }

  async featuredNames(accountId: string): Promise<readonly FeaturedTagName[]> {
    return this.#featuredTags ? this.#featuredTags.featuredNames(accountId) : [];
  }
}
