import { KithError } from "../../domain/errors.js";
import { getLogger } from "../../logging.js";
import { AnnouncedCache } from "../../platform/cache/announced-cache.js";
import type { RelaySubscriptions } from "../federation/index.js";
import type { ServiceDeps } from "../service-deps.js";
import type { ModuleFederation } from "../module.js";
import { relayErrors, relayIds } from "./relay-ids.js";
import type { RelayAddress } from "./relay-activities.js";
import type { RelayKind, RelayRow, RelayState, RelaysStore } from "./relays-store.js";

const logger = getLogger(["federation", "relays"]);

/** The pubsub channel on which a process announces that a relay's state changed. */
const RELAYS_CHANGED_CHANNEL = "kith:relays-changed";
/** The one key of the kept accepted relays. */
const ACCEPTED = "accepted";

/** The relays that accepted this server's subscription: where public statuses go, and whose Announces pass statuses on. */
interface AcceptedRelays {
  readonly inboxes: readonly string[];
  readonly actors: readonly string[];
}

/** A relay as administrators see it. */
export interface RelayEntity {
  readonly id: string;
  readonly inbox_url: string;
  readonly kind: RelayKind;
  /** The relay's actor: the one followed (LitePub), or the one that answered (Mastodon); null until known. */
  readonly actor_url: string | null;
  readonly state: RelayState;
  readonly created_at: string;
  readonly updated_at: string;
}

/** What to subscribe to: a relay's inbox (Mastodon's kind) or its actor (LitePub's). */
export type RelayTarget = { readonly kind: "mastodon"; readonly inbox: URL } | { readonly kind: "litepub"; readonly actor: URL };

/** Whether an outgoing request may reach an address (the delivery gate's rule, private addresses refused outside test networks). */
export interface RelayAddressCheck {
  admits(url: URL): Promise<boolean>;
}

/** A relay's answer to a Follow: who answered, and the Follow it names. */
export interface RelayAnswer {
  readonly actor: URL | null;
  readonly follow: URL | null;
}

/** The states a subscription is in while it is asked for or held; `enable` starts one, `disable` ends it. */
const SUBSCRIBED: readonly RelayState[] = ["pending", "accepted"];
const UNSUBSCRIBED: readonly RelayState[] = ["idle", "rejected"];

