import type { SmsMessage, SmsSender } from "../ports/sms.js";

export interface HttpSmsSenderOptions {
  /** Where each message is POSTed as JSON `{ "to": "+15551234567", "body": "..." }`. */
  readonly url: string;
  /** Sent as `Authorization: Bearer <token>`. */
  readonly token: string;
  /** Milliseconds before a request is abandoned. @default 10000 */
  readonly timeoutMs?: number;
  /** The fetch to use (tests, proxies). @default globalThis.fetch */
  readonly fetch?: typeof fetch;
}

/**
 * The SMS port over an HTTP provider: one JSON POST per message with a
 * bearer token. Most gateways accept this shape directly or through a small
 * relay. A non-2xx answer throws, so the caller sees that the code did not go out.
 */
export class HttpSmsSender implements SmsSender {
  readonly #options: HttpSmsSenderOptions;

  constructor(options: HttpSmsSenderOptions) {
    this.#options = options;
  }

  async send(message: SmsMessage): Promise<void> {
    const doFetch = this.#options.fetch ?? globalThis.fetch;
    const response = await doFetch(this.#options.url, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${this.#options.token}` },
      body: JSON.stringify({ to: message.to, body: message.body }),
      signal: AbortSignal.timeout(this.#options.timeoutMs ?? 10_000),
    });
    // Drained either way, so the connection can be reused. The answer's text is
    // not kept: providers echo the message, and the message holds a code.
    await response.arrayBuffer().catch(() => undefined);
    if (!response.ok) throw new Error(`SMS provider answered ${response.status}`);
  }
}
