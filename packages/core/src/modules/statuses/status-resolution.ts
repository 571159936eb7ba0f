import type { Context } from "@fedify/fedify";
import { type Object as APObject, isActor } from "@fedify/fedify/vocab";
import type { RemoteStatusResolver } from "../search/search-service.js";
import { findAccountByUri } from "../federation/federation-writes-store.js";
import { findStatusByUri } from "./federated-statuses-store.js";
import type { FederationContextData } from "../../platform/federation/federation-context-data.js";
import type { RemoteActors } from "../federation/remote-actors.js";
import { type RemoteStatusDeps, isIncomingStatusObject, localStatusAt, sameOrigin, storeRemoteStatus } from "./remote-statuses.js";

export interface StatusResolutionOptions extends RemoteStatusDeps {
  /** Stores the remote actors met (checking a new one's handle). */
  readonly actors: RemoteActors;
  readonly context: () => Context<FederationContextData>;
  /** Fetches a remote object (signed by the instance actor, over the safe fetch). */
  readonly lookup: (identifier: string) => Promise<APObject | null>;
  /** Told of every status fetched and stored (its replies are fetched next). */
  readonly resolved?: (statusId: string) => Promise<void>;
}

/**
 * Statuses of other servers found by URL (search with `resolve=true`): a status
 * already known is returned as it is; else it is fetched from its server,
 * and stored when its author (fetched too) is of the same origin and its
 * domain is not blocked.
 */
export function statusResolver(options: StatusResolutionOptions): RemoteStatusResolver {
  const db = options.deps.storage.db;
  return {
    async resolveStatus(url: string): Promise<string | null> {
      if (!URL.canParse(url)) return null;
      const ctx = options.context();
      const known = (await localStatusAt(ctx, db, new URL(url))) ?? (await findStatusByUri(db, url));
      if (known) return known.id;
      if ((await options.services.domainPolicy.policyFor(new URL(url).host)).blocked) return null;
      const object = await options.lookup(url);
      if (!isIncomingStatusObject(object) || !object.id || !object.attributionId || !sameOrigin(object.id, object.attributionId)) return null;
      const stored = await findStatusByUri(db, object.id.href);
      if (stored) return stored.id;
      let author = await findAccountByUri(db, object.attributionId.href);
      if (!author) {
        const actor = await options.lookup(object.attributionId.href);
        if (!actor || !isActor(actor) || actor.id?.href !== object.attributionId.href) return null;
        author = await options.actors.remember(actor);
      }
      if (!author || author.suspended_at !== null) return null;
      const status = await storeRemoteStatus(ctx, options, object, author);
      if (status) await options.resolved?.(status);
      return status;
    },
  };
}
