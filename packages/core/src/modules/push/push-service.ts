import webPush from "web-push";
import { z } from "zod";
import { KithError } from "../../domain/errors.js";
import { getLogger } from "../../logging.js";
import { SecretBox, UnreadableSecretError } from "../../platform/crypto/secret-box.js";
import { textOfHtml } from "../../platform/federation/html-sanitizer.js";
import { type SafeFetch, createSafeFetch } from "../../platform/federation/safe-fetch.js";
import type { KithServices } from "../core-services.js";
import type { ServiceDeps } from "../service-deps.js";
import { pushErrors, pushIds } from "./push-ids.js";
import { PUSH_POLICIES, type PushPolicy, type PushStore, type PushSubscriptionRow, type VapidKeys } from "./push-store.js";

/** The queue a notification's push to one subscription is sent from. */
export const PUSH_DELIVERY_QUEUE = "push.deliver";

/** What the sealed access token of a subscription is bound to (see SecretBox). */
const ACCESS_TOKEN_PURPOSE = "push_subscriptions.access_token";

/** The notification types a subscription can ask to be pushed, as Mastodon names its alerts. */
export const PUSH_ALERTS = [
  "mention",
  "status",
  "reblog",
  "follow",
  "follow_request",
  "favourite",
  "poll",
  "update",
  "admin.sign_up",
  "admin.report",
] as const;
export type PushAlert = (typeof PUSH_ALERTS)[number];
export type PushAlerts = Record<PushAlert, boolean>;

/** Mastodon's WebPushSubscription entity. */
export const WebPushSubscriptionJson = z.object({
  id: z.string(),
  endpoint: z.string(),
  standard: z.boolean(),
  alerts: z.record(z.string(), z.boolean()),
  policy: z.enum(PUSH_POLICIES),
  /** The instance's VAPID public key (base64url), which the client subscribes the user agent with. */
  server_key: z.string(),
});
export type WebPushSubscriptionEntity = z.infer<typeof WebPushSubscriptionJson>;

export interface NewPushSubscription {
  readonly accountId: string;
  readonly sessionId: string;
  readonly accessToken: string;
  readonly endpoint: string;
  readonly p256dh: string;
  readonly auth: string;
  readonly alerts: Partial<PushAlerts>;
  readonly policy: PushPolicy | undefined;
}

export interface PushChange {
  readonly alerts?: Partial<PushAlerts>;
  readonly policy?: PushPolicy | undefined;
}

/** A job of the delivery queue. */
const DeliveryPayload = z.object({ subscriptionId: z.string(), notificationId: z.string(), recipientId: z.string() });

/** How long a push service keeps a message for an offline user agent: Mastodon's two days. */
const TTL_SECONDS = 48 * 60 * 60;
/** A push message's plaintext is at most 4078 bytes once encrypted with one record (RFC 8291); the body is cut well before. */
const BODY_CHARS = 140;

/** How long the answer to "has the instance any subscription" is kept. */
const ANY_SUBSCRIPTION_TTL_MS = 60_000;

/** Outcomes of one push: sent, the subscription gone (dropped), or worth trying again. */
type Outcome = "sent" | "gone" | "retry" | "refused";

/**
 * Web Push (RFC 8030, 8291, 8292), as Mastodon offers it: each access token
 * may hold one subscription; every notification that reaches its account,
 * of a type its alerts ask for and from an account its policy admits, is
 * encrypted to the user agent's key and posted to the push service from the
 * queue. A push service that answers 404 or 410 has forgotten the
 * subscription, which is dropped.
 */
export class PushService {
  readonly #fetch: SafeFetch;
  #keys: Promise<VapidKeys> | null = null;
  #any: { readonly value: boolean; readonly at: number } | null = null;

  constructor(
    private readonly deps: ServiceDeps,
    private readonly core: KithServices,
    private readonly store: PushStore,
  ) {
    // Push services are other servers: the same guard as federation's fetches, private addresses refused.
    this.#fetch = createSafeFetch({ allowPrivateAddress: deps.config.allowPrivateAddress, maxRedirects: 0, maxBodyBytes: 64_000 });
  }

