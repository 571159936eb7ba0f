import { defineModule } from "../module.js";
import { pushMigrations } from "./migrations.js";
import { PUSH_DELIVERY_QUEUE, PushService } from "./push-service.js";
import { PushStore } from "./push-store.js";
import { pushRoutes } from "./routes.js";

export type { PushService, WebPushSubscriptionEntity } from "./push-service.js";

/**
 * Web Push, Mastodon's `/api/v1/push/subscription`: notifications pushed,
 * encrypted (RFC 8291, aes128gcm) and signed with the instance's VAPID key
 * (RFC 8292), to the push services of the users' browsers and apps.
 */
export const pushModule = defineModule({
  name: "push",
  migrations: pushMigrations,
  services: ({ deps, core }) => {
    const push = new PushService(deps, core, new PushStore(deps.storage));
    core.notifications.onAnnounced((recipientId, notificationId) => push.notificationAnnounced(recipientId, notificationId));
    core.instance.bindVapidKey(async () => (await push.vapidKeys()).publicKey);
    return push;
  },
  routes: pushRoutes,
  jobs: (push) => [
    {
      queue: PUSH_DELIVERY_QUEUE,
      options: { concurrency: 4, description: "Pushes a notification to one Web Push subscription" },
      handler: (payload) => push.deliver(payload),
    },
  ],
});
