import type { MailMessage } from "../../ports/mail.js";
import type { SmsMessage } from "../../ports/sms.js";

/**
 * Every text that credential flows send by mail or SMS, in one place, so
 * they can be read, reviewed and translated together.
 */

const minutes = (seconds: number): number => Math.round(seconds / 60);

export interface CodeMailInput {
  readonly to: string;
  readonly username: string;
  readonly code: string;
  readonly ttlSeconds: number;
  readonly instance: string;
}

export function passwordChangeCodeMail(input: CodeMailInput): MailMessage {
  return {
    to: input.to,
    subject: `Your password change code for ${input.instance}`,
    text: [
      `Hello ${input.username},`,
      "",
      `Enter this code to confirm the change of your password: ${input.code}`,
      "",
      `The code works once, for ${minutes(input.ttlSeconds)} minutes. If you did not ask to change your password, someone may know it: sign in and change it.`,
    ].join("\n"),
  };
}

export function passwordRecoveryCodeMail(input: CodeMailInput): MailMessage {
  return {
    to: input.to,
    subject: `Your password recovery code for ${input.instance}`,
    text: [
      `Hello ${input.username},`,
      "",
      `Someone asked to recover the password of your account. Enter this code to set a new one: ${input.code}`,
      "",
      `The code works once, for ${minutes(input.ttlSeconds)} minutes. If it was not you, ignore this mail; your password stays as it is.`,
    ].join("\n"),
  };
}

export function emailLoginCodeMail(input: CodeMailInput): MailMessage {
  return {
    to: input.to,
    subject: `Confirm your sign-in email for ${input.instance}`,
    text: [
      `Hello ${input.username},`,
      "",
      `Enter this code to add this address as a way to sign in: ${input.code}`,
      "",
      `The code works once, for ${minutes(input.ttlSeconds)} minutes. If you did not ask for this, ignore this mail.`,
    ].join("\n"),
  };
}

export interface NoticeMailInput {
  readonly to: string;
  readonly username: string;
  readonly instance: string;
}

export function passwordChangedMail(input: NoticeMailInput & { readonly signedOut: "others" | "all" }): MailMessage {
  return {
    to: input.to,
    subject: `Your password on ${input.instance} was changed`,
    text: [
      `Hello ${input.username},`,
      "",
      "The password of your account was just changed.",
      input.signedOut === "others" ? "Every other session was signed out." : "Every session was signed out; sign in again with the new password.",
      "",
      "If you did not do this, recover your password at once and contact the server's administrators.",
    ].join("\n"),
  };
}

export function smsCode(to: string, code: string, purpose: "current_phone" | "new_phone" | "add_phone", instance: string): SmsMessage {
  const what =
    purpose === "current_phone"
      ? "to confirm this phone before changing your number"
      : purpose === "new_phone"
        ? "to confirm your new phone number"
        : "to add this phone as a way to sign in";
  return { to, body: `${instance}: your code is ${code}. Enter it ${what}. Never share it.` };
}

export function phoneChangedSms(to: string, instance: string): SmsMessage {
  return { to, body: `${instance}: your account's phone number was changed to another number. If it was not you, contact the administrators.` };
}
