/**
 * The pubsub channels streaming listens on, and what is published on them.
 * Messages carry ids, not rendered entities: each connection renders for its
 * own viewer (visibility, filters, mutes), in whichever process holds it.
 */
export type StreamMessage =
  | { readonly event: "update"; readonly statusId: string }
  | { readonly event: "status.update"; readonly statusId: string }
  | { readonly event: "delete"; readonly statusId: string }
  | { readonly event: "notification"; readonly notificationId: string }
  | { readonly event: "conversation"; readonly conversationId: string }
  | { readonly event: "filters_changed" };

export const streamChannels = {
  /** A user's home timeline entries, notifications and filter changes. */
  user: (accountId: string) => `stream:user:${accountId}`,
  /** Public statuses; `local` and `remote` variants filter on the message's status. */
  public: () => "stream:public",
  hashtag: (name: string) => `stream:hashtag:${name.toLowerCase()}`,
  list: (listId: string) => `stream:list:${listId}`,
  /** A group's statuses (Kith's `group` stream), published by the groups module. */
  group: (groupId: string) => `stream:group:${groupId}`,
  /** The statuses of one channel of a group (Kith's `channel` stream), published by the groups module. */
  channel: (channelId: string) => `stream:channel:${channelId}`,
  /** Direct conversations of one user. */
  direct: (accountId: string) => `stream:direct:${accountId}`,
  /** Deletions go to every connection: clients drop ids they do not show. */
  deletes: () => "stream:deletes",
} as const;
