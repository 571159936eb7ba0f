/** Outgoing text messages. */
export interface SmsMessage {
  /** E.164 phone number. */
  readonly to: string;
  readonly body: string;
}

export interface SmsSender {
  send(message: SmsMessage): Promise<void>;
}