function entityOf(row: RelayRow): RelayEntity {
  return {
    id: row.id,
    inbox_url: row.inbox_url,
    kind: row.kind,
    actor_url: row.actor_uri,
    state: row.state,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/**
 * The relays this server subscribes to, as Mastodon's administrators manage
 * them: adding one subscribes (a Follow from the instance actor, pending
 * until the relay's Accept or Reject), disabling and deleting unsubscribe
 * (its Undo), enabling subscribes again. Once accepted, a relay gets this
 * server's public statuses (the core asks `acceptedInboxes`), and its
 * Announces are statuses passed on, not boosts (`isRelayActor`).
 */
export class RelayService implements RelaySubscriptions {
  /**
   * The accepted relays' inboxes and actors, asked for by every public status
   * sent and every Announce received: kept in each process, forgotten by all
   * when any changes a relay's state.
   */
  readonly #accepted: AnnouncedCache<AcceptedRelays>;

  constructor(
    private readonly deps: Pick<ServiceDeps, "ids" | "clock" | "random" | "pubsub">,
    private readonly store: RelaysStore,
    private readonly federation: ModuleFederation,
    private readonly addresses: RelayAddressCheck,
  ) {
    this.#accepted = new AnnouncedCache(deps.pubsub, deps.clock, { channel: RELAYS_CHANGED_CHANNEL, ttlMs: 60_000, capacity: 1 });
  }

  /** Listens for relays' changes from the start, so the first status sent keeps what it reads. */
  listen(): Promise<void> {
    return this.#accepted.listen();
  }

  async list(): Promise<RelayEntity[]> {
    return (await this.store.list()).map(entityOf);
  }

  async get(id: string): Promise<RelayEntity> {
    return entityOf(await this.#find(id));
  }

  /** Adds a relay and subscribes to it. */
  async add(target: RelayTarget): Promise<RelayEntity> {
    await this.#checkAddress(target.kind === "mastodon" ? target.inbox : target.actor);
    const { inbox, actor } = target.kind === "mastodon" ? { inbox: target.inbox, actor: null } : await this.#relayActor(target.actor);
    const now = this.deps.clock.now().toISOString();
    const row: RelayRow = {
      id: this.deps.ids.next(relayIds.relay),
      inbox_url: inbox.href,
      kind: target.kind,
      actor_uri: actor?.href ?? null,
      state: "idle",
      follow_activity_id: null,
      created_at: now,
      updated_at: now,
    };
    if (!(await this.store.insert(row))) throw new KithError(relayErrors["relay.already_added"]);
    return this.#subscribe(row);
  }

  /** Subscribes again to a relay that is idle or rejected the last subscription. */
  async enable(id: string): Promise<RelayEntity> {
    const relay = await this.#find(id);
    if (!UNSUBSCRIBED.includes(relay.state)) throw new KithError(relayErrors["relay.already_enabled"]);
    return this.#subscribe(relay);
  }

  /** Unsubscribes from a relay, keeping it listed. */
  async disable(id: string): Promise<RelayEntity> {
    const relay = await this.#find(id);
    if (!SUBSCRIBED.includes(relay.state)) throw new KithError(relayErrors["relay.not_enabled"]);
    const change = { state: "idle", follow_activity_id: null, updated_at: this.deps.clock.now().toISOString() } as const;
    if (!(await this.store.change(relay.id, SUBSCRIBED, change))) throw new KithError(relayErrors["relay.not_enabled"]);
    await this.#stateChanged();
    await this.#unsubscribe(relay);
    return entityOf({ ...relay, ...change });
  }

  /** Unsubscribes (if subscribed) and forgets a relay. */
  async remove(id: string): Promise<void> {
    const relay = await this.#find(id);
    if (SUBSCRIBED.includes(relay.state)) await this.#unsubscribe(relay);
    if (!(await this.store.delete(relay.id))) throw new KithError(relayErrors["relay.not_found"]);
    await this.#stateChanged();
  }

  /**
   * A relay answered a Follow this server sent it. Taken only from the relay
   * itself (the actor followed, or for Mastodon's kind an actor of the
   * inbox's origin) and only for the subscription's current Follow: an
   * answer to an older one, or from anyone else, changes nothing.
   */
  async answered(answer: RelayAnswer, state: "accepted" | "rejected"): Promise<void> {
    if (!answer.actor || !answer.follow) return;
    const relay = await this.store.findByFollow(answer.follow.href);
    if (!relay) return;
    if (!speaksFor(relay, answer.actor)) {
      logger.info("Ignored an answer to the Follow of relay {inbox} by {actor}, which is not the relay", {
        inbox: relay.inbox_url,
        actor: answer.actor.href,
      });
      return;
    }
    const from: readonly RelayState[] = state === "accepted" ? ["pending"] : SUBSCRIBED;
    const change = { state, actor_uri: relay.actor_uri ?? answer.actor.href, updated_at: this.deps.clock.now().toISOString() };
    if (!(await this.store.change(relay.id, from, change))) return;
    await this.#stateChanged();
    logger.info("Relay {inbox} {state} the subscription", { inbox: relay.inbox_url, state });
  }

  async acceptedInboxes(): Promise<readonly URL[]> {
    return (await this.#acceptedRelays()).inboxes.map((inbox) => new URL(inbox));
  }

  async isRelayActor(actor: URL): Promise<boolean> {
    return (await this.#acceptedRelays()).actors.includes(actor.href);
  }

  #acceptedRelays(): Promise<AcceptedRelays> {
    return this.#accepted.through(ACCEPTED, () => this.store.addressesIn("accepted"));
  }

  /** Every process reads the accepted relays again; called once a relay's state has changed. */
  #stateChanged(): Promise<void> {
    return this.#accepted.changed();
  }

  async #find(id: string): Promise<RelayRow> {
    const relay = await this.store.find(id);
    if (!relay) throw new KithError(relayErrors["relay.not_found"]);
    return relay;
  }

  async #checkAddress(url: URL): Promise<void> {
    if (!(await this.addresses.admits(url))) throw new KithError(relayErrors["relay.private_address"]);
  }

  /** The relay actor at `url` (fetched, signed by the instance actor) and the inbox to follow it at. */
  async #relayActor(url: URL): Promise<{ inbox: URL; actor: URL }> {
    const { relayActorOf } = await import("./relay-activities.js");
    const found = relayActorOf(await this.federation.lookup(url.href));
    if (!found) throw new KithError(relayErrors["relay.actor_unavailable"]);
    await this.#checkAddress(found.inbox);
    return { inbox: found.inbox, actor: found.id };
  }

  /** Sends a new Follow and marks the relay pending, if it still is where the caller found it. */
  async #subscribe(relay: RelayRow): Promise<RelayEntity> {
    const [ctx, activities] = await Promise.all([this.federation.context(), import("./relay-activities.js")]);
    const follow = activities.relayFollowId(ctx, `${relay.id}/${hex(this.deps.random.bytes(8))}`);
    const change = { state: "pending", follow_activity_id: follow.href, updated_at: this.deps.clock.now().toISOString() } as const;
    if (!(await this.store.change(relay.id, UNSUBSCRIBED, change))) throw new KithError(relayErrors["relay.already_enabled"]);
    await activities.sendRelayFollow(ctx, addressOf(relay, follow.href));
    return entityOf({ ...relay, ...change });
  }

  async #unsubscribe(relay: RelayRow): Promise<void> {
    // A subscription whose Follow was never recorded has nothing to undo.
    if (!relay.follow_activity_id) return;
    const [ctx, activities] = await Promise.all([this.federation.context(), import("./relay-activities.js")]);
    await activities.sendRelayUndo(ctx, addressOf(relay, relay.follow_activity_id));
  }
}

/** Where the activities of a subscription go, and the Follow they are about. */
function addressOf(relay: RelayRow, follow: string): RelayAddress {
  return {
    inbox: new URL(relay.inbox_url),
    actor: relay.kind === "litepub" && relay.actor_uri ? new URL(relay.actor_uri) : null,
    follow: new URL(follow),
  };
}

/** Whether `actor` answers for the relay: its followed actor, or (Mastodon's kind, whose actor is not known before) one of its inbox's origin. */
function speaksFor(relay: RelayRow, actor: URL): boolean {
  if (relay.kind === "litepub") return relay.actor_uri === actor.href;
  return new URL(relay.inbox_url).origin === actor.origin;
}

function hex(bytes: Uint8Array): string {
  return [...bytes].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}