  #now(): string {
    return this.deps.clock.now().toISOString();
  }

  /**
   * The access token a push carries (the client fetches the notification with it), kept sealed. A subscription made
   * before tokens were sealed holds it as it was given; one no key of the server opens any more is not pushed to.
   */
  #accessToken(subscription: PushSubscriptionRow): string | null {
    if (!SecretBox.isSealed(subscription.access_token)) return subscription.access_token;
    try {
      return this.deps.secrets.open(subscription.access_token, ACCESS_TOKEN_PURPOSE);
    } catch (error) {
      if (!(error instanceof UnreadableSecretError)) throw error;
      getLogger(["push"]).warn("A push subscription's access token no longer opens with the server's secret keys; it is not pushed to");
      return null;
    }
  }

  /** The instance's VAPID pair: made once and kept in the database. */
  vapidKeys(): Promise<VapidKeys> {
    this.#keys ??= (async () => {
      const kept = await this.store.vapidKeys();
      if (kept) return kept;
      const made = webPush.generateVAPIDKeys();
      return this.store.keepVapidKeys({ publicKey: made.publicKey, privateKey: made.privateKey }, this.#now());
    })();
    this.#keys.catch(() => {
      this.#keys = null;
    });
    return this.#keys;
  }

  async subscribe(input: NewPushSubscription): Promise<WebPushSubscriptionEntity> {
    checkEndpoint(input.endpoint);
    checkKeys(input.p256dh, input.auth);
    const now = this.#now();
    await this.store.put({
      id: this.deps.ids.next(pushIds.pushSubscription),
      account_id: input.accountId,
      session_id: input.sessionId,
      endpoint: input.endpoint,
      key_p256dh: input.p256dh,
      key_auth: input.auth,
      alerts: JSON.stringify(alertsOf(input.alerts, {})),
      policy: input.policy ?? "all",
      access_token: this.deps.secrets.seal(input.accessToken, ACCESS_TOKEN_PURPOSE),
      created_at: now,
      updated_at: now,
    });
    this.#any = { value: true, at: Date.now() };
    return this.get(input.sessionId);
  }

  async get(sessionId: string): Promise<WebPushSubscriptionEntity> {
    const row = await this.store.ofSession(sessionId);
    if (!row) throw new KithError(pushErrors["push.not_found"]);
    return this.#entity(row);
  }

  /** Changes the alerts given (the others stay) and the policy. */
  async change(sessionId: string, change: PushChange): Promise<WebPushSubscriptionEntity> {
    const row = await this.store.ofSession(sessionId);
    if (!row) throw new KithError(pushErrors["push.not_found"]);
    await this.store.update(sessionId, {
      alerts: JSON.stringify(alertsOf(change.alerts ?? {}, readAlerts(row.alerts))),
      policy: change.policy ?? row.policy,
      updated_at: this.#now(),
    });
    return this.get(sessionId);
  }

  async unsubscribe(sessionId: string): Promise<void> {
    await this.store.deleteOfSession(sessionId);
  }

  /**
   * Whether the instance has any subscription, read again at most every `ANY_SUBSCRIPTION_TTL_MS`: an instance with
   * none (most, and every test of statements) pays no statement per notification. One made here counts at once; one
   * made in another process, within that time.
   */
  async #anySubscription(): Promise<boolean> {
    const now = Date.now();
    if (this.#any === null || now - this.#any.at > ANY_SUBSCRIPTION_TTL_MS) {
      this.#any = { value: await this.store.anySubscription(), at: now };
    }
    return this.#any.value;
  }

  /** Queues a notification's push to each subscription of its recipient. */
  async notificationAnnounced(recipientId: string, notificationId: string): Promise<void> {
    if (!(await this.#anySubscription())) return;
    const ids = await this.store.idsOfAccount(recipientId, this.#now());
    if (ids.length === 0) return;
    const payloads = ids.map((subscriptionId) => ({ subscriptionId, notificationId, recipientId }));
    if (this.deps.queue.enqueueMany) await this.deps.queue.enqueueMany(PUSH_DELIVERY_QUEUE, payloads);
    else for (const payload of payloads) await this.deps.queue.enqueue(PUSH_DELIVERY_QUEUE, payload);
  }

  /** Works one job of the delivery queue; throws to be tried again when the push service did not take it. */
  async deliver(payload: unknown): Promise<void> {
    const job = DeliveryPayload.safeParse(payload);
    if (!job.success) return;
    const { subscriptionId, notificationId, recipientId } = job.data;
    // Gone, filtered or hidden since: nothing to push.
    const record = await this.core.notifications.get(recipientId, notificationId).catch(() => null);
    if (!record) return;
    const subscription = await this.store.forDelivery(subscriptionId, record.fromAccountId, this.#now());
    if (!subscription || subscription.account_id !== recipientId) return;
    if (!readAlerts(subscription.alerts)[record.type as PushAlert]) return;
    if (!admits(subscription.policy, subscription)) return;
    const accessToken = this.#accessToken(subscription);
    if (accessToken === null) return;
    const [entity] = await this.core.notificationViews.render([record], recipientId);
    if (!entity) return;
    const message = {
      access_token: accessToken,
      preferred_locale: "en",
      notification_id: entity.id,
      notification_type: entity.type,
      icon: entity.account.avatar_static,
      title: titleOf(entity.type, entity.account.display_name || entity.account.username),
      body: bodyOf(entity),
    };
    const outcome = await this.#send(subscription, JSON.stringify(message));
    if (outcome === "gone") await this.store.delete(subscription.id);
    if (outcome === "retry") throw new Error(`The push service of subscription ${subscription.id} did not take the message`);
  }

  async #send(subscription: PushSubscriptionRow, text: string): Promise<Outcome> {
    const keys = await this.vapidKeys();
    const details = webPush.generateRequestDetails(
      { endpoint: subscription.endpoint, keys: { p256dh: subscription.key_p256dh, auth: subscription.key_auth } },
      text,
      {
        vapidDetails: { subject: this.deps.config.origin, publicKey: keys.publicKey, privateKey: keys.privateKey },
        TTL: TTL_SECONDS,
        contentEncoding: "aes128gcm",
        urgency: "normal",
      },
    );
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(details.headers)) headers[name] = String(value);
    let response: Response;
    try {
      response = await this.#fetch(details.endpoint, { method: "POST", headers, body: new Uint8Array(details.body) });
    } catch (error) {
      // A push service on a private address is never reached; trying again would not change that.
      if (error instanceof Error && error.name === "OutgoingFetchError" && "reason" in error && error.reason === "private_address") {
        return "refused";
      }
      return "retry";
    }
    await response.body?.cancel();
    if (response.status === 404 || response.status === 410) return "gone";
    if (response.ok) return "sent";
    return response.status === 429 || response.status >= 500 ? "retry" : "refused";
  }

  async #entity(row: PushSubscriptionRow): Promise<WebPushSubscriptionEntity> {
    return {
      id: row.id,
      endpoint: row.endpoint,
      standard: true,
      alerts: readAlerts(row.alerts),
      policy: (PUSH_POLICIES as readonly string[]).includes(row.policy) ? (row.policy as PushPolicy) : "all",
      server_key: (await this.vapidKeys()).publicKey,
    };
  }
}

