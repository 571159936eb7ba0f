import nodemailer from "nodemailer";
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
  readonly #transport: nodemailer.Transporter;
  readonly #from: string;

  constructor(options: SmtpMailerOptions) {
    this.#transport = nodemailer.createTransport(options.url);
    this.#from = options.from;
  }

  async send(message: MailMessage): Promise<void> {
    await this.#transport.sendMail({
      from: this.#from,
      to: message.to,
      subject: message.subject,
      text: message.text,
      ...(message.html !== undefined && { html: message.html }),
    });
  }

  close(): void {
    this.#transport.close();
  }
}
