import type { Federation } from "@fedify/fedify";
import { Hashtag, Object as APObject } from "@fedify/fedify/vocab";
import type { Kysely } from "kysely";
import type { FederationContextData } from "../../platform/federation/federation-context-data.js";
import type { AccountRow, Database } from "../../ports/storage-schema.js";
import { tagUrl } from "../../mastodon/serializers/status.js";
import type { ProfileFeatures } from "../accounts/profile-features.js";
import { actorUriOf, flag } from "../statuses/notes.js";
import { unsuspendedActors } from "./federation-reads-store.js";

/** Where the actor's featured hashtags are listed (Mastodon's path). */
export const FEATURED_TAGS_PATH = "/users/{identifier}/collections/tags";

/** Where the accounts an actor endorses are listed (Mastodon's path). */
export const ENDORSEMENTS_PATH = "/users/{identifier}/collections/endorsements";

/** Fedify's name of the endorsements collection (a custom collection is registered and looked up by name). */
export const ENDORSEMENTS = "endorsements";

export interface ProfileCollectionDeps {
  readonly db: Kysely<Database>;
  readonly origin: string;
  readonly features: ProfileFeatures;
  /** The local account an actor identifier names, or null. */
  readonly accountFor: (identifier: string) => Promise<AccountRow | null>;
}

/**
 * Serves what an account features on its profile to other servers: its
 * featured hashtags (the actor's `featuredTags`, Hashtag objects with their
 * local page) and the accounts it endorses (actor ids). Both lists are short
 * (ten hashtags, a few accounts), so they are served whole, unpaged, as
 * Mastodon serves them.
 */
export function dispatchProfileCollections(federation: Federation<FederationContextData>, deps: ProfileCollectionDeps): void {
  async function featuredTagsOf(identifier: string): Promise<Hashtag[] | null> {
    const account = await deps.accountFor(identifier);
    if (!account) return null;
    const names = await deps.features.featuredNames(account.id);
    return names.map((tag) => new Hashtag({ name: `#${tag.displayName || tag.name}`, href: new URL(tagUrl(deps.origin, tag.name)) }));
  }

  federation
    .setFeaturedTagsDispatcher(FEATURED_TAGS_PATH, async (_ctx, identifier) => {
      const items = await featuredTagsOf(identifier);
      return items ? { items } : null;
    })
    .setCounter(async (_ctx, identifier) => (await featuredTagsOf(identifier))?.length ?? null);

  async function endorsedOf(identifier: string, serving: boolean): Promise<URL[] | null> {
    const account = await deps.accountFor(identifier);
    if (!account || !deps.features.hasEndorsements) return null;
    // An owner hiding whom they follow hides whom they endorse among them too.
    if (serving && flag(account.hide_collections)) return [];
    const ids = await deps.features.endorsedIds(account.id);
    if (ids.length === 0) return [];
    const rows = await unsuspendedActors(deps.db, ids);
    const byId = new Map(rows.map((row) => [row.id, row]));
    return ids.flatMap((id) => {
      const row = byId.get(id);
      const uri = row ? actorUriOf(deps.origin, row) : null;
      return uri ? [new URL(uri)] : [];
    });
  }

  federation
    // Items are the actors' ids: Fedify lists a URL item as it is.
    .setCollectionDispatcher(ENDORSEMENTS, APObject, ENDORSEMENTS_PATH, async (ctx, values) => {
      const items = await endorsedOf(values.identifier, ctx.data.serving);
      return items ? { items: items as unknown as APObject[] } : null;
    })
    .setCounter(async (ctx, values) => (await endorsedOf(values.identifier, ctx.data.serving))?.length ?? null);
}