function alertsOf(given: Partial<PushAlerts>, before: Partial<PushAlerts>): PushAlerts {
  const alerts = {} as PushAlerts;
  for (const alert of PUSH_ALERTS) alerts[alert] = given[alert] ?? before[alert] ?? false;
  return alerts;
}

function readAlerts(text: string): PushAlerts {
  try {
    const parsed = JSON.parse(text) as Partial<PushAlerts>;
    return alertsOf(parsed, {});
  } catch {
    return alertsOf({}, {});
  }
}

function admits(policy: string, relation: { readonly follows_other: boolean; readonly followed_by_other: boolean }): boolean {
  if (policy === "none") return false;
  if (policy === "followed") return relation.follows_other;
  if (policy === "follower") return relation.followed_by_other;
  return true;
}

function checkEndpoint(endpoint: string): void {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new KithError(pushErrors["push.invalid_subscription"], { message: "The endpoint is not a URL" });
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new KithError(pushErrors["push.invalid_subscription"], { message: "The endpoint is not an HTTP(S) URL" });
  }
}

function decodeBase64Url(text: string): Buffer | null {
  if (!/^[A-Za-z0-9_+/-]+=*$/.test(text)) return null;
  return Buffer.from(text.replace(/-/g, "+").replace(/_/g, "/"), "base64");
}

/** The user agent's key must be an uncompressed P-256 point, its secret 16 bytes (RFC 8291, section 3). */
function checkKeys(p256dh: string, auth: string): void {
  const key = decodeBase64Url(p256dh);
  const secret = decodeBase64Url(auth);
  if (key?.length !== 65 || key[0] !== 0x04) {
    throw new KithError(pushErrors["push.invalid_subscription"], { message: "keys.p256dh is not an uncompressed P-256 public key" });
  }
  if (secret?.length !== 16) {
    throw new KithError(pushErrors["push.invalid_subscription"], { message: "keys.auth is not a 16-byte secret" });
  }
}

function titleOf(type: string, name: string): string {
  switch (type) {
    case "mention":
      return `You were mentioned by ${name}`;
    case "status":
      return `${name} just posted`;
    case "reblog":
      return `${name} boosted your status`;
    case "follow":
      return `${name} is now following you`;
    case "follow_request":
      return `${name} has requested to follow you`;
    case "favourite":
      return `${name} favourited your status`;
    case "poll":
      return "A poll has ended";
    case "update":
      return `${name} edited a status`;
    case "admin.sign_up":
      return `${name} signed up`;
    case "admin.report":
      return `${name} filed a report`;
    default:
      return `New notification from ${name}`;
  }
}

function bodyOf(entity: {
  readonly account: { readonly note: string };
  readonly status: { readonly content: string; readonly spoiler_text: string } | null;
}): string {
  const text = entity.status ? entity.status.spoiler_text || textOfHtml(entity.status.content) : textOfHtml(entity.account.note);
  return text.length > BODY_CHARS ? `${text.slice(0, BODY_CHARS - 1)}…` : text;
}
