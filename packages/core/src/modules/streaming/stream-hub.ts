import type { PubSub } from "../../ports/pubsub.js";
import type { StreamMessage } from "./channels.js";
import { MessageRenders } from "./message-renders.js";
import type { StreamRenderers } from "./stream-connection.js";

/** Told each message of a channel, with the renders shared by every connection that hears it. */
export type HubListener = (message: StreamMessage, renders: MessageRenders) => void;

interface Channel {
  readonly listeners: Set<HubListener>;
  readonly subscribed: Promise<() => Promise<void>>;
}

/**
 * The pubsub channels this process's stream connections listen on: one
 * subscription per channel however many connections share it, and one
 * `MessageRenders` per message, so connections of the same viewer render a
 * message once between them.
 */
export class StreamHub {
  readonly #channels = new Map<string, Channel>();

  constructor(
    private readonly pubsub: PubSub,
    private readonly renderers: StreamRenderers,
  ) {}

  /** Listens on a channel; the returned function stops listening. */
  async listen(name: string, listener: HubListener): Promise<() => Promise<void>> {
    let channel = this.#channels.get(name);
    if (!channel) {
      const listeners = new Set<HubListener>();
      const subscribed = this.pubsub.subscribe(name, (message) => {
        const renders = new MessageRenders(this.renderers);
        for (const heard of [...listeners]) heard(message as StreamMessage, renders);
      });
      channel = { listeners, subscribed };
      this.#channels.set(name, channel);
    }
    const joined = channel;
    joined.listeners.add(listener);
    try {
      await joined.subscribed;
    } catch (error) {
      joined.listeners.delete(listener);
      if (this.#channels.get(name) === joined) this.#channels.delete(name);
      throw error;
    }
    return async () => {
      if (!joined.listeners.delete(listener) || joined.listeners.size > 0) return;
      if (this.#channels.get(name) === joined) this.#channels.delete(name);
      await (await joined.subscribed)();
    };
  }

  /** Channels this process is subscribed to (for tests and operators). */
  get channels(): number {
    return this.#channels.size;
  }
}
