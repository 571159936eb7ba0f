/** Fan-out of messages between the parts of a server (streaming, cache invalidation). */
export type PubSubListener = (message: unknown) => void;

export interface PubSub {
  /** Delivers `message` (JSON-serialisable) to every current subscriber of `channel`, in any process. */
  publish(channel: string, message: unknown): Promise<void>;
  /** Listens on a channel; the returned function stops listening. */
  subscribe(channel: string, listener: PubSubListener): Promise<() => Promise<void>>;
  close(): Promise<void>;
}
