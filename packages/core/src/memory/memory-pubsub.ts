import type { PubSub, PubSubListener } from "../ports/pubsub.js";

/** In-process fan-out; messages are cloned so subscribers never share objects with the publisher. */
export class MemoryPubSub implements PubSub {
  readonly #channels = new Map<string, Set<PubSubListener>>();

  async publish(channel: string, message: unknown): Promise<void> {
    const listeners = this.#channels.get(channel);
    if (!listeners) return;
    const text = JSON.stringify(message);
    for (const listener of [...listeners]) listener(JSON.parse(text));
  }

  async subscribe(channel: string, listener: PubSubListener): Promise<() => Promise<void>> {
    let listeners = this.#channels.get(channel);
    if (!listeners) {
      listeners = new Set();
      this.#channels.set(channel, listeners);
    }
    listeners.add(listener);
    return async () => {
      listeners.delete(listener);
      if (listeners.size === 0) this.#channels.delete(channel);
    };
  }

  async close(): Promise<void> {
    this.#channels.clear();
  }
}
