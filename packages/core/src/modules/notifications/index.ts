/** What other modules use of notifications: the types they may write, and the extension that adds their fields. */
export { NOTIFICATION_TYPES, type NotificationType, type NotifyOptions, type NotificationRecord } from "./notification-service.js";
export type { ExtendedRecord, NotificationExtension } from "./notification-views.js";
