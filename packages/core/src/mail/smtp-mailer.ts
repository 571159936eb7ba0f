import type { Transporter } from "nodemailer";
import type { MailMessage, Mailer } from "../ports/mail.js";

export interface SmtpMailerOptions {
  /**
   * The SMTP server as a URL: `smtp://user:pass@host:587` (STARTTLS when the
   * server offers it) or `smtps://user:pass@host:465` (TLS from the start).
   * @example "smtps://kith:secret@mail.example:465"
   */
  readonly url: string;
  /** The sender, e.g. `Kith <noreply@social.example>`. */
  readonly from: string;
}

/**
 * The mail port over SMTP with nodemailer: the scale-out adapter beside the
 * embedded dev outbox. One transport per mailer; `close()` ends it.
 */
export class SmtpMailer implements Mailer {
  readonly #url: string;
  readonly #from: string;
  // nodemailer loads with the first mail, not with the server.
  #transport: Promise<Transporter> | null = null;

  constructor(options: SmtpMailerOptions) {
    this.#url = options.url;
    this.#from = options.from;
  }

  async send(message: MailMessage): Promise<void> {
    this.#transport ??= import("nodemailer").then((nodemailer) => nodemailer.default.createTransport(this.#url));
    const transport = await this.#transport;
    await transport.sendMail({
      from: this.#from,
      to: message.to,
      subject: message.subject,
      text: message.text,
      ...(message.html !== undefined && { html: message.html }),
    });
  }

  close(): void {
    // A transport that failed to open has nothing to close.
    void this.#transport?.then(
      (transport) => transport.close(),
      () => {},
    );
    this.#transport = null;
  }
}
