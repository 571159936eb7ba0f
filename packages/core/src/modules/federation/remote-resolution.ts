import type { Context } from "@fedify/fedify";
import { type Object as APObject, type Collection, Flag, isActor } from "@fedify/fedify/vocab";
import { getLogger } from "../../logging.js";
import type { ServiceDeps } from "../service-deps.js";
import type { FlagInput, RemoteCollection, RemoteDirectory } from "./remote-directory.js";
import type { KithServices } from "../core-services.js";
import { findLocalActorAccount } from "./federation-reads-store.js";
import { findAccountById } from "../accounts/accounts-store.js";
import { accountIdsByUris } from "./remote-graph-store.js";
import { INSTANCE_ACTOR_IDENTIFIER } from "./actors.js";
import { collectionItemIds } from "../../platform/federation/collection-items.js";
import type { FederationContextData } from "../../platform/federation/federation-context-data.js";
import { recipientOf } from "./recipients.js";
import type { RemoteActors } from "./remote-actors.js";

const logger = getLogger(["federation", "resolution"]);

/** Collection pages walked to reach an offset before giving up (a server paging one item at a time). */
const MAX_PAGES = 200;
/** Unknown actors of a collection page fetched at once. */
const FETCH_CONCURRENCY = 8;

export interface RemoteResolutionDeps {
  readonly deps: Pick<ServiceDeps, "storage" | "ids" | "clock">;
  /** Stores the remote actors met (checking a new one's handle). */
  readonly actors: RemoteActors;
  readonly services: Pick<KithServices, "domainPolicy">;
  readonly context: () => Context<FederationContextData>;
  /** Fetches an object by handle or URL, signed by the instance actor. */
  readonly lookup: (identifier: string) => Promise<APObject | null>;
}

/** What services ask of other servers, done with Fedify: resolving actors, reading their collections, sending Flags. */
export function createRemoteDirectory(options: RemoteResolutionDeps): RemoteDirectory {
  const { deps, context, lookup } = options;
  const db = deps.storage.db;

  async function allowed(host: string): Promise<boolean> {
    return !(await options.services.domainPolicy.policyFor(host)).blocked;
  }

  async function resolveAccount(identifier: string): Promise<string | null> {
    const object = await lookup(identifier);
    if (!object || !isActor(object) || !object.id) return null;
    const local = context().parseUri(object.id);
    if (local?.type === "actor") return (await findLocalActorAccount(db, local.identifier))?.id ?? null;
    if (!(await allowed(object.id.host))) return null;
    return (await options.actors.remember(object))?.id ?? null;
  }

  async function collectionPage(
    actorUri: string,
    which: RemoteCollection,
    range: { offset: number; limit: number },
  ): Promise<string[] | null> {
    const ctx = context();
    const documentLoader = await ctx.getDocumentLoader({ identifier: INSTANCE_ACTOR_IDENTIFIER });
    const actor = await lookup(actorUri);
    if (!actor || !isActor(actor)) return null;
    let collection: Collection | null;
    try {
      collection = which === "followers" ? await actor.getFollowers({ documentLoader }) : await actor.getFollowing({ documentLoader });
    } catch (error) {
      logger.debug("The {which} of {actor} could not be read: {error}", { which, actor: actorUri, error });
      return null;
    }
    if (!collection) return null;
    const wanted = range.offset + range.limit;
    const uris = (await collectionItemIds(collection, { wanted, maxPages: MAX_PAGES }, documentLoader))
      .slice(range.offset)
      .map((uri) => uri.href);
    const known = await accountIdsByUris(db, uris);
    const ids = new Map<string, string | null>();
    for (const uri of uris) {
      const local = ctx.parseUri(new URL(uri));
      if (local?.type === "actor") ids.set(uri, (await findLocalActorAccount(db, local.identifier))?.id ?? null);
      else if (known.has(uri)) ids.set(uri, known.get(uri) ?? null);
    }
    const unknown = uris.filter((uri) => !ids.has(uri));
    for (let start = 0; start < unknown.length; start += FETCH_CONCURRENCY) {
      const batch = unknown.slice(start, start + FETCH_CONCURRENCY);
      const resolved = await Promise.all(batch.map((uri) => resolveAccount(uri).catch(() => null)));
      for (const [index, uri] of batch.entries()) ids.set(uri, resolved[index] ?? null);
    }
    return uris.map((uri) => ids.get(uri) ?? null).filter((id): id is string => id !== null);
  }

  async function sendFlag(flag: FlagInput): Promise<void> {
    const target = await findAccountById(db, flag.targetAccountId);
    if (!target?.uri) throw new Error(`No remote account ${flag.targetAccountId}`);
    const ctx = context();
    const instance = ctx.getActorUri(INSTANCE_ACTOR_IDENTIFIER);
    const activity = new Flag({
      id: new URL(`${instance.href}#flags/${crypto.randomUUID()}`),
      actor: instance,
      objects: [new URL(target.uri), ...flag.statusUris.filter((uri) => URL.canParse(uri)).map((uri) => new URL(uri))],
      content: flag.comment,
    });
    await ctx.sendActivity({ identifier: INSTANCE_ACTOR_IDENTIFIER }, recipientOf(target), activity, { preferSharedInbox: true });
  }

  return { resolveAccount, collectionPage, sendFlag };
}
